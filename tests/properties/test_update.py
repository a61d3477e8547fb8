"""UPD-1..4 and RPL-1: each holds on a baseline story that exercises it, and a planted mutant breaks it."""
from __future__ import annotations

import importlib.util
from pathlib import Path


import pytest
from model import identity, wire
from model.actions import load_all
from model.clients import NEVER_ISSUED
from model.params import Params
from model.rules import Rules
from properties import update
from properties.base import find

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

    def update(self, client, response, key=None, run="run1"):
        return self.do("tasks_update", client=client, server="S1", ref=self.ref(run), transport="http", declare=True,
                       header_ok=True, key=key or self.interrupt(), response=response)

    def waits(self, run="run1", kind="approval"):
        """The run (started if pending) suspends on another interrupt of `kind` (bob alone may
        approve); its id."""
        if self.world.runs[self.run(run)].status == "pending":
            self.do("run_start", run=self.run(run))
        self.do("run_interrupt", run=self.run(run), kind=kind, form=True)
        return self.world.runs[self.run(run)].interrupts[-1]

    def retry(self, client, answers, response):
        """`client` retries `answers`, a blocking call whose InputRequiredResult it now receives."""
        self.do("answer", request=answers)
        self.do("deliver", request=answers)
        self.do("mrtr_retry", client=client, answers=answers, response=response, declare=False)
        return self.last()


def cases(story, rid, premise=None, rules=None) -> dict[str, int]:
    """{case: steps reaching it} of requirement `rid`'s premise over a story, on `rules` (`scenario.story_cases`)."""
    return scenario.story_cases(Story(rules, params=ROOMY), story, rid, premise)


answering = scenario.answering


ROOMY = Params(max_requests=40, max_runs=6, max_interrupts=12, rest_answers=update.RESPONSES)


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


def _upd1_story(s):
    """Every pair of surfaces the sentence names answering one interrupt: a tasks/update after a
    tasks/update and a REST resolve after it (run1); a tasks/update and a REST resolve after an MRTR
    retry (run2, bob's blocking call)."""
    s.waiting_on_approval()
    s.update("C2", "accept")                                   # resolves i1: no second answer yet
    s.update("C2", "decline")
    s.do("rest_resolve", subject="bob", interrupt=s.interrupt(), response="decline")
    s.call(client="C2", declare=False)
    s.waits("run2")
    s.retry("C2", s.last(), "accept")                          # resolves i2
    s.update("C2", "decline", key=s.interrupt("i2"), run="run2")
    s.do("rest_resolve", subject="bob", interrupt=s.interrupt("i2"), response="accept")


def test_upd1_premise_names_the_two_surfaces_answering():
    assert cases(_upd1_story, "UPD-1") == dict.fromkeys(update.UPD1_PAIRS.values(), 1)


def test_upd1_premise_is_reached_where_the_guard_is_missing_and_the_check_refutes():
    s = Story(NoAtMostOnceGuard(), params=ROOMY)
    _upd1_story(s)
    assert s.reached("UPD-1") == set(update.UPD1_PAIRS.values())
    assert "twice" in s.messages["UPD-1"][0]


@pytest.mark.parametrize("again", [True, False])
def test_upd1_answered_again_past_the_budget_where_the_scope_says_so(again):
    """`Params.answer_again`: alice, her one request spent resolving i1 of her REST run, may still answer
    it again by tasks/update within the retry reserve; without it, nothing more is sent."""
    s = Story(params=Params(max_requests=1, retry_reserve=1, answer_again=again))
    s.do("rest_create", subject="alice", server="S1")
    i1 = s.waits(kind="clarification")
    s.update("C1", "accept", key=i1)                           # the budget's one request resolves i1
    assert len(s.world.moves("tasks_update")) == again
    if again:
        s.update("C1", "accept", key=i1)
        assert s.reached("UPD-1") == {"two tasks/update"} and s.messages["UPD-1"] == []
        assert not s.world.moves("tasks_update")              # the reserve spent


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


