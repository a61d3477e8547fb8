"""An amendment's overrides that the check's plan never exercised, searched where they can be.

The default plan judges the host's properties at host-small, which has no REST caller, no operator
pause and no stdio. An override whose only effect lies there (a cancelled blocking call's result, a
rule answering otherwise for a REST or stdio cause) is never called, or never answers otherwise,
at any scope of the plan, and its proofs there say nothing about it. So when a check of an amendment
ends with such an override, the host's properties are searched again at each coverage scope
(`scopes.COVERAGE`: host-small with one more dimension of the environment), and, for a harness rule,
the harness's at each harness coverage scope (`scopes.HARNESS_COVERAGE`: composed-small with an
interrupt, reaching the MRTR retry and tasks/update). The verdicts are merged: a refutation at a
coverage scope refutes; a proof stays a proof, naming both scopes.
"""
from __future__ import annotations

import time
from dataclasses import replace

from verifier.engines.bfs.search import summed_overrides
from verifier.runtime import scopes
from verifier.runtime.shadow import unexercised

FOUND = ("refuted", "known-gap", "reached")          # a trace: an answer wherever it was found
PROOFS = ("proved", "proved-bounded")                # the latter at a coverage scope bounded by depth


def idle_overrides(results) -> list[str]:
    """The overrides no search of `results` (search, verdicts, counts) exercised."""
    return unexercised(summed_overrides(results))


def coverage_jobs(jobs_plan, idle) -> list:
    """[(scope, properties)]: for the idle overrides `idle`, each host coverage scope with the
    properties the plan judges at host-small (a host rule idle), and each harness coverage scope
    with those it judges at composed-small (a harness rule idle)."""
    harness = [r.startswith("harness.") for r in idle]
    out = []
    for side, specs, wanted in ((scopes.DEFAULT_HOST, scopes.COVERAGE, not all(harness)),
                                (scopes.DEFAULT_COMPOSED, scopes.HARNESS_COVERAGE, any(harness))):
        props = next((ps for sc, ps in jobs_plan if sc.name == side), [])
        if wanted and props:
            for sc in map(scopes.parse, specs):
                # A lasso needs the whole graph: a scope bounded by depth judges no liveness.
                judged = props if sc.depth is None else [p for p in props if p.kind != "liveness"]
                out += [(sc, judged)] if judged else []
    return out


def also_jobs(jobs_plan) -> list:
    """[(scope, properties)]: each scope every default check searches too (`scopes.ALSO`), with the
    properties the plan judges at host-small."""
    props = next((ps for sc, ps in jobs_plan if sc.name == scopes.DEFAULT_HOST), [])
    return [(scopes.parse(spec), props) for spec in scopes.ALSO] if props else []


def searched(judge, variant, jobs, symmetry, started, budget, max_states, max_depth, progress, shadow=True) -> list:
    """The searches `jobs`, one after another, within what is left of the check's cap (the overrides
    counted, `shadow`: always at a coverage scope, which is searched for them)."""
    out = []
    for sc, ps in jobs:
        left = max(0.0, started + budget - time.monotonic())
        out.append(judge(variant, sc, ps, symmetry, left, max_states, max_depth, progress, shadow))
    return out


def merged(results, extra) -> list:
    """`results` with each verdict merged with the coverage searches' of the same property (the
    coverage searches' own entries keep their states and counts, and no verdict)."""
    found = {}
    for s, verdicts, _ in extra:
        for v in verdicts:
            found.setdefault(v.name, []).append((s, v))
    out = []
    for s, verdicts, counts in results:
        out.append((s, [_merge(v, found.get(v.name, [])) for v in verdicts], counts))
    return out + [(s, [], counts) for s, _, counts in extra]


def _merge(v, others):
    also, states, bounded = 0, 0, 0          # coverage searches that proved it too
    named = []                               # scopes every check searches (`scopes.ALSO`) that proved it too
    for s, o in others:
        if v.verdict in FOUND:
            return v
        premise, checks = v.premise + o.premise, v.checks + o.checks
        # A premise first reached at a coverage scope takes that scope's proof (a bounded one where
        # the scope is bounded, until a complete scope proves it).
        if o.verdict in FOUND or (v.verdict == "vacuous" and o.verdict in PROOFS) or \
                (v.verdict == "proved-bounded" and o.verdict == "proved"):
            v = _with(o, premise, checks)
        elif o.verdict not in (*PROOFS, "vacuous"):    # the coverage search did not finish: its part unjudged
            v = _with(v, premise, checks, f"{v.message}; at scope {s.scope.name}: {o.message}")
        else:
            v = _with(v, premise, checks)
            if v.verdict in PROOFS and o.verdict in PROOFS and s.scope.name in scopes.ALSO:
                named.append(f"{s.scope.name} ({s.distinct} states)")
            elif v.verdict in PROOFS and o.verdict in PROOFS:
                also, states, bounded = also + 1, states + s.distinct, bounded + (o.verdict != "proved")
    if named:
        v = _with(v, v.premise, v.checks, f"{v.message}; and at {', '.join(named)}")
    if also:
        v = _with(v, v.premise, v.checks, f"{v.message}; and at {also} coverage scope{'s' * (also > 1)} "
                                          f"({states} states" + (f"; {bounded} bounded by depth" if bounded else "")
                                          + ")")
    return v


def _with(v, premise, checks, message=None):
    out = replace(v, premise=premise, checks=checks, message=v.message if message is None else message)
    for k in ("loop", "scope"):          # set on the verdict after it was made
        if hasattr(v, k):
            setattr(out, k, getattr(v, k))
    return out
