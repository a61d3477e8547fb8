"""Liveness (RFC 0198 §G): what the host owes is eventually paid, under the stated fairness.

- LIV-1 (liveness). Judged once, at the end of an exploration, after the fair drain of
  `model.fairness` (host steps weakly fair, every external event arrives, paused runs are resumed,
  an eligible approver answers each open interrupt, responses travel). Then every `tools/call` and
  every MRTR retry (a `tools/call` too) has been answered or cancelled: none is still received or
  streaming. And every run that was not terminal when the request owning it was cancelled reads
  `cancelled`: the accepted cancel was carried through. `subscriptions/listen` streams are
  excluded: they stay open by design. The message says whether the drain quiesced or stopped at
  its bound (a livelock then shows as what is still owed). A host that never answers (or drops
  every request) fails this property.
- LIV-2 (liveness). Judged after the same drain, in which the network and the server are fair and a
  crashed harness process is restarted, reads what reaches it and polls a bound task whose run
  finished: every persisted binding whose remote run is terminal (or was purged after it) has its
  tool execution recorded terminal, whether the harness waited by polling or by subscription. A
  binding whose process has no request left in the harness's budget is a bound of the model, not an
  obligation, and is left out, unless the harness still waits on a stream it learnt had ended: that
  wait needs no request to be wrong (a harness that falls back would poll, budget or not).
"""
from __future__ import annotations

from model.lifecycle import TOOL_EXECUTION_TERMINAL

from .base import annotate, learnt_at, prop
from .ownership import OPEN, TERMINAL, created_runs, started_run


def owed_calls(world) -> list:
    """tools/call requests (first calls and MRTR retries) neither answered nor cancelled."""
    return [q for q in world.requests.values() if q.method == "tools/call" and q.phase in OPEN]


def cancelled_owners(world) -> list[tuple[str, str, str, int]]:
    """(requestId, cause, runId, step index) for each owner cancelled while its run was not terminal,
    as the monitor recorded them."""
    return [(qid, cause, rid, learnt_at(world, "LIV-1", qid)) for qid, cause, rid in world.facts.get("LIV-1", ())]


def _liv1_monitor(world, step) -> None:
    """Remember each owner cancelled while the run it started was not terminal (the step's record:
    which requests it cancelled, and every run's status before it)."""
    if not step.cancelled:
        return
    created = created_runs(world)
    for qid, cause in step.cancelled:
        if step.pre_phase.get(qid) not in OPEN:
            continue
        rid = started_run(world, world.requests[qid], created)
        if rid is not None and step.pre_status.get(rid, "completed") not in TERMINAL:
            world.facts["LIV-1"] = world.facts.get("LIV-1", ()) + ((qid, cause, rid),)
            annotate(world, "LIV-1", qid, step.index)


LIV1_CASES = ("a tools/call", "an MRTR retry", "an owner cancelled, its run not terminal")


def _liv1_premise(world, step) -> tuple:
    """What was owed in this state: a first tools/call or an MRTR retry that reached a run (each owes
    its answer), an owner cancelled while its run was not terminal (the run owes reading cancelled)."""
    calls = {LIV1_CASES[q.retry_of is not None] for q in world.requests.values()
             if q.method == "tools/call" and q.run is not None}
    return tuple(c for c in LIV1_CASES if c in calls) + ((LIV1_CASES[2],) if cancelled_owners(world) else ())


@prop("every-call-answered-or-cancelled", "LIV-1", "liveness", "RFC §G",
      "Under weak fairness of host steps and eventual external events, every tools/call and MRTR retry is "
      "eventually answered or cancelled, and every run not terminal when its owner was cancelled eventually "
      "reads cancelled.", premise=_liv1_premise, monitor=_liv1_monitor, cases=LIV1_CASES)
