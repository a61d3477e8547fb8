"""OWN-1..4 and the gap OWN-G3: each holds (or, for the gap, is exhibited) on a baseline story, and a
planted mutant (for the gap, a strengthening) flips it; the premises of OWN-2..4 name exactly the cases
a step reached."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from model import identity
from model.actions import load_all
from model.params import Params
from model.rules import MCP_REQUEST_CANCELLED, Rules
from properties import ownership

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

load_all()
NAMES = ("OWN-1", "OWN-2", "OWN-3", "OWN-4", "OWN-G3")


class Story(scenario.Scenario):
    """Drive a world move by move, checking the named properties after every step."""

    names = NAMES

    def call(self, client="C1", server="S1", transport="http", declare=True, start=True):
        super().call(client=client, declare=declare, server=server, transport=transport)
        if start:
            self.do("run_start", run=self.run(f"run{len(self.world.runs)}"))
        return self.last()

    def counted(self, name, **want):
        """The premise cases of `name` reached so far: `want` {case: steps}, every other case none."""
        got = self.cases(name)
        assert got == {c: want.get(c, 0) for c in got}, got


# ---- OWN-1 ----------------------------------------------------------------------------------------
class OwnershipEndsAtFirstEvent(Rules):
    """ownership-ends-at-first-event: an SSE progress event releases the run."""

    def releases_ownership(self, world, q, event):
        return event in ("sent", "cancelled", "stream_event")


def test_own1_holds_through_streaming_answer_and_a_verified_retry():
    s = Story()
    s.call(declare=False)                                     # a blocking call owns run1 ...
    s.do("stream_event", request="r1")                        # ... through an SSE event ...
    assert s.world.requests["r1"].owns == s.run()
    s.do("run_interrupt", run=s.run(), kind="clarification", form=True)
    s.do("answer", request="r1")                              # ... until its whole response is sent
    s.do("deliver", request="r1")
    s.do("tasks_get", client="C1", server="S1", ref=identity.project(s.run()), transport="http", declare=True,
         header_ok=True)                                      # a tasks/get owns nothing
    s.do("mrtr_retry", client="C1", answers="r1", response="accept", declare=False)
    assert s.world.requests["r3"].owns == s.run()            # the verified retry owns it again
    s.do("mrtr_retry", client="C1", answers="r1", response="accept", declare=False)
    assert s.world.requests["r4"].owns is None               # a reused requestState owns nothing
    assert s.premises["OWN-1"] == 4        # ownership at stake: receipt, SSE event, answer, verified retry
    assert s.messages["OWN-1"] == []


def test_own1_fails_when_ownership_ends_at_the_first_event():
    s = Story(OwnershipEndsAtFirstEvent())
    s.call(declare=False)
    s.do("stream_event", request="r1")
    msg = s.messages["OWN-1"][0]
    assert "r1" in msg and "run1" in msg and "streaming" in msg and "should own" in msg


# ---- OWN-2 ----------------------------------------------------------------------------------------
class DetachOnDisconnect(Rules):
    """detach-on-disconnect: a disconnect before the answer cancels nothing."""

    def on_request_cancelled(self, world, q, cause):
        return None


class WrongReason(Rules):
    """The owner's cancellation is accepted, but recorded as an operator cancel."""

    def on_request_cancelled(self, world, q, cause):
        if q.owns is not None:
            self.cancel_run(world, world.runs[q.owns], "rest-cancel", f"request:{q.id}")


class GraceWindow(Rules):
    """mrtr-grace-window: a retry's cancellation cancels its run only once a tick has passed."""

    def on_request_cancelled(self, world, q, cause):
        if q.retry_of is not None and q.owns is not None:
            world.runs[q.owns].grace_until = world.clock + 1
            return None
        return super().on_request_cancelled(world, q, cause)

    def after_step(self, world):
        for run in world.runs.values():
            if run.grace_until is not None and run.grace_until <= world.clock:
                run.grace_until = None
                if run.status not in ("completed", "failed", "cancelled"):
                    self.cancel_run(world, run, MCP_REQUEST_CANCELLED, "grace-window-elapsed")
        super().after_step(world)


