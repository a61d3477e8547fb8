"""A proof contradicted by another engine's trace: a finding about the proof's coverage.

When one engine proves a property (at its scopes, or within a bound) and another refutes it with a
trace that replays in the model, the proof's scopes never held the behaviour the trace shows. The
trace is replayed once more to name the premise case its violating step reached: the case the
proof's scopes reached only in other states, or never.
"""
from __future__ import annotations

from properties.base import case_key, load_catalogue

PROOFS = ("proved", "proved-bounded")


def contradictions(variant, results) -> list[dict]:
    """[{property, ids, proved_by, proof, refuted_by, length, cases}] over the engines' `results`."""
    from verifier.runtime.replay import run_trace
    from verifier.runtime.worlds import guarded_factory, world_at, world_factory
    catalogue = load_catalogue()
    out = []
    names = [v.name for v in results[0].verdicts] if results else []
    for name in names:
        got = [(r.engine, r.by_name().get(name)) for r in results]
        proofs = [(e, v) for e, v in got if v is not None and v.verdict in PROOFS]
        refuted = [(e, v) for e, v in got if v is not None and v.verdict == "refuted" and v.trace]
        if not proofs or not refuted:
            continue
        engine, v = min(refuted, key=lambda x: x[1].length)
        p = catalogue.get(name)
        scope = getattr(v, "scope", None)
        make = guarded_factory(world_at(variant, scope) if scope else world_factory(variant))
        moves = [(s.action, s.args) for s in v.trace]
        cases: list = []
        try:
            done = run_trace(make, moves, list(catalogue.values()), name)
            reached = done.reached or {}
            cases = [c for c in (p.cases if p is not None else ()) if reached.get(case_key(name, c))]
        except Exception:           # a trace that does not replay here is told without its case
            pass
        out.append({"property": name, "ids": list(v.ids), "proved_by": proofs[0][0],
                    "proof": proofs[0][1].message, "refuted_by": engine, "length": v.length, "cases": cases})
    return out


def told(c: dict) -> str:
    """One line for a person: what contradicted what, and the case the proof's scopes missed."""
    case = f"; the trace's case: {'; '.join(c['cases'])}" if c["cases"] else ""
    return (f"{c['property']} ({', '.join(c['ids'])}): {c['proved_by']}'s proof is contradicted by "
            f"{c['refuted_by']}'s {c['length']}-step trace, which replays: the proof's scopes never held this "
            f"behaviour{case}")