def liv1_everything_owed_is_paid(world, step):
    quiesced = world.facts.get("drain_quiesced")
    drained = ("with no fair drain recorded" if quiesced is None else
               "after the fair drain quiesced" if quiesced else "after the fair drain hit its bound")
    problems = []
    for q in owed_calls(world):
        run = world.runs.get(q.run) if q.run else None
        problems.append(f"{'MRTR retry' if q.retry_of else 'tools/call'} {q.id} of client {q.client} is still "
                        f"{q.phase}" + (f" ({world.label(run.id)} reads {run.status})" if run else ""))
    seen = set()
    for qid, cause, rid, at in cancelled_owners(world):
        run = world.runs[rid]
        if rid in seen or run.status == "cancelled":
            continue
        seen.add(rid)
        problems.append(f"{world.label(rid)} was not terminal when its owner {qid} was cancelled ({cause}, step {at}) "
                        f"and reads {run.status}, not cancelled")
    return f"{drained}: " + "; ".join(problems) if problems else None


def _bindings(world):
    """(client, persisted record, the record the harness holds now) for every persisted binding."""
    h = world.harness
    out = []
    for c in (h.clients.values() if h is not None else ()):
        for op, d in c.disk_tes.items():
            if d.binding is not None:
                out.append((c, d, c.proc.tes.get(op, d) if c.proc is not None else d))
    return out


def _liv2_premise(world, step):
    """A binding was persisted."""
    return bool(_bindings(world))


@prop("bound-task-outcome-recorded", "LIV-2", "liveness", "H §durable wait",
      "Under fairness of the network and the server, every persisted binding whose remote task reaches a "
      "terminal status is eventually recorded terminal in its tool execution, across crashes and restarts, "
      "whether the harness waits by polling or by subscription (a subscription that ends falls back to "
      "polling).", premise=_liv2_premise)
def liv2_bound_outcome_recorded(world, step):
    h = world.harness
    spent = h is not None and h.requests >= world.params.harness_max_requests
    problems = []
    for c, d, te in _bindings(world):
        run = world.runs.get(h._raw(world, d.binding.task_id))
        if run is None or run.status not in TERMINAL or te.status in TOOL_EXECUTION_TERMINAL:
            continue
        ended = te.listen is not None and te.listen in h.read    # it took in the end of the stream it waits on
        if spent and te.pending is None and not ended:
            continue             # no request left to ask with: the model's bound, not the harness's fault
        how = (f"waiting on subscription {te.listen}, which it learnt had ended" if ended else
               f"waiting on subscription {te.listen}" if te.listen else
               "with a read in flight" if te.pending else "waiting")
        problems.append(f"{c.name}'s {te.op} is still {te.status} ({how}) though {world.label(run.id)}, bound as "
                        f"{world.label(d.binding.task_id)}, reads {run.status}")
    return "after the fair drain: " + "; ".join(problems) if problems else None


# ---- scenario stories ---------------------------------------------------------------------------
# Random steps seldom end the very subscription a harness waits on: this story does (the harness
# chooses to wait by subscription; with `Params.harness_wait` "poll" it is cut at the listen).
def _run1(w):
    return {"run": list(w.runs)[0]}


STORIES = {
    "subscription-ends-then-task-finishes": [
        ("harness_start", dict(client="H1", server="S1", long=False)),   # tools/call r1, declaring tasks
        ("answer", dict(request="r1")), ("harness_receive", dict(request="r1")),
        ("harness_persist", dict(client="H1", op="op1")),                # the binding, persisted
        ("harness_listen", dict(client="H1", op="op1")),                 # subscriptions/listen r2
        ("harness_poll", dict(client="H1", op="op1")),                   # acknowledged: tasks/get r3 catches up
        ("harness_receive", dict(request="r3")),
        ("end_listen", dict(request="r2")), ("harness_receive", dict(request="r2")),   # the stream ends
        ("run_start", _run1), ("run_complete", _run1)],
    # A subscription opened after the task finished is never notified of it: only the tasks/get that
    # catches up once the stream is acknowledged (taken by the fair drain) brings the outcome.
    "subscribed-after-the-task-finished": [
        ("harness_start", dict(client="H1", server="S1", long=False)),
        ("answer", dict(request="r1")), ("harness_receive", dict(request="r1")),
        ("harness_persist", dict(client="H1", op="op1")),
        ("run_start", _run1), ("run_complete", _run1),
        ("harness_listen", dict(client="H1", op="op1"))],                # subscriptions/listen r2
}
