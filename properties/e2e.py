"""End to end: the client, the network and the host together (E2E-1..E2E-4).

RFC 0198 cuts a request's ownership of its run at the moment the host has *sent* the whole
response (§G.12-13). What happens between that moment and the client's durable knowledge of the
answer is outside what the RFC promises; so is what a client that re-issues a call after losing
its answer does to the outside world. These are the known gaps the catalogue keeps as teaching
material: on the baseline each is refuted by a short counterexample, and each holds under a named
strengthening (ownership-until-receipt for E2E-1, idempotency-key for E2E-2 and E2E-4). E2E-3 is a
witness: the behaviour the RFC does promise, a task surviving the loss of its connection.

A gap's check returns a message when the gap is *exhibited* in the current state or step; the
witness's check returns a message when the behaviour is *reached*. The logical operation of a call
is `Request.operation`, which the harness sets on every request it sends (and a re-issue keeps).
"""
from __future__ import annotations

from model.lifecycle import TERMINAL
from model.facts import Leaves

from .base import handled, prop
from .harness import run_no

OPEN_OR_IN_FLIGHT = ("received", "streaming", "sent")
REQUEST_CANCELLED = "mcp-request-cancelled"


def _kind(q) -> str:
    resp = q.response or {}
    if "error" in resp:
        return f"error {resp['error']['code']}"
    res = resp.get("result") or {}
    return {"task": "CreateTaskResult", "input_required": "InputRequiredResult"}.get(
        res.get("resultType"), "CallToolResult")


def _is_harness(world, client: str) -> bool:
    return world.harness is not None and client in world.harness.clients


# ---- E2E-1 -------------------------------------------------------------------------------------
def _unheld_runs(world):
    """Runs an MCP tools/call started, still going (not terminal, not being cancelled), that no one
    holds: no request owns them or still awaits or carries their answer, no stateless client has the
    answer, and no harness holds a handle on them."""
    live = {r.id: r for r in world.runs.values()
            if r.creating_request is not None and not r.purged and r.status not in TERMINAL
            and r.status != "cancelling"}
    if not live:
        return []
    held = set()
    for q in world.requests.values():
        if q.owns in live:
            held.add(q.owns)
        if q.run in live and q.method == "tools/call" and (
                q.phase in OPEN_OR_IN_FLIGHT or (q.phase == "delivered" and not _is_harness(world, q.client))):
            held.add(q.run)
    out = []
    for rid, r in live.items():
        if rid not in held and not (world.harness is not None and world.harness.holders(world, rid)):
            out.append(r)
    return out


def _lost_answers(world, run) -> list[tuple[object, str]]:
    """The answers to tools/calls naming the run that the host wholly sent and the client lost, and
    how: in flight, or delivered to a harness process that died before persisting them."""
    h = world.harness
    out = []
    for q in world.requests.values():
        if q.run != run.id or q.method != "tools/call" or q.response is None:
            continue
        if q.phase == "lost":
            out.append((q, "wholly sent and lost in flight"))
        elif q.phase == "delivered" and _is_harness(world, q.client):
            c = h.clients[q.client]
            if h.sent[q.id][1] != (c.proc.epoch if c.proc else None):
                out.append((q, f"received by {q.client} but not persisted before its process crashed"))
    return out


def _e2e1_premise(world, step):
    if step.action == "harness_crash":
        return True
    if step.action != "disconnect":
        return False
    q = world.requests[step.args["request"]]
    return q.phase == "lost" and q.run in world.runs and world.runs[q.run].status not in TERMINAL


@prop("e2e-orphan-task", "E2E-1", "gap", "RFC §G.12-13",
      "A response the host has wholly sent but the client never received, or received but did not "
      "persist before the harness crashed, leaves a running task that no one holds (the RFC cuts "
      "ownership at sent; strengthening: ownership until the client's receipt is known).",
      premise=_e2e1_premise)
