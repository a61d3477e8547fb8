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
"""
from __future__ import annotations

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


def _liv1_premise(world, step):
    """Something was owed: a tools/call or retry reached a run, or an owner of a live run was cancelled."""
    return any(q.method == "tools/call" and q.run is not None for q in world.requests.values()) \
        or bool(cancelled_owners(world))


@prop("every-call-answered-or-cancelled", "LIV-1", "liveness", "RFC §G",
      "Under weak fairness of host steps and eventual external events, every tools/call and MRTR retry is "
      "eventually answered or cancelled, and every run not terminal when its owner was cancelled eventually "
      "reads cancelled.", premise=_liv1_premise, monitor=_liv1_monitor)
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
