"""The client harness (HNS-1..HNS-7): what a client owes so that a remote task is neither assumed,
lost, nor mistaken for the local run.

These properties constrain the harness of `model.harness`, a participant composed with the host
(`World(harness=True)`); on a host-only world they hold trivially (there is no harness). They read
what the harness sent and read (`world.requests`, `world.harness.sent`, `world.harness.read`),
its live process and its disk. Only harness steps change the harness, so each check returns at
once on any other step.

- HNS-1 (negotiation): tasks/* only for a taskId a server returned to this client; a call whose
  work needs a durable handle only to a server the client saw advertise the extension; a plain
  CallToolResult to a declaring call is taken as the result; no record waits without a handle.
- HNS-2 (durable wait): a record in WAITING_EXTERNAL has its binding (taskId, server, auth) on
  disk and holds no worker.
- HNS-3 (restart, a trace): no fresh tools/call for an operation whose binding was ever persisted;
  right after a restart every persisted binding of an unfinished record is being polled.
- HNS-4 (cancel is an intent, a trace): a record with a cancel intent ends `cancelled` only after
  reading the remote `cancelled`, `completed`/`failed` only after reading that fact (from an answer, or
  a notifications/tasks on its subscription), "effect unknown" only when the fact became unobtainable
  (an error that says so, or the loss of its latest tools/call: not of one it has since re-issued);
  and after reading a remote `completed` it ends completed.
- HNS-5 (local authority): the local run's status is the one its own records give, whatever the
  remote task reads.
- HNS-7 (per operation): a short exchange's tools/call never declares Tasks; long work's declares
  them to a server seen offering them.
- HNS-6 (bound credentials): every tasks/* and subscription a harness sends for a binding goes to
  the server and as the Subject persisted with it (the live record's before the first checkpoint).
"""
from __future__ import annotations

from model import stories, wire
from model.harness import DROPPED

from .base import prop

# The local run statuses of the harness article, stated here: the model's own list is not the oracle.
LOCAL_RUN_STATUSES = ("running", "waiting", "cancelling", "completed", "failed", "cancelled", "reconcile")
TASKS_CALL_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")


def new_requests(world, step):
    """The requests sent in this step (ids are r1, r2, ... in order of sending)."""
    return [world.requests[f"r{i}"] for i in range(len(step.pre_phase) + 1, len(world.requests) + 1)]


def _result(q) -> dict:
    return (q.response or {}).get("result") or {}


def _returned_task(world, client: str, server: str, task_id: str) -> bool:
    """Did this client read a CreateTaskResult with this taskId from this server?"""
    read = world.harness.read
    return any(q.client == client and q.server == server and q.method == "tools/call" and q.id in read
               and q.phase == "delivered" and _result(q).get("resultType") == "task"
               and _result(q).get("taskId") == task_id for q in world.requests.values())


def _observed_tasks(world, client: str, server: str) -> bool:
    """Did this client read a server/discover of this server that advertises the extension?"""
    read = world.harness.read
    return any(q.client == client and q.server == server and q.method == "server/discover" and q.id in read
               and q.phase == "delivered"
               and wire.TASKS_EXT in _result(q).get("capabilities", {}).get("extensions", {})
               for q in world.requests.values())


def _read_plain_result(world, step):
    """The harness request whose plain CallToolResult to a declaring call was read in this step."""
    if step.action != "harness_receive":
        return None
    q = world.requests[step.args["request"]]
    if q.method == "tools/call" and q.declares_tasks and q.phase == "delivered" \
            and _result(q).get("resultType") == "complete":
        return q
    return None


# ---- HNS-1 -------------------------------------------------------------------------------------
def _hns1_premise(world, step):
    if world.harness is None or step.actor != "harness":
        return False
    if step.action == "harness_start":
        return step.args["long"]
    return _read_plain_result(world, step) is not None


@prop("harness-negotiates", "HNS-1", "step", "H §negotiation, failure mode 1",
      "The harness never depends on Tasks support it has not observed: tasks/* only for a taskId a "
      "server returned to it, a call needing a durable handle only to a server seen advertising the "
      "extension (else an explicit refusal), a plain CallToolResult to a declaring call taken as the "
      "result, and no record waiting without a handle.", premise=_hns1_premise)