def e2e_orphan_task(world, step):
    for run in _unheld_runs(world):
        lost = [f"the {_kind(q)} of {q.id} was {how}" for q, how in _lost_answers(world, run)]
        if not lost:
            continue            # unheld for another reason (e.g. a refused MRTR retry): not this gap
        task = world.rules.task_id(world, run)
        return (f"{run.label} (task {task}, started by {run.creating_request} of "
                f"{world.requests[run.creating_request].client}) is {run.status} and no one holds it: "
                f"{'; '.join(lost)}; no request owns it and no client has its taskId")
    return None


# ---- E2E-2 and E2E-4: a re-issue repeats effects -------------------------------------------------
def _operation(world, run):
    q = world.requests.get(run.creating_request) if run.creating_request else None
    return (q.client, q.operation) if q is not None and q.operation is not None else None


def _work(run) -> list[dict]:
    return [e for e in run.log if e["type"] == "effect.performed" and e["kind"] == "work"]


def _sent_order(qid: str) -> int:
    return int(qid[1:])          # request ids are r1, r2, ... in the order sent


def _repeats(world, step):
    """(earlier run, repeating run, operation) for each work effect of this step performed by a run
    whose operation an earlier run (started by an earlier call of the same client) worked for."""
    out = []
    for rid, e in step.events:
        if e["type"] != "effect.performed" or e["kind"] != "work":
            continue
        run = world.runs[rid]
        key = _operation(world, run)
        if key is None:
            continue
        for other in world.runs.values():
            if other.id != rid and _operation(world, other) == key and _work(other) \
                    and _sent_order(other.creating_request) < _sent_order(run.creating_request):
                out.append((other, run, key))
    return out


def _reissues(world, step):
    if step.action != "harness_reissue":
        return []
    op = step.args["op"]
    return [q for q in world.requests.values() if q.client == step.args["client"] and q.operation == op
            and q.method == "tools/call"]


def _e2e2_premise(world, step):
    return any(q.phase == "cancelled" for q in _reissues(world, step))


@prop("e2e-reissue-duplicates", "E2E-2", "gap", "RFC §Security, alternative 2",
      "A client that re-issues after a disconnect before the answer may duplicate effects the first run "
      "performed before its cancel was accepted: §G.12 bounds the window, it does not close it "
      "(strengthening: an idempotency key).", premise=_e2e2_premise)
def e2e_reissue_duplicates(world, step):
    for first, again, (client, op) in _repeats(world, step):
        accepted = next((e for e in first.log if e["type"] == "run.cancelling"
                         and e.get("reason") == REQUEST_CANCELLED), None)
        if accepted is None:
            continue
        before = [e for e in _work(first) if e["seq"] < accepted["seq"]]
        if not before:
            continue
        return (f"{client} re-issued {op} as {again.creating_request} after the connection of "
                f"{first.creating_request} dropped before its answer: {first.label} had performed an external "
                f"effect (seq {before[0]['seq']}) before its cancel was accepted ({accepted['reason']}, "
                f"{accepted['cause']}), and "
                f"{again.label} performs it again")
    return None


def _e2e4_premise(world, step):
    return any(q.response is not None and _kind(q) == "CallToolResult" for q in _reissues(world, step))


@prop("e2e-lost-result-repeats", "E2E-4", "gap", "RFC §Motivation",
      "A final result wholly sent but lost, followed by a re-issue, repeats every effect of a completed "
      "run (strengthening: an idempotency key).", premise=_e2e4_premise)
def e2e_lost_result_repeats(world, step):
    for first, again, (client, op) in _repeats(world, step):
        if first.status != "completed" or len(_work(again)) < len(_work(first)):
            continue
        q, how = next(((q, how) for q, how in _lost_answers(world, first) if _kind(q) == "CallToolResult"),
                      (None, None))
        if q is None:
            continue
        return (f"{first.label} completed {op} after {len(_work(first))} external effect(s); its CallToolResult "
                f"to {q.id} was {how}; {client} re-issued {op} as {again.creating_request} and {again.label} "
                f"has now repeated all {len(_work(again))} of them")
    return None


