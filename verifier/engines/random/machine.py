"""The Hypothesis state machine, generated from the model's action table.

Its one rule, `act`, draws an action among the enabled ones (weighted by the table's weights, so
long protocol stories are reached) and one of that action's enabled moves, applies it, and checks
every property of the catalogue after the step. Asserted properties fail the example; witnesses
and gaps are observed and reported. Liveness is judged at teardown after the fair drain.
Counterexamples are then told in protocol words by `verifier.writers.story`, not as Hypothesis's program.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from model.actions import load_all
from model.fairness import drain
from model.world import ModelError

from verifier.runtime import watchdog
from verifier.runtime.faults import Fault, ModelFault, fault_of


STEPS_PER_DRAW = 4


class Violation(AssertionError):
    def __init__(self, prop, message, history):
        super().__init__(f"{prop.name} ({', '.join(prop.ids)}): {message}")
        self.prop, self.message, self.history = prop, message, history


class OutOfBudget(Exception):
    """The command's wall-clock budget ran out in the middle of an example."""


def guard_world(world):
    """`world`, with its steps and enabled-move lists made fault-aware: whatever a rule or the model
    raises there (also SystemExit, or the watchdog's StepTimeout) becomes a ModelFault naming the
    move, and each step and each enumeration of an action's moves is bounded by the watchdog."""
    apply, moves = world.apply, world.moves

    def guarded_moves(name):
        try:
            with watchdog.current().bounded():      # a rule asked for the moves may hang too
                return moves(name)
        except (KeyboardInterrupt, ModelFault):
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
        except (KeyboardInterrupt, ModelFault):
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
    last_failure: Violation | None = None
    faults: list = field(default_factory=list)        # the first Fault of each signature
    deadline: float | None = None                     # the monotonic time the command must stop by

    def fault(self, f: Fault) -> None:
        if all(g.signature() != f.signature() for g in self.faults):
            self.faults.append(f)


def check_step(world, step, props, asserted, obs: Observations):
    obs.steps += 1
    obs.action_counts[step.action] = obs.action_counts.get(step.action, 0) + 1
    for f in step.forms:
        obs.form_counts[f] = obs.form_counts.get(f, 0) + 1
    p = None
    try:
        with watchdog.current().bounded():
            for p in props:
                if p.kind == "liveness":
                    if p.monitor is not None:
                        p.monitor(world, step)
                    continue
                if p.premise is not None and p.premise(world, step):
                    obs.premise_counts[p.name] = obs.premise_counts.get(p.name, 0) + 1
                msg = p.check(world, step)
                obs.checks[p.name] = obs.checks.get(p.name, 0) + 1
                if msg:
                    _failed(world, p, msg, asserted, obs)
    except (KeyboardInterrupt, ModelFault, Violation):
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
    except (KeyboardInterrupt, ModelFault):
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
    except (KeyboardInterrupt, ModelFault, Violation):
        raise
    except BaseException as e:      # the drain asks the rules too (who may approve, what is enabled)
        raise _faulted(world, e, before, "the fair drain before liveness is judged") from e
    world.facts["drain_quiesced"] = quiesced
    for p in live:
        if p.premise is not None and _judge(world, p, lambda: p.premise(world, None)):
            obs.premise_counts[p.name] = obs.premise_counts.get(p.name, 0) + 1
        msg = _judge(world, p, lambda: p.check(world, None))
        obs.checks[p.name] = obs.checks.get(p.name, 0) + 1
        if msg:
            _failed(world, p, msg, asserted, obs)


def make_machine(make_world, props, asserted: set[str], obs: Observations, actions=None, weights=None):
    """A RuleBasedStateMachine class over `make_world()` (a guarded world: see `guard_world`);
    `actions` limits the rules (default all), `weights` replaces the table's weights of the actions it
    names (a swarm's differently weighted explorations). A fault is recorded in `obs.faults` and ends the
    example, and its teardown then judges nothing (the world is not a behaviour)."""
    table = load_all()
    names = [n for n in table if actions is None or n in actions]

    class ModelMachine(RuleBasedStateMachine):
        def __init__(self):
            self.names = names
            super().__init__()
            self.faulted = False
            self._moves = {}
            self._enabled = None
            self.swarm = -1          # every action, until the swarm is drawn
            obs.examples += 1
            self.world = self.guarded(make_world)

        def guarded(self, call):
            try:
                return call()
            except ModelFault as e:
                self.faulted = True
                obs.fault(e.fault)
                raise

        def moves(self, name):
            got = self._moves.get(name)
            if got is None:
                got = self._moves[name] = self.world.moves(name)
            return got

        def take(self, name, i):
            if obs.deadline is not None and time.monotonic() > obs.deadline:
                raise OutOfBudget
            moves = self.moves(name)
            step = self.world.apply(name, moves[i % len(moves)], check=False)
            self._moves, self._enabled = {}, None
            check_step(self.world, step, props, asserted, obs)

        def teardown(self):
            # After a violation the state is still a behaviour, and liveness is judged on it as
            # always; after a fault it is not. A fault here is recorded beside any violation found.
            if not self.faulted and getattr(self, "world", None) is not None:
                self.guarded(lambda: check_liveness(self.world, props, asserted, obs))

        @precondition(lambda self: not self.enabled())
        @rule()
        def quiescent(self):
            """Nothing is enabled: the example idles (no step is recorded)."""

    weight = {n: (weights or {}).get(n, table[n].weight) for n in names}
    bit = {n: 1 << k for k, n in enumerate(names)}

    # Swarm testing: each example leaves out a random subset of actions, so that behaviours an
    # always-available action would pre-empt (a host that answers before the run suspends) occur.
    @initialize(swarm=st.integers(0, (1 << len(names)) - 1))
    def choose_swarm(self, swarm):
        self.swarm = swarm

    @precondition(lambda self: bool(self.enabled()))
    @rule(choice=st.integers(0, (1 << (32 * STEPS_PER_DRAW)) - 1))
    def act(self, choice):
        """One draw decides STEPS_PER_DRAW steps: 32 bits each, the low half picks the action and the
        high half its move (Hypothesis's per-draw bookkeeping costs more than a model step)."""
        for _ in range(STEPS_PER_DRAW):
            enabled = self.enabled()
            if not enabled:
                return
            self.guarded(lambda: self.take(enabled[(choice & 0xFFFF) % len(enabled)], (choice >> 16) & 0xFFFF))
            choice >>= 32

    def enabled(self):
        if self._enabled is None:
            if self.faulted:
                return []
            with watchdog.current().bounded():
                live = self.guarded(lambda: [n for n in names if self.moves(n)])
            chosen = [n for n in live if self.swarm & bit[n]] or live
            self._enabled = [n for n in chosen for _ in range(weight[n])]
        return self._enabled
    ModelMachine.choose_swarm = choose_swarm
    ModelMachine.enabled = enabled
    ModelMachine.act = act
    return ModelMachine
