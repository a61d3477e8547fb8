"""`taskmodel validate`: check a recorded MCP traffic log against the model and its catalogue.

`validate_log(log, mapping, variant=None, budget=60)` reads the log (`schemas/traffic-log.schema.json`)
and the mapping file, matches the log event by event against the model (`search`, `events`),
checks the host's catalogue along the matched behaviour, and answers `conforms`, `diverges` (the
first divergence: where, what the model allowed, the requirement broken or "not a behaviour of the
model") or `undetermined` (a budget or cap hit, or nothing checkable). Bad input raises `LogError`.
What the catalogue states of the host's own bytes (error texts, ids, the log's clock) is judged
on them directly (`answers`).
"""
from __future__ import annotations

import time

from verifier.validate.log import LogError, read_log, read_mapping
from verifier.validate.result import Divergence, ValidationResult
from verifier.runtime.worlds import unbounded_world

NOT_A_BEHAVIOUR = "not a behaviour of the model"
HARNESS_AREAS = ("harness", "e2e")      # the areas judging a client harness (as verifier.engines.bfs splits them)

__all__ = ["validate_log", "ValidationResult", "Divergence", "LogError", "resolve_variant"]


def resolve_variant(spec):
    """None (the baseline), a built-in variant's name, an amendment file, or an Amendment class; a
    bad name or file is bad input of the log's check (`LogError`)."""
    if isinstance(spec, type):
        return spec
    from verifier.runtime.exitcodes import UsageError
    from verifier.runtime.worlds import resolve_variant as named
    try:
        return named(spec)
    except UsageError as e:
        raise LogError(str(e).removeprefix("taskmodel: ").splitlines()[0]) from None


def host_properties():
    """The host's catalogue (the harness's judges a client harness a log does not have), less
    liveness: a finite log cannot show what is owed for ever."""
    from properties.base import load_catalogue
    return [p for p in load_catalogue().values() if p.area not in HARNESS_AREAS and p.kind != "liveness"]


def validate_log(log, mapping: dict | str | None = None, variant=None, budget: float = 60.0,
                 diagnose: bool = True) -> ValidationResult:
    """Validate `log` (a path or an iterable of lines) against the model (or `variant`).

    `conforms`: the log is a behaviour of the model validated against (its properties' verdicts
    along it listed; against the baseline, a property broken along it is a divergence naming its
    requirement, against a variant it is that variant's verdict). `diverges`: the first event no
    behaviour explains, with the requirement the observed behaviour breaks when `diagnose` finds
    one. `undetermined`: a cap or the budget ran out, or the log has nothing to check."""
    mapping = read_mapping(mapping) if mapping is not None else {"tokens": {}}
    header, events = read_log(log, mapping=mapping)
    cls = resolve_variant(variant)
    name = getattr(cls, "name", "baseline") if cls is not None else "baseline"
    res = ValidationResult("conforms", len(events), 0, variant=name)
    run_events = bool((header or {}).get("run_events")) or any(e.kind == "run" for e in events)
    if not any(e.kind in ("message", "close") or e.kind == "run" for e in events):
        res.result, res.reason = "undetermined", "nothing checkable: the log has no message, close or run event"
        return res
    started = time.monotonic()
    deadline = started + budget
    props = host_properties()
    m, matched, stop = match(events, mapping, cls, run_events, props, deadline, stop_on_violation=cls is None)
    res.matched, res.steps, res.candidates = matched, m.steps, len(m.cands)
    res.unmodelled = m.outside.entries
    best = next((c for c in m.cands if c.violation is None), m.cands[0])
    res.properties = _verdicts(props, best)
    at = events[stop.at if stop is not None and stop.at is not None else min(m.index, len(events) - 1)]
    if stop is not None and stop.kind == "undetermined":
        res.result, res.reason = "undetermined", stop.reason
    elif stop is not None:
        res.result = "diverges"
        if stop.requirement is not None:      # the catalogue judged the observed bytes themselves
            res.divergence = Divergence(at.index, at.line, at.data, stop.allowed, stop.requirement,
                                        f"the observed message breaks {stop.requirement}: {stop.reason}"[:400])
        else:
            res.divergence = Divergence(at.index, at.line, at.data, stop.allowed, None,
                                        f"{NOT_A_BEHAVIOUR}: {stop.reason}; the model allowed: "
                                        f"{'; '.join(stop.allowed[:4]) or 'nothing there'}"[:400])
        if diagnose:
            from verifier.validate.diagnose import FLOOR_STEPS, explain
            explain(res, events, mapping, cls, run_events, props, deadline, max(FLOOR_STEPS, m.steps), main=m)
    elif best.violation is not None and cls is None:
        index, prop, message = best.violation
        res.result = "diverges"
        res.divergence = Divergence(at.index, at.line, at.data, [], prop.ids[0],
                                    f"the matched behaviour breaks {prop.name} ({', '.join(prop.ids)}): {message}")
    return res


def match(events, mapping, cls, run_events, props, deadline, stop_on_violation=True, upto=None, keep=False,
          max_steps=None):
    """(the matcher, the events matched, the Stop that ended the match or None). With
    `stop_on_violation`, matching ends at the event after which every candidate breaks a property."""
    from verifier.validate.events import JUDGED, LogMatcher
    from verifier.validate.search import Stop
    # What is judged on the host's own bytes, less what the variant validated against is known to break.
    refuted = {rid for rid, verdict in getattr(cls, "expect", {}).items() if verdict == "refuted"}
    m = LogMatcher(unbounded_world(cls), props, mapping, run_events, deadline, keep, events,
                   judged=[r for r in JUDGED if r not in refuted], max_steps=max_steps)
    matched, stop = 0, None
    todo = events if upto is None else events[:upto]
    try:
        for ev in todo:
            m.feed(ev)
            matched += 1
            if stop_on_violation and all(c.violation is not None for c in m.cands):
                break
        else:
            if upto is None:
                m.index = events[-1].index
                m.finish()
    except Stop as e:
        stop = e
    return m, matched, stop


def _verdicts(props, cand) -> list[dict]:
    out = []
    broken = cand.violation[1].name if cand.violation is not None else None
    for p in props:
        if not p.asserted:
            continue
        verdict = "refuted" if p.name == broken else (
            "holds" if p.premise is None or p.name in cand.reached else "vacuous")
        out.append({"id": p.ids[0], "ids": list(p.ids), "property": p.name, "verdict": verdict})
    return out
