"""UPD-1..4 and RPL-1: each holds on a baseline story that exercises it, and a planted mutant breaks it."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from model import identity, wire
from model.actions import load_all
from model.params import Params
from model.rules import Rules
from properties import update  # noqa: F401  (registers the properties)

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

load_all()
NAMES = ("UPD-1", "UPD-2", "UPD-3", "UPD-4", "RPL-1")


class Story(scenario.Scenario):
    """Drive a world move by move, checking the named properties after every step."""

    names = NAMES

    def ref(self, label="run1"):
        return identity.project(self.run(label))

    def interrupt(self, label="i1"):
        return next(i.id for i in self.world.interrupts.values() if i.label == label)

    def waiting_on_approval(self, client="C1", declare=True):
        """alice starts a tasked run on S1 that waits on an approval only bob may give."""
        self.call(client=client, declare=declare)
        self.do("run_start", run=self.run())
        self.do("run_interrupt", run=self.run(), kind="approval", form=True)

    def update(self, client, response, key=None):
        return self.do("tasks_update", client=client, server="S1", ref=self.ref(), transport="http", declare=True,
                       header_ok=True, key=key or self.interrupt(), response=response)


# ---- UPD-1 ----------------------------------------------------------------------------------------
class NoAtMostOnceGuard(Rules):
    """rest-and-update-both-resolve: resolution without the at-most-once guard."""

    def resolve(self, world, interrupt, subject, action, via, content=None):
        if via != "external" and not self.eligible_approver(world, subject, interrupt):
            return False
        self.do_resolve(world, interrupt, subject, action, via)
        return True


def test_upd1_holds_when_tasks_update_and_rest_both_answer():
    s = Story()
    s.waiting_on_approval()
    s.update("C2", "accept")                        # bob answers through tasks/update
    s.do("rest_resolve", subject="bob", interrupt=s.interrupt(), response="decline")   # and again over REST
    assert s.premises["UPD-1"] >= 1
    assert s.messages["UPD-1"] == []


def test_upd1_fails_without_the_guard():
    s = Story(NoAtMostOnceGuard())
    s.waiting_on_approval()
    s.update("C2", "accept")
    s.do("rest_resolve", subject="bob", interrupt=s.interrupt(), response="decline")
    (msg,) = s.messages["UPD-1"]
    assert "i1" in msg and "run1" in msg and "tasks/update" in msg and "rest" in msg and "twice" in msg


# ---- UPD-2 ----------------------------------------------------------------------------------------
class SkipsApproverCheck(Rules):
    """update-skips-approver-check: any caller's answer resolves."""

    def eligible_approver(self, world, subject, interrupt):
        return True


def test_upd2_holds_for_ineligible_and_never_issued_answers():
    s = Story()
    s.waiting_on_approval()
    s.update("C1", "accept")                                      # alice is not on the approvers list
    s.update("C2", "accept", key="acme/i-neverissuedneverissued")  # a key never issued
    assert s.world.runs[s.run()].status == "waiting-approval"
    assert s.premises["UPD-2"] == 2
    assert s.messages["UPD-2"] == []


def test_upd2_fails_when_the_approver_check_is_skipped():
    s = Story(SkipsApproverCheck())
    s.waiting_on_approval()
    s.update("C1", "accept")
    (msg,) = s.messages["UPD-2"]
    assert "alice" in msg and "i1" in msg and "run1" in msg and "not an eligible approver" in msg and "bob" in msg


# ---- UPD-3 ----------------------------------------------------------------------------------------
class ConflictError(Rules):
    """update-conflict-error: a lost resolve race is surfaced as a JSON-RPC error."""

    def update_response(self, world, q, resolved, authorized):
        if not resolved:
            return wire.error_response(q.id, wire.INTERNAL_ERROR, "Interrupt already resolved")
        return super().update_response(world, q, resolved, authorized)


def test_upd3_holds_whatever_the_update_resolved():
    s = Story()
    s.waiting_on_approval()
    s.update("C2", "accept")       # resolves
    s.update("C2", "decline")      # resolves nothing: already answered
    s.update("C1", "accept")       # ineligible approver: the empty ack (P-APPROVER default)
    assert s.premises["UPD-3"] == 3
    assert s.messages["UPD-3"] == []


