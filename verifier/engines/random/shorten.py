"""Shortening a counterexample before it is shown: the shrinker first (`replay.shrink`: for
liveness, the lasso's stem), then a breadth-first search from the initial state for a shorter
violation of the same property (`bfs.shortest`), then, for liveness, the drain cut to its lasso.
Bounded by work throughout, so a seed gives the same traces on any machine; only the caller's
deadline (`replay.until`) can stop the shrinker early.
"""
from __future__ import annotations

from model.snapshot import fingerprint
from verifier.engines.bfs.shortest import MAX_STATES, shortest
from verifier.runtime.replay import run_trace, shrink


def shorten(make_world, replay_world, variant, base_params, catalogue, name: str, hist: list,
            max_states: int = MAX_STATES):
    """(message, Step records, loop, how) of a shorter violation of `name` than `hist`, or None;
    `how` says what the search for a refutation found (None for a witness or gap).
    `replay_world` is `make_world` under the caller's deadline (it raises OutOfBudget)."""
    prop = next(p for p in catalogue if p.name == name)
    small, _ = shrink(replay_world, [(s.action, s.args) for s in hist], [s.created for s in hist], catalogue, name)
    out = run_trace(replay_world, small, catalogue, name)
    if out.violation is None or len(out.violation.history) > len(hist):
        return None
    msg, steps, how = out.violation.message, out.violation.history, None
    if prop.asserted:                   # a refutation (witnesses and gaps are shown as shrunk)
        got = shortest(variant, make_world, steps, catalogue, prop, base_params, max_states)
        how = got.how
        if got.trace is not None:
            msg, steps = got.message, got.trace
    loop = None
    if prop.kind == "liveness":
        steps, loop = lasso(make_world, steps, catalogue, name)
    return msg, steps, loop, how


def lasso(make_world, steps: list, catalogue, name: str) -> tuple[list, int | None]:
    """A liveness counterexample as a lasso: its steps and the index its loop starts at. When the
    fair drain quiesced, the lasso stutters at its last state (loop = len(steps)); when it ran on to
    its bound through some state twice, the steps end where that state first recurs. A drain that
    ran on through new states only has no loop to show (None)."""
    moves = [(s.action, s.args) for s in steps]
    if run_trace(make_world, moves, catalogue, name).world.facts.get("drain_quiesced", True):
        return steps, len(steps)
    world = make_world()
    seen = {fingerprint(world): 0}
    for i, (action, args) in enumerate(moves):
        world.apply(action, args, check=False)
        at = seen.setdefault(fingerprint(world), i + 1)
        if at <= i and run_trace(make_world, moves[:i + 1], catalogue, name).violation is not None:
            return steps[:i + 1], at
    return steps, None
