"""HNS-1..HNS-7: each holds on its baseline story (`properties.harness.STORIES`), which exercises
its premise, and each is refuted by its planted client mutant (requirements.md, Variants) with a
message naming the values.

The client mutants are one-method overrides of `model.harness.HarnessRules`.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from model import harness as harness_model
from model import stories
from model.actions import load_all
from model.amend import load_file
from model.harness import HarnessRules
from model.world import composed_world
from properties.base import CATALOGUE, count_premise, load_catalogue
from properties.harness import STORIES, play, run_no
from verifier.engines.bfs.run import run_bfs
from verifier.runtime.checking import Observations
from verifier.engines.random.machine import make_machine

HNS = [p for p in CATALOGUE.values() if p.area == "harness"]
HARNESS_3 = CATALOGUE["harness-resumes-after-restart"]


# ---- the client mutants ------------------------------------------------------------------------
class AssumeTasksEverywhere(HarnessRules):
    """HNS-1: every server is taken to serve Tasks, whatever server/discover said."""
    name = "assume-tasks-everywhere"

    def tasks_offered(self, world, client, server):
        return True


class WaitBeforePersist(HarnessRules):
    """HNS-2: WAITING_EXTERNAL is entered on receipt of the handle, before it is persisted."""
    name = "wait-before-persist"

    def persists_binding_before_waiting(self, world, client, te):
        return False


class ReissueAfterRestart(HarnessRules):
    """HNS-3: a new process drops its persisted bindings and calls the tool again."""
    name = "reissue-after-restart"

    def resumes_by_polling(self, world, client, te):
        return False


class CancelAckMeansNoEffect(HarnessRules):
    """HNS-4: the empty ack of tasks/cancel is recorded as "cancelled, no effect"."""
    name = "cancel-ack-means-no-effect"

    def outcome_of_cancel_ack(self, world, client, te):
        return "remote_cancelled"


class MirrorRemoteStatus(HarnessRules):
    """HNS-5: the remote task status is written over the local run."""
    name = "mirror-remote-status"

    def record_remote_status(self, world, client, te, status):
        super().record_remote_status(world, client, te, status)
        world.harness.clients[client].proc.runs[te.run].status = status


class PollWithDefaultCredentials(HarnessRules):
    """HNS-6: after a restart, the bound task is polled with the process's own credentials."""
    name = "poll-with-default-credentials"

    def binding_credentials(self, world, client, te):
        return te.binding.server, "carol" if world.harness.clients[client].proc.epoch > 1 else te.binding.auth


class TaskForEveryCall(HarnessRules):
    """HNS-7: a short exchange declares Tasks too (where the server was not seen refusing them)."""
    name = "task-for-every-call"

    def declares_tasks(self, world, client, te):
        return self.tasks_offered(world, client, te.server) is not False


# ---- driving a story ----------------------------------------------------------------------------
def drive(story, harness_rules=None, target=None):
    """Play a story on a composed world, checking the HNS properties after each step; stop once the
    property under test reports (a mutant's story may no longer be enabled after that)."""
    world, messages, premises = composed_world(harness_rules=harness_rules), {}, {}

    def look(w, step):
        for p in HNS:
            if p.premise(w, step):
                premises[p.name] = premises.get(p.name, 0) + 1
            msg = p.check(w, step)
            if msg:
                messages.setdefault(p.name, msg)
        return target in messages
    play(world, story, until=look)
    return world, messages, premises


CASES = [
    ("harness-negotiates", AssumeTasksEverywhere,
     ("H1", "tools/call r", "op", "S2", "needs a durable handle", "io.modelcontextprotocol/tasks")),
    ("harness-durable-wait", WaitBeforePersist,
     ("H1's op1", "WAITING_EXTERNAL", "task of run1", "S1", "binding None")),
    ("harness-resumes-after-restart", ReissueAfterRestart,
     ("H1 restarted", "task of run1", "op1", "'calling'")),
    ("harness-cancel-is-intent", CancelAckMeansNoEffect,
     ("H1 recorded op1 'cancelled'", "empty ack of r2", "task of run1", "run1 is cancelling")),
    ("harness-uses-bound-credentials", PollWithDefaultCredentials,
     ("H1 sent tasks/get r2", "op1", "task of run1", "as carol", "auth alice")),
    ("harness-local-authority", MirrorRemoteStatus,
     ("H1's local run L1", "'working'", "'running'", "task of run1 reads working")),
    ("harness-chooses-per-operation", TaskForEveryCall,
     ("H1 sent tools/call r3 for op2", "a short exchange", "io.modelcontextprotocol/tasks")),
]


