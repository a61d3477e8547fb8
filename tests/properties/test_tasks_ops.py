"""GET-1, CNL-1, CNL-2, TTL-1..4: each holds on a baseline story that exercises it, and a mutant breaks it; the
premise of each property with cases names exactly the case a step reached."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from model import identity, wire
from model.actions import load_all
from model.params import Params
from model.rules import MCP_REQUEST_CANCELLED, Rules
from properties import tasks_ops

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

load_all()
NAMES = ("GET-1", "CNL-1", "CNL-2", "TTL-1", "TTL-2", "TTL-3", "TTL-4")


class Story(scenario.Scenario):
    """Drive a world move by move, checking the named properties after every step."""

    names = NAMES

    def ref(self, label="run1"):
        return identity.project(self.run(label))

    def running(self, client="C1"):
        self.call(client=client)
        self.do("run_start", run=self.run())

    def started(self, declare=True):
        """alice calls the tool and its run (the latest) starts: that run's label."""
        self.call(declare=declare)
        label = f"run{len(self.world.runs)}"
        self.do("run_start", run=self.run(label))
        return label

    def only(self, name, *cases):
        """The cases of `name` reached so far are exactly `cases`, each by one step."""
        want = {c: int(c in cases) for c in self.props[name].cases}
        assert self.cases(name) == want, self.cases(name)

    def task(self, method, client="C1", label="run1", **extra):
        return self.do(method, client=client, server="S1", ref=self.ref(label), transport="http", declare=True,
                       header_ok=True, **extra)


# ---- GET-1 ----------------------------------------------------------------------------------------
class GetAppendsReadEvent(Rules):
    """get-appends-read-event: tasks/get appends an audit event."""

    def on_tasks_get(self, world, q, run):
        world.append(run, {"type": "task.read", "by": q.subject})


def test_get1_holds_a_read_changes_nothing():
    s = Story()
    s.running()
    step = s.task("tasks_get")
    assert step.emitted[0][1]["result"]["status"] == "working"
    assert s.premises["GET-1"] == 1
    assert s.messages["GET-1"] == []


def test_get1_fails_when_a_read_appends():
    s = Story(GetAppendsReadEvent())
    s.running()
    s.task("tasks_get")
    (msg,) = s.messages["GET-1"]
    assert "r2" in msg and "task.read" in msg and "run1" in msg


# ---- CNL-1 ----------------------------------------------------------------------------------------
class CancelAckWithoutCancel(Rules):
    """cancel-ack-without-cancel."""

    def tasks_cancel(self, world, q, run):
        return wire.result_response(q.id, wire.empty_ack())


class CancelTerminalAppends(Rules):
    """cancel-terminal-appends: run.cancelled appended on a terminal run."""

    def tasks_cancel(self, world, q, run):
        if run.status in ("completed", "failed", "cancelled"):
            world.append(run, {"type": "run.cancelled", "reason": "tasks-cancel"})
        return super().tasks_cancel(world, q, run)


def test_cnl1_holds_on_a_live_run_with_its_cascade_and_on_a_terminal_one():
    s = Story()
    s.running()
    s.do("run_spawn", run=s.run())
    s.task("tasks_cancel")
    assert s.world.runs[s.run()].status == "cancelling"
    assert s.world.runs[s.run("run2")].status == "cancelling"
    s.do("call_tool", client="C1", server="S1", transport="http", declare=True, tool="flow")
    s.do("run_start", run=s.run("run3"))
    s.do("run_complete", run=s.run("run3"))
    s.task("tasks_cancel", label="run3")
    assert s.premises["CNL-1"] == 2
    assert s.messages["CNL-1"] == []


def test_cnl1_premise_names_the_status_the_cancel_met():
    s = Story()
    live, done, failed = s.started(), s.started(), s.started()
    s.do("run_complete", run=s.run(done))
    s.do("run_fail", run=s.run(failed))
    s.task("tasks_cancel", label=live)
    s.only("CNL-1", "a non-terminal run")                   # the status before the cancel, not after it
    s.do("run_finish_cancel", run=s.run(live))
    for label in (done, failed, live):
        s.task("tasks_cancel", label=label)
    s.task("tasks_cancel", client="C3", label=live)          # carol may not cancel: not CNL-1's request
    assert s.cases("CNL-1") == dict.fromkeys(tasks_ops.CNL1_CASES, 1)
    assert s.messages["CNL-1"] == []


