"""The Hypothesis state machine, generated from the model's action table.

Its one rule, `act`, draws an action among the enabled ones (weighted by the table's weights, so
long protocol stories are reached) and one of that action's enabled moves, applies it, and checks
every property of the catalogue after the step. Asserted properties fail the example; witnesses
and gaps are observed and reported. Liveness is judged at teardown after the fair drain.
Counterexamples are then told in protocol words by `verifier.story`, not as Hypothesis's program.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from model.actions import load_all
from model.fairness import drain


STEPS_PER_DRAW = 4


class Violation(AssertionError):
    def __init__(self, prop, message, history):
        super().__init__(f"{prop.name} ({', '.join(prop.ids)}): {message}")
        self.prop, self.message, self.history = prop, message, history


@dataclass
class Observations:
    """What an exploration saw, across examples: coverage, premises, witnesses, gaps, failures."""
    action_counts: dict = field(default_factory=dict)
    premise_counts: dict = field(default_factory=dict)
    checks: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)      # property -> (message, history) first seen
    steps: int = 0
    examples: int = 0
    last_failure: Violation | None = None


def check_step(world, step, props, asserted, obs: Observations):
    obs.steps += 1
    obs.action_counts[step.action] = obs.action_counts.get(step.action, 0) + 1
    for p in props:
        if p.kind == "liveness":
            continue
        if p.premise is not None and p.premise(world, step):
            obs.premise_counts[p.name] = obs.premise_counts.get(p.name, 0) + 1
        msg = p.check(world, step)
        obs.checks[p.name] = obs.checks.get(p.name, 0) + 1
        if msg:
            if p.name in asserted:
                v = Violation(p, msg, list(world.history))
                obs.last_failure = v
                raise v
            if p.name not in obs.observed or len(world.history) < len(obs.observed[p.name][1]):
                obs.observed[p.name] = (msg, list(world.history))


def check_liveness(world, props, asserted, obs: Observations, limit: int = 200):
    live = [p for p in props if p.kind == "liveness"]
    if not live:
        return
    quiesced = drain(world, limit, on_step=lambda s: check_step(world, s, props, asserted, obs))
    world.facts["drain_quiesced"] = quiesced
    for p in live:
        if p.premise is not None and p.premise(world, None):
            obs.premise_counts[p.name] = obs.premise_counts.get(p.name, 0) + 1
        msg = p.check(world, None)
        obs.checks[p.name] = obs.checks.get(p.name, 0) + 1
        if msg:
            if p.name in asserted:
                v = Violation(p, msg, list(world.history))
                obs.last_failure = v
                raise v
            obs.observed.setdefault(p.name, (msg, list(world.history)))


def make_machine(make_world, props, asserted: set[str], obs: Observations, actions=None):
    """A RuleBasedStateMachine class over `make_world()`; `actions` limits the rules (default all)."""
    table = load_all()
    names = [n for n in table if actions is None or n in actions]

    class ModelMachine(RuleBasedStateMachine):
        def __init__(self):
            self.names = names
            super().__init__()
            self.world = make_world()
            self._moves = {}
            self._enabled = None
            self.swarm = -1          # every action, until the swarm is drawn
            obs.examples += 1

        def moves(self, name):
            got = self._moves.get(name)
            if got is None:
                got = self._moves[name] = table[name].moves(self.world)
            return got

        def take(self, name, i):
            moves = self.moves(name)
            step = self.world.apply(name, moves[i % len(moves)], check=False)
            self._moves, self._enabled = {}, None
            check_step(self.world, step, props, asserted, obs)

        def teardown(self):
            check_liveness(self.world, props, asserted, obs)

        @precondition(lambda self: not self.enabled())
        @rule()
        def quiescent(self):
            """Nothing is enabled: the example idles (no step is recorded)."""

    weight = {n: table[n].weight for n in names}
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
            self.take(enabled[(choice & 0xFFFF) % len(enabled)], (choice >> 16) & 0xFFFF)
            choice >>= 32

    def enabled(self):
        if self._enabled is None:
            live = [n for n in names if self.moves(n)]
            chosen = [n for n in live if self.swarm & bit[n]] or live
            self._enabled = [n for n in chosen for _ in range(weight[n])]
        return self._enabled
    ModelMachine.choose_swarm = choose_swarm
    ModelMachine.enabled = enabled
    ModelMachine.act = act
    return ModelMachine

