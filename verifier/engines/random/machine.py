"""The Hypothesis state machine, generated from the model's action table.

Its one rule, `act`, draws an action among the enabled ones (weighted by the table's weights, so
long protocol stories are reached) and one of that action's enabled moves, applies it, and checks
every property of the catalogue after the step. Asserted properties fail the example; witnesses
and gaps are observed and reported. Liveness is judged at teardown after the fair drain.
Counterexamples are then told in protocol words by `verifier.writers.story`, not as Hypothesis's program.
"""
from __future__ import annotations

import sys
import time

from hypothesis import strategies as st
from hypothesis.errors import StopTest
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from model.actions import load_all

from verifier.runtime import watchdog
from verifier.runtime.checking import Observations, OutOfBudget, check_liveness, check_step
from verifier.runtime.faults import ModelFault


STEPS_PER_DRAW = 4


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
            # An example Hypothesis ended early, at its size limit or after drawing a rule whose
            # precondition failed (`quiescent` while moves are enabled) three times, is not one of the
            # examples its `max_examples`, and so the budget, counts (it draws another in its place):
            # told apart. It is a behaviour all the same: its steps were checked, its liveness is judged.
            if isinstance(sys.exc_info()[1], StopTest):
                obs.examples -= 1
                obs.cut += 1
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
                # The swarm's enabled actions, else every enabled one: the others' moves are asked
                # only when none of the swarm's is enabled (enumerating is a third of a step's cost).
                chosen = self.guarded(lambda: [n for n in names if self.swarm & bit[n] and self.moves(n)]) or \
                    self.guarded(lambda: [n for n in names if not self.swarm & bit[n] and self.moves(n)])
            self._enabled = [n for n in chosen for _ in range(weight[n])]
        return self._enabled
    ModelMachine.choose_swarm = choose_swarm
    ModelMachine.enabled = enabled
    ModelMachine.act = act
    return ModelMachine