def harness_negotiates(world, step):
    h = world.harness
    if h is None or step.actor != "harness":
        return None
    for q in new_requests(world, step):
        if q.client not in h.clients:
            continue
        if q.method in TASKS_CALL_METHODS and not _returned_task(world, q.client, q.server, q.task_ref):
            return (f"{q.client} sent {q.method} {q.id} for taskId {q.task_ref!r} to {q.server}, "
                    f"which no CreateTaskResult it read from {q.server} carried")
        if q.method == "tools/call" and q.retry_of is None:
            te = h.execution(q.client, q.operation)
            if te is not None and te.long and q.declares_tasks and not _observed_tasks(world, q.client, q.server):
                return (f"{q.client} sent tools/call {q.id} for {q.operation}, whose work needs a durable "
                        f"handle, to {q.server} counting on a task, but never read a server/discover of "
                        f"{q.server} advertising {wire.TASKS_EXT}")
    q = _read_plain_result(world, step)
    if q is not None:
        te = h.execution(q.client, q.operation)
        if te is not None and not te.terminal:
            return (f"{q.client} read the plain CallToolResult answering its declaring tools/call {q.id} "
                    f"for {te.op}, yet {te.op} stays {te.status!r} instead of taking it as the result")
    for c in h.clients.values():
        if c.proc is not None:
            for te in c.proc.tes.values():
                if te.status == "waiting_external" and te.binding is None:
                    return (f"{c.name}'s {te.op} waits in WAITING_EXTERNAL on {te.server} without any "
                            f"task handle: a wait for a handle the server never offered")
    return None


# ---- HNS-2 -------------------------------------------------------------------------------------
def _hns2_premise(world, step):
    if world.harness is None or step.action != "harness_receive":
        return False
    q = world.requests[step.args["request"]]
    return q.method == "tools/call" and q.phase == "delivered" and _result(q).get("resultType") == "task"


@prop("harness-durable-wait", "HNS-2", "invariant", "H §durable wait",
      "A tool execution in WAITING_EXTERNAL has its binding (remote taskId, server identity, auth "
      "binding) durably persisted, and holds no worker.", premise=_hns2_premise)
def harness_durable_wait(world, step):
    h = world.harness
    if h is None or step.actor != "harness":
        return None
    for c in h.clients.values():
        if c.proc is None:
            continue
        for te in c.proc.tes.values():
            if te.status != "waiting_external":
                continue
            d = c.disk_tes.get(te.op)
            persisted = d.binding if d is not None else None
            if te.binding is None or persisted != te.binding:
                task = world.label(te.binding.task_id) if te.binding else "no task"
                return (f"{c.name}'s {te.op} entered WAITING_EXTERNAL on {task} ({te.server}) while its "
                        f"persisted record holds binding {persisted}")
            if te.worker:
                return f"{c.name}'s {te.op} holds a worker while it waits on {world.label(te.binding.task_id)}"
    return None


# ---- HNS-3 -------------------------------------------------------------------------------------
def _persisted_bindings(c):
    return [(op, d) for op, d in c.disk_tes.items() if d.binding is not None and not d.terminal]


def _hns3_premise(world, step):
    if world.harness is None or step.action != "harness_restart":
        return False
    return bool(_persisted_bindings(world.harness.clients[step.args["client"]]))


@prop("harness-resumes-after-restart", "HNS-3", "trace", "H §durable wait",
      "After a crash and restart a new process resumes polling every persisted binding, and never "
      "re-issues the tools/call of an operation that has one.", premise=_hns3_premise)
def harness_resumes_after_restart(world, step):
    h = world.harness
    if h is None or step.actor != "harness":
        return None
    bound = world.facts.setdefault("harness-resumes-after-restart", {})   # (client, op) -> persisted binding
    for q in new_requests(world, step):
        b = bound.get((q.client, q.operation))
        if q.method == "tools/call" and q.retry_of is None and b is not None:
            return (f"{q.client} sent tools/call {q.id} for {q.operation} again, although {q.operation}'s "
                    f"binding to {world.label(b.task_id)} on {b.server} (auth {b.auth}) was persisted")
    if step.action == "harness_restart":
        c = h.clients[step.args["client"]]
        for op, d in _persisted_bindings(c):
            te = c.proc.tes[op]
            if te.status != "waiting_external" or te.binding != d.binding:
                return (f"{c.name} restarted and did not resume polling {world.label(d.binding.task_id)}: "
                        f"{op}'s binding was persisted, but the new process has {op} {te.status!r}")
    for c in h.clients.values():
        for op, d in c.disk_tes.items():
            if d.binding is not None:
                bound.setdefault((c.name, op), d.binding)
    return None