@pytest.mark.parametrize("name,mutant,values", CASES, ids=[c[0] for c in CASES])
def test_holds_on_the_baseline_with_its_premise_exercised(name, mutant, values):
    _, messages, premises = drive(STORIES[name])
    assert messages == {}
    assert premises.get(name, 0) > 0, f"the story never exercised the premise of {name}"


@pytest.mark.parametrize("name,mutant,values", CASES, ids=[c[0] for c in CASES])
def test_refuted_by_its_client_mutant_with_the_values(name, mutant, values):
    _, messages, _ = drive(STORIES[name], mutant, target=name)
    assert name in messages, f"{mutant.name} did not refute {name}"
    for value in values:
        assert value in messages[name], (value, messages[name])


def test_each_client_mutant_is_a_one_method_override_of_a_named_rule():
    for _, mutant, _ in CASES:
        own = [n for n, v in vars(mutant).items() if callable(v) and not n.startswith("_")]
        assert len(own) == 1 and hasattr(HarnessRules, own[0]), (mutant.name, own)


def test_a_reissue_of_a_bound_operation_is_told_by_the_restart_trace_too():
    story = STORIES["harness-resumes-after-restart"]
    restart = next(i for i, (name, _) in enumerate(story) if name == "harness_restart")
    world, _, _ = drive(story[:restart + 1], ReissueAfterRestart)
    step = world.apply("harness_reissue", dict(client="H1", op="op1"))
    message = HARNESS_3.check(world, step)
    assert "H1 sent tools/call r2 for op1 again" in message
    assert "binding to task of run1 on S1 (auth alice) was persisted" in message


# ---- premise cases ---------------------------------------------------------------------------------
def cases_reached(story, name, harness_rules=None):
    """{case: steps that reached it} of property `name` over a story, and its messages."""
    world, prop, counts, messages = composed_world(harness_rules=harness_rules), CATALOGUE[name], {}, []
    for _, _, step, _ in stories.play(world, story):
        count_premise(counts, prop, prop.premise(world, step))
        messages += [m for m in [prop.check(world, step)] if m]
    return {c: n for c, n in prop.case_counts(counts).items() if n}, messages


H1 = "H1"
_CANCELLED = [("harness_cancel", dict(client=H1, run="L1"))]
CALL_DROPPED = STORIES["harness-cancel-meets-a-dropped-call"]
HNS4 = "harness-cancel-is-intent"
HNS4_STORIES = [
    (STORIES["harness-cancel-is-intent"], {"terminal fact read": 1, "after a cancel acknowledgement": 1}),
    (STORIES["harness-cancel-meets-an-elapsed-ttl"], {"unobtainable by an elapsed TTL": 1}),
    (STORIES["harness-cancels-before-a-refused-retry"], {"unobtainable by -32602": 1}),
    (CALL_DROPPED, {"unobtainable by a server gone": 1}),
    (STORIES["harness-durable-wait"][:4] + _CANCELLED + [("run_start", run_no(1)), ("run_complete", run_no(1)),
                                                           *STORIES["harness-durable-wait"][4:]],
     {"remote completed after the cancel": 1}),
]


@pytest.mark.parametrize("story, cases", HNS4_STORIES, ids=[", ".join(c) for _, c in HNS4_STORIES])
def test_hns4_premise_names_what_a_cancelled_record_ended_on(story, cases):
    assert cases_reached(story, HNS4) == (cases, [])


def test_hns4_names_the_recorded_cancel_of_an_ack_by_its_ack_alone():
    """The ack read as "cancelled, no effect": the record ends on no fact, so only the ack's case is reached
    (not "terminal fact read"), at the step HNS-4 refutes."""
    story = STORIES["harness-cancel-is-intent"]
    ack = next(i for i, (a, args) in enumerate(story) if a == "harness_receive" and args == dict(request="r2"))
    got, messages = cases_reached(story[:ack + 1], HNS4, CancelAckMeansNoEffect)
    assert got == {"after a cancel acknowledgement": 1} and len(messages) == 1


