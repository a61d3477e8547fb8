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

from verifier.runtime.collector import cycles_probed, quiet_gc
from verifier.validate.binding import apply_profile, binding_of
from verifier.validate.declared import declared, purges_assumed
from verifier.validate.evidence import requirements, uncompared
from verifier.validate.log import LogError, read_log, read_mapping
from verifier.validate.result import Divergence, ValidationResult

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


def world_for(cls, host_params: dict):
    """The initial world a log is matched against: the validator's unbounded instance with what the
    host declares of itself (`declared`), then the variant's own parameters."""
    from model.params import Params
    from model.world import World
    from verifier.runtime.worlds import UNBOUNDED
    base = Params().with_(**UNBOUNDED, **host_params)
    params = cls.make_params(base) if cls is not None else base
    return World(params, cls() if cls is not None else None)


def host_properties(binding=None):
    """The host's catalogue (the harness's judges a client harness a log does not have), less
    liveness: a finite log cannot show what is owed for ever; under a profile, the properties
    judging one of its ids (properties/profiles.py)."""
    from properties.base import load_catalogue
    return [p for p in load_catalogue().values() if p.area not in HARNESS_AREAS and p.kind != "liveness"
            and (binding is None or any(binding.in_scope(rid) for rid in p.ids))]


def validate_log(log, mapping: dict | str | None = None, variant=None, budget: float = 60.0,
                 diagnose: bool = True, allow_unmodelled: bool = False) -> ValidationResult:
    """Validate `log` (a path or an iterable of lines) against the model (or `variant`).

    `conforms`: every exchange was judged and the log is a behaviour of the model validated against
    (against the baseline, a property broken along it is a divergence naming its requirement, against
    a variant it is that variant's verdict). `conforms-partially`: the same, but some exchanges were
    not judged (`unjudged`), unless `allow_unmodelled`. `diverges`: the first event no behaviour
    explains, with the requirement the observed behaviour breaks when `diagnose` finds one.
    `undetermined`: a cap or the budget ran out, or the log has nothing to check.

    No cyclic collection runs meanwhile (`quiet_gc`, probed at each event matched): the world keeps
    every record the log named, and each collection walked them all."""
    with quiet_gc():
        return _validated(log, mapping, variant, budget, diagnose, allow_unmodelled)


def _validated(log, mapping, variant, budget, diagnose, allow_unmodelled) -> ValidationResult:
    name = "mapping" if isinstance(mapping, dict) else str(mapping)
    mapping = apply_profile(read_mapping(mapping), name) if mapping is not None else {"tokens": {}}
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
    props = host_properties(binding_of(mapping))
    host = declared(mapping, events)
    m, matched, stop = match(events, mapping, cls, run_events, props, deadline, stop_on_violation=cls is None,
                             host=host)
    res.matched, res.steps, res.candidates = matched, m.steps, len(m.cands)
    # The candidate to report: one breaking nothing, else the one that broke a property last (at the
    # event that ended the match: an earlier violation was survived by other candidates then).
    best = next((c for c in m.cands if c.violation is None), None) or max(m.cands, key=lambda c: c.violation[0])
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
            explain(res, events, mapping, cls, run_events, props, deadline, max(FLOOR_STEPS, m.steps), main=m,
                    host=host)
    elif best.violation is not None and cls is None:
        index, prop, message = best.violation
        at = events[index]
        res.result = "diverges"
        from verifier.validate.diagnose import in_log_terms
        res.divergence = Divergence(at.index, at.line, at.data, [], prop.ids[0], in_log_terms(
            f"the matched behaviour breaks {prop.name} ({', '.join(prop.ids)}): {message}", m, events)[:400])
    if res.divergence is not None:
        res.matched = res.divergence.index          # the events before the divergence matched
    broken = {res.divergence.requirement} if res.divergence is not None else set()
    if best.violation is not None:
        broken |= set(best.violation[1].ids)
    binding = binding_of(mapping)
    res.requirements = [r for r in requirements(props, best, m, broken) if binding.in_scope(r["id"])]
    if binding.profile is not None:
        from properties.profiles import out_of_scope
        res.profile, res.out_of_scope = binding.profile, out_of_scope(binding.profile)
    _account(res, events, mapping, m, best, host)
    if res.result == "conforms" and res.unjudged and not allow_unmodelled:
        u = res.unjudged[0]
        res.result = "conforms-partially"
        res.reason = (f"{len(res.unjudged)} of {res.exchanges['judged'] + len(res.unjudged)} exchanges were not judged "
                      f"(--allow-unmodelled to accept them); the first: event {u['index']} (line {u['line']}) "
                      f"{u['method']}: {u['why']}")
    return res


def _account(res, events, mapping, m, best, host) -> None:
    """The exchanges (client-to-server messages) judged, not judged and passed over by the mapping, up
    to the divergence; what the log was read as where the host declared nothing."""
    end = res.divergence.index + 1 if res.divergence is not None else m.index + 1
    ignore = set(mapping.get("ignore") or ())
    c2s = [e for e in events[:end] if e.kind == "message" and e.data["dir"] == "c2s"]
    ignored = sum(e.data["message"].get("method") in ignore for e in c2s)
    unjudged = [u for u in m.outside.entries if u["index"] < end] + uncompared(best, events)
    res.unjudged = sorted(unjudged, key=lambda u: u["index"])
    res.exchanges = {"total": len(c2s), "judged": len(c2s) - ignored - len(res.unjudged), "unjudged": len(res.unjudged),
                     "ignored": ignored}
    res.assumptions = host.assumptions + purges_assumed(best, events, host) + m.notes_pending


def match(events, mapping, cls, run_events, props, deadline, stop_on_violation=True, upto=None, keep=False,
          max_steps=None, host=None):
    """(the matcher, the events matched, the Stop that ended the match or None). With
    `stop_on_violation`, matching ends at the event after which every candidate breaks a property."""
    from verifier.validate.events import JUDGED, LogMatcher
    from verifier.validate.search import Stop
    # What is judged on the host's own bytes, less what the variant validated against is known to break.
    refuted = {rid for rid, verdict in getattr(cls, "expect", {}).items() if verdict == "refuted"}
    host = host or declared(mapping, events)
    binding = binding_of(mapping)
    m = LogMatcher(world_for(cls, host.params), props, mapping, run_events, deadline, keep, events,
                   judged=[r for r in JUDGED if r not in refuted and binding.in_scope(r)], max_steps=max_steps,
                   declared=host)
    matched, stop = 0, None
    todo = events if upto is None else events[:upto]
    try:
        for ev in todo:
            m.feed(ev)
            matched += 1
            cycles_probed()
            if stop_on_violation and all(c.violation is not None for c in m.cands):
                break
        else:
            if upto is None:
                m.index = events[-1].index
                m.finish()
    except Stop as e:
        stop = e.with_traceback(None)       # its traceback's frames hold this one's (a cycle) and every candidate
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
