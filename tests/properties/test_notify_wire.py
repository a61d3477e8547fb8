"""The notifications and wire catalogue (NTF-1..4, SEC-1..2, WIRE-1..5): holds on the baseline, fails on mutants."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import model.clients  # noqa: F401  (registers the actions)
import model.host  # noqa: F401
import model.network  # noqa: F401
import model.rest  # noqa: F401
from model import wire
from model.amend import load_file
from model.clients import FABRICATED
from model.params import Params
from model.rules import Rules
from model.variants import builtins
from properties import notify_wire, tasks_ops  # noqa: F401  (CNL-2, read beside NTF-2)
from properties.base import CATALOGUE

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

TESTS = Path(__file__).resolve().parents[1]
MODULE = notify_wire.__name__.rsplit(".", 1)[-1]
NAMES = [p.name for p in CATALOGUE.values() if p.area == MODULE]
ROOMY = Params(max_requests=30)
NTF1, NTF2, NTF3, NTF4 = ("server-cancelled-only-ends-listen", "cancelled-blocking-call-answered-error",
                          "notification-equals-get", "listen-sent-every-change")
SEC1, SEC2 = "status-message-content-free", "input-content-grants-nothing"
WIRE1, WIRE2, WIRE3, WIRE4, WIRE5 = ("result-type-discipline", "flat-create-empty-acks", "only-tools-call-tasked",
                                     "mcp-name-must-match", "http-status-agrees")


# ---- scenario helper ---------------------------------------------------------------------------
class Scenario(scenario.Scenario):
    """Apply moves by partial match and check this module's properties after every step."""

    names, params = NAMES, ROOMY

    def task(self, method, run, client="C1", header_ok=True, declare=True, **extra):
        self.do(method, client=client, server="S1", ref=self.task_id(run), declare=declare, header_ok=header_ok,
                transport="http", **extra)
        return self.last()


def blocking_call_cancelled_by_operator(sc):
    q, run = sc.call(declare=False)
    sc.do("run_start", run=run)
    sc.do("rest_cancel", subject="alice", run=run)
    sc.do("run_finish_cancel", run=run)
    return q, run


def approval(sc, declare=True):
    q, run = sc.call(declare=declare)
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.do("answer", request=q)
    return q, run, sc.world.runs[run].interrupts[-1]


# ---- planted mutants -----------------------------------------------------------------------------
class NotifyCancelledOnRunCancel(Rules):
    def cancel_run(self, world, run, reason, cause):
        accepted = super().cancel_run(world, run, reason, cause)
        for q in world.open_requests():
            if q.run == run.id and q.method == "tools/call":
                world.emit(q.id, wire.server_cancelled_notification(q.id, "run cancelled"))
        return accepted


class BlockingCancelWithoutError(Rules):
    def blocking_cancel_result(self, world, run):
        return wire.call_tool_result(False, "run cancelled")


class AnswersTheCancelledRequest(Rules):
    def on_request_cancelled(self, world, q, cause):
        super().on_request_cancelled(world, q, cause)
        world.emit(q.id, wire.result_response(q.id, wire.call_tool_result(True, "cancelled")))


class HoldsCancelledBlockingCall(Rules):
    def answer_tools_call(self, world, q):
        if world.runs[q.run].status == "cancelled" and not q.declares_tasks:
            return None
        return super().answer_tools_call(world, q)


class StaleNotification(Rules):
    def notification(self, world, q, run):
        t = self.detailed_task(world, run, q)
        t["status_message"] = "run is pending"
        return wire.task_status_notification(wire.detailed_task(**t), q.id)


class StatusMessageLeaks(Rules):
    def status_message(self, world, run):
        if run.status in ("completed", "failed", "cancelled"):
            return "output: " + self.tool_result(world, run)["content"][0]["text"]
        return super().status_message(world, run)


class ResponseContentGrantsApproval(Rules):
    def resolve(self, world, interrupt, subject, action, via, content=None):
        if content and interrupt.approvers is not None and subject not in interrupt.approvers:
            interrupt.approvers = interrupt.approvers + (subject,)
        return super().resolve(world, interrupt, subject, action, via, content)