def test_hns4_server_gone_case_is_what_a_dropped_call_left_active_would_lose(monkeypatch):
    """Issue 52's survivor: the step that ends the record "unknown" after its call dropped, deleted
    (model.harness._dropped). The record stays live and no check fails, but the case is never reached:
    a proof that never saw it is vacuous, not a pass."""
    real = harness_model._dropped

    def keeps_the_record_live(world, c, q, purpose, te):
        if purpose != "call":
            return real(world, c, q, purpose, te)
        te.request, te.worker = None, False
        return "dropped"
    monkeypatch.setattr(harness_model, "_dropped", keeps_the_record_live)
    got, messages = cases_reached(CALL_DROPPED, HNS4)
    assert got == {} and messages == []


HNS6 = "harness-uses-bound-credentials"
HNS6_STORIES = [
    (STORIES["harness-cancel-is-intent"], {"a poll": 1, "a cancel": 1}),
    (STORIES["harness-answers-task-input"], {"a poll": 1, "an update": 1}),
    (STORIES["harness-durable-wait"][:4] + [("harness_listen", dict(client=H1, op="op1"))], {"a subscription": 1}),
]


@pytest.mark.parametrize("story, cases", HNS6_STORIES, ids=[", ".join(c) for _, c in HNS6_STORIES])
def test_hns6_premise_names_each_request_sent_for_a_binding(story, cases):
    assert cases_reached(story, HNS6) == (cases, [])


def test_hns6_is_refuted_at_the_poll_its_case_names():
    got, messages = cases_reached(STORIES[HNS6], HNS6, PollWithDefaultCredentials)
    assert got == {"a poll": 1} and len(messages) == 1 and "as carol" in messages[0]


# ---- the harness rows of the planted-mutant corpus (tests/quality/test_corpus.py) ----------------
QUALITY = Path(__file__).resolve().parents[1] / "quality"
# (file, the id it refutes now, its corpus scope with the old baseline's harness parameters, and no crash
# so that the complete search is short)
OLD_HARNESS = [
    ("harness_teardown_only_fallback.py", "LIV-2",
     "composed-small,harness_max_crashes=0,harness_short_ops=False,harness_wait='poll'"),
    ("harness_short_declares_where_offered.py", "HNS-7", "composed-small,harness_max_crashes=0,harness_short_ops=False"),
]


@pytest.mark.slow
@pytest.mark.parametrize("file, rid, scope", OLD_HARNESS, ids=[c[0] for c in OLD_HARNESS])
def test_a_harness_corpus_mutant_held_where_the_old_baseline_never_generated_its_behaviour(file, rid, scope):
    """The harness of the old baseline waited by polling only and started no short exchange: at those
    parameters the corpus mutant's id is proved, which is what the widened harness now refutes."""
    props = [p for p in load_catalogue().values() if rid in p.ids]
    r = run_bfs(load_file(str(QUALITY / file)), scope=scope, props=props, budget=300)
    assert [v.verdict for v in r.verdicts] == ["proved"], [(v.name, v.verdict, v.message) for v in r.verdicts]


# ---- random composed steps ---------------------------------------------------------------------
def explore(make_world, props, examples: int, steps: int, actions=None) -> Observations:
    """Seeded random composed steps through the verifier's state machine, every property checked
    after every step; an asserted property's violation raises `Violation`."""
    obs = Observations()
    machine = make_machine(make_world, props, {p.name for p in props if p.asserted}, obs, actions)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=examples, stateful_step_count=steps, derandomize=True, database=None, deadline=None,
        phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    return obs


STORY_ACTIONS = {n for n, a in load_all().items() if a.actor in ("harness", "host", "network", "clock")}


def test_random_composed_steps_violate_no_hns_property():
    everyone = explore(composed_world, HNS, examples=20, steps=30)
    assert everyone.last_failure is None and everyone.steps >= 400
    assert any(a.startswith("harness_") for a in everyone.action_counts)
    # Without the environment's clients the harness's stories go deeper and reach the premises.
    stories = explore(composed_world, HNS, examples=20, steps=30, actions=STORY_ACTIONS)
    assert stories.last_failure is None and stories.steps >= 400
    assert len(stories.premise_counts) >= 3, stories.premise_counts
