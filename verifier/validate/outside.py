"""Exchanges outside the model's client vocabulary: judged by nothing in the model, never blamed on the host.

A request no model client sends (no credential, a tool the mapping does not name, a capability
shape or a `tasks/update` form the model's clients do not use, a notification they never send...)
is recorded as `unmodelled` with the assumption the validator makes about it instead of a model
step: it leaves the model's state unchanged. The assumption is then checked against what the log
shows: the answer it owes (an error, for a call) and no run event caused while it is open. When the
log contradicts it (the call created a run, an update resolved an interrupt), the run concerned is
set outside the model too: its later run events and every request naming it are unmodelled, so
nothing about it is judged, and the contradiction is reported on the exchange.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from verifier.validate.ids import raw_of
from verifier.validate.observe import task_refs

CALL = "answered with an error, no run created: state unchanged"
TOOL = "a tool outside the model: answered, no run created, state unchanged"
CHANGE = "answered, nothing resolved or cancelled: state unchanged"
READ = "answered, a read: state unchanged"
NOTE = "no answer owed: state unchanged"
ASSUMPTIONS = {"tools/call": CALL, "tasks/update": CHANGE, "tasks/cancel": CHANGE}
UNANSWERED = "unanswered in the log"


@dataclass
class Outside:
    entries: list = field(default_factory=list)   # one dict per unmodelled exchange, in log order
    conns: dict = field(default_factory=dict)     # HTTP connection -> its entry
    ids: dict = field(default_factory=dict)       # (stdio connection, JSON-RPC id key) -> its entry
    runs: dict = field(default_factory=dict)      # real runId set outside the model -> the entry that did it
    pending: list = field(default_factory=list)   # entries owing an answer, their connection still open

    def copy(self) -> Outside:
        entries = [dict(e, runs=list(e["runs"])) for e in self.entries]
        by_id = {id(old): new for old, new in zip(self.entries, entries)}
        return Outside(entries, {k: by_id[id(v)] for k, v in self.conns.items()},
                       {k: by_id[id(v)] for k, v in self.ids.items()}, {k: by_id[id(v)] for k, v in self.runs.items()},
                       [by_id[id(e)] for e in self.pending])

    def add(self, ev, conn: str, msg: dict, why: str, tool: bool = False) -> dict:
        """Record an unmodelled exchange; `tool`: a call of a tool the mapping does not name, which may
        answer as it likes but creates no run the model would know of."""
        method = msg.get("method") or "a client's response"
        owed = "id" in msg and "method" in msg
        entry = {"index": ev.index, "line": ev.line, "conn": conn, "method": method, "why": why,
                 "assumption": TOOL if tool else ASSUMPTIONS.get(method, READ) if owed else NOTE,
                 "check": UNANSWERED if owed else "holds", "runs": []}
        self.entries.append(entry)
        if owed:
            self.pending.append(entry)
        return entry

    def open(self) -> list:
        """The exchanges still open: a run event nothing else explains is theirs."""
        return self.pending

    def closed(self, conn: str) -> None:
        """The connection ended: its exchanges can no longer explain a run event."""
        self.pending = [e for e in self.pending if e["conn"] != conn]

    def taint(self, entry: dict, real_run: str, how: str) -> None:
        if real_run not in self.runs:
            self.runs[real_run] = entry
            entry["runs"].append(real_run)
        if not entry["check"].startswith("broken"):
            entry["check"] = f"broken: {how}"

    def answered(self, entry: dict, msg: dict) -> None:
        """Check the assumption against the exchange's final answer."""
        self.pending = [e for e in self.pending if e is not entry]
        if "error" in msg:
            if entry["check"] == UNANSWERED:
                entry["check"] = "holds"
            return
        result = msg.get("result") if isinstance(msg.get("result"), dict) else {}
        task = result.get("taskId")
        if entry["assumption"] in (CALL, TOOL) and isinstance(task, str):   # a read answers with a task it did not make
            self.taint(entry, raw_of(task)[0], f"answered with task {task}")
        elif entry["assumption"] == CALL and result.get("isError") is not True:
            entry["check"] = f"broken: answered with a {result.get('resultType', 'complete')} result, not an error"
        elif entry["check"] == UNANSWERED:
            entry["check"] = "holds"

    def names(self, msg: dict) -> str | None:
        """The run set outside the model a request names, if any."""
        for ref in task_refs(msg.get("params")):
            if isinstance(ref, str) and raw_of(ref)[0] in self.runs:
                return raw_of(ref)[0]
        return None