class TaskResultTypeOnGet(Rules):
    def get_task_result(self, world, run, q):
        return {**super().get_task_result(world, run, q), "resultType": "task"}


class AckCarriesStatus(Rules):
    def tasks_cancel(self, world, q, run):
        super().tasks_cancel(world, q, run)
        return wire.result_response(q.id, {"resultType": "complete", "status": "cancelled"})


class NegativeTtl(Rules):
    def ttl_ms(self, world, run):
        return -1000


class TasksListServed(Rules):
    def method_supported(self, world, method):
        return True


class McpNameUnchecked(Rules):
    def header_ok(self, world, q):
        return True


# ---- NTF-1 ---------------------------------------------------------------------------------------
def test_ntf1_holds_on_baseline():
    sc = Scenario()
    sc.do("listen", client="C1", server="S1", declare=True)
    listen = sc.last()
    q, run = sc.call(transport="stdio")
    sc.do("stdio_cancel", request=q)                # the client's notifications/cancelled is not the host's
    sc.do("run_finish_cancel", run=run)
    sc.do("end_listen", request=listen)
    assert sc.fired[NTF1] == 3
    assert NTF1 not in sc.violations


def test_ntf1_refuses_notifications_cancelled_for_a_cancelled_run():
    sc = Scenario(NotifyCancelledOnRunCancel())
    q, run = sc.call(declare=False)
    sc.do("rest_cancel", subject="alice", run=run)
    (msg,) = sc.violations[NTF1]
    assert f"tools/call {q}" in msg and sc.world.label(run) in msg and "cancelling" in msg


def test_ntf1_premise_names_how_each_run_was_cancelled_and_a_listen_ending():
    sc = Scenario()
    q, run = sc.call()
    sc.task("tasks_cancel", run)                                # accepted: run1 cancelling
    sc.do("run_finish_cancel", run=run)                         # and cancelled: the same cause
    assert sc.reached(NTF1) == {"run cancelled by tasks/cancel"} and sc.fired[NTF1] == 2
    q2, run2 = sc.call(declare=False)
    sc.do("rest_cancel", subject="alice", run=run2)
    q3, run3 = sc.call(declare=False)
    sc.do("run_start", run=run3)
    sc.do("run_spawn", run=run3)
    sc.do("disconnect", request=q3)                             # its owner gone: run3, and its child by cascade
    sc.do("listen", client="C1", server="S1", declare=True)
    sc.do("end_listen", request=sc.last())
    assert sc.cases(NTF1) == {"run cancelled by tasks/cancel": 2, "run cancelled by REST": 1,
                              "run cancelled by its owner's cancellation": 1, "run cancelled by a cascade": 1,
                              "listen stream ended": 1}
    assert NTF1 not in sc.violations


class CancelsUnderAnotherCause(Rules):
    """A cancel logged under a cause no door of the model logs: the premise does not guess its case."""

    def cancel_run(self, world, run, reason, cause):
        return super().cancel_run(world, run, reason, "operator:console")


def test_ntf1_premise_reaches_no_case_for_a_cause_it_cannot_name():
    sc = Scenario(CancelsUnderAnotherCause())
    q, run = sc.call()
    sc.task("tasks_cancel", run)
    assert sc.world.runs[run].status == "cancelling" and sc.reached(NTF1) == set()


def test_ntf1_is_refuted_at_the_step_that_reached_its_rest_case():
    sc = Scenario(NotifyCancelledOnRunCancel())
    q, run = sc.call(declare=False)
    sc.do("rest_cancel", subject="alice", run=run)
    assert sc.cases(NTF1)["run cancelled by REST"] == 1 and len(sc.violations[NTF1]) == 1