def _upd2_story(s):
    """Each reason an answer resolves nothing: alice is no approver, a key never issued, i1 answered
    (twice: alone, and beside i2 of another run), run2 no longer waiting on i2 (cancelled)."""
    s.waiting_on_approval()
    s.update("C1", "accept")
    s.update("C2", "accept", key=NEVER_ISSUED)
    s.update("C2", "accept")                                   # resolves i1
    s.update("C2", "decline")
    s.call()
    i2 = s.waits("run2")
    s.do("tasks_cancel", client="C1", server="S1", ref=s.ref("run2"), transport="http", declare=True, header_ok=True)
    s.update("C2", "accept", key=i2, run="run2")
    s.do("tasks_update_two", client="C2", ref=s.ref("run1"), key=s.interrupt(), also=i2, response="accept")


def test_upd2_premise_names_why_an_answer_resolves_nothing():
    assert cases(_upd2_story, "UPD-2") == {"a key never issued": 1, "already answered": 2, "no longer open": 1,
                                           "an ineligible resolver": 1, "a key of another run": 1}


def test_upd2_premise_leaves_out_an_answer_that_must_resolve():
    s = Story()
    s.waiting_on_approval()
    s.update("C2", "accept")
    assert s.premises["UPD-2"] == 0 and s.world.interrupts[s.interrupt()].resolved_by == "bob"


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


def _upd3_story(s):
    s.waiting_on_approval()
    s.update("C2", "accept")       # resolves
    s.update("C2", "decline")      # resolves nothing: already answered
    s.update("C1", "accept")       # alice is not on i1's approvers list


def test_upd3_premise_names_what_the_update_resolved_and_an_ineligible_approver():
    assert cases(_upd3_story, "UPD-3") == dict.fromkeys(update.UPD3_CASES, 1)


def test_upd3_premise_reached_where_a_lost_race_is_an_error():
    s = Story(ConflictError())
    _upd3_story(s)
    assert s.reached("UPD-3") == set(update.UPD3_CASES) and "-32603" in s.messages["UPD-3"][0]


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


def _upd4_story(s):
    """accept, decline and cancel through each surface, one interrupt each: bob answers run1's three
    parallel approvals by tasks/update, run2's (his blocking call) by three MRTR retries, run3's over
    REST."""
    s.waiting_on_approval()
    keys = [s.interrupt(), s.waits(), s.waits()]
    for key, response in zip(keys, update.RESPONSES):
        s.update("C2", response, key=key)
    s.call(client="C2", declare=False)
    answers = s.last()
    for response in update.RESPONSES:
        s.waits("run2")
        answers = s.retry("C2", answers, response)
    s.call()
    for response in update.RESPONSES:
        s.do("rest_resolve", subject="bob", interrupt=s.waits("run3"), response=response)


def test_upd4_premise_names_each_answer_by_each_surface():
    assert cases(_upd4_story, "UPD-4") == dict.fromkeys(update.UPD4_CASES, 1)


class UpdateResolvesNothing(Rules):
    """A host that acknowledges a tasks/update and resolves nothing."""

    def resolve(self, world, interrupt, subject, action, via, content=None):
        return via != "tasks/update" and super().resolve(world, interrupt, subject, action, via, content)


def test_upd4_premise_counts_an_answer_the_host_owed_and_did_not_make():
    s = Story(UpdateResolvesNothing())
    s.waiting_on_approval()
    s.update("C2", "decline")
    assert s.reached("UPD-4") == {"decline, by tasks/update"}
    assert "resolved nothing" in s.messages["UPD-4"][0]


# ---- premise cases: a planted misclassification shows ---------------------------------------------
CASE_STORIES = {"UPD-1": _upd1_story, "UPD-2": _upd2_story, "UPD-3": _upd3_story, "UPD-4": _upd4_story}


@pytest.mark.parametrize("rid", CASE_STORIES)
def test_a_premise_answering_another_case_is_told_by_its_story(rid):
    first, second = find(rid).cases[:2]
    right = cases(CASE_STORIES[rid], rid)
    got = cases(CASE_STORIES[rid], rid, answering(rid, first, second))
    assert got[first] == 0 < right[first] and got != right, got


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