# ---- HNS-4 -------------------------------------------------------------------------------------
def _remote_facts(world, client: str, op: str, heard=()) -> list[tuple[str, str]]:
    """(request, fact) the client's live process learnt for op: a remote terminal status it read, or
    `unobtainable`. A process knows only what it read itself: a call sent by an earlier process is
    unobtainable to it (the record on disk is all that survived). Only the latest tools/call sent for op
    makes the fact unobtainable by its loss: an earlier one that was re-issued is superseded, and the
    fact may still come in the answer to the re-issue. `heard`: notifications read at this step, not yet
    remembered (`_heard_now`)."""
    h = world.harness
    epoch = h.clients[client].proc.epoch if h.clients[client].proc is not None else None
    mine = [q for q in world.requests.values() if q.client == client and q.operation == op]
    calls = [q.id for q in mine if q.method == "tools/call"]
    last_call = calls[-1] if calls else None      # the call the fact can still come from: the latest sent
    out = []
    for q in mine:
        if h.sent[q.id][1] != epoch:
            if q.id == last_call:
                out.append((q.id, "unobtainable"))   # whatever answer came died with that process
            continue
        fact = _fact(q) if q.id in h.read and q.phase == "delivered" else None
        if fact is None and q.id == last_call and q.phase in ("lost", "cancelled"):
            fact = "unobtainable"                    # its connection dropped before an answer
        if fact is not None:
            out.append((q.id, fact))
    out += [(qid, fact) for c, o, e, qid, fact in (*world.facts.get(HEARD, ()), *heard)
            if (c, o, e) == (client, op, epoch)]
    return out


HEARD = "harness-cancel-is-intent.heard"


def _heard_now(world, step):
    """(client, op, epoch, listen, fact) of a terminal notifications/tasks a harness process read on its
    subscription at this step, a remote fact as good as a tasks/get's; None: none."""
    if step.action != "harness_receive":
        return None
    h = world.harness
    q = world.requests[step.args["request"]]
    if q.method != "subscriptions/listen" or q.phase != "streaming":
        return None
    client, epoch, _, op = h.sent[q.id]
    te = h.execution(client, op)
    task = world.last_sent.get((q.id, h._raw(world, te.binding.task_id))) if te is not None and te.binding else None
    status = (task or {}).get("status")
    if status not in wire.TERMINAL_TASK_STATUSES:
        return None
    fact = "failed" if status == "completed" and ((task.get("result") or {}).get("isError")) else status
    return client, op, epoch, q.id, fact


def _note_heard(world, step) -> None:
    """Remember for the steps after it what a process heard at this one (`_heard_now`)."""
    heard = _heard_now(world, step)
    if heard is not None:
        world.facts[HEARD] = world.facts.get(HEARD, ()) + (heard,)


def _fact(q) -> str | None:
    """The remote fact a delivered answer the harness read carries, if any."""
    res, err = _result(q), (q.response or {}).get("error")
    if q.method == "tools/call":
        if err is not None:
            return "unobtainable" if q.retry_of else "failed"
        if res.get("resultType") == "complete":
            return "failed" if res.get("isError") else "completed"
    elif q.method in ("tasks/get", "tasks/cancel") and err is not None:
        return "unobtainable"
    elif q.method == "tasks/get" and res.get("status") in wire.TERMINAL_TASK_STATUSES:
        if res["status"] == "completed" and (res.get("result") or {}).get("isError"):
            return "failed"
        return res["status"]
    return None


NEEDS = {"cancelled": ("cancelled",), "completed": ("completed",), "failed": ("failed", "completed"),
         "unknown": ("unobtainable",)}


def _newly_ended_with_intent(world):
    seen = world.facts.get("harness-cancel-is-intent", ())
    for c in world.harness.clients.values():
        if c.proc is not None:
            for te in c.proc.tes.values():
                if te.cancel_intent and te.terminal and (c.name, te.op, te.status) not in seen:
                    yield c, te