# ---- NTF-2 ---------------------------------------------------------------------------------------
def test_ntf2_holds_on_baseline():
    sc = Scenario()
    q, run = blocking_call_cancelled_by_operator(sc)
    sc.do("answer", request=q)
    assert sc.response(q)["result"]["isError"] is True
    q2, run2 = sc.call(transport="stdio", declare=False)
    sc.do("stdio_cancel", request=q2)
    sc.do("run_finish_cancel", run=run2)
    assert sc.fired[NTF2] == 3
    assert NTF2 not in sc.violations


def test_ntf2_refuses_is_error_false():
    sc = Scenario(BlockingCancelWithoutError())
    q, run = blocking_call_cancelled_by_operator(sc)
    sc.do("answer", request=q)
    (msg,) = sc.violations[NTF2]
    assert q in msg and sc.world.label(run) in msg and "isError=False" in msg


def test_ntf2_refuses_answering_a_cancelled_request():
    sc = Scenario(AnswersTheCancelledRequest())
    q, run = sc.call(declare=False)
    sc.do("disconnect", request=q)
    (msg,) = sc.violations[NTF2]
    assert q in msg and "cancelled by its client" in msg


def test_ntf2_refuses_holding_a_call_whose_run_was_cancelled():
    sc = Scenario(HoldsCancelledBlockingCall())
    q, run = blocking_call_cancelled_by_operator(sc)
    msg = sc.violations[NTF2][0]
    assert q in msg and "no answer" in msg and sc.world.label(run) in msg


def test_ntf2_premise_names_what_cancelled_a_blocking_calls_run_and_a_cancelled_task_read():
    sc = Scenario()
    q, run = blocking_call_cancelled_by_operator(sc)           # open on a cancelled run
    sc.do("answer", request=q)                                  # and answered
    assert sc.cases(NTF2)["blocking call's run cancelled by REST"] == 2
    q2, run2 = sc.call(declare=False)
    sc.task("tasks_cancel", run2)                               # alice cancels her open call's run
    sc.do("run_finish_cancel", run=run2)
    sc.do("answer", request=q2)                                 # reached while open, and at its answer
    q3, run3 = sc.call(declare=False)
    sc.do("disconnect", request=q3)                             # the call itself cancelled
    sc.task("tasks_get", run2)                                  # a view of a cancelled task
    q4, run4 = sc.call()                                        # a tasked call's run: no blocking call
    sc.task("tasks_cancel", run4)
    sc.do("run_finish_cancel", run=run4)
    assert sc.cases(NTF2) == {"blocking call's run cancelled by REST": 2,
                              "blocking call's run cancelled by tasks/cancel": 2,
                              "blocking call's run cancelled by a cascade": 0, "the call itself cancelled": 1,
                              "a cancelled task read": 1}
    assert NTF2 not in sc.violations


def test_ntf2_is_refuted_at_the_answer_its_rest_case_reached():
    sc = Scenario(BlockingCancelWithoutError())
    q, run = blocking_call_cancelled_by_operator(sc)
    sc.do("answer", request=q)
    assert sc.cases(NTF2)["blocking call's run cancelled by REST"] == 2 and len(sc.violations[NTF2]) == 1


# A call's run has a parent only under P-CALL-PARENT (`Params.call_parents`).
PARENTS = ROOMY.with_(call_parents=True)


class CascadeCancelWithoutError(Rules):
    """Answers a blocking call whose run its parent's cascade cancelled isError=false, any other as the baseline."""

    def blocking_cancel_result(self, world, run):
        return wire.call_tool_result(run.cancel_reason != "parent-cancelled", "run cancelled")


def blocking_call_cancelled_by_parent_cascade(sc):
    """alice's REST run1 started; her blocking call naming it its parent; run1's cancelRun cascading to the
    call's run2, which finishes cancelling while the call is open."""
    sc.do("rest_create", subject="alice", server="S1")
    run1 = sc.run("run1")
    sc.do("run_start", run=run1)
    sc.do("call_tool", client="C1", declare=False, parent=run1)
    q = sc.last()
    run2 = sc.world.requests[q].run
    sc.do("rest_cancel", subject="alice", run=run1)
    sc.do("run_finish_cancel", run=run2)
    return q, run1, run2


