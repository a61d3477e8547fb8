"""Judging the catalogue on a world, step by step: what every engine and the replayer share.

`check_step` runs each property after a step (premises counted, witnesses and gaps observed,
an asserted property's failure raised as a `Violation`); `check_liveness` drains fairly and then
judges the liveness properties; `guard_world` makes a world's steps and move lists fault-aware and
bounded by the watchdog.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model.fairness import drain
from model.world import ModelError
from properties.base import count_premise, guard_facets

from verifier.runtime import interrupt, watchdog
from verifier.runtime.faults import Fault, ModelFault, fault_of
from verifier.runtime.watchdog import CapReached


class Violation(AssertionError):
    def __init__(self, prop, message, history):
        super().__init__(f"{prop.name} ({', '.join(prop.ids)}): {message}")
        self.prop, self.message, self.history = prop, message, history


class OutOfBudget(Exception):
    """The command's wall-clock budget ran out in the middle of an example."""


def guard_world(world):
    """`world`, with its steps and enabled-move lists made fault-aware: whatever a rule or the model
    raises there (also SystemExit, or the watchdog's StepTimeout) becomes a ModelFault naming the
    move (the command's cap passing, CapReached, is no fault: it passes through), and each step and
    each enumeration of an action's moves is bounded by the watchdog."""
    apply, moves = world.apply, world.moves

    def guarded_moves(name):
        try:
            with watchdog.current().bounded():      # a rule asked for the moves may hang too
                return moves(name)
        except (KeyboardInterrupt, CapReached, ModelFault):
            raise
        except BaseException as e:
            raise _faulted(world, e, world.history, f"the enabled moves of {name}") from e

    def guarded_apply(name, args=None, check=True):
        args = dict(args or {})
        if check and args not in guarded_moves(name):
            raise ModelError(f"{name}({args}) is not enabled in this state")
        try:
            with watchdog.current().bounded():
                return apply(name, args, check=False)
        except (KeyboardInterrupt, CapReached, ModelFault):
            raise
        except BaseException as e:
            raise _faulted(world, e, world.history, name, args) from e

    world.apply, world.moves = guarded_apply, guarded_moves
    return world


def _faulted(world, exc, history, action, args=None) -> ModelFault:
    fault = fault_of(exc, history, action, args)
    world.last_fault = fault          # a replay that stops at a fault is read back from its world
    return ModelFault(fault)


@dataclass
class Observations:
    """What an exploration saw, across examples: coverage, premises, witnesses, gaps, failures."""
    action_counts: dict = field(default_factory=dict)
    form_counts: dict = field(default_factory=dict)   # (dimension, form) -> requests sent (model.clients)
    premise_counts: dict = field(default_factory=dict)
    checks: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)      # property -> (message, history) first seen
    steps: int = 0
    examples: int = 0
    cut: int = 0                                      # examples Hypothesis ended early (uncounted: machine.py)
    last_failure: Violation | None = None
    faults: list = field(default_factory=list)        # the first Fault of each signature
    deadline: float | None = None                     # the monotonic time the command must stop by

    def fault(self, f: Fault) -> None:
        if all(g.signature() != f.signature() for g in self.faults):
            self.faults.append(f)


def check_step(world, step, props, asserted, obs: Observations):
    """Each property after `step`. Past a behaviour's first step, a property that declares what of a
    step it reads is not run at a step touching none of it (`properties.base.step_facets`): its
    declaration says it would find nothing, reach no premise and change nothing there (as the
    exhaustive engine's guards, which `guards="verify"` holds to it). It is counted as checked."""
    interrupt.check()           # every engine's and replay's step passes here
    obs.steps += 1
    obs.action_counts[step.action] = obs.action_counts.get(step.action, 0) + 1
    for f in step.forms:
        obs.form_counts[f] = obs.form_counts.get(f, 0) + 1
    p = None
    checks = obs.checks
    try:
        with watchdog.current().bounded():
            facets = guard_facets(world, step)
            for p in props:
                if p.kind == "liveness":
                    if p.monitor is not None:
                        p.monitor(world, step)
                    continue
                checks[p.name] = checks.get(p.name, 0) + 1
                if facets is not None and not p.may_read(facets, step.action):
                    continue
                if p.premise is not None:
                    count_premise(obs.premise_counts, p, p.premise(world, step))
                msg = p.check(world, step)
                if msg:
                    _failed(world, p, msg, asserted, obs)
    except (KeyboardInterrupt, CapReached, ModelFault, Violation):
        raise
    except BaseException as e:      # a check that raises judged nothing: a fault, never a refutation
        raise _faulted(world, e, world.history, f"the check of {p.name}" if p else "the checks") from e


def _failed(world, p, msg, asserted, obs) -> None:
    """An asserted property fails the example; a witness or gap is observed (its shortest kept)."""
    if p.name in asserted:
        v = Violation(p, msg, list(world.history))
        obs.last_failure = v
        raise v
    if p.name not in obs.observed or len(world.history) < len(obs.observed[p.name][1]):
        obs.observed[p.name] = (msg, list(world.history))


def _judge(world, p, call):
    """A property's own code run on the state: if it raises, it judged nothing (a fault)."""
    try:
        return call()
    except (KeyboardInterrupt, CapReached, ModelFault):
        raise
    except BaseException as e:
        raise _faulted(world, e, world.history, f"the check of {p.name}") from e


def check_liveness(world, props, asserted, obs: Observations, limit: int = 200):
    live = [p for p in props if p.kind == "liveness"]
    if not live:
        return
    before = list(world.history)
    try:
        with watchdog.current().bounded():
            quiesced = drain(world, limit, on_step=lambda s: check_step(world, s, props, asserted, obs))
    except (KeyboardInterrupt, CapReached, ModelFault, Violation):
        raise
    except BaseException as e:      # the drain asks the rules too (who may approve, what is enabled)
        raise _faulted(world, e, before, "the fair drain before liveness is judged") from e
    world.facts["drain_quiesced"] = quiesced
    for p in live:
        if p.premise is not None:
            _judge(world, p, lambda: count_premise(obs.premise_counts, p, p.premise(world, None)))
        msg = _judge(world, p, lambda: p.check(world, None))
        obs.checks[p.name] = obs.checks.get(p.name, 0) + 1
        if msg:
            _failed(world, p, msg, asserted, obs)
