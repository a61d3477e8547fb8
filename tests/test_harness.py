"""The client harness's actions, one scenario each, on the composed world (host + harness)."""
from __future__ import annotations

import pytest

from model import wire
from model.actions import load_all
from model.harness import Binding, HarnessRules
from model.host import answer_pending
from model.world import ModelError, World, composed_world

ACTIONS = load_all()
HARNESS_ACTIONS = sorted(n for n, a in ACTIONS.items() if a.actor == "harness")


def do(world, name, answer=True, **args):
    """Apply an enabled move (refused when not enabled) and return its step; a request it sends that
    waits for the host's `respond` is answered at once unless `answer` is False."""
    step = world.apply(name, args)
    answered = answer_pending(world, step) if answer else []
    return answered[-1] if answered else step


def last(world) -> str:
    return world.last_request()


def te_of(world, client="H1", op="op1"):
    return world.harness.clients[client].proc.tes[op]


def disk_of(world, client="H1", op="op1"):
    return world.harness.clients[client].disk_tes[op]


def discovered(world, client="H1", *servers):
    for server in servers:
        do(world, "harness_discover", client=client, server=server)
        qid = last(world)
        do(world, "deliver", request=qid)
        do(world, "harness_receive", request=qid)
    return world


def bound(world, client="H1", server="S1"):
    """A local run whose node's tasked call was answered, read and persisted: WAITING_EXTERNAL."""
    do(world, "harness_start", client=client, server=server, long=False)
    qid = last(world)
    do(world, "answer", request=qid)
    do(world, "deliver", request=qid)
    do(world, "harness_receive", request=qid)
    op = world.requests[qid].operation
    do(world, "harness_persist", client=client, op=op)
    return qid, op


def read_poll(world, client="H1", op="op1"):
    do(world, "harness_poll", client=client, op=op)
    qid = last(world)
    do(world, "deliver", request=qid)
    do(world, "harness_receive", request=qid)
    return qid


# ---- composition -------------------------------------------------------------------------------
def test_a_host_only_world_offers_no_harness_move():
    w = World()
    assert w.harness is None
    assert HARNESS_ACTIONS and all(ACTIONS[n].moves(w) == [] for n in HARNESS_ACTIONS)


def test_the_composed_world_is_built_three_ways_with_rules_as_class_or_instance():
    class Other(HarnessRules):
        name = "other"

    assert composed_world().harness.rules.name == "baseline"
    assert World(harness=True).harness.rules.name == "baseline"
    assert World.composed(None, None, Other).harness.rules.name == "other"
    assert composed_world(harness_rules=Other()).harness.rules.name == "other"
    assert set(composed_world().harness.clients) == {"H1", "H2"}
    assert composed_world().params.client_subject("H2").name == "bob"


# ---- HNS-1: negotiation ------------------------------------------------------------------------
def test_discover_records_what_each_server_offers():
    w = discovered(composed_world(), "H1", "S1", "S2")
    assert w.harness.clients["H1"].proc.caps == {"S1": True, "S2": False}
    assert "S2 does not offer io.modelcontextprotocol/tasks" in w.history[-1].note
    assert {"client": "H1", "server": "S1"} not in w.moves("harness_discover")


def test_long_work_waits_for_discover_and_is_refused_where_no_task_is_offered():
    w = composed_world()
    assert {"client": "H1", "server": "S2", "long": True} not in w.moves("harness_start")
    discovered(w, "H1", "S1", "S2")
    n = len(w.requests)
    step = do(w, "harness_start", client="H1", server="S2", long=True)
    assert len(w.requests) == n                       # nothing sent
    assert te_of(w).status == "refused" and disk_of(w).status == "refused"
    assert "S2 offers no durable task handle" in te_of(w).reason and "refused" in step.note
    assert w.harness.clients["H1"].proc.runs["L1"].status == "failed"


def test_after_discover_a_call_to_a_server_without_tasks_does_not_declare():
    w = discovered(composed_world(), "H1", "S2")
    do(w, "harness_start", client="H1", server="S2", long=False)
    q = w.requests[last(w)]
    assert not q.declares_tasks and q.operation == "op1" and te_of(w).worker