def test_ntf2_premise_names_a_blocking_calls_run_cancelled_by_its_parents_cascade():
    sc = Scenario(params=PARENTS, names=[NTF2, "TASK-1", "CNL-2"])
    q, run1, run2 = blocking_call_cancelled_by_parent_cascade(sc)
    run = sc.world.runs[run2]
    arguments = sc.world.requests[q].message["params"]["arguments"]
    assert arguments["parentRunId"] == sc.task_id(run1) and run.parent == run1 and run.log[0]["parent"] == run1
    assert run.started_by == "blocking-call" and run.cancel_reason == "parent-cancelled"
    sc.do("answer", request=q)                                  # reached while open, and at its answer
    assert sc.response(q)["result"]["isError"] is True
    assert sc.cases(NTF2) == {"blocking call's run cancelled by REST": 0,
                              "blocking call's run cancelled by tasks/cancel": 0,
                              "blocking call's run cancelled by a cascade": 2, "the call itself cancelled": 0,
                              "a cancelled task read": 0}
    # a call's run, though a child: TASK-1's case is how it was started; CNL-2's how its cancel came
    assert sc.cases("TASK-1")["started by a blocking call"] and not sc.cases("TASK-1")["a child"]
    assert sc.cases("CNL-2") == {"by tasks/cancel": 0, "by REST cancelRun": 0, "by the owner's cancellation": 0,
                                 "by a parent's cascade": 1}
    assert not sc.violations, sc.violations


def test_ntf2_is_refuted_where_a_parents_cascade_cancelled_the_call():
    sc = Scenario(CascadeCancelWithoutError(), params=PARENTS)
    q, _, run2 = blocking_call_cancelled_by_parent_cascade(sc)
    sc.do("answer", request=q)
    (msg,) = sc.violations[NTF2]
    assert q in msg and sc.world.label(run2) in msg and "isError=False" in msg


def test_the_parent_cascade_story_reaches_its_case_only_where_call_parents_is_on():
    """The random engine replays the story first, cut where a move is not enabled (where P-CALL-PARENT
    is off, as at the exhaustive scopes, the story stops at the call naming a parent)."""
    story = notify_wire.STORIES["blocking-call-cancelled-by-parent-cascade"]
    for params, played, reached in ((PARENTS, len(story), 2), (ROOMY.with_(call_parents=False), 1, 0)):
        sc = Scenario(params=params)
        for action, args in story:
            args = args(sc.world) if callable(args) else args
            if args not in sc.world.moves(action):
                break
            sc.check(sc.world.apply(action, args))
        assert len(sc.world.history) == played
        assert sc.cases(NTF2)["blocking call's run cancelled by a cascade"] == reached and not sc.violations


def test_a_call_names_only_a_live_run_of_its_tenant_and_the_host_refuses_another_before_any_run():
    sc = Scenario(params=PARENTS)
    sc.do("rest_create", subject="alice", server="S1")
    run1 = sc.run("run1")
    named = {m["client"] for m in sc.world.moves("call_tool") if m.get("parent") == run1}
    assert named == {"C1", "C2", "C3"}              # alice's tenant, with runs:read; not mallory's, not dave's
    assert not [m for m in Scenario(params=ROOMY).world.moves("call_tool") if "parent" in m]   # off: none
    sc.do("rest_cancel", subject="alice", run=run1)                 # cancelling: no longer live
    assert not [m for m in sc.world.moves("call_tool") if "parent" in m]
    for client in ("C1", "C4"):                     # no longer live; another tenant's
        sc.check(sc.world.apply("call_tool", dict(client=client, server="S1", transport="http", declare=False,
                                                  tool="flow", parent=run1), check=False))
        assert sc.response(sc.last())["error"]["code"] == wire.INVALID_PARAMS
    assert list(sc.world.runs) == [run1] and not sc.violations


# ---- NTF-3 ---------------------------------------------------------------------------------------
def test_ntf3_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    sc.do("listen", client="C1", server="S1", declare=True)
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    assert sc.fired[NTF3] == 2
    assert NTF3 not in sc.violations