def test_cnl1_fails_when_the_ack_cancels_nothing():
    s = Story(CancelAckWithoutCancel())
    s.running()
    s.task("tasks_cancel")
    (msg,) = s.messages["CNL-1"]
    assert "r2" in msg and "alice" in msg and "run1" in msg and "running" in msg


def test_cnl1_fails_when_a_terminal_run_gets_an_event():
    s = Story(CancelTerminalAppends())
    s.running()
    s.do("run_complete", run=s.run())
    s.task("tasks_cancel")
    (msg,) = s.messages["CNL-1"]
    assert "r2" in msg and "run1" in msg and "completed" in msg and "run.cancelled" in msg


# ---- CNL-2 ----------------------------------------------------------------------------------------
class CancelRaceCompletes(Rules):
    """cancel-race-completes: a cancelling run may still complete."""

    lifecycle_extra = ({"trigger": "complete", "source": ["cancelling"], "dest": "completed"},)


def test_cnl2_holds_cancelling_ends_cancelled():
    s = Story()
    s.running()
    s.task("tasks_cancel")
    s.do("run_compensate", run=s.run())
    s.do("run_finish_cancel", run=s.run())
    assert s.world.runs[s.run()].status == "cancelled"
    assert s.premises["CNL-2"] == 2
    assert s.messages["CNL-2"] == []


class OwnerCancelLoggedAsRest(Rules):
    """The owner's cancellation accepted under the REST reason: the case is read from the step, not the log."""

    def on_request_cancelled(self, world, q, cause):
        if q.owns is not None:
            self.cancel_run(world, world.runs[q.owns], "rest-cancel", f"request:{q.id}")


def test_cnl2_premise_names_how_the_cancel_was_accepted_at_the_later_steps():
    s = Story()
    by_get = s.started()
    s.task("tasks_cancel", label=by_get)
    s.only("CNL-2")                                          # the acceptance itself is no later step
    s.do("run_finish_cancel", run=s.run(by_get))
    s.only("CNL-2", "by tasks/cancel")
    by_rest = s.started()
    s.do("rest_cancel", subject="alice", run=s.run(by_rest))
    s.do("run_finish_cancel", run=s.run(by_rest))
    owned = s.started(declare=False)
    s.do("run_spawn", run=s.run(owned))
    child = f"run{len(s.world.runs)}"
    s.do("disconnect", request=s.last())
    s.do("run_finish_cancel", run=s.run(child))
    s.do("run_finish_cancel", run=s.run(owned))
    assert s.cases("CNL-2") == dict.fromkeys(tasks_ops.CNL2_CASES, 1)
    assert s.messages["CNL-2"] == []


def test_cnl2_premise_reads_the_owners_cancellation_from_the_step_whatever_reason_is_logged():
    s = Story(OwnerCancelLoggedAsRest())
    owned = s.started(declare=False)
    s.do("disconnect", request=s.last())
    assert s.world.runs[s.run(owned)].cancel_reason == "rest-cancel" != MCP_REQUEST_CANCELLED
    s.do("run_finish_cancel", run=s.run(owned))
    s.only("CNL-2", "by the owner's cancellation")


def test_cnl2_fails_when_a_cancelling_run_completes():
    s = Story(CancelRaceCompletes())
    s.running()
    s.task("tasks_cancel")
    s.do("run_complete", run=s.run())
    (msg,) = s.messages["CNL-2"]
    assert "run1" in msg and "completed" in msg and "run.cancelling" in msg


# ---- TTL-1 ----------------------------------------------------------------------------------------
class TtlBelowRetention(Rules):
    """ttl-below-retention: ttlMs one tick shorter than the time to purge."""

    def ttl_ms(self, world, run):
        purge = self.purge_time(world, run)
        return None if purge is None else (purge - run.created_at - 1) * world.params.tick_ms


def _finished_and_read(rules=None, params=None):
    s = Story(rules, params)
    s.running()
    s.do("clock_tick")
    s.do("run_complete", run=s.run())
    s.task("tasks_get")
    return s