def _retry_then_disconnect(rules=None):
    """bob's blocking call waits on his approval; his MRTR retry approves, owns the run, and drops."""
    s = Story(rules)
    s.call(client="C2", server="S2", declare=False)
    s.do("run_interrupt", run=s.run(), kind="approval", form=True)
    s.do("answer", request="r1")
    s.do("deliver", request="r1")
    s.do("mrtr_retry", client="C2", answers="r1", response="accept", declare=False)
    s.do("disconnect", request="r2")
    return s


def test_own2_holds_for_the_mrtr_retry_that_owns_the_run():
    s = _retry_then_disconnect()
    assert s.world.runs[s.run()].status == "cancelling"
    assert s.premises["OWN-2"] == 1
    assert s.messages["OWN-2"] == []


def test_own2_fails_under_a_grace_window_for_retries():
    s = _retry_then_disconnect(GraceWindow())
    (msg,) = s.messages["OWN-2"]
    assert "r2" in msg and "run1" in msg and "no cancel" in msg


def test_own2_holds_a_disconnect_cancels_the_owned_run_and_its_cascade():
    s = Story()
    s.call(declare=False)
    s.do("run_spawn", run=s.run())
    s.do("disconnect", request="r1")
    assert s.world.runs[s.run()].cancel_reason == MCP_REQUEST_CANCELLED
    assert s.world.runs[s.run("run2")].status == "cancelling"
    s.do("run_compensate", run=s.run())
    s.do("run_finish_cancel", run=s.run())
    s.call(transport="stdio")                                  # stdio: notifications/cancelled
    s.do("stdio_cancel", request="r2")
    assert s.premises["OWN-2"] == 2
    assert s.messages["OWN-2"] == []


def test_own2_premise_names_the_signal_a_cancel_in_progress_and_children():
    s = Story(params=Params(max_runs=6))
    s.do("disconnect", request=s.call(declare=False))
    s.do("stdio_cancel", request=s.call(transport="stdio"))
    s.call(server="S2", transport="stdio", declare=False)
    s.do("stdio_close", client="C1", server="S2")
    busy = s.call(declare=False)
    s.do("rest_cancel", subject="alice", run=s.world.requests[busy].run)
    s.do("disconnect", request=busy)
    parent = s.call(declare=False)
    s.do("run_spawn", run=s.world.requests[parent].run)
    s.do("disconnect", request=parent)
    s.counted("OWN-2", **{"HTTP disconnect": 3, "stdio notifications/cancelled": 1, "stdio EOF": 1,
                          "a cancel already in progress": 1, "a run with children": 1})
    assert s.messages["OWN-2"] == []


def test_own2_fails_when_the_disconnect_detaches_the_run():
    s = Story(DetachOnDisconnect())
    s.call(declare=False)
    s.do("disconnect", request="r1")
    s.do("run_complete", run=s.run())
    msg = s.messages["OWN-2"][0]
    assert "r1" in msg and "run1" in msg and "http-disconnect" in msg and "no cancel" in msg


def test_own2_fails_when_the_reason_is_not_mcp_request_cancelled():
    s = Story(WrongReason())
    s.call(declare=False)
    s.do("disconnect", request="r1")
    (msg,) = s.messages["OWN-2"]
    assert "r1" in msg and "run1" in msg and "rest-cancel" in msg and MCP_REQUEST_CANCELLED in msg


# ---- OWN-3 ----------------------------------------------------------------------------------------
class CancelledAfterTaskDisconnect(Rules):
    """cancelled-after-task-disconnect: losing the CreateTaskResult in flight cancels the run."""

    def on_response_lost(self, world, q):
        self.cancel_run(world, world.runs[q.run], MCP_REQUEST_CANCELLED, f"request:{q.id}:response-lost")


