"""Replaying traces in the executable model, and shrinking them by replay.

A trace is a list of (action, args). Replays refuse a move that is not enabled, so a trace that
replays is a real behaviour of the model. When steps are removed while shrinking, ids minted by
later steps change; `translate` maps the original ids to the ones the replay minted.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from model.identity import project
from model.world import ModelError
from properties.base import find

from verifier.runtime.checking import Observations, OutOfBudget, Violation, check_liveness, check_step
from verifier.runtime.faults import Fault, ModelFault
from verifier.runtime.watchdog import CapReached


@dataclass
class Outcome:
    world: object
    violation: Violation | None
    diverged_at: int | None = None     # index of the first step that is not enabled (-1: the initial state)
    reason: str = ""
    reached: dict | None = None        # the premise counters the violating step reached (`count_premise`)


def _substitute(args: dict, mapping: dict) -> dict:
    return {k: mapping.get(v, v) if isinstance(v, str) else v for k, v in args.items()}


def _renamed(old: str, new: str) -> dict:
    """The renaming of a minted id, with its wire forms: a step names a run by its raw id, a task by
    the projected runId or its %2F form (identity.md §5)."""
    out = {old: new}
    if "/" in old and "/" in new:
        p_old, p_new = project(old), project(new)
        out[p_old] = p_new
        out[p_old.replace("~2F", "%2F")] = p_new.replace("~2F", "%2F")
    return out


def run_trace(make_world, moves, props, target: str | None = None, created=None, liveness=True,
              compare=None) -> Outcome:
    """Replay `moves` (any iterable), checking `props` after each step; stop at the first violation
    of `target` (or of any asserted property when target is None). `compare(i, world)`, when given,
    judges the state after i steps against a recorded one: what differs, or None."""
    if target and target not in {p.name for p in props}:
        target = find(target).name          # a requirement id checked by one property
    world = make_world()
    asserted = {target} if target else {p.name for p in props if p.asserted}
    obs = Observations()
    mapping: dict[str, str] = {}
    differs = compare(0, world) if compare is not None else None
    if differs:
        return Outcome(world, None, -1, f"the state differs from the one recorded: {differs}")
    for i, (name, args) in enumerate(moves):
        args = _substitute(args, mapping)
        if args not in world.moves(name):
            return Outcome(world, None, i, f"step {i + 1} {name}({args}) is not enabled")
        try:
            step = world.apply(name, args, check=False)
            if created is not None:
                for old, new in zip(created[i], step.created):
                    mapping.update(_renamed(old, new))
            differs = compare(i + 1, world) if compare is not None else None
            if differs:
                return Outcome(world, None, i, f"the state reached differs from the one recorded: {differs}")
            before = dict(obs.premise_counts)
            check_step(world, step, props, asserted, obs)
        except Violation as v:
            if target is None or v.prop.name == target:
                return Outcome(world, v, reached={k: n - before.get(k, 0) for k, n in obs.premise_counts.items()
                                                  if n > before.get(k, 0)})
        except ModelError as e:
            return Outcome(world, None, i, str(e))
    if liveness and (target is None or any(p.name == target and p.kind == "liveness" for p in props)):
        try:
            check_liveness(world, props, asserted, obs)
        except Violation as v:
            if target is None or v.prop.name == target:
                return Outcome(world, v)
    return Outcome(world, None)


def shrink(make_world, moves, created, props, target: str, rounds: int = 6):
    """Greedy delta debugging by replay: drop chunks, then single steps, while the target still fails.

    For a liveness target the moves shrunk are the lasso's stem alone: each replay re-runs the fair
    drain after it, so the drain's steps are never candidates, and a candidate is progress when the
    whole lasso (stem and drain) is shorter, or as long with a shorter stem. The stem is returned."""
    live = any(p.name == target and p.kind == "liveness" for p in props)
    best, best_created = list(moves), list(created)
    best_len = len(best)
    if live:                # the lasso `moves` make: they and the drain after them (none if they hold it)
        out = run_trace(make_world, best, props, target, best_created)
        best_len = len(out.violation.history) if out.violation is not None else best_len
    for _ in range(rounds):
        improved = False
        chunk = max(1, len(best) // 2)
        while chunk >= 1:
            i = 0
            while i < len(best):
                cand = best[:i] + best[i + chunk:]
                cand_created = best_created[:i] + best_created[i + chunk:]
                out = run_trace(make_world, cand, props, target, cand_created)
                steps = out.violation.history if out.violation is not None else None
                if steps is not None and live and (len(steps), len(cand)) < (best_len, len(best)):
                    stem = steps[:len(cand)]
                    best, best_created, best_len = [(s.action, s.args) for s in stem], [s.created for s in stem], len(steps)
                    improved = True
                elif steps is not None and not live and len(steps) < len(best):
                    best = [(s.action, s.args) for s in steps]
                    best_created = [s.created for s in steps]
                    best_len = len(best)
                    improved = True
                else:
                    i += chunk
            chunk //= 2
        if not improved:
            break
    return best, best_created


def fault_of_moves(make_world, moves, catalogue) -> Fault | None:
    """The fault replaying `moves` meets, if any (a violation or a divergence first is none, and so
    is the command's cap passing in the replay: the fault then stands as it was found)."""
    try:
        out = run_trace(make_world, moves, catalogue, None)
    except ModelFault as e:
        return e.fault
    except CapReached:
        return None
    return getattr(out.world, "last_fault", None) if out.violation is None else None


def shrink_fault(make_world, fault: Fault, catalogue, deadline: float | None) -> Fault:
    """The shortest prefix-preserving sub-trace found by replay that meets the same fault (the same
    place and kind of exception), by greedy removal of chunks of steps, until `deadline`."""
    best, best_fault = list(fault.history), fault
    chunk = max(1, len(best) // 2)
    while chunk >= 1 and len(best) > 1:
        i = 0
        while i < len(best) - 1:             # the faulting move itself stays
            if deadline is not None and time.monotonic() > deadline:
                return best_fault
            cand = best[:i] + best[i + chunk:]
            got = fault_of_moves(make_world, cand, catalogue) if cand else None
            if got is not None and got.signature() == fault.signature() and len(got.history) < len(best):
                best, best_fault = list(got.history), got
            else:
                i += chunk
        chunk //= 2
    return best_fault


def until(make_world, deadline: float):
    """`make_world`, refusing to start a replay once `deadline` has passed (bounds shrinking)."""
    def make():
        if time.monotonic() > deadline:
            raise OutOfBudget
        return make_world()
    return make