def test_a_plain_result_to_a_declaring_call_is_the_result():
    w = composed_world()
    do(w, "harness_start", client="H1", server="S2", long=False)   # S2 not yet discovered: declares
    qid = last(w)
    assert w.requests[qid].declares_tasks
    do(w, "run_start", run=w.requests[qid].run)
    do(w, "run_complete", run=w.requests[qid].run)
    do(w, "answer", request=qid)
    do(w, "deliver", request=qid)
    do(w, "harness_receive", request=qid)
    assert te_of(w).status == "completed" and not te_of(w).worker
    assert w.harness.clients["H1"].proc.runs["L1"].status == "completed"


# ---- HNS-2: the durable wait -------------------------------------------------------------------
def test_a_handle_is_persisted_before_waiting_external_and_no_worker_waits():
    w = composed_world()
    do(w, "harness_start", client="H1", server="S1", long=False)
    qid = last(w)
    assert te_of(w).status == "calling" and disk_of(w).status == "calling"
    do(w, "answer", request=qid)
    do(w, "deliver", request=qid)
    do(w, "harness_receive", request=qid)
    te = te_of(w)
    task_id = w.requests[qid].response["result"]["taskId"]
    assert te.status == "handle_received" and te.binding == Binding(task_id, "S1", "alice")
    assert disk_of(w).binding is None                 # read, not yet persisted
    assert w.moves("harness_poll") == []
    do(w, "harness_persist", client="H1", op="op1")
    assert te.status == "waiting_external" and not te.worker
    assert disk_of(w).binding == te.binding and disk_of(w).status == "waiting_external"
    assert w.harness.clients["H1"].proc.runs["L1"].status == "waiting"


def test_polling_reads_the_remote_status_into_the_record_and_the_final_result():
    w = composed_world()
    qid, op = bound(w)
    run = w.requests[qid].run
    get = read_poll(w)
    assert w.requests[get].method == "tasks/get" and w.requests[get].operation == op
    assert te_of(w).remote_status == "working" and te_of(w).status == "waiting_external"
    do(w, "run_start", run=run)
    do(w, "run_complete", run=run)
    read_poll(w)
    assert te_of(w).status == "completed" and te_of(w).remote_status == "completed"
    assert w.harness.clients["H1"].proc.runs["L1"].status == "completed"


def test_a_task_asking_for_input_is_answered_through_tasks_update():
    w = composed_world()
    qid, op = bound(w)
    run = w.requests[qid].run
    do(w, "run_start", run=run)
    do(w, "run_interrupt", run=run, kind="clarification", form=True)
    read_poll(w)
    assert te_of(w).remote_status == "input_required" and te_of(w).input_keys
    do(w, "harness_update", client="H1", op=op)
    q = w.requests[last(w)]
    assert q.method == "tasks/update" and "result" in q.response
    assert w.runs[run].status == "running"            # alice is an eligible approver of a clarification


# ---- MRTR ----------------------------------------------------------------------------------------
def test_a_short_input_round_trip_stays_mrtr():
    w = discovered(composed_world(), "H1", "S2")
    do(w, "harness_start", client="H1", server="S2", long=False)
    qid = last(w)
    run = w.requests[qid].run
    do(w, "run_start", run=run)
    do(w, "run_interrupt", run=run, kind="clarification", form=True)
    do(w, "answer", request=qid)
    do(w, "deliver", request=qid)
    do(w, "harness_receive", request=qid)
    assert te_of(w).status == "input_required" and te_of(w).request_state
    do(w, "harness_mrtr", client="H1", op="op1")
    retry = w.requests[last(w)]
    assert retry.retry_of == qid and retry.operation == "op1" and retry.retry_valid
    assert te_of(w).status == "calling" and w.runs[run].status == "running"


# ---- HNS-3: crash and restart ------------------------------------------------------------------
def test_a_restarted_process_resumes_polling_a_persisted_binding():
    w = composed_world()
    qid, op = bound(w)
    do(w, "harness_crash", client="H1")
    assert w.harness.clients["H1"].proc is None
    assert w.requests[qid].closed                     # its connections dropped with it
    assert w.moves("harness_poll") == [] and {"client": "H1"} in w.moves("harness_restart")
    step = do(w, "harness_restart", client="H1")
    te = te_of(w)
    assert te.status == "waiting_external" and te.binding == disk_of(w).binding
    assert "resumes polling" in step.note
    assert {"client": "H1", "op": op} in w.moves("harness_poll") and w.moves("harness_reissue") == []