def test_ntf3_refuses_a_stale_notification():
    sc = Scenario(StaleNotification())
    q, run = sc.call()
    sc.do("listen", client="C2", server="S1", declare=True)
    sc.do("run_start", run=run)
    (msg,) = sc.violations[NTF3]
    assert "r2" in msg and sc.world.label(run) in msg and "'run is pending' vs 'run is running'" in msg


# ---- NTF-4 ---------------------------------------------------------------------------------------
def test_ntf4_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    q2, run2 = sc.call(client="C3")                             # carol's call: it declares no elicitation
    sc.do("listen", client="C1", server="S1", declare=True)     # acknowledges both runs
    sc.do("run_start", run=run)                                 # still working: nothing owed
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.do("run_interrupt", run=run, kind="approval", form=False)        # input requests change, status not
    i1, i2 = sc.world.runs[run].interrupts
    sc.do("rest_resolve", subject="bob", interrupt=i1, response="accept")
    sc.do("rest_resolve", subject="bob", interrupt=i2, response="accept")
    sc.do("run_complete", run=run)
    sc.do("run_start", run=run2)
    sc.do("run_interrupt", run=run2, kind="approval", form=True)        # withheld: its creator declared no form
    assert sc.fired[NTF4] == 5
    assert NTF4 not in sc.violations


def test_ntf4_refuses_a_stream_sent_only_the_first_change():
    sc = Scenario(builtins()["listen-notifies-first-change-only"]())
    q, run = sc.call()
    sc.do("listen", client="C1", server="S1", declare=True)
    listen = sc.last()
    sc.do("run_start", run=run)                                 # the first change: sent
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    (msg,) = sc.violations[NTF4]
    assert listen in msg and sc.world.label(run) in msg and "working -> input_required ['i1']" in msg


def test_ntf4_premise_names_a_status_change_an_input_requests_change_and_two_changes_in_one_step():
    sc = Scenario()
    q, run = sc.call()
    sc.do("listen", client="C1", server="S1", declare=True)
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="clarification", form=True)
    assert sc.reached(NTF4) == {"status change"}
    sc.do("run_interrupt", run=run, kind="clarification", form=True)
    assert sc.reached(NTF4) == {"status change", "input-requests change, status unchanged"}
    i1, i2 = sc.world.runs[run].interrupts
    sc.do("tasks_update_two", client="C1", ref=sc.task_id(run), key=i1, also=i2, response="accept")
    assert sc.cases(NTF4) == {"status change": 2, "input-requests change, status unchanged": 1,
                              "two changes between two notifications": 1}
    assert NTF4 not in sc.violations


def test_ntf4_is_refuted_where_only_the_input_requests_change():
    """The amendment of issue 52 that publishes status changes only: refuted at the second interrupt."""
    sc = Scenario(load_file(str(TESTS / "listen_status_changes_only.py"))())
    q, run = sc.call()
    sc.do("listen", client="C1", server="S1", declare=True)
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    assert NTF4 not in sc.violations and sc.reached(NTF4) == {"status change"}
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    (msg,) = sc.violations[NTF4]
    assert "input_required ['i1'] -> input_required ['i1', 'i2']" in msg
    assert sc.reached(NTF4) == {"status change", "input-requests change, status unchanged"}
    assert NTF3 not in sc.violations


# ---- SEC-1 ---------------------------------------------------------------------------------------
def test_sec1_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_complete", run=run)
    sc.task("tasks_get", run)
    q2, run2 = blocking_call_cancelled_by_operator(sc)
    sc.do("answer", request=q2)
    sc.task("tasks_get", run2)
    assert sc.fired[SEC1] == 2
    assert SEC1 not in sc.violations


def test_sec1_refuses_quoting_tool_output():
    sc = Scenario(StatusMessageLeaks())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_complete", run=run)
    r = sc.task("tasks_get", run)
    (msg,) = sc.violations[SEC1]
    assert r in msg and sc.world.label(run) in msg and "'run completed'" in msg


