"""HNS-1..HNS-5: each holds on a baseline scenario that exercises its premise, and each is refuted
by its planted client mutant (requirements.md, Variants) with a message naming the values.

The five client mutants are one-method overrides of `model.harness.HarnessRules`.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from model.harness import HarnessRules
from model.world import composed_world
from properties.base import CATALOGUE
from properties import harness as _harness_props  # noqa: F401  (registers the HNS properties)
from verifier.machine import Observations, make_machine

HNS = [p for p in CATALOGUE.values() if p.area == "harness"]


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


# ---- driving a scenario ------------------------------------------------------------------------
class Drive:
    """Apply enabled moves, checking the HNS properties after each step; once the property under
    test reports, later steps are skipped (a mutant's scenario may no longer be enabled)."""

    def __init__(self, harness_rules=None, target=None):
        self.w = composed_world(harness_rules=harness_rules)
        self.target = target
        self.messages: dict[str, str] = {}
        self.premises: dict[str, int] = {}

    def __call__(self, name, **args):
        if self.target in self.messages:
            return None
        step = self.w.apply(name, args)
        for p in HNS:
            if p.premise(self.w, step):
                self.premises[p.name] = self.premises.get(p.name, 0) + 1
            msg = p.check(self.w, step)
            if msg:
                self.messages.setdefault(p.name, msg)
        return step

    @property
    def last(self) -> str:
        return self.w.last_request()

    def run_of(self, qid):
        return self.w.requests[qid].run


def read(d, qid):
    d("deliver", request=qid)
    d("harness_receive", request=qid)


def bound(d, client="H1", server="S1"):
    """A local run whose tasked call was answered, read and persisted (WAITING_EXTERNAL)."""
    d("harness_start", client=client, server=server, long=False)
    qid = d.last
    d("answer", request=qid)
    read(d, qid)
    d("harness_persist", client=client, op="op1")
    return qid


def poll(d, client="H1", op="op1"):
    d("harness_poll", client=client, op=op)
    read(d, d.last)


# ---- the scenarios, one per property -------------------------------------------------------------
def negotiation(d):
    for server in ("S1", "S2"):
        d("harness_discover", client="H1", server=server)
        read(d, d.last)
    d("harness_start", client="H1", server="S2", long=True)      # the baseline refuses: no handle offered
    d("harness_start", client="H1", server="S1", long=True)      # S1 offers Tasks
    qid = d.last
    run = d.run_of(qid)
    d("run_start", run=run)
    d("run_complete", run=run)
    d("answer", request=qid)                                      # a plain CallToolResult (§B.4)
    read(d, qid)


def durable_wait(d):
    bound(d)
    poll(d)


def restart(d):
    qid = bound(d)
    d("harness_crash", client="H1")
    d("harness_restart", client="H1")
    poll(d)
    d("run_start", run=d.run_of(qid))


def cancel_intent(d):
    qid = bound(d)
    run = d.run_of(qid)
    d("harness_cancel", client="H1", run="L1")
    d("harness_send_cancel", client="H1", op="op1")
    read(d, d.last)
    d("run_finish_cancel", run=run)
    poll(d)


def local_authority(d):
    qid = bound(d)
    poll(d)
    d("run_start", run=d.run_of(qid))
    d("run_complete", run=d.run_of(qid))
    poll(d)


CASES = [
    ("harness-negotiates", negotiation, AssumeTasksEverywhere,
     ("H1", "tools/call r", "op", "S2", "needs a durable handle", "io.modelcontextprotocol/tasks")),
    ("harness-durable-wait", durable_wait, WaitBeforePersist,
     ("H1's op1", "WAITING_EXTERNAL", "task of run1", "S1", "binding None")),
    ("harness-resumes-after-restart", restart, ReissueAfterRestart,
     ("H1 restarted", "task of run1", "op1", "'calling'")),
    ("harness-cancel-is-intent", cancel_intent, CancelAckMeansNoEffect,
     ("H1 recorded op1 'cancelled'", "empty ack of r", "task of run1", "run1 is cancelling")),
    ("harness-local-authority", local_authority, MirrorRemoteStatus,
     ("H1's local run L1", "'working'", "'running'", "task of run1 reads working")),
]


@pytest.mark.parametrize("name,scenario,mutant,values", CASES, ids=[c[0] for c in CASES])
def test_holds_on_the_baseline_with_its_premise_exercised(name, scenario, mutant, values):
    d = Drive()
    scenario(d)
    assert d.messages == {}
    assert d.premises.get(name, 0) > 0, f"the scenario never exercised the premise of {name}"


@pytest.mark.parametrize("name,scenario,mutant,values", CASES, ids=[c[0] for c in CASES])
def test_refuted_by_its_client_mutant_with_the_values(name, scenario, mutant, values):
    d = Drive(mutant, target=name)
    scenario(d)
    assert name in d.messages, f"{mutant.name} did not refute {name}"
    message = d.messages[name]
    for value in values:
        assert value in message, (value, message)


def test_each_client_mutant_is_a_one_method_override_of_a_named_rule():
    for _, _, mutant, _ in CASES:
        own = [n for n, v in vars(mutant).items() if callable(v) and not n.startswith("_")]
        assert len(own) == 1 and hasattr(HarnessRules, own[0]), (mutant.name, own)


def test_a_reissue_of_a_bound_operation_is_told_by_the_restart_trace_too():
    d = Drive(ReissueAfterRestart)
    qid = bound(d)
    d("harness_crash", client="H1")
    d("harness_restart", client="H1")
    d.messages.clear()
    d("harness_reissue", client="H1", op="op1")
    assert "sent tools/call r" in d.messages["harness-resumes-after-restart"]
    assert "binding to task of run1 on S1 (auth alice) was persisted" in d.messages["harness-resumes-after-restart"]
    assert qid != d.last


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


def test_random_composed_steps_violate_no_hns_property():
    obs = explore(composed_world, HNS, examples=20, steps=30)
    assert obs.last_failure is None and obs.steps >= 400
    assert sum(c for a, c in obs.action_counts.items() if a.startswith("harness_")) > 50
