"""The engines, side by side behind one interface (as Stateright's checkers are).

An engine takes a variant (an Amendment subclass, or None for the baseline) and its options and
returns a `verifier.engines.random.explore.CheckResult`: one verdict per property, the counterexamples as Step
records that replay, its bounds or scope, and its budget. The CLI, the gate and the report treat
them alike:

- `hypothesis`: random stateful exploration of the default instance (`verifier.engines.random.explore`);
- `bfs`: exhaustive breadth-first search at a stated scope (`verifier.engines.bfs`);
- `z3`: bounded model checking and k-induction of the Z3 encoding (`verifier.engines.z3.bridge`).

An engine that cannot serve a variant says `undetermined` and why, property by property.
"""
from __future__ import annotations

ENGINES = ("hypothesis", "bfs", "z3")


def run(engine: str, variant=None, **options):
    """Run one engine; `options` are that engine's (budget, seed, scope, depth, ...)."""
    if engine == "hypothesis":
        from verifier.engines.random.explore import explore
        return explore(variant, **options)
    if engine == "bfs":
        from verifier.engines.bfs.run import run_bfs
        return run_bfs(variant, **options)
    if engine == "z3":
        from verifier.engines.z3.bridge import z3_check
        return z3_check(variant, **options)
    raise ValueError(f"unknown engine {engine!r} (one of {', '.join(ENGINES)})")
