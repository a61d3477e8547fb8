"""What a log gave evidence for, per requirement id and per premise case.

A requirement is `held` when the log judged it and nothing broke it, `broken` when it broke, and
`unjudged` when the log gave no evidence: never a pass. Most requirements are judged by the model
along the matched behaviour: their property's premise (and each case it declares,
`properties.base.Property.cases`) reached there is their evidence. Those judged on the host's own
bytes are judged by what was compared:
- ISO-1 (and TTL-3's case "after the purge"): a not-found answer is judged only against the answer to an
  id never created, of the same method and transport (`answers.Answer`): an answer for another
  tenant's task with nothing to compare it with judges nothing, and its exchange is unjudged too;
- ID-1: where the host's taskIds were read (`answers.IdCheck`);
- SEC-1: the statusMessages read against what the log recorded the client sending
  (`status_messages.StatusMessages`).
"""
from __future__ import annotations

from properties.base import case_key

from verifier.validate.answers import REFERENCE, named

HELD, BROKEN, UNJUDGED = "held", "broken", "unjudged"


def not_found_answers(cand) -> dict:
    """{(method, transport): {class: [(event index, line), ...]}} of the not-found answers the
    candidate bound (one group per answer the model gives alike)."""
    out: dict = {}
    for (method, transport, _), answer in cand.ids.errors.items():
        group = out.setdefault((method, transport), {})
        for cls, index, line in answer.given:
            group.setdefault(cls, []).append((index, line))
    return out


def compared(group: dict, cls: str) -> bool:
    """Whether the answers of `cls` in a group were compared with an answer to an id never created."""
    return REFERENCE in group and (cls != REFERENCE or len(group) > 1)


def uncompared(cand, events) -> list[dict]:
    """The exchanges whose not-found answer had nothing to compare it with: unjudged."""
    out = []
    for (method, transport), group in not_found_answers(cand).items():
        for cls, seen in group.items():
            if cls == REFERENCE or compared(group, cls):
                continue
            why = (f"its not-found answer (for {named(cls)}) has no answer to an id never created, by {method} over "
                   f"{transport}, to be compared with ({'TTL-3' if cls == 'purged' else 'ISO-1'})")
            out += [{"index": index, "line": line, "conn": events[index].data.get("conn", ""), "method": method,
                     "why": why, "assumption": None, "check": None, "runs": []} for index, line in seen]
    return out


def requirements(props, cand, matcher, broken: set[str]) -> list[dict]:
    """One entry per requirement id of the asserted properties: its verdict, the properties judging
    it, its cases (each held or unjudged) and, unjudged, why."""
    by_id: dict = {}
    for p in props:
        if p.asserted:
            for rid in p.ids:
                by_id.setdefault(rid, []).append(p)
    bytes_judged = {"ISO-1": _iso1, "TTL-3": _ttl3, "ID-1": _id1, "SEC-1": _sec1}
    out = []
    for rid, ps in by_id.items():
        cases = {c: any(_case_reached(cand, p, c) for p in ps if c in p.cases) for p in ps for c in p.cases}
        judged = any(p.name in cand.reached for p in ps)
        why = "its premise was never reached along the log"
        if rid in bytes_judged:
            judged, own, why = bytes_judged[rid](cand, matcher, ps)
            cases.update(own)
        verdict = BROKEN if rid in broken else HELD if judged else UNJUDGED
        entry = {"id": rid, "verdict": verdict, "properties": [p.name for p in ps],
                 "cases": [{"case": c, "verdict": HELD if seen else UNJUDGED} for c, seen in cases.items()]}
        if verdict == UNJUDGED:
            entry["why"] = why
        out.append(entry)
    return out


def _case_reached(cand, p, case) -> bool:
    return case_key(p.name, case) in cand.reached


def _named(ps, phrase: str) -> str:
    """The case the properties declare whose words hold `phrase` (their names, matched by text), else
    `phrase` itself."""
    return next((c for p in ps for c in p.cases if phrase in c), phrase)


def _iso1(cand, matcher, ps):
    groups = not_found_answers(cand)
    declared = [c for p in ps for c in p.cases]
    cases = dict.fromkeys(declared, False)          # the model's premise is no evidence of the host's words
    for (method, _), group in groups.items():
        for cls in group:
            name = _named(ps, f"{cls}, by {method}")
            if name in cases or not declared:
                cases[name] = cases.get(name, False) or compared(group, cls)
    judged = any(compared(g, cls) and cls != REFERENCE for g in groups.values() for cls in g)
    return judged, cases, ("no not-found answer for an unreadable task was compared with the answer to an id "
                           "never created, of the same method and transport")


def _ttl3(cand, matcher, ps):
    """"after the purge" on the host's words; "before" by the model (a read resolved)."""
    groups = not_found_answers(cand)
    after = any(compared(g, "purged") for g in groups.values() if "purged" in g)
    before = any(_case_reached(cand, p, c) for p in ps for c in p.cases if "before" in c)
    return after or before, {_named(ps, "after the purge"): after}, (
        "no read of a finished task before its purge, and no not-found answer for a purged run its caller could "
        "read compared with the answer to an id never created")


# Where ID-1's taskIds were read (`answers.ID1_CASES`), as the words its property's cases hold.
ID1_PHRASES = {"a taskId in CreateTaskResult": "CreateTaskResult", "a tasks/get result": "tasks/get result",
               "notifications/tasks": "notifications/tasks", "a listen acknowledgement": "listen acknowledgement",
               "a request naming the %2F form": "%2F"}


def _id1(cand, matcher, ps):
    seen = matcher.id_check.cases
    return bool(seen), {_named(ps, ID1_PHRASES[c]) if any(p.cases for p in ps) else c: c in seen
                        for c in ID1_PHRASES}, "the log shows no taskId the host sent"


def _sec1(cand, matcher, ps):
    status = matcher.status
    why = ("no statusMessage was read against what the log recorded the client sending for its run"
           + (f" ({status.unread} with nothing recorded to read against)" if status.unread else ""))
    return status.judged > 0, {}, why