def test_an_answer_read_but_not_persisted_dies_with_the_process_and_the_call_is_reissued():
    w = composed_world()
    do(w, "harness_start", client="H1", server="S1", long=False)
    qid = last(w)
    do(w, "answer", request=qid)
    do(w, "deliver", request=qid)
    do(w, "harness_receive", request=qid)
    do(w, "harness_crash", client="H1")
    do(w, "harness_restart", client="H1")
    assert te_of(w).status == "calling" and te_of(w).binding is None and te_of(w).request is None
    do(w, "harness_reissue", client="H1", op="op1")
    again = w.requests[last(w)]
    assert again.method == "tools/call" and again.operation == "op1" and again.id != qid
    assert te_of(w).attempts == 2


def test_a_call_whose_connection_drops_before_the_answer_is_reissued():
    w = composed_world()
    do(w, "harness_start", client="H1", server="S2", long=False)
    qid = last(w)
    do(w, "disconnect", request=qid)
    assert w.requests[qid].phase == "cancelled"
    assert w.moves("harness_receive") == []           # re-issuing is how the harness notices
    step = do(w, "harness_reissue", client="H1", op="op1")
    assert f"the connection of {qid} dropped" in step.note
    assert w.requests[last(w)].operation == "op1"


def test_crashes_are_budgeted():
    w = composed_world(World().params.with_(harness_max_crashes=1))
    do(w, "harness_crash", client="H1")
    assert w.moves("harness_crash") == []
    with pytest.raises(ModelError):
        do(w, "harness_crash", client="H2")


# ---- HNS-4: cancellation as intent -------------------------------------------------------------
def test_cancel_records_the_intent_and_waits_for_the_remote_terminal_fact():
    w = composed_world()
    qid, op = bound(w)
    run = w.requests[qid].run
    do(w, "harness_cancel", client="H1", run="L1")
    assert te_of(w).cancel_intent and disk_of(w).cancel_intent
    assert w.harness.clients["H1"].proc.runs["L1"].status == "cancelling"
    do(w, "harness_send_cancel", client="H1", op=op)
    cancel = last(w)
    assert w.requests[cancel].method == "tasks/cancel" and w.runs[run].status == "cancelling"
    do(w, "deliver", request=cancel)
    step = do(w, "harness_receive", request=cancel)
    assert te_of(w).status == "waiting_external" and te_of(w).cancel_acked
    assert "no fact about the effect" in step.note
    read_poll(w)
    assert te_of(w).status == "waiting_external" and te_of(w).remote_status == "working"
    do(w, "run_finish_cancel", run=run)
    read_poll(w)
    assert te_of(w).status == "cancelled"
    assert w.harness.clients["H1"].proc.runs["L1"].status == "cancelled"


def test_a_remote_completed_after_a_cancel_is_recorded_completed():
    w = composed_world()
    qid, op = bound(w, client="H2")                   # bob may read but not cancel
    run = w.requests[qid].run
    do(w, "harness_cancel", client="H2", run="L1")
    do(w, "harness_send_cancel", client="H2", op=op)
    cancel = last(w)
    assert w.requests[cancel].response["result"] == wire.empty_ack() and w.runs[run].status == "pending"
    do(w, "run_start", run=run)
    do(w, "run_complete", run=run)
    read_poll(w, client="H2", op=op)
    te = te_of(w, "H2", op)
    assert te.status == "completed" and te.cancel_intent and "remote completed" in te.reason


def test_a_fact_that_can_no_longer_be_read_ends_as_effect_unknown():
    w = composed_world()
    qid, op = bound(w)
    run = w.requests[qid].run
    do(w, "harness_cancel", client="H1", run="L1")
    do(w, "run_start", run=run)
    do(w, "run_complete", run=run)
    for _ in range(w.params.retention):
        do(w, "clock_tick")
    do(w, "purge", run=run)
    read_poll(w)
    assert te_of(w).status == "unknown" and "effect unknown: reconcile" in te_of(w).reason
    assert "-32602" in te_of(w).reason
    assert w.harness.clients["H1"].proc.runs["L1"].status == "reconcile"


def test_a_cancelled_call_whose_connection_drops_ends_as_effect_unknown():
    w = composed_world()
    do(w, "harness_start", client="H1", server="S2", long=False)
    qid = last(w)
    do(w, "harness_cancel", client="H1", run="L1")
    do(w, "disconnect", request=qid)
    assert w.moves("harness_reissue") == []
    do(w, "harness_receive", request=qid)
    assert te_of(w).status == "unknown" and qid in te_of(w).reason