HNS4_UNOBTAINABLE = ("-32602", "an elapsed TTL", "a server gone")
HNS4_CASES = ("terminal fact read", *(f"unobtainable by {how}" for how in HNS4_UNOBTAINABLE),
              "after a cancel acknowledgement", "remote completed after the cancel")


def _unobtainable_by(world, step, c, te) -> str | None:
    """How the fact te ended "unknown" on became unobtainable at this step (`HNS4_UNOBTAINABLE`): the
    answer the harness read was -32602, for a remote task the host had purged (its TTL elapsed) or
    otherwise; or the connection of its call dropped before the answer: the server is gone from it.
    None: another way (a restart finding the call of a dead process unanswered, another error)."""
    if step.action != "harness_receive":
        return None
    q = world.requests[step.args["request"]]
    if (q.client, q.operation) != (c.name, te.op):
        return None
    if q.phase in DROPPED:
        return "a server gone" if q.method == "tools/call" else None
    if ((q.response or {}).get("error") or {}).get("code") != wire.INVALID_PARAMS:
        return None
    run = _run_of(world, te)
    return "an elapsed TTL" if run is not None and world.runs[run].purged else "-32602"


def _hns4_cases(world, step, c, te) -> list[str]:
    """What record te, which had a cancel intent and ended at this step, ended on: the remote fact its
    process read (as the check reads them), or how that fact became unobtainable; and whether its cancel
    had been acknowledged."""
    heard = _heard_now(world, step)
    facts = {f for _, f in _remote_facts(world, c.name, te.op, (heard,) if heard else ())}
    out = []
    if "completed" in facts:
        out.append("remote completed after the cancel")
    elif facts & {"cancelled", "failed"}:
        out.append("terminal fact read")
    elif te.status == "unknown" and (how := _unobtainable_by(world, step, c, te)):
        out.append(f"unobtainable by {how}")
    if te.cancel_acked:
        out.append("after a cancel acknowledgement")
    return out


def _hns4_premise(world, step) -> tuple:
    if world.harness is None or step.actor != "harness":
        return ()
    return tuple(dict.fromkeys(case for c, te in _newly_ended_with_intent(world)
                               for case in _hns4_cases(world, step, c, te)))


@prop("harness-cancel-is-intent", "HNS-4", "trace", "H §cancellation, failure mode 3",
      "Cancellation is an intent: a record with a cancel intent reaches a terminal outcome only after "
      "the remote terminal fact was read, or the fact became unobtainable (then 'effect unknown: "
      "reconcile'); a cancel acknowledgement alone never yields cancelled; a remote completed after a "
      "cancel is recorded completed.", premise=_hns4_premise, cases=HNS4_CASES)
def harness_cancel_is_intent(world, step):
    h = world.harness
    if h is None or step.actor != "harness":
        return None
    _note_heard(world, step)
    ended = list(_newly_ended_with_intent(world))
    if not ended:
        return None
    seen = world.facts.setdefault("harness-cancel-is-intent", set())
    for c, te in ended:
        seen.add((c.name, te.op, te.status))
        facts = _remote_facts(world, c.name, te.op)
        completed = [qid for qid, f in facts if f == "completed"]
        if completed and te.status != "completed":
            return (f"{c.name} read the remote task of {te.op} completed ({completed[0]}) after its cancel "
                    f"intent, yet recorded {te.op} {te.status!r}")
        if te.status in NEEDS and not any(f in NEEDS[te.status] for _, f in facts):
            read = ", ".join(f"{qid}: {f}" for qid, f in facts) or "nothing"
            task = world.label(te.binding.task_id) if te.binding else "its call"
            acked = f" on the empty ack of {te.cancel_req}" if te.cancel_acked else ""
            return (f"{c.name} recorded {te.op} {te.status!r}{acked} after its cancel intent without the "
                    f"remote fact: for {task} it read {read}"
                    + (f" (the remote {world.label(_run_of(world, te))} is {_status_of(world, te)})"
                       if _run_of(world, te) else ""))
    return None


def _run_of(world, te):
    if te.binding is None:
        return None
    raw = world.rules.decode_task_ref(world, te.binding.task_id)
    return raw if raw in world.runs else None


