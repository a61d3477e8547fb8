"""Reading an ITF trace (`trace.itf.json`) tolerantly: the run a counterexample is about, and its path."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from verifier.runtime.strict_json import loads
from verifier.writers.itf import OPTIONAL


def plain(value):
    """ITF values (`#map`, `#tup`, `#set`, `#bigint`) as plain Python values."""
    if isinstance(value, dict):
        if "#map" in value:
            return {_key(k): plain(v) for k, v in value["#map"]}
        if "#tup" in value:
            return [plain(v) for v in value["#tup"]]
        if "#set" in value:
            return [plain(v) for v in value["#set"]]
        if "#bigint" in value:
            return int(value["#bigint"])
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _key(k):
    k = plain(k)
    return k if isinstance(k, (str, int, float, bool)) or k is None else json.dumps(k, sort_keys=True)


@dataclass
class Step:
    index: int
    action: str
    actor: str
    note: str
    args: dict
    changes: list[str]
    state: dict                            # the variables after the step, plain


@dataclass
class Trace:
    meta: dict
    steps: list[Step]                      # steps[0] is the initial state (action "init")
    source: str = ""
    loop: int | None = None                # a lasso's loop-back state, None for a finite trace

    @property
    def ids(self) -> list[str]:
        ids = self.meta.get("ids") or []
        return [ids] if isinstance(ids, str) else list(ids)

    def runs(self, i: int) -> dict:
        v = self.steps[i].state.get("runs") or {}
        return v if isinstance(v, dict) else {}

    def run_label(self, run_id: str) -> str:
        for s in reversed(self.steps):
            rec = (s.state.get("runs") or {}).get(run_id)
            if isinstance(rec, dict) and rec.get("label"):
                return str(rec["label"])
        return run_id

    def focus_run(self) -> str | None:
        """The run the violation is about: `#meta.focus_run`, else the last run whose status changed."""
        focus = self.meta.get("focus_run")
        all_runs = [rid for s in self.steps for rid in (s.state.get("runs") or {})]
        if focus in all_runs:
            return focus
        if isinstance(focus, str):   # the writer may have recorded the run's label
            for rid in all_runs:
                if self.run_label(rid) == focus:
                    return rid
        last = None
        for i in range(1, len(self.steps)):
            before, after = self.runs(i - 1), self.runs(i)
            for rid, rec in after.items():
                if (before.get(rid) or {}).get("status") != (rec or {}).get("status"):
                    last = rid
        return last or (all_runs[0] if all_runs else None)

    def status_path(self, run_id: str | None) -> list[tuple[int, str]]:
        """(step index, status) each time the run's status changed, its first status first."""
        out: list[tuple[int, str]] = []
        if run_id is None:
            return out
        for s in self.steps:
            rec = (s.state.get("runs") or {}).get(run_id)
            status = rec.get("status") if isinstance(rec, dict) else None
            if status is not None and (not out or out[-1][1] != status):
                out.append((s.index, str(status)))
        return out


def load(path: Path | str) -> Trace:
    path = Path(path)
    data = loads(path.read_text(encoding="utf-8"))
    return parse(data, source=path.as_posix())


def _optionals(table):
    """A table's records with each optional field (a set of at most one value) as its value or None."""
    if not isinstance(table, dict):
        return table
    for rec in table.values():
        if isinstance(rec, dict):
            for f in OPTIONAL & set(rec):
                if isinstance(rec[f], list) and len(rec[f]) <= 1:
                    rec[f] = rec[f][0] if rec[f] else None
    return table


def parse(data: dict, source: str = "") -> Trace:
    meta = plain(data.get("#meta") or {})
    steps = []
    for i, raw in enumerate(data.get("states") or []):
        m = plain(raw.get("#meta") or {})
        state = {k: _optionals(plain(v)) for k, v in raw.items() if k != "#meta"}
        args = m.get("args") if isinstance(m.get("args"), dict) else {}
        changes = m.get("changes") if isinstance(m.get("changes"), list) else []
        steps.append(Step(index=int(m.get("index", i)), action=str(m.get("action", "init" if i == 0 else "?")),
                          actor=str(m.get("actor", "")), note=str(m.get("note", "")), args=args,
                          changes=[str(c) for c in changes], state=state))
    loop = data.get("loop")
    return Trace(meta, steps, source, loop if isinstance(loop, int) and not isinstance(loop, bool) else None)