def test_own3_holds_an_answered_request_cannot_touch_its_run():
    s = Story()
    s.call()                                              # tasked: r1 answered CreateTaskResult
    s.do("answer", request="r1")
    s.do("disconnect", request="r1")                      # the response is lost in flight
    s.call()
    s.do("answer", request="r2")
    s.do("deliver", request="r2")
    s.do("disconnect", request="r2")                      # the connection drops after it arrived
    s.call(transport="stdio")
    s.do("answer", request="r3")
    s.do("stdio_cancel", request="r3")                    # a stdio cancel crossing the response
    assert all(r.status == "running" for r in s.world.runs.values())
    assert s.premises["OWN-3"] == 3
    assert s.messages["OWN-3"] == []


def test_own3_premise_names_the_signal_the_call_and_a_retry_owning_the_run():
    s = Story()
    s.do("answer", request=s.call())
    s.do("disconnect", request="r1")                      # a tasked call's CreateTaskResult in flight
    s.do("answer", request=s.call(transport="stdio"))
    s.do("stdio_cancel", request="r2")                    # crossing it
    s.do("stdio_close", client="C1", server="S1")         # EOF after it: a call's case, no signal's
    bobs = s.call(client="C2", server="S2", declare=False)   # bob's blocking call asks for his approval
    s.do("run_interrupt", run=s.world.requests[bobs].run, kind="approval", form=True)
    s.do("answer", request=bobs)
    s.do("deliver", request=bobs)
    s.do("mrtr_retry", client="C2", answers=bobs, response="none", declare=False)
    s.do("disconnect", request=bobs)                      # answered; its retry owns the run now
    s.counted("OWN-3", **{"HTTP disconnect": 2, "stdio cancellation": 1, "a tasked call": 3, "a blocking call": 1,
                          "a later MRTR retry owns the run": 1})
    assert all(r.status not in ("cancelling", "cancelled") for r in s.world.runs.values())
    assert s.messages["OWN-3"] == []


def test_own3_fails_when_a_lost_create_task_result_cancels_the_run():
    s = Story(CancelledAfterTaskDisconnect())
    s.call()
    s.do("answer", request="r1")
    s.do("disconnect", request="r1")
    msg = s.messages["OWN-3"][0]
    assert "r1" in msg and "run1" in msg and "sent" in msg and "running -> cancelling" in msg


# ---- OWN-4 ----------------------------------------------------------------------------------------
class DisconnectCancelsCallersRuns(Rules):
    """disconnect-cancels-callers-runs."""

    def on_request_cancelled(self, world, q, cause):
        for run in list(world.runs.values()):
            if run.owner == q.subject:
                self.cancel_run(world, run, MCP_REQUEST_CANCELLED, f"request:{q.id}:{cause}")


def test_own4_holds_a_cancellation_stays_in_its_cascade():
    s = Story()
    s.call(declare=False)
    s.call(declare=False)
    s.do("run_spawn", run=s.run())
    s.do("disconnect", request="r1")
    assert s.world.runs[s.run("run2")].status == "running"
    assert s.world.runs[s.run("run3")].status == "cancelling"   # run1's child
    assert s.premises["OWN-4"] == 1
    assert s.messages["OWN-4"] == []


def test_own_holds_for_calls_whose_runs_name_a_parent_another_request_owns():
    """P-CALL-PARENT: a call's run may be the child of a run another request owns. Its call owns it; its
    call's disconnect cancels it alone, the parent's owner's disconnect cascades to it (inside that
    cascade, so beside nothing for OWN-4, a run with children for OWN-2)."""
    s = Story(params=Params(call_parents=True))
    s.call(declare=False)                                                 # r1 owns run1
    for _ in range(2):                                                    # r2, r3 own run2, run3: run1's children
        s.do("call_tool", client="C1", transport="http", declare=False, parent=s.run())
        s.do("run_start", run=s.run(f"run{len(s.world.runs)}"))
    run1, run2, run3 = (s.run(f"run{n}") for n in (1, 2, 3))
    assert s.world.requests["r2"].owns == run2 and s.world.runs[run2].parent == run1
    s.do("disconnect", request="r2")
    assert [s.world.runs[r].status for r in (run1, run2, run3)] == ["running", "cancelling", "running"]
    s.do("disconnect", request="r1")
    assert [s.world.runs[r].status for r in (run1, run3)] == ["cancelling", "cancelling"]
    assert s.world.runs[run3].cancel_reason == "parent-cancelled" and s.world.requests["r3"].owns == run3
    s.counted("OWN-2", **{"HTTP disconnect": 2, "a run with children": 1})
    s.counted("OWN-4", **{"HTTP disconnect, beside the same caller's run": 1})
    assert s.messages == {n: [] for n in NAMES}


