"""LIV-1 after the fair drain, and a seeded random walk over the baseline that breaks none of the
update, tasks, ownership and liveness properties."""
from __future__ import annotations

import random

from model.actions import load_all
from model.fairness import drain
from model.host import answer_pending
from model.rules import Rules
from model.stories import play
from model.world import World
from properties import liveness, ownership, tasks_ops, update  # noqa: F401  (registers the properties)
from properties.base import CATALOGUE, find

ACTIONS = load_all()
LIV = find("LIV-1")
MINE = [p for p in CATALOGUE.values() if p.area in ("update", "tasks_ops", "ownership", "liveness")]


def pick(world, action, **want):
    args = next((a for a in world.moves(action) if all(a.get(k) == v for k, v in want.items())), None)
    assert args is not None, f"no {action} move with {want}"
    step = world.apply(action, args)
    LIV.monitor(world, step)          # as every engine does after each step
    return step


def run_label(world, label):
    return next(r.id for r in world.runs.values() if r.label == label)


def judge(world):
    """What the verifier does at teardown: the fair drain, then LIV-1 (premise, check)."""
    world.facts["drain_quiesced"] = drain(world, 200, on_step=lambda s: LIV.monitor(world, s))
    return LIV.premise(world, None), LIV.check(world, None)


class DropEveryRequest(Rules):
    """drop-every-request: the host never answers a tools/call."""

    def answer_tools_call(self, world, q):
        return None


class DetachOnDisconnect(Rules):
    """detach-on-disconnect: the owner's cancellation leaves the run running."""

    def on_request_cancelled(self, world, q, cause):
        return None


def _calls(world):
    pick(world, "call_tool", client="C1", server="S1", transport="http", declare=True, tool="flow")
    pick(world, "call_tool", client="C2", server="S2", transport="http", declare=False, tool="flow")
    pick(world, "run_start", run=run_label(world, "run2"))
    pick(world, "run_interrupt", run=run_label(world, "run2"), kind="approval", form=True)


def test_liv1_holds_every_call_answered_and_a_disconnected_run_cancelled():
    w = World()
    _calls(w)
    pick(w, "call_tool", client="C1", server="S2", transport="http", declare=False, tool="flow")
    pick(w, "run_start", run=run_label(w, "run3"))
    pick(w, "disconnect", request="r3")
    premise, msg = judge(w)
    assert w.facts["drain_quiesced"] is True
    assert premise and msg is None
    assert w.runs[run_label(w, "run3")].status == "cancelled"


def test_liv1_premise_names_what_each_state_owes():
    w = World()
    pick(w, "call_tool", client="C1", server="S1", transport="http", declare=False, tool="task-only")
    assert w.requests["r1"].response["error"]["code"] == -32021 and LIV.premise(w, None) == ()   # no run: owed nothing
    pick(w, "call_tool", client="C2", server="S2", transport="http", declare=False, tool="flow")
    assert LIV.premise(w, None) == ("a tools/call",)
    pick(w, "run_start", run=run_label(w, "run1"))
    pick(w, "run_interrupt", run=run_label(w, "run1"), kind="approval", form=True)
    pick(w, "answer", request="r2")
    pick(w, "deliver", request="r2")
    pick(w, "mrtr_retry", client="C2", answers="r2", response="none", declare=False)
    assert LIV.premise(w, None) == ("a tools/call", "an MRTR retry")
    pick(w, "disconnect", request="r3")                   # the retry owned run1, waiting on bob
    assert LIV.premise(w, None) == liveness.LIV1_CASES


def test_liv1_fails_when_the_host_drops_every_request():
    w = World(rules=DropEveryRequest())
    _calls(w)
    premise, msg = judge(w)
    assert premise
    assert "tools/call r1" in msg and "tools/call r2" in msg and "received" in msg and "run1" in msg


def test_liv1_fails_when_a_retry_is_never_answered():
    class AnswersOnlyFirstCalls(Rules):
        def answer_tools_call(self, world, q):
            return None if q.retry_of else super().answer_tools_call(world, q)

    w = World(rules=AnswersOnlyFirstCalls())
    _calls(w)
    pick(w, "answer", request="r2")
    pick(w, "deliver", request="r2")
    pick(w, "mrtr_retry", client="C2", answers="r2", response="accept", declare=False)
    premise, msg = judge(w)
    assert premise and "MRTR retry r3" in msg and "C2" in msg


def test_liv1_fails_when_a_disconnected_run_is_never_cancelled():
    w = World(rules=DetachOnDisconnect())
    pick(w, "call_tool", client="C1", server="S2", transport="http", declare=False, tool="flow")
    pick(w, "run_start", run=run_label(w, "run1"))
    pick(w, "disconnect", request="r1")
    premise, msg = judge(w)
    assert premise
    assert "run1" in msg and "r1" in msg and "completed" in msg and "not cancelled" in msg


def test_random_baseline_walks_break_none_of_these_properties():
    """Seeded random walks over every enabled move, then the fair drain: nothing asserted is violated."""
    names = list(ACTIONS)
    steps, premised = 0, set()
    for seed in range(12):
        rng, w = random.Random(seed), World()

        def check(step):
            for p in MINE:
                if p.kind == "liveness":
                    if p.monitor is not None:
                        p.monitor(w, step)
                    continue
                if p.premise(w, step):
                    premised.update(p.ids)
                msg = p.check(w, step)
                assert msg is None or not p.asserted, f"seed {seed}, step {step.index} ({step.action}): {p.name}: {msg}"

        for _ in range(40):
            enabled = [(n, m) for n in names if len(m := ACTIONS[n].moves(w))]
            if not enabled:
                break
            name, moves = rng.choice(enabled)
            step = w.apply(name, moves[rng.randrange(len(moves))], check=False)
            check(step)
            steps += 1
            if rng.random() < 0.8:              # mostly answered at once; else the window stays open
                for answered in answer_pending(w, step, check=False):
                    check(answered)
        w.facts["drain_quiesced"] = drain(w, 200, on_step=check)
        assert LIV.check(w, None) is None, f"seed {seed}: {LIV.check(w, None)}"
    assert steps >= 300
    assert {"OWN-1", "OWN-2", "UPD-2", "CNL-2"} <= premised      # GET-1: by the stories, below


def test_the_scenario_stories_replay_on_the_baseline_and_reach_their_premises():
    """The STORIES of the update, tasks and ownership modules are real baseline behaviours (every move
    enabled), break nothing asserted, and exercise the premises random steps reach rarely."""
    premised = set()
    for module in (update, tasks_ops, ownership):
        for name, story in module.STORIES.items():
            w = World()
            for action, args, step, _ in play(w, story):
                for p in MINE:
                    if p.kind == "liveness":
                        if p.monitor is not None:
                            p.monitor(w, step)
                        continue
                    if p.premise(w, step):
                        premised.update(p.ids)
                    msg = p.check(w, step)
                    assert msg is None or not p.asserted, f"{name}: {p.name}: {msg}"
            w.facts["drain_quiesced"] = drain(w, 200, on_step=lambda s: LIV.monitor(w, s))
            assert LIV.check(w, None) is None, name
    assert {"UPD-1", "UPD-2", "UPD-3", "UPD-4", "RPL-1", "TTL-1", "TTL-2", "TTL-3", "CNL-1", "CNL-2", "GET-1",
            "OWN-2", "OWN-3", "OWN-4", "OWN-G3"} <= premised