def test_upd3_allows_invalid_params_for_an_ineligible_approver_when_p_approver_says_error():
    s = Story(params=Params(p_approver="error"))
    s.waiting_on_approval()
    step = s.update("C1", "accept")
    assert step.emitted[0][1]["error"]["code"] == wire.INVALID_PARAMS
    assert s.messages["UPD-3"] == []


def test_upd3_fails_when_a_lost_race_is_an_error():
    s = Story(ConflictError())
    s.waiting_on_approval()
    s.update("C2", "accept")
    s.update("C2", "decline")
    (msg,) = s.messages["UPD-3"]
    assert "r3" in msg and "bob" in msg and "run1" in msg and "-32603" in msg


# ---- UPD-4 ----------------------------------------------------------------------------------------
class DeclineCancelsRun(Rules):
    """decline-cancels-run."""

    def resolve(self, world, interrupt, subject, action, via, content=None):
        done = super().resolve(world, interrupt, subject, action, via, content)
        if done and action == "decline":
            self.cancel_run(world, world.runs[interrupt.run], "declined", f"decline:{interrupt.id}")
        return done


def test_upd4_holds_decline_resumes_the_run():
    s = Story()
    s.waiting_on_approval()
    s.update("C2", "decline")
    assert s.world.runs[s.run()].status == "running"
    assert s.premises["UPD-4"] == 1
    assert s.messages["UPD-4"] == []


def test_upd4_holds_for_cancel_through_an_mrtr_retry():
    s = Story()
    s.waiting_on_approval(client="C2", declare=False)        # bob's blocking call: answered InputRequiredResult
    s.do("answer", request="r1")
    s.do("deliver", request="r1")
    s.do("mrtr_retry", client="C2", answers="r1", response="cancel", declare=False)
    assert s.premises["UPD-4"] == 1
    assert s.messages["UPD-4"] == []


def test_upd4_fails_when_decline_cancels_the_run():
    s = Story(DeclineCancelsRun())
    s.waiting_on_approval()
    s.update("C2", "decline")
    (msg,) = s.messages["UPD-4"]
    assert "decline" in msg and "i1" in msg and "run1" in msg and "cancelling" in msg


# ---- RPL-1 ----------------------------------------------------------------------------------------
class ReplayReprompts(Rules):
    """replay-reprompts: the fork re-emits the recorded interrupt.requested as a new prompt."""

    def fork_log(self, world, source, fork):
        return [dict(e) if e["type"] == "interrupt.requested" else dict(e, replayed=True) for e in source.log]


class ReplayRedecides(Rules):
    """replay-reprompts (second form): the fork re-decides who resolved the recorded interrupt."""

    def fork_log(self, world, source, fork):
        return [dict(e, replayed=True, by=source.owner) if e["type"] == "interrupt.resolved" else dict(e, replayed=True)
                for e in source.log]


def _forked(rules=None):
    s = Story(rules)
    s.waiting_on_approval()
    s.do("rest_resolve", subject="bob", interrupt=s.interrupt(), response="accept")
    s.do("fork", run=s.run())
    return s


def test_rpl1_holds_a_fork_copies_history_as_history():
    s = _forked()
    fork = s.world.runs[s.run("run2")]
    assert fork.fork_of == s.run()
    assert s.premises["RPL-1"] == 1
    assert s.messages["RPL-1"] == []


def test_rpl1_fails_when_the_fork_reprompts():
    s = _forked(ReplayReprompts())
    (msg,) = s.messages["RPL-1"]
    assert "run2" in msg and "run1" in msg and "interrupt.requested" in msg and "i1" in msg


def test_rpl1_fails_when_the_fork_redecides_the_resolver():
    s = _forked(ReplayRedecides())
    (msg,) = s.messages["RPL-1"]
    assert "run2" in msg and "interrupt.resolved" in msg and "alice" in msg and "bob" in msg
