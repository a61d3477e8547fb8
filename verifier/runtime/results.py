"""What an engine returns, and the rules every command reads it by.

A `CheckResult` holds one `PropertyVerdict` per property, the faults met, the coverage and the
bounds or scope; the JSON envelope (`result_json`), the judged expectations and the exit code are
derived from results alone, so the commands and the cluster's swarm shape them alike.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verifier.runtime.exitcodes import EXIT_FAULT, EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED
from verifier.runtime.faults import Fault


@dataclass
class PropertyVerdict:
    name: str
    ids: tuple
    kind: str
    clause: str
    sentence: str
    verdict: str
    message: str | None = None
    trace: list | None = None          # the Step records of the shortest trace found
    premise: int = 0
    checks: int = 0
    cases: dict = field(default_factory=dict)    # premise case -> how often reached (`Property.cases`)
    judged_at: list = field(default_factory=list)  # the exhaustive engine's scopes that judged it

    @property
    def length(self) -> int | None:
        return None if self.trace is None else len(self.trace)

    @property
    def unreached_cases(self) -> list[str]:
        return [c for c, n in self.cases.items() if not n]


def vacuity(p, counts: dict) -> str | None:
    """Why premise counters `counts` are no evidence for a proof of `p`, or None when they are: its
    premise reached and, where its requirement enumerates cases, every case reached."""
    if p.premise is None:
        return None
    if not counts.get(p.name):
        return "premise never reached"
    missing = p.unreached(counts)
    if missing:
        return f"premise case{'s' * (len(missing) > 1)} never reached: {'; '.join(missing)}"
    return None


@dataclass
class CheckResult:
    variant: str
    engine: str
    seed: int
    budget_s: float
    elapsed_s: float
    bounds: dict
    examples: int
    steps: int
    action_counts: dict
    verdicts: list[PropertyVerdict] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)     # errors at run time: exit 4 unless refuted
    overrides: dict | None = None      # rule -> {"calls": n, "differed": m}, for a variant's own rules
    stopped: str = ""                  # why the search ended before its budget, when it did
    states: dict | None = None         # an exhaustive engine's state counts
    scope: dict | None = None          # an exhaustive engine's scope
    form_counts: dict | None = None    # (dimension, form) -> requests sent, where the engine counts them
    work: dict | None = None           # the work budget it was given (examples, states, rlimit): what bounds it
    reused: str | None = None          # where the result is the same work's, read back (`runtime.reuse`)

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.elapsed_s if self.elapsed_s else 0.0

    def by_name(self) -> dict[str, PropertyVerdict]:
        return {v.name: v for v in self.verdicts}


UNDETERMINED = ("vacuous", "unreached", "undetermined", "tool-error")


# ---- check ----------------------------------------------------------------------------------------
SCHEMA_VERSION = 1


HOLDING = ("holds", "proved", "proved-bounded")


def result_json(result, paths: dict | None = None) -> dict:
    from verifier.runtime.shadow import unexercised
    return {
        "variant": result.variant, "engine": result.engine, "seed": result.seed,
        "bounds": result.bounds, "budget": {"seconds": result.budget_s, "elapsed": round(result.elapsed_s, 2),
                                            "examples": result.examples, "steps": result.steps,
                                            "steps_per_second": round(result.steps_per_second, 1),
                                            "work": result.work, "reused": result.reused},
        "stopped": result.stopped or None, "scope": result.scope, "states": result.states,
        "coverage": {"actions": result.action_counts,
                     "premises": {v.name: v.premise for v in result.verdicts},
                     **({"requests": {f"{d}: {f}": n for (d, f), n in sorted(result.form_counts.items())},
                         "requests_never_generated": never_generated(result.form_counts)}
                        if result.form_counts is not None else {})},
        "properties": [{"name": v.name, "ids": list(v.ids), "kind": v.kind, "clause": v.clause,
                        "verdict": v.verdict, "message": v.message, "length": v.length,
                        "premise": v.premise, "checks": v.checks,
                        **({"cases": v.cases, "unreached_cases": v.unreached_cases} if v.cases else {}),
                        **({"judged_at": v.judged_at} if v.judged_at else {}),
                        "steps": [s.note for s in v.trace] if v.trace is not None else None,
                        "trace": (paths or {}).get((result.engine, v.name))} for v in result.verdicts],
        "faults": [f.to_json() for f in result.faults],
        "overrides": result.overrides, "unexercised": unexercised(result.overrides),
    }


def never_generated(form_counts) -> list[str]:
    """The request forms (`model.clients.REQUEST_FORMS`) an engine counted none of: vacuities."""
    from model.clients import REQUEST_FORMS
    return [f"{d}: {f}" for d, forms in REQUEST_FORMS.items() for f in forms if not form_counts.get((d, f))]


def expectations(variant, results) -> list[dict]:
    """The variant's `expect`, judged on every engine's verdicts of the properties naming each id."""
    out = []
    for rid, want in dict(getattr(variant, "expect", None) or {}).items():
        got = sorted({v.verdict for r in results for v in r.verdicts if rid in v.ids})
        met = {"refuted": "refuted" in got, "unreached": "unreached" in got, "reached": "reached" in got,
               "holds": bool(got) and set(got) <= set(HOLDING)}.get(want, False)
        out.append({"id": rid, "want": want, "got": got, "met": met})
    return out


def exit_code(results, expected: list[dict] | None = None) -> int:
    """1 when something replays as refuted (a fault found too is shown, but a refutation is a real
    answer); else 4 on a fault; else 2 when anything is undetermined (also an unexercised override);
    else 0. With `expected` (--expect): 0 exactly when every expectation is met, else 4 on a fault,
    else 1."""
    from verifier.runtime.shadow import unexercised
    faults = any(r.faults for r in results)
    if expected is not None:
        if all(e["met"] for e in expected):
            return EXIT_OK
        return EXIT_FAULT if faults else EXIT_REFUTED
    verdicts = [v for r in results for v in r.verdicts]
    if any(v.verdict == "refuted" for v in verdicts):
        return EXIT_REFUTED
    if faults:
        return EXIT_FAULT
    if any(v.verdict in UNDETERMINED for v in verdicts) or any(unexercised(r.overrides) for r in results):
        return EXIT_UNDETERMINED
    return EXIT_OK


def combined(results):
    """One verdict per property over several engines, for the exit code of the author's default:
    refuted when an engine refutes it; proved when the exhaustive search proves it (the random
    engine's verdict stands beside it); else the last engine's verdict."""
    from dataclasses import replace
    by = {}
    for r in results:
        for v in r.verdicts:
            was = by.get(v.name)
            if was is None or v.verdict == "refuted" or (v.verdict in ("proved", "proved-bounded")
                                                         and was.verdict != "refuted"):
                by[v.name] = v
            elif was.verdict not in ("refuted", "proved", "proved-bounded"):
                by[v.name] = v
    return replace(results[-1], verdicts=list(by.values()), faults=[f for r in results for f in r.faults],
                   overrides=merged_overrides(results))


def merged_overrides(results):
    out = {}
    for r in results:
        for rule, n in (r.overrides or {}).items():
            got = out.setdefault(rule, {"calls": 0, "differed": 0})
            got["calls"] += n.get("calls", 0)
            got["differed"] += n.get("differed", 0)
    return out


def tool_version() -> str:
    from importlib import metadata
    try:
        return metadata.version("taskmodel")
    except metadata.PackageNotFoundError:
        import re
        text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
        found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
        return found.group(1) if found else "unknown"