def _status_of(world, te):
    return world.runs[_run_of(world, te)].status


# ---- HNS-5 -------------------------------------------------------------------------------------
_ENDED = ("completed", "failed", "refused", "cancelled", "unknown")    # tool-execution outcomes


def local_status_from_records(tes) -> str:
    """The local run's status its tool-execution records imply, derived here and not taken from the
    harness's own function (a bug in that would otherwise be its own oracle): cancelling while a live
    record carries a cancel intent; waiting while every live one waits on a remote task; running
    while any other is live; once all ended, completed only when every one completed, reconcile
    when any outcome is unknown, failed when any failed or was refused, else cancelled."""
    live = [te for te in tes if te.status not in _ENDED]
    if live:
        if any(te.cancel_intent for te in live):
            return "cancelling"
        return "waiting" if all(te.status == "waiting_external" for te in live) else "running"
    ended = {te.status for te in tes}
    if "unknown" in ended:
        return "reconcile"
    if ended & {"failed", "refused"}:
        return "failed"
    return "cancelled" if "cancelled" in ended else "completed"


def _hns5_premise(world, step):
    if world.harness is None or step.action != "harness_receive":
        return False
    q = world.requests[step.args["request"]]
    return q.phase == "delivered" and "status" in _result(q)


@prop("harness-local-authority", "HNS-5", "invariant", "H §two ids, failure mode 2",
      "The local run is the authority: a remote task status lives inside the tool-execution record "
      "and is never written over the local run's state.", premise=_hns5_premise)
def harness_local_authority(world, step):
    h = world.harness
    if h is None or step.actor != "harness":
        return None
    for c in h.clients.values():
        for run in c.disk_runs.values():
            if run.status not in LOCAL_RUN_STATUSES:
                return f"{c.name}'s persisted local run {run.id} reads {run.status!r}, not a local run status"
        if c.proc is None:
            continue
        for run in c.proc.runs.values():
            tes = [c.proc.tes[o] for o in run.nodes.values()]
            expected = local_status_from_records(tes)
            if run.status != expected:
                remote = "; ".join(f"{world.label(te.binding.task_id)} reads {te.remote_status}"
                                   for te in tes if te.binding is not None and te.remote_status)
                return (f"{c.name}'s local run {run.id} reads {run.status!r} where its own records say "
                        f"{expected!r}" + (f" (remote: {remote})" if remote else ""))
    return None


# ---- HNS-6 -------------------------------------------------------------------------------------
# The purposes of a request for a binding, as the requirement's sentence calls them (its cases).
HNS6_CASES = {"get": "a poll", "update": "an update", "cancel": "a cancel", "listen": "a subscription"}


def _bound_requests(world, step):
    """(request, the binding it is for: the persisted one, else the live record's) sent in this step."""
    h = world.harness
    out = []
    for q in new_requests(world, step):
        sent = h.sent.get(q.id)
        if sent is None or sent[2] not in HNS6_CASES:
            continue
        c = h.clients[q.client]
        d = c.disk_tes.get(q.operation)
        binding = d.binding if d is not None and d.binding is not None else getattr(h.execution(q.client, q.operation),
                                                                                  "binding", None)
        if binding is not None:
            out.append((q, binding))
    return out


def _hns6_premise(world, step) -> tuple:
    if world.harness is None or step.actor != "harness":
        return ()
    return tuple(dict.fromkeys(HNS6_CASES[world.harness.sent[q.id][2]] for q, _ in _bound_requests(world, step)))


@prop("harness-uses-bound-credentials", "HNS-6", "step", "H §durable wait",
      "Every poll, update, cancel and subscription for a persisted binding uses the server identity and the "
      "auth binding persisted with it, never the current process's default credentials or another "
      "principal's.", premise=_hns6_premise, cases=tuple(HNS6_CASES.values()))
def harness_uses_bound_credentials(world, step):
    if world.harness is None or step.actor != "harness":
        return None
    for q, b in _bound_requests(world, step):
        if q.server != b.server or q.subject != b.auth:
            return (f"{q.client} sent {q.method} {q.id} for {q.operation}'s {world.label(b.task_id)} to {q.server} as "
                    f"{q.subject}, but the binding was persisted with server {b.server} and auth {b.auth}")
    return None


