"""The scenario driver the property tests share: take moves by partial match or at random, and check a
list of properties after every step.

Test modules are imported by path (see tests/conftest.py), so a test loads this file by path too:

    _spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
    scenario = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(scenario)

The caller registers the actions (`model.actions.load_all()` or the `model.*` imports) and the
properties it checks (by importing their `properties.*` module).
"""
from __future__ import annotations

import dataclasses
import random

from model.actions import ACTIONS
from model.host import answer_pending
from model.world import World
from properties.base import count_premise, find

PROTOCOL_ACTORS = ("client", "network", "host", "rest", "clock")


class Scenario:
    """A world driven move by move, checking the properties `names` after every step.

    `names` (a subclass sets its own) are property names or requirement ids, and what a step records
    is keyed by the name as given: `fired[n]` counts the steps that exercised n's premise and
    `violations[n]` lists n's messages, each present only once there is one; `premises` and
    `messages` show every name, at 0 or [] where there is none; `cases(n)` counts each premise case
    n declares (a premise answering a case it does not declare raises).
    """

    names = ()                           # property names or requirement ids
    params = None                        # the parameters of a scenario that names none

    def __init__(self, rules=None, params=None, names=None):
        self.world = World(params or self.params, rules)
        self.props = {n: find(n) for n in names or self.names}
        self.fired: dict[str, int] = {}
        self.violations: dict[str, list[str]] = {}
        self.counts: dict[str, dict] = {n: {} for n in self.props}     # premise counters (`count_premise`)

    def do(self, action, answer=True, **match):
        """Take the first `action` move whose arguments include `match`, and check it. A request it
        sends that waits for the host's `respond` is answered at once (and that step checked and
        returned) unless `answer` is False: the window between receipt and answer stays open."""
        for args in self.world.moves(action):
            if all(args.get(k) == v for k, v in match.items()):
                step = self.check(self.world.apply(action, args))
                for step in answer_pending(self.world, step) if answer else ():
                    self.check(step)
                return step
        raise AssertionError(f"no {action} move matching {match}")

    def check(self, step):
        for n, p in self.props.items():
            if p.premise is not None and count_premise(self.counts[n], p, p.premise(self.world, step)):
                self.fired[n] = self.fired.get(n, 0) + 1
            msg = p.check(self.world, step)
            if msg:
                self.violations.setdefault(n, []).append(msg)
        return step

    @property
    def premises(self) -> dict[str, int]:
        return {n: self.fired.get(n, 0) for n in self.props}

    @property
    def messages(self) -> dict[str, list[str]]:
        return {n: self.violations.get(n, []) for n in self.props}

    def cases(self, n) -> dict[str, int]:
        """{case: steps that reached it} of n's premise, every declared case shown."""
        return self.props[n].case_counts(self.counts[n])

    def reached(self, n) -> set[str]:
        """The cases of n's premise reached so far."""
        return {c for c, k in self.cases(n).items() if k}

    def call(self, client="C1", declare=True, server="S1", transport="http"):
        """`client` calls the tool `flow`: the request's id and its run's."""
        self.do("call_tool", client=client, server=server, transport=transport, declare=declare, tool="flow")
        q = self.last()
        return q, self.world.requests[q].run

    def last(self):
        """The id of the latest request."""
        return f"r{len(self.world.requests)}"

    def response(self, request_id):
        return self.world.requests[request_id].response

    def run(self, label="run1"):
        """The id of the run labelled `label`."""
        return next(r.id for r in self.world.runs.values() if r.label == label)

    def task_id(self, run_id):
        """The task id the rules give the run."""
        return self.world.rules.task_id(self.world, self.world.runs[run_id])


def random_walk(sc, seed, steps):
    """Take up to `steps` protocol moves in `sc`, chosen by `seed`, checking each; return `sc`."""
    rng = random.Random(seed)
    names = [n for n, a in ACTIONS.items() if a.actor in PROTOCOL_ACTORS]
    for _ in range(steps):
        enabled = [n for n in names if len(ACTIONS[n].moves(sc.world))]
        if not enabled:
            break
        name = rng.choice(enabled)
        moves = ACTIONS[name].moves(sc.world)
        sc.check(sc.world.apply(name, moves[rng.randrange(len(moves))], check=False))
    return sc


def story_cases(sc, story, n, premise=None) -> dict[str, int]:
    """{case: steps reaching it} of n's premise over `story` played in `sc`; with `premise`, n's premise
    replaced by it (a planted mistake the same story must show)."""
    if premise is not None:
        sc.props[n] = dataclasses.replace(sc.props[n], premise=premise)
    story(sc)
    return sc.cases(n)


def answering(n, case, instead):
    """n's premise answering `instead` where it should answer `case`: a planted misclassification."""
    real = find(n).premise
    return lambda world, step: tuple(instead if c == case else c for c in real(world, step))