def test_a_restart_ends_an_unanswered_cancelled_call_as_effect_unknown():
    w = composed_world()
    do(w, "harness_start", client="H1", server="S2", long=False)
    do(w, "harness_cancel", client="H1", run="L1")
    do(w, "harness_crash", client="H1")
    do(w, "harness_restart", client="H1")
    assert te_of(w).status == "unknown"


# ---- LIV-2: waiting by polling or by subscription ----------------------------------------------
def test_the_harness_chooses_at_each_wait_to_poll_or_to_subscribe():
    w = composed_world()
    _, op = bound(w)
    assert w.params.harness_wait == "either"
    assert w.moves("harness_poll") == [dict(client="H1", op=op)] == w.moves("harness_listen")
    for mode, poll, listen in (("poll", True, False), ("listen", False, True)):
        r = composed_world(World().params.with_(harness_wait=mode))
        bound(r)
        assert (r.moves("harness_poll") != []) == poll and (r.moves("harness_listen") != []) == listen, mode


def test_a_subscription_is_read_once_to_catch_up_once_acknowledged_then_by_its_notifications():
    w = composed_world()
    qid, op = bound(w)
    run = w.requests[qid].run
    do(w, "harness_listen", client="H1", op=op)
    sub = w.requests[last(w)]
    assert sub.method == "subscriptions/listen" and sub.phase == "streaming" and te_of(w).listen == sub.id
    assert (sub.server, sub.subject) == ("S1", "alice")            # the binding's (HNS-6)
    assert w.moves("harness_listen") == []
    get = read_poll(w)                                              # the catch-up read, after the ack
    assert w.requests[get].method == "tasks/get" and te_of(w).caught_up
    assert w.moves("harness_poll") == []                           # waiting on the stream now
    do(w, "run_start", run=run)
    do(w, "run_complete", run=run)
    assert {"request": sub.id} in w.moves("harness_receive")
    step = do(w, "harness_receive", request=sub.id)
    assert "notifications/tasks" in step.note and te_of(w).status == "completed" and te_of(w).listen is None


@pytest.mark.parametrize("end", ["end_listen", "disconnect"])
def test_a_stream_that_ends_by_teardown_or_disconnect_falls_back_to_polling(end):
    w = composed_world()
    qid, op = bound(w)
    do(w, "harness_listen", client="H1", op=op)
    sub = last(w)
    do(w, end, request=sub)
    step = do(w, "harness_receive", request=sub)
    te = te_of(w)
    assert te.stream_ended and te.listen is None and "waits by polling now" in step.note
    assert w.moves("harness_listen") == [] and w.moves("harness_poll") == [dict(client="H1", op=op)]
    run = w.requests[qid].run
    do(w, "run_start", run=run)
    do(w, "run_complete", run=run)
    read_poll(w)
    assert te_of(w).status == "completed"


def test_polls_honour_the_poll_interval_of_the_last_task_view():
    from model.rules import Rules

    class Paced(Rules):
        def create_task_result(self, world, run, q):
            return dict(super().create_task_result(world, run, q), pollIntervalMs=1500)

    w = World.composed(None, Paced(), None)
    _, op = bound(w)
    assert te_of(w).poll_at == 2                                   # 1500 ms at 1000 ms a tick: two ticks
    assert w.moves("harness_poll") == [] and w.moves("harness_listen") != []
    do(w, "clock_tick")
    assert w.moves("harness_poll") == []
    do(w, "clock_tick")
    assert w.moves("harness_poll") == [dict(client="H1", op=op)]
    read_poll(w)                                                   # a tasks/get without one: the harness's pace
    assert te_of(w).poll_at is None and w.moves("harness_poll") == [dict(client="H1", op=op)]
    stopped = World.composed(World().params.with_(max_time=0), Paced(), None)
    bound(stopped)                                                 # a clock that cannot tick: polls anyway
    assert stopped.moves("harness_poll") == [dict(client="H1", op="op1")]


# ---- HNS-7: short exchanges ------------------------------------------------------------------
def test_short_exchanges_are_started_on_the_baseline_and_never_declare_tasks():
    w = composed_world()
    assert w.params.harness_short_ops
    assert dict(client="H1", server="S1", long=False, short=True) in w.moves("harness_start")
    do(w, "harness_start", client="H1", server="S1", long=False, short=True)
    q = w.requests[last(w)]
    assert te_of(w).short and not te_of(w).declared and not q.declares_tasks
    off = composed_world(World().params.with_(harness_short_ops=False))
    assert not any(m.get("short") for m in off.moves("harness_start"))