def test_ttl1_holds_a_finite_ttl_covers_retention():
    for p_retention in ("from-terminal", "from-creation"):
        s = _finished_and_read(params=Params(p_retention=p_retention))
        assert s.premises["TTL-1"] == 1
        assert s.messages["TTL-1"] == []


def test_ttl1_fails_when_the_ttl_is_shorter_than_retention():
    s = _finished_and_read(TtlBelowRetention())
    (msg,) = s.messages["TTL-1"]
    assert "run1" in msg and "r2" in msg and "ttlMs 2000" in msg and "3000 ms" in msg


# ---- TTL-2 ----------------------------------------------------------------------------------------
class TtlFailsRun(Rules):
    """ttl-fails-run: every task gets a TTL of the retention, and the run is failed when it elapses."""

    def ttl_ms(self, world, run):
        return world.params.retention * world.params.tick_ms

    def on_ttl_elapsed(self, world, run):
        if run.status == "running":
            world.set_status(run, "fail")
            world.append(run, {"type": "run.failed", "reason": "ttl-expired"})


def test_ttl2_holds_time_passing_ends_no_run():
    s = Story()
    s.running()
    s.do("run_complete", run=s.run())
    s.do("clock_tick")
    s.do("clock_tick")            # the TTL (= time to purge) elapses here
    assert s.premises["TTL-2"] == 1
    assert s.messages["TTL-2"] == []


def test_ttl2_fails_when_the_ttl_fails_the_run():
    s = Story(TtlFailsRun())
    s.running()
    s.do("clock_tick")
    s.do("clock_tick")
    assert s.premises["TTL-2"] >= 1
    (msg,) = s.messages["TTL-2"]
    assert "run1" in msg and "run.failed" in msg and "ttl-expired" in msg


# ---- TTL-3 ----------------------------------------------------------------------------------------
class PurgedTaskExpiredMessage(Rules):
    """purged-task-expired-message: a purged id answered with its own message."""

    def not_found(self, world, q, reason):
        raw = self.decode_task_ref(world, q.task_ref or "")
        run = world.runs.get(raw) if raw else None
        if run is not None and run.purged:
            return wire.error_response(q.id, wire.INVALID_PARAMS, "Task expired", None)
        return super().not_found(world, q, reason)


def _read_before_and_after_purge(rules=None):
    s = Story(rules)
    s.running()
    s.do("run_complete", run=s.run())
    s.task("tasks_get", client="C3")       # carol may read: resolves before purge
    s.do("clock_tick")
    s.do("clock_tick")
    s.do("purge", run=s.run())
    step = s.task("tasks_get", client="C3")
    return s, step


def test_ttl3_holds_purged_reads_exactly_not_found():
    s, step = _read_before_and_after_purge()
    assert step.emitted[0][1]["error"]["code"] == wire.INVALID_PARAMS
    s.only("TTL-3", "before the purge", "after the purge")
    assert s.messages["TTL-3"] == []


def test_ttl3_fails_when_a_purged_task_gets_its_own_message():
    s, _ = _read_before_and_after_purge(PurgedTaskExpiredMessage())
    (msg,) = s.messages["TTL-3"]
    assert "r3" in msg and "carol" in msg and "run1" in msg and "Task expired" in msg and "Task not found" in msg


# ---- TTL-4 ----------------------------------------------------------------------------------------
def test_ttl4_premise_names_each_door_read_before_the_advertised_ttl_and_none_after():
    s = Story(params=Params(retention=1, ttl_live_ticks=2))
    s.call()
    s.task("tasks_get")                                      # the TTL not told yet: the call is unanswered
    s.only("TTL-4")
    s.do("answer", request="r1")                             # its CreateTaskResult tells createdAt + 2 ticks
    s.do("run_start", run=s.run())
    s.task("tasks_get")
    s.task("tasks_update", key="acme/i-neverissuedneverissued", response="accept")
    s.do("listen", client="C1", server="S1", declare=True)
    s.task("tasks_cancel")
    s.do("run_finish_cancel", run=s.run())
    s.do("clock_tick")
    s.do("clock_tick")                                       # createdAt + ttlMs has elapsed
    s.task("tasks_get")
    assert s.cases("TTL-4") == dict.fromkeys(tasks_ops.TTL4_CASES, 1)
    assert s.messages["TTL-4"] == []