def _ended_beside_alices_run(other, rules=None):
    """alice's blocking call owns run1 while `other`'s requests are ended by each signal in turn: an HTTP
    disconnect, a stdio notifications/cancelled, stdio EOF, the host ending a listen."""
    s = Story(rules)
    s.call(declare=False)
    s.do("disconnect", request=s.call(client=other, declare=False))
    s.do("stdio_cancel", request=s.call(client=other, transport="stdio"))
    s.call(client=other, transport="stdio")
    s.do("stdio_close", client=other, server="S1")
    s.do("listen", client=other, server="S1", declare=True)
    s.do("end_listen", request=s.last())
    return s


@pytest.mark.parametrize("other, whose", [("C1", "the same caller's run"), ("C2", "another caller's run"),
                                          ("C4", "another tenant's run")])
def test_own4_premise_names_the_signal_and_whose_run_it_was_beside(other, whose):
    s = _ended_beside_alices_run(other)
    s.counted("OWN-4", **{f"{sig}, beside {whose}": 1 for sig in ownership.OWN4_SIGNALS.values()})
    assert s.world.runs[s.run()].status == "running" and s.messages["OWN-4"] == []


def test_own4_premise_leaves_out_an_answered_requests_disconnect():
    s = Story()
    s.call(declare=False)
    s.do("answer", request=s.call())
    s.do("deliver", request="r2")
    s.do("disconnect", request="r2")                      # after its response arrived: nothing is cancelled
    s.counted("OWN-4")


class ListenEndCancelsListenersRuns(Rules):
    """The host ending a listen stream takes the listener as gone: every run of its caller is cancelled."""

    def server_cancelled_on(self, world, q, reason):
        for run in list(world.runs.values()):
            if run.owner == q.subject:
                self.cancel_run(world, run, MCP_REQUEST_CANCELLED, f"listen:{q.id}")
        return super().server_cancelled_on(world, q, reason)


def test_own4_fails_when_the_host_ending_a_listen_cancels_a_run():
    s = Story(ListenEndCancelsListenersRuns())
    s.call(declare=False)
    s.do("listen", client="C1", server="S1", declare=True)
    s.do("end_listen", request="r2")
    (msg,) = s.messages["OWN-4"]
    assert "r2 (host-ended-listen)" in msg and "no run" in msg and "run1" in msg


def test_own4_fails_when_a_disconnect_cancels_every_run_of_the_caller():
    s = Story(DisconnectCancelsCallersRuns())
    s.call(declare=False)
    s.call(declare=False)
    s.do("disconnect", request="r1")
    (msg,) = s.messages["OWN-4"]
    assert "r1" in msg and "run1" in msg and "run2" in msg and "alice" in msg and "acme" in msg


# ---- OWN-G3 (gap) ---------------------------------------------------------------------------------
class CancelStopsAtOnce(Rules):
    """cancel-stops-at-once (strengthening): no compensation after the cancel was accepted."""

    def effects_while_cancelling(self, world, run):
        return False


def test_own_g3_gap_is_exhibited_on_the_baseline():
    s = Story()
    s.call(declare=False)
    s.do("disconnect", request="r1")
    s.do("run_compensate", run=s.run())
    assert s.premises["OWN-G3"] == 1
    (msg,) = s.messages["OWN-G3"]
    assert "run1" in msg and "compensation" in msg and "r1" in msg


def test_own_g3_holds_under_cancel_stops_at_once():
    s = Story(CancelStopsAtOnce())
    s.call(declare=False)
    s.do("disconnect", request="r1")
    assert s.world.moves("run_compensate") == []
    s.do("run_finish_cancel", run=s.run())
    assert s.premises["OWN-G3"] == 1
    assert s.messages["OWN-G3"] == []