# ---- SEC-2 ---------------------------------------------------------------------------------------
def test_sec2_holds_on_baseline():
    sc = Scenario()
    q, run, i = approval(sc)
    sc.task("tasks_update", run, client="C1", key=i, response="accept")    # alice sends content, is no approver
    sc.task("tasks_update", run, client="C2", key=i, response="accept")    # bob resolves
    q2, run2, i2 = approval(sc, declare=False)
    sc.do("deliver", request=q2)
    sc.do("mrtr_retry", client="C2", answers=q2, response="accept", declare=False)
    assert sc.fired[SEC2] == 3
    assert SEC2 not in sc.violations
    assert sc.world.interrupts[i].resolved_by == "bob"


def test_sec2_refuses_content_that_grants_approval():
    sc = Scenario(ResponseContentGrantsApproval())
    q, run, i = approval(sc)
    r = sc.task("tasks_update", run, client="C1", key=i, response="accept")
    (msg,) = sc.violations[SEC2]
    assert r in msg and "alice" in msg and sc.world.label(i) in msg and "('bob',)" in msg


# ---- WIRE-1 --------------------------------------------------------------------------------------
def test_wire1_holds_on_baseline():
    sc = Scenario()
    q, run, i = approval(sc)
    sc.task("tasks_get", run)
    sc.task("tasks_update", run, client="C2", key=i, response="decline")
    sc.task("tasks_cancel", run)
    assert sc.fired[WIRE1] == 4
    assert WIRE1 not in sc.violations


def test_wire1_refuses_a_task_result_type_on_get():
    sc = Scenario(TaskResultTypeOnGet())
    q, run = sc.call()
    r = sc.task("tasks_get", run)
    (msg,) = sc.violations[WIRE1]
    assert f"tasks/get {r}" in msg and "'task'" in msg


# ---- WIRE-2 --------------------------------------------------------------------------------------
def test_wire2_holds_on_baseline():
    sc = Scenario()
    q, run, i = approval(sc)
    sc.task("tasks_update", run, client="C1", key=i, response="accept")
    sc.task("tasks_cancel", run)
    q2, run2, i2 = approval(sc, declare=False)
    assert sc.fired[WIRE2] == 4
    assert WIRE2 not in sc.violations


def test_wire2_refuses_an_ack_carrying_a_status():
    sc = Scenario(AckCarriesStatus())
    q, run = sc.call()
    r = sc.task("tasks_cancel", run)
    (msg,) = sc.violations[WIRE2]
    assert r in msg and "tasks/cancel acknowledgement" in msg and "['status']" in msg


def test_wire2_refuses_a_negative_ttl():
    sc = Scenario(NegativeTtl())
    q, run = sc.call()
    sc.do("answer", request=q)
    (msg,) = sc.violations[WIRE2]
    assert q in msg and "ttlMs -1000" in msg


def test_wire2_refuses_a_nested_create_result():
    sc = Scenario()
    q, run = sc.call()
    step = sc.world.apply("answer", {"request": q})
    (key, msg), = step.emitted
    msg["result"]["result"] = {"content": [], "isError": False}        # tamper: a CreateTaskResult with a result
    sc.check(step)
    (text,) = sc.violations[WIRE2]
    assert q in text and "not flat" in text and "['result']" in text


# ---- WIRE-3 --------------------------------------------------------------------------------------
def test_wire3_holds_on_baseline():
    sc = Scenario()
    sc.do("unsupported", client="C1", server="S1", method="tasks/list")
    sc.do("unsupported", client="C1", server="S1", method="tasks/result")
    assert sc.fired[WIRE3] == 2
    assert WIRE3 not in sc.violations


def test_wire3_refuses_serving_tasks_list():
    sc = Scenario(TasksListServed())
    sc.do("unsupported", client="C1", server="S1", method="tasks/list")
    (msg,) = sc.violations[WIRE3]
    assert "tasks/list r1" in msg and "not -32601" in msg