# ---- HNS-7 -------------------------------------------------------------------------------------
def _harness_calls(world, step):
    """(tools/call, its record) the harness sent in this step: first calls, re-issues, MRTR retries."""
    h = world.harness
    out = []
    for q in new_requests(world, step):
        if q.method == "tools/call" and q.client in h.clients:
            te = h.execution(q.client, q.operation)
            if te is not None:
                out.append((q, te))
    return out


def _hns7_premise(world, step):
    return world.harness is not None and step.actor == "harness" and any(
        te.short or te.long for _, te in _harness_calls(world, step))


@prop("harness-chooses-per-operation", "HNS-7", "step", "H §Tasks and MRTR",
      "The harness chooses per operation: a short exchange does not declare Tasks (MRTR covers its missing "
      "input); work that must outlast a connection declares Tasks where the server offers them, so it never "
      "holds an MRTR or blocking call open across a long wait.", premise=_hns7_premise)
def harness_chooses_per_operation(world, step):
    if world.harness is None or step.actor != "harness":
        return None
    for q, te in _harness_calls(world, step):
        if te.short and q.declares_tasks:
            return (f"{q.client} sent tools/call {q.id} for {te.op}, a short exchange, declaring {wire.TASKS_EXT}: "
                    f"a task for what MRTR covers")
        if te.long and not q.declares_tasks and _observed_tasks(world, q.client, q.server):
            return (f"{q.client} sent tools/call {q.id} for {te.op}, work that must outlast a connection, to "
                    f"{q.server}, which offers Tasks, without declaring them: a call held open across a long wait")
    return None


# ---- stories that exercise the premises ---------------------------------------------------------
# A story is a list of (action, args) steps on a fresh composed world (`World(harness=True)`); args
# may be a function of the world (for the ids it minted). Random exploration reaches some premises
# rarely (HNS-3 needs a call answered, read, persisted, then a crash and a restart): an engine may
# replay these as seed examples. Each holds on the baseline, and its client mutant refutes it.
def play(world, story, until=None):
    """Take a story's steps in turn (each must be enabled); stop after the step for which
    `until(world, step)` is true. Returns the world's history."""
    for _, _, step, _ in stories.play(world, story):
        if until is not None and until(world, step):
            break
    return world.history


def run_no(n):
    """The args naming the world's n-th run."""
    return lambda w: {"run": list(w.runs)[n - 1]}


def _clarification(n):
    return lambda w: {"run": list(w.runs)[n - 1], "kind": "clarification", "form": True}


H1 = "H1"
_BOUND = [("harness_start", dict(client=H1, server="S1", long=False)),    # tools/call r1, declaring tasks
          ("answer", dict(request="r1")),                                  # CreateTaskResult
          ("harness_receive", dict(request="r1")),                         # the handle, read
          ("harness_persist", dict(client=H1, op="op1"))]                  # persisted: WAITING_EXTERNAL


def _poll(request):
    return [("harness_poll", dict(client=H1, op="op1")), ("harness_receive", dict(request=request))]