# ---- E2E-3 witness -----------------------------------------------------------------------------
def _status_at_drop(world, step) -> dict:
    """request -> the status its run had just before its connection dropped after the response
    arrived. Kept in `world.facts` as drops happen (the checks run after every step)."""
    at = world.facts.setdefault("E2E-3", Leaves())
    for q in world.requests.values():
        if q.closed and q.id not in at and q.run is not None:
            at[q.id] = step.pre_status.get(q.run)
    return at


def _gets_after_drop(world, step):
    """tasks/get sent in this step by the client whose tasked call created the run and whose
    connection then dropped after the CreateTaskResult arrived, while the run was still unfinished
    (a run already finished survives a drop trivially)."""
    at = _status_at_drop(world, step)
    out = []
    for q in handled(world, step):
        if q.method != "tasks/get" or q.run is None:
            continue
        run = world.runs[q.run]
        first = world.requests.get(run.creating_request) if run.creating_request else None
        if first is not None and first.client == q.client and first.closed and _kind(first) == "CreateTaskResult" \
                and at.get(first.id) not in (None, *TERMINAL):
            out.append((q, first, run))
    return out


@prop("e2e-task-survives-disconnect", "E2E-3", "witness", "RFC §G.13",
      "A tasked tools/call answered CreateTaskResult whose connection then drops while its run is unfinished "
      "is later read completed by the same caller through tasks/get on a new connection.",
      premise=lambda world, step: bool(_gets_after_drop(world, step)))
def e2e_task_survives_disconnect(world, step):
    for q, first, run in _gets_after_drop(world, step):
        res = (q.response or {}).get("result") or {}
        if res.get("status") == "completed":
            return (f"{q.client}'s tasks/get {q.id} on a new connection reads task of {run.label} completed, "
                    f"after the connection of {first.id} (answered CreateTaskResult) dropped while {run.label} "
                    f"was {world.facts['E2E-3'][first.id]}")
    return None


# ---- the short stories -------------------------------------------------------------------------
# Each takes a fresh composed baseline world (`World(harness=True)`) to the step that exhibits its
# gap or reaches its witness (`properties.harness.play`). Random exploration reaches E2E-2 and E2E-4
# rarely (a first run must act, and complete, before its answer is lost, then a second run must
# act): an engine may replay these as seed examples.
_START_S1 = ("harness_start", dict(client="H1", server="S1", long=False))   # tools/call r1, declaring tasks
_START_S2 = ("harness_start", dict(client="H1", server="S2", long=False))   # S2 serves no Tasks: a blocking call
_REISSUE = ("harness_reissue", dict(client="H1", op="op1"))                 # tools/call r2, same operation

STORIES = {
    "e2e-orphan-task": [
        _START_S1, ("answer", dict(request="r1")),                           # CreateTaskResult, wholly sent
        ("disconnect", dict(request="r1"))],                                 # lost in flight
    "e2e-reissue-duplicates": [
        _START_S2, ("run_start", run_no(1)), ("run_effect", run_no(1)),
        ("disconnect", dict(request="r1")),                                  # before the answer: §G.12 cancels run1
        _REISSUE, ("run_start", run_no(2)), ("run_effect", run_no(2))],
    "e2e-lost-result-repeats": [
        _START_S2, ("run_start", run_no(1)), ("run_effect", run_no(1)), ("run_complete", run_no(1)),
        ("answer", dict(request="r1")),                                      # the final CallToolResult
        ("disconnect", dict(request="r1")),                                  # lost in flight
        _REISSUE, ("run_start", run_no(2)), ("run_effect", run_no(2))],
    "e2e-task-survives-disconnect": [
        _START_S1, ("answer", dict(request="r1")), ("harness_receive", dict(request="r1")),
        ("harness_persist", dict(client="H1", op="op1")),
        ("disconnect", dict(request="r1")),                                  # after the response arrived
        ("run_start", run_no(1)), ("run_complete", run_no(1)),
        ("harness_poll", dict(client="H1", op="op1"))],                      # tasks/get r2: a new connection
}