# ---- WIRE-4 --------------------------------------------------------------------------------------
def test_wire4_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    sc.task("tasks_get", run, header_ok=False)
    sc.task("tasks_cancel", run, header_ok=False)
    sc.do("call_tool", client="C1", server="S2", transport="http", declare=True, tool="flow")
    other = sc.world.requests[sc.last()].run                       # a run on S2, which does not serve Tasks
    tid = sc.world.rules.task_id(sc.world, sc.world.runs[other])
    sc.do("tasks_cancel", client="C1", server="S2", ref=tid, declare=True, header_ok=False, transport="http")
    assert [sc.response(f"r{n}")["error"]["code"] for n in (2, 3, 5)] == [-32020, -32020, -32601]   # NEG-4 on S2
    assert sc.fired[WIRE4] == 2        # the premise: a mismatch only the header rule refuses (not S2's)
    assert WIRE4 not in sc.violations
    assert sc.world.runs[run].status == "pending"


def test_wire4_refuses_an_unchecked_mcp_name():
    sc = Scenario(McpNameUnchecked())
    q, run = sc.call()
    r = sc.task("tasks_cancel", run, header_ok=False)
    (msg,) = sc.violations[WIRE4]
    assert r in msg and "alice" in msg and "x'" in msg and "not -32020" in msg


# ---- WIRE-5 ---------------------------------------------------------------------------------------
def test_wire5_premise_names_each_code_and_an_unreadable_tasks_not_found_but_not_a_never_issued_ones():
    sc = Scenario()
    q, run = sc.call()
    sc.task("tasks_get", run, declare=False)                    # -32021
    sc.task("tasks_get", run, header_ok=False)                  # -32020
    sc.do("unsupported", client="C1", server="S1", method="tasks/list")         # -32601
    sc.do("tasks_get", client="C1", server="S1", ref=FABRICATED[0], transport="http", declare=True, header_ok=True)
    assert sc.response(sc.last())["error"]["code"] == wire.INVALID_PARAMS      # the reference itself: no case
    assert sc.reached(WIRE5) == {"-32021", "-32020", "-32601"}
    sc.task("tasks_get", run, client="C4")                      # mallory: another tenant's task
    sc.task("tasks_cancel", run, client="C5")                   # dave: no runs:read
    assert sc.cases(WIRE5) == {"-32021": 1, "-32020": 1, "-32601": 1, "unreadable task's -32602": 2}
    assert WIRE5 not in sc.violations


def test_wire5_is_refuted_at_the_step_that_reached_an_unreadable_tasks_not_found():
    sc = Scenario(load_file(str(TESTS / "quality" / "http_unreadable_task_404.py"))())
    q, run = sc.call()
    sc.do("tasks_get", client="C1", server="S1", ref=FABRICATED[0], transport="http", declare=True, header_ok=True)
    assert WIRE5 not in sc.violations
    sc.task("tasks_get", run, client="C4")
    (msg,) = sc.violations[WIRE5]
    assert "with HTTP 404, not 200" in msg and sc.cases(WIRE5)["unreadable task's -32602"] == 1


# ---- the baseline, at random ---------------------------------------------------------------------
def test_baseline_random_walks_hold():
    fired: dict[str, int] = {}
    for seed in range(20):
        sc = scenario.random_walk(Scenario(params=Params()), 300 + seed, 60)
        bad = {n: m for n, m in sc.violations.items() if CATALOGUE[n].asserted}
        assert not bad, (seed, bad)
        for n, c in sc.fired.items():
            fired[n] = fired.get(n, 0) + c
    reached = [n for n in NAMES if fired.get(n)]
    assert len(reached) >= len(NAMES) - 2, sorted(set(NAMES) - set(reached))


def test_kinds_fit_ids():
    assert {CATALOGUE[n].kind for n in NAMES} <= {"invariant", "step"}
    assert sorted(CATALOGUE[n].ids[0] for n in NAMES) == sorted(
        ["NTF-1", "NTF-2", "NTF-3", "NTF-4", "SEC-1", "SEC-2", "WIRE-1", "WIRE-2", "WIRE-3", "WIRE-4", "WIRE-5"])
    assert all(CATALOGUE[n].premise is not None for n in NAMES)