STORIES = {
    "harness-negotiates": [
        ("harness_discover", dict(client=H1, server="S1")), ("harness_receive", dict(request="r1")),
        ("harness_discover", dict(client=H1, server="S2")), ("harness_receive", dict(request="r2")),
        ("harness_start", dict(client=H1, server="S2", long=True)),          # refused: S2 offers no task
        ("harness_start", dict(client=H1, server="S1", long=True)),          # tools/call r3 to S1
        ("run_start", run_no(1)), ("run_complete", run_no(1)),
        ("answer", dict(request="r3")),                                      # a plain CallToolResult (§B.4)
        ("harness_receive", dict(request="r3"))],
    "harness-durable-wait": _BOUND + _poll("r2"),
    "harness-resumes-after-restart": _BOUND + [
        ("harness_crash", dict(client=H1)), ("harness_restart", dict(client=H1))] + _poll("r2"),
    "harness-cancel-is-intent": _BOUND + [
        ("harness_cancel", dict(client=H1, run="L1")),
        ("harness_send_cancel", dict(client=H1, op="op1")), ("harness_receive", dict(request="r2")),
        ("run_finish_cancel", run_no(1))] + _poll("r3"),
    "harness-uses-bound-credentials": _BOUND + [
        ("harness_crash", dict(client=H1)), ("harness_restart", dict(client=H1))] + _poll("r2"),
    "harness-chooses-per-operation": [
        ("harness_discover", dict(client=H1, server="S1")), ("harness_receive", dict(request="r1")),
        ("harness_start", dict(client=H1, server="S1", long=True)),            # a long op declares
        ("harness_start", dict(client=H1, server="S1", long=False, short=True))],   # a short one does not
    "harness-local-authority": _BOUND + _poll("r2") + [
        ("run_start", run_no(1)), ("run_complete", run_no(1))] + _poll("r3"),
    # The two ways the harness answers input: tasks/update for a bound task that reads
    # input_required, an MRTR retry for a call answered InputRequiredResult (random steps reach
    # neither: each needs a run suspended on a clarification between the harness's own steps).
    "harness-answers-task-input": _BOUND + [
        ("run_start", run_no(1)), ("run_interrupt", _clarification(1))] + _poll("r2") + [
        ("harness_update", dict(client=H1, op="op1")), ("harness_receive", dict(request="r3"))],
    # A poll whose connection drops before its answer: the harness must poll again (LIV-2).
    "harness-polls-again-after-a-drop": _BOUND + [
        ("harness_poll", dict(client=H1, op="op1")), ("disconnect", dict(request="r2")),
        ("harness_receive", dict(request="r2")),                         # learns the drop
        ("run_start", run_no(1)), ("run_complete", run_no(1))],
    "harness-answers-by-mrtr": [
        ("harness_start", dict(client=H1, server="S2", long=False)),    # S2 serves no Tasks: a plain call
        ("run_start", run_no(1)), ("run_interrupt", _clarification(1)),
        ("answer", dict(request="r1")), ("harness_receive", dict(request="r1")),   # InputRequiredResult
        ("harness_mrtr", dict(client=H1, op="op1"))],
    # HNS-4 where the fact comes from a call other than the first: a call whose connection dropped is
    # re-issued, then cancelled (the drain answers and reads the re-issue: the first call's loss is no
    # longer the fact); and an MRTR retry refused after a cancel intent because its interrupt was
    # answered elsewhere meanwhile (the fact became unobtainable: "effect unknown", not failed).
    "harness-cancels-a-reissued-call": [
        ("harness_start", dict(client=H1, server="S1", long=False)),    # tools/call r1, declaring tasks
        ("disconnect", dict(request="r1")),                              # dropped before its answer
        ("harness_reissue", dict(client=H1, op="op1")),                  # tools/call r2, the same operation
        ("harness_cancel", dict(client=H1, run="L1"))],
    # HNS-4 where the fact became unobtainable with the call itself: its connection drops before an answer,
    # after the cancel intent (so it is not re-issued), and the harness learns it: "effect unknown".
    "harness-cancel-meets-a-dropped-call": [
        ("harness_start", dict(client=H1, server="S1", long=False)), ("harness_cancel", dict(client=H1, run="L1")),
        ("disconnect", dict(request="r1")), ("harness_receive", dict(request="r1"))],
    # HNS-4 where the remote task's TTL elapsed before the fact was read: the run ends, the host purges it
    # after its retention (two ticks), and the poll finds no task (-32602).
    "harness-cancel-meets-an-elapsed-ttl": _BOUND + [
        ("harness_cancel", dict(client=H1, run="L1")), ("run_start", run_no(1)), ("run_complete", run_no(1)),
        ("clock_tick", {}), ("clock_tick", {}), ("purge", run_no(1))] + _poll("r2"),
    "harness-cancels-before-a-refused-retry": [
        ("harness_start", dict(client=H1, server="S2", long=False)),    # S2 serves no Tasks: a plain call
        ("run_start", run_no(1)), ("run_interrupt", _clarification(1)),
        ("answer", dict(request="r1")), ("harness_receive", dict(request="r1")),   # InputRequiredResult
        ("harness_cancel", dict(client=H1, run="L1")),
        ("rest_resolve", lambda w: {"subject": "alice", "interrupt": list(w.interrupts)[0], "response": "accept"}),
        ("harness_mrtr", dict(client=H1, op="op1")),                     # r2: its interrupt is answered
        ("harness_receive", dict(request="r2"))],                        # refused: the fact is unobtainable
}
