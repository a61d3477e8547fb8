"""Notifications, content and wire shapes (RFC 0198 §G.14, §Security; core §Cancellation; ext-tasks
§Task Status Notifications, §Polymorphic Results, §Task Creation, §Task Cancellation, §Supported
Methods, §Routing Headers; the map's `statusMessage` field row).

The vendored JSON schemas leave several shape rules open (a CreateTaskResult carrying `result` or
`inputRequests`, an acknowledgement carrying a status, a negative `ttlMs`, an InputRequiredResult
with neither field); those are checked here, on the messages as sent.

spec server-cancelled-only-ends-listen (NTF-1, step) observes every notifications/cancelled the host
sends (the client's own stdio cancel is not the host's):
    assert it names a subscriptions/listen request, is sent on that stream, and the stream is ended
    by it; never for a tools/call, a task or a run that was cancelled; and a listen stream the host
    ends without its client's connection ending is ended by one.

spec cancelled-blocking-call-answered-error (NTF-2, step) observes answers to tools/call, requests
cancelled by their client, and open calls whose run reads cancelled:
    assert a tools/call whose run is cancelled is answered CallToolResult {isError: true}; while such
    a call is still open, that answer is enabled for the host; no message at all is sent for a request
    that was itself cancelled (before or in this step); a task view of a cancelled run reads
    "cancelled".

spec notification-equals-get (NTF-3, step) observes every notifications/tasks:
    assert its task equals, field for field, the tasks/get result the same caller would receive for
    that task at that moment (less `resultType` and the stream's `_meta`).

spec listen-sent-every-change (NTF-4, step) observes every task a subscriptions/listen stream, open
before and after the step, acknowledged, that its caller can getRun and whose status (the map's
row) or open input requests changed at the step:
    assert a notifications/tasks naming it (the id the acknowledgement listed) is sent on that stream
    in that step, unless it now asks for input in a mode the caller did not declare (PRJ-4, read per
    P-ELICIT), which is withheld. The host publishes after every step, so that step was its chance;
    sent then, notifications follow the changes in order (what each carries is NTF-3's).

spec status-message-content-free (SEC-1, step) observes every task view carrying a statusMessage:
    assert it quotes none of the run's internals: any tool output text the run produced or tools/call
    would return for it, the tool call's arguments, any inputResponses content sent for it, its
    requestState tokens, or a URL-mode elicitation link (a credential channel).

spec input-content-grants-nothing (SEC-2, step) observes every tasks/update or MRTR retry carrying
inputResponses:
    assert after it every interrupt's approver set is the one its log recorded when it was requested,
    the sender's scopes are those it had, and every interrupt it resolved was resolved by the sender
    as an eligible approver judged from scopes and the recorded approvers, never from the content.

spec result-type-discipline (WIRE-1, step) observes every result:
    assert `resultType: "task"` appears only on a CreateTaskResult (taskId and status present),
    `"input_required"` only answers tools/call, the results of tasks/get, tasks/update and tasks/cancel
    are `"complete"`, and no notifications/tasks carries a resultType.

spec flat-create-empty-acks (WIRE-2, step) observes CreateTaskResults, update/cancel
acknowledgements, task views and InputRequiredResults:
    assert a CreateTaskResult is flat (only the task fields, `resultType` and `_meta`; taskId, status,
    createdAt, lastUpdatedAt and ttlMs present; no result, error or inputRequests); the tasks/update
    and tasks/cancel acknowledgements carry nothing but `resultType` (and `_meta`); every task's
    `ttlMs` is null or a non-negative integer; an InputRequiredResult carries inputRequests or
    requestState.

spec only-tools-call-tasked (WIRE-3, step) observes results and answers to tasks/list, tasks/result:
    assert a CreateTaskResult answers only tools/call (never server/discover, subscriptions/listen or
    any other method; the results of tasks/* themselves are WIRE-1's), and tasks/list and
    tasks/result get -32601.

spec mcp-name-must-match (WIRE-4, step) observes every HTTP tasks/* whose Mcp-Name header differs
from params.taskId:
    assert it is refused -32020 (or -32021 where the capability check, which comes first, already
    refuses it: an undeclaring request or a host not serving Tasks; -32601 on a host not serving
    Tasks, NEG-4) and the step changed nothing.

spec http-status-agrees (WIRE-5, step) observes every error answer sent on streamable HTTP:
    assert -32021 and -32020 are sent with HTTP 400 and -32601 with 404, and a tasks/* answered
    -32602 is sent with exactly the status the host gives a never-issued id's -32602.
"""
from __future__ import annotations

import json

from model import wire
from model.run_index import requests_of_run

from .base import handled, prop
from .creation import (TASKS_METHODS, advertised, can_get_run, declared, eligible, error_code, header_matches,
                       named_run, open_interrupts, probe_request, recorded_approvers, result_kind, seen, step_changes,
                       task_ref)
from .projection import STATUS_ROWS, asked_request, declared_modes

OPEN = ("received", "streaming")


# =============================================================================================
# NTF-1
# =============================================================================================

def _host_cancelled(world, step):
    out = []
    for key, msg in seen(world, step).notes:
        if msg["method"] == "notifications/cancelled":
            if key is None and step.actor in ("client", "harness"):
                continue                   # the client's own stdio notifications/cancelled
            out.append((key, msg))
    return out


def _torn_down_listens(world, step) -> list:
    """Listen streams that ended at this step without their client's connection ending: the host
    tore them down (judged from the request's phase and the step's connection event alone)."""
    a, dropped = step.action, set()
    if a in ("disconnect", "stdio_cancel"):
        dropped.add(step.args.get("request"))
    elif a == "stdio_close":
        dropped |= {q.id for q in world.requests.values() if q.transport == "stdio"
                    and (q.client, q.server) == (step.args.get("client"), step.args.get("server"))}
    elif a == "harness_crash" and world.harness is not None:
        dropped |= {qid for qid, sent in world.harness.sent.items() if sent[0] == step.args.get("client")}
    elif a == "respond":
        dropped.add(step.args.get("request"))     # answered (a refused listen), not torn down
    return [q for q in map(world.requests.__getitem__, world.listens) if q.id not in dropped
            and step.pre_phase.get(q.id) in OPEN and q.phase not in OPEN]


# How a run's cancel was accepted, by the cause `Rules.cancel_run` logs: its requirement's words.
CANCEL_CAUSES = {"tasks/cancel": "tasks/cancel", "rest": "REST", "request": "its owner's cancellation",
                 "parent": "a cascade"}


def cancel_cause(run) -> str | None:
    """How the run's latest accepted cancel came (`CANCEL_CAUSES`), from its log; None: no cancel, or
    a cause the model's rules never log (an amendment's own)."""
    for e in reversed(run.log):
        if e.get("type") == "run.cancelling":
            return CANCEL_CAUSES.get(str(e.get("cause", "")).split(":", 1)[0])
    return None


NTF1_CASES = (*(f"run cancelled by {how}" for how in CANCEL_CAUSES.values()), "listen stream ended")


def _ended_listens(world, step) -> bool:
    """A listen stream that was open before the step is not after it (torn down, or dropped)."""
    return any(q.phase != "streaming" and step.pre_phase.get(q.id) == "streaming"
               for q in map(world.requests.get, world.listens) if q is not None)


def _ntf1_premise(world, step) -> tuple:
    """The moments a host might send notifications/cancelled: a run's cancel accepted or finished (by
    its cause), and a listen stream ending."""
    out = [f"run cancelled by {how}" for rid in seen(world, step).changed
           if world.runs[rid].status in ("cancelling", "cancelled") and (how := cancel_cause(world.runs[rid]))]
    if _ended_listens(world, step):
        out.append("listen stream ended")
    return tuple(dict.fromkeys(out))


@prop("server-cancelled-only-ends-listen", "NTF-1", "step", "RFC §G.14, core §Cancellation",
      "the host sends notifications/cancelled only to end a subscriptions/listen stream (naming that listen "
      "request, on its stream, which it ends), and a listen stream it tears down ends with one; never to "
      "report that a run or task was cancelled",
      premise=_ntf1_premise, reads=("emitted", "phase", "status"), cases=NTF1_CASES)
def server_cancelled_only_ends_listen(world, step):
    for key, msg in _host_cancelled(world, step):
        rid = (msg.get("params") or {}).get("requestId")
        target = world.requests.get(rid)
        if target is None or target.method != "subscriptions/listen":
            what = f"{target.method} {rid}" if target is not None else f"request {rid!r}"
            run = f" (its run {world.label(target.run)} is {world.runs[target.run].status})" \
                if target is not None and target.run else ""
            return f"the host sent notifications/cancelled for {what}{run}: only a listen stream may be ended so"
        if key != rid:
            return f"the host sent notifications/cancelled for listen {rid} on the stream of {key}"
        if target.phase in OPEN:
            return f"the host sent notifications/cancelled for listen {rid} but kept the stream open"
    ended = {(msg.get("params") or {}).get("requestId") for key, msg in _host_cancelled(world, step)}
    for q in _torn_down_listens(world, step):
        if q.id not in ended:
            return (f"the host ended subscriptions/listen {q.id} of {q.client} without notifications/cancelled "
                    f"naming it: the stream it tears down must end with one")
    return None


# =============================================================================================
# NTF-2
# =============================================================================================

def _cancelled_ids(step) -> set:
    return {qid for qid, _ in step.cancelled}


def _open_calls_on_cancelled(world):
    return [q for q in world.open_requests()
            if q.method == "tools/call" and q.run is not None
            and world.runs[q.run].status == "cancelled"]


def _answers_on_cancelled(world, step):
    return [(q, msg) for q, msg in seen(world, step).responses
            if q.method == "tools/call" and q.run is not None and world.runs[q.run].status == "cancelled"]


NTF2_BY = ("REST", "tasks/cancel", "a cascade")
NTF2_CASES = (*(f"blocking call's run cancelled by {how}" for how in NTF2_BY), "the call itself cancelled",
              "a cancelled task read")


def _blocking(world, q) -> bool:
    """q continues a blocking call's run (the call itself, or an MRTR retry of it)."""
    return q is not None and q.method == "tools/call" and q.run is not None \
        and world.runs[q.run].started_by == "blocking-call"


def _ntf2_premise(world, step) -> tuple:
    """A blocking call open (or answered now) while its run reads cancelled, by the cancel's cause (its
    own cancellation is the last case: it is no longer open); a blocking call its client cancelled; a
    view of a cancelled task."""
    calls = [*_open_calls_on_cancelled(world), *(q for q, _ in _answers_on_cancelled(world, step))]
    out = [f"blocking call's run cancelled by {how}" for q in calls if _blocking(world, q)
           and (how := cancel_cause(world.runs[q.run])) in NTF2_BY]
    if any(_blocking(world, world.requests.get(qid)) for qid in _cancelled_ids(step)):
        out.append("the call itself cancelled")
    if any((run := named_run(world, view.get("taskId"))) is not None and run.status == "cancelled"
           for _, _, view in seen(world, step).views):
        out.append("a cancelled task read")
    return tuple(dict.fromkeys(out))


@prop("cancelled-blocking-call-answered-error", "NTF-2", "step", "RFC §G.14, core §Cancellation",
      "a tools/call whose run is cancelled is answered CallToolResult {isError: true}, and that answer is enabled "
      "while the call is open; a request its client cancelled gets no message at all; a cancelled task reads "
      "cancelled", premise=_ntf2_premise, cases=NTF2_CASES)
def cancelled_blocking_call_answered_error(world, step):
    for q, msg in _answers_on_cancelled(world, step):
        res = msg.get("result") or {}
        if res.get("resultType", "complete") != "complete" or "content" not in res or res.get("isError") is not True:
            return (f"tools/call {q.id} of {q.subject}, whose run {world.label(q.run)} was cancelled, was answered "
                    f"{result_kind(msg)}, not CallToolResult isError=true")
    gone = _cancelled_ids(step)
    for key, msg in step.emitted:
        if key is None:
            continue
        if key in gone or step.pre_phase.get(key) == "cancelled":
            q = world.requests.get(key)
            what = msg.get("method") or result_kind(msg)
            return f"{q.method if q else ''} {key} was cancelled by its client, yet the host sent {what} for it"
    open_calls = _open_calls_on_cancelled(world)
    if open_calls:
        answerable = world.moves("answer")
        for q in open_calls:
            if {"request": q.id} not in answerable:
                return (f"tools/call {q.id} of {q.subject} is open while its run {world.label(q.run)} is cancelled, "
                        f"and the host has no answer for it")
    for q, where, view in seen(world, step).views:
        run = named_run(world, view.get("taskId"))
        if run is not None and run.status == "cancelled" and view.get("status") != "cancelled":
            return f"{where} to {q.id} shows cancelled {world.label(run.id)} as {view.get('status')!r}"
    return None


# =============================================================================================
# NTF-3
# =============================================================================================

def _notifications(world, step):
    out = []
    for key, msg in seen(world, step).notes:
        if msg["method"] == "notifications/tasks":
            q = world.requests.get(key)
            if q is not None:
                out.append((q, msg.get("params") or {}))
    return out


@prop("notification-equals-get", "NTF-3", "step", "ext-tasks §Task Status Notifications, map",
      "each notifications/tasks carries exactly the task the same caller's tasks/get would return at that moment",
      premise=lambda world, step: bool(_notifications(world, step)), reads=("emitted",))
def notification_equals_get(world, step):
    for q, task in _notifications(world, step):
        tid = task.get("taskId")
        run = named_run(world, tid)
        if run is None or not can_get_run(world, q.subject, run, q.server):
            continue                       # ISO-2 and ID-1 judge these
        expected = world.rules.get_task_result(world, run, probe_request(q, "tasks/get", tid))
        want = {k: v for k, v in expected.items() if k != "resultType"}
        got = {k: v for k, v in task.items() if k != "_meta"}
        if got != want:
            diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
            detail = ", ".join(f"{k}: {got.get(k)!r} vs {want.get(k)!r}" for k in diff[:3])
            return (f"notifications/tasks on {q.id} for {world.label(run.id)} differs from what tasks/get would "
                    f"return now ({detail})")
    return None


# =============================================================================================
# NTF-4
# =============================================================================================

INPUT_EVENTS = ("interrupt.requested", "interrupt.resolved")


def _shown(status: str, interrupts) -> tuple:
    """What a change of the task is judged on: its status (the map's row) and, while input_required,
    its open input requests."""
    task_status = STATUS_ROWS[status][0]
    return task_status, frozenset(interrupts) if task_status == "input_required" else frozenset()


def _withheld(world, q, run, shown) -> bool:
    """PRJ-4: the task asks for input in a mode q's caller did not declare: no view of it is sent."""
    have = declared_modes(asked_request(world, q, run))
    return any(("form" if world.interrupts[i].form else "url") not in have for i in shown[1])


def _owed(world, step) -> list:
    """(listen, run, before, after) for every change at this step of a task that a stream open before and
    after it acknowledged, its caller can getRun, and PRJ-4 does not withhold."""
    touched = {rid for rid, e in step.events if e.get("type") in INPUT_EVENTS} | set(seen(world, step).changed)
    if not touched:
        return []
    out = []
    for q in map(world.requests.__getitem__, world.listens):
        if q.phase != "streaming" or step.pre_phase.get(q.id) != "streaming":
            continue                       # acknowledged at this step (a snapshot, not a change), or ended
        for rid in touched.intersection(q.acked):
            run = world.runs[rid]
            if not can_get_run(world, q.subject, run, q.server):
                continue                   # ISO-2 judges what reaches a caller who cannot read it
            upto = next((e["seq"] for r, e in step.events if r == rid), len(run.log))   # its log before the step
            before = _shown(step.pre_status[rid], open_interrupts(world, run, upto))
            after = _shown(run.status, open_interrupts(world, run))
            if before != after and not _withheld(world, q, run, after):
                out.append((q, run, before, after))
    return out


def _said(world, shown) -> str:
    status, keys = shown
    return f"{status} {sorted(world.label(k) for k in keys)}" if keys else status


NTF4_CASES = ("status change", "input-requests change, status unchanged", "two changes between two notifications")


def _changes(world, step, run, before, after) -> int:
    """How often the task's view changed within the step, event by event of its log: its open input
    requests after each event, its status as it was until the step's last event and then as it is."""
    mine = [e["seq"] for r, e in step.events if r == run.id]
    views = [before, *(_shown(step.pre_status[run.id], open_interrupts(world, run, seq + 1)) for seq in mine[:-1]),
             after]
    return sum(a != b for a, b in zip(views, views[1:]))


def _ntf4_premise(world, step) -> tuple:
    out = []
    for _, run, before, after in _owed(world, step):
        out.append("status change" if before[0] != after[0] else "input-requests change, status unchanged")
        if _changes(world, step, run, before, after) > 1:
            out.append("two changes between two notifications")
    return tuple(dict.fromkeys(out))


@prop("listen-sent-every-change", "NTF-4", "step", "ext-tasks §Task Status Notifications",
      "a subscriptions/listen stream that acknowledged a task its caller can read is sent a notifications/tasks "
      "for it at every change of its status or input requests while the stream is open (the host publishes after "
      "every step), none withheld but input in a mode the caller did not declare (PRJ-4)",
      premise=_ntf4_premise, reads=("status", "events"), cases=NTF4_CASES)
def listen_sent_every_change(world, step):
    owed = _owed(world, step)
    if not owed:
        return None
    sent = {(q.id, task.get("taskId")) for q, task in _notifications(world, step)}
    for q, run, before, after in owed:
        if (q.id, world.rules.task_id(world, run)) not in sent:
            return (f"the task of {world.label(run.id)} went {_said(world, before)} -> {_said(world, after)}, but "
                    f"subscriptions/listen {q.id} of {q.subject}, which acknowledged it, was sent no "
                    f"notifications/tasks for it")
    return None


# =============================================================================================
# SEC-1
# =============================================================================================

def _strings(obj, out: list) -> None:
    if isinstance(obj, str):
        if len(obj) >= 4:
            out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _strings(v, out)


def _dumps(obj, out: list) -> None:
    if obj:
        out.append(json.dumps(obj))
        out.append(json.dumps(obj, separators=(",", ":")))
        out.append(str(obj))
        _strings(obj, out)


def _tool_texts(result, out: list) -> None:
    for c in (result or {}).get("content") or []:
        if isinstance(c, dict) and isinstance(c.get("text"), str) and len(c["text"]) >= 4:
            out.append(c["text"])


def _urls(reqs, out: list) -> None:
    for entry in (reqs or {}).values():
        url = ((entry or {}).get("params") or {}).get("url")
        if isinstance(url, str):
            out.append(url)


def run_internals(world, run, view) -> list[str]:
    """Strings that are the run's internals: tool output and input, answers' content, tokens, links."""
    out: list[str] = []
    _tool_texts(view.get("result"), out)
    _urls(view.get("inputRequests"), out)
    if run.status in ("completed", "failed", "cancelled"):
        _tool_texts(world.rules.tool_result(world, run), out)
    creator = world.requests.get(run.creating_request) if run.creating_request else None
    if creator is not None:
        _dumps((creator.message.get("params") or {}).get("arguments"), out)
    for q in requests_of_run(world, run.id):
        for answer in ((q.message.get("params") or {}).get("inputResponses") or {}).values():
            _dumps((answer or {}).get("content"), out)
        res = (q.response or {}).get("result") or {}
        if res.get("resultType", "complete") == "complete":
            _tool_texts(res, out)
        if res.get("resultType") == "input_required":
            _urls(res.get("inputRequests"), out)
            if res.get("requestState"):
                out.append(res["requestState"])
    for rs in world.request_states.values():
        if rs.run == run.id:
            out.append(rs.token)
    return out


def _messages(world, step):
    out = []
    for q, where, view in seen(world, step).views:
        if isinstance(view.get("statusMessage"), str):
            run = named_run(world, view.get("taskId"))
            if run is not None:
                out.append((q, where, view, run))
    return out


@prop("status-message-content-free", "SEC-1", "step", "RFC §Security, map statusMessage",
      "a task's statusMessage quotes none of the run's internals: tool output, tool arguments, inputResponses "
      "content, requestState tokens or credential (URL-mode) links",
      premise=lambda world, step: bool(_messages(world, step)), reads=("emitted",))
def status_message_content_free(world, step):
    for q, where, view, run in _messages(world, step):
        text = view["statusMessage"]
        for secret in run_internals(world, run, view):
            if secret in text:
                return (f"{where} to {q.id} for {world.label(run.id)} has statusMessage {text!r}, which quotes the "
                        f"run internal {secret!r}")
    return None


# =============================================================================================
# SEC-2
# =============================================================================================

def _answering_requests(world, step):
    out = []
    for q in handled(world, step):
        if q.method in ("tasks/update", "tools/call"):
            if (q.message.get("params") or {}).get("inputResponses"):
                out.append(q)
    return out


@prop("input-content-grants-nothing", "SEC-2", "step", "RFC §Security, ext-tasks §Security",
      "inputResponses content changes no Subject's authority and no approver set: after a tasks/update or MRTR "
      "retry every approver set is the one the log recorded, the sender's scopes are unchanged, and whatever it "
      "resolved it resolved as an eligible approver judged from scopes and recorded approvers",
      premise=lambda world, step: bool(_answering_requests(world, step)), reads=("created", "respond"))
def input_content_grants_nothing(world, step):
    scopes = world.facts.peek("SEC-2")          # the scopes at the first answer: written once, then read
    if scopes is None:
        scopes = world.facts.setdefault("SEC-2", {s.name: s.scopes for s in world.params.subjects})
    for q in _answering_requests(world, step):
        if world.params.subject(q.subject).scopes != scopes.get(q.subject):
            return f"{q.method} {q.id} of {q.subject} changed {q.subject}'s scopes"
        for iid, i in world.interrupts.items():
            run = world.runs[i.run]
            recorded = recorded_approvers(run, iid)
            now = None if i.approvers is None else tuple(i.approvers)
            if now != recorded:
                return (f"after {q.method} {q.id} of {q.subject}, {world.label(iid)}'s approvers are {now}, not the "
                        f"{recorded} its log recorded")
        for rid, e in step.events:
            if e.get("type") == "interrupt.resolved" and e.get("by") == q.subject:
                iid = e.get("interruptId")
                if not eligible(world, q.subject, world.runs[rid], iid):
                    return (f"{q.method} {q.id} of {q.subject} resolved {world.label(iid)} of {world.label(rid)} "
                            f"though {q.subject} is no eligible approver (its inputResponses content granted it)")
    return None


# =============================================================================================
# WIRE-1 .. WIRE-4
# =============================================================================================

def _call_or_task_answers(world, step):
    return [(q, msg) for q, msg in seen(world, step).responses if q.method == "tools/call" or q.method in TASKS_METHODS]


@prop("result-type-discipline", "WIRE-1", "step", "ext-tasks §Polymorphic Results",
      "resultType \"task\" appears only on a CreateTaskResult, \"input_required\" only answers tools/call, and the "
      "tasks/get, tasks/update and tasks/cancel results are \"complete\"; notifications/tasks carries no resultType",
      premise=lambda world, step: bool(_call_or_task_answers(world, step)), reads=("emitted",))
def result_type_discipline(world, step):
    s = seen(world, step)
    for q, msg in s.responses:
        res = msg.get("result")
        if res is None:
            continue
        rt = res.get("resultType", "complete")
        if rt == "task" and not ("taskId" in res and "status" in res):
            return f"{q.method} {q.id} was answered resultType \"task\" on a result that is no CreateTaskResult ({sorted(res)})"
        if rt == "input_required" and q.method != "tools/call":
            return f"{q.method} {q.id} was answered resultType \"input_required\""
        if q.method in TASKS_METHODS and rt != "complete":
            return f"{q.method} {q.id} was answered resultType {rt!r}, not \"complete\""
    for key, msg in s.notes:
        if msg["method"] == "notifications/tasks" and "resultType" in (msg.get("params") or {}):
            return f"notifications/tasks on {key} carries resultType {msg['params']['resultType']!r}"
    return None


CREATE_FIELDS = frozenset({"resultType", "taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs",
                           "pollIntervalMs", "_meta"})
CREATE_REQUIRED = ("taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs")
ACK_FIELDS = frozenset({"resultType", "_meta"})


def _wire2_items(world, step):
    s = seen(world, step)
    out = [(q, "CreateTaskResult", v) for q, where, v in s.views if where == "CreateTaskResult"]
    for q, msg in s.responses:
        res = msg.get("result")
        if res is None:
            continue
        if q.method in ("tasks/update", "tasks/cancel"):
            out.append((q, f"{q.method} acknowledgement", res))
        elif res.get("resultType") == "input_required":
            out.append((q, "InputRequiredResult", res))
    return out


def _bad_ms(value) -> bool:
    return value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0)


@prop("flat-create-empty-acks", "WIRE-2", "step", "ext-tasks §Task Creation, §Task Cancellation",
      "a CreateTaskResult is flat (task fields, resultType and _meta only; no result, error or inputRequests); the "
      "tasks/update and tasks/cancel acknowledgements are empty; every task's ttlMs is null or a non-negative "
      "integer; an InputRequiredResult carries inputRequests or requestState",
      premise=lambda world, step: bool(_wire2_items(world, step)), reads=("emitted",))
def flat_create_empty_acks(world, step):
    for q, what, res in _wire2_items(world, step):
        if what == "CreateTaskResult":
            extra = sorted(set(res) - CREATE_FIELDS)
            if extra:
                return f"CreateTaskResult to {q.id} is not flat: it carries {extra}"
            missing = [k for k in CREATE_REQUIRED if k not in res]
            if missing:
                return f"CreateTaskResult to {q.id} lacks {missing}"
            nested = sorted(k for k, v in res.items() if k != "_meta" and isinstance(v, (dict, list)))
            if nested:
                return f"CreateTaskResult to {q.id} nests objects under {nested}"
            if _bad_ms(res.get("pollIntervalMs")):
                return f"CreateTaskResult to {q.id} has pollIntervalMs {res.get('pollIntervalMs')!r}"
        elif what == "InputRequiredResult":
            if not res.get("inputRequests") and not res.get("requestState"):
                return f"InputRequiredResult to {q.id} carries neither inputRequests nor requestState"
        else:
            extra = sorted(set(res) - ACK_FIELDS)
            if extra:
                return f"the {what} to {q.id} is not empty: it carries {extra}"
    for q, where, view in seen(world, step).views:
        if _bad_ms(view.get("ttlMs")):
            return f"{where} to {q.id} has ttlMs {view.get('ttlMs')!r} (null or a non-negative integer)"
    return None


def _removed_answers(world, step):
    return [(q, msg) for q, msg in seen(world, step).responses if q.method in ("tasks/list", "tasks/result")]


def _wire3_premise(world, step) -> bool:
    return bool(_removed_answers(world, step)) or any(w == "CreateTaskResult" for _, w, _ in seen(world, step).views)


@prop("only-tools-call-tasked", "WIRE-3", "step", "ext-tasks §Supported Methods, SEP-2663",
      "only tools/call is ever answered with a CreateTaskResult, and tasks/list and tasks/result get -32601",
      premise=_wire3_premise, reads=("emitted",))
def only_tools_call_tasked(world, step):
    for q, msg in seen(world, step).responses:
        if q.method in TASKS_METHODS:
            continue                       # their resultType is WIRE-1's
        if (msg.get("result") or {}).get("resultType") == "task" and q.method != "tools/call":
            return f"{q.method} {q.id} was answered with a CreateTaskResult: only tools/call is tasked"
    for q, msg in _removed_answers(world, step):
        if error_code(msg) != wire.METHOD_NOT_FOUND:
            return f"{q.method} {q.id} (removed in 2026-07-28) was answered {result_kind(msg)}, not -32601"
    return None


def _mismatched(world, step):
    return [(q, msg) for q, msg in seen(world, step).responses
            if q.method in TASKS_METHODS and q.transport == "http" and not header_matches(q)]


@prop("mcp-name-must-match", "WIRE-4", "step", "ext-tasks §Routing Headers",
      "on streamable HTTP a tasks/* request whose Mcp-Name header differs from params.taskId is refused -32020 "
      "(-32021 where the capability check, which comes first, refuses it) and changes nothing",
      premise=lambda world, step: any(declared(q) and world.params.serves_tasks(q.server)
                                      for q, _ in _mismatched(world, step)), reads=("emitted",))
def mcp_name_must_match(world, step):
    for q, msg in _mismatched(world, step):
        code = error_code(msg)
        allowed = {wire.HEADER_MISMATCH}
        if not declared(q) or not advertised(world, q.server):
            allowed.add(wire.MISSING_CAPABILITY)
        if not advertised(world, q.server):
            allowed.add(wire.METHOD_NOT_FOUND)     # a plain mount knows no tasks/* method (NEG-4)
        if code not in allowed:
            return (f"{q.method} {q.id} of {q.subject} carries Mcp-Name {q.mcp_name!r} but taskId {task_ref(q)!r}, and "
                    f"was answered {result_kind(msg)}, not -32020")
        changed = step_changes(world, step)
        if changed:
            return f"{q.method} {q.id} with a mismatched Mcp-Name changed state: {changed}"
    return None


# =============================================================================================
# WIRE-5
# =============================================================================================

HTTP_STATUS = {wire.MISSING_CAPABILITY: 400, wire.HEADER_MISMATCH: 400, wire.METHOD_NOT_FOUND: 404}
NEVER_ISSUED = "acme~2FAAAAAAAAAAAAAAAAAAAAAAAAneverminted"


def _http_errors(world, step):
    return [(q, msg) for q, msg in seen(world, step).responses if q.transport == "http" and "error" in msg]


def _not_found_status(world, q) -> int:
    """The HTTP status the host sends a never-issued id's not-found with, for a request like q."""
    probe = probe_request(q, q.method, NEVER_ISSUED)
    return world.rules.http_status(world, probe, world.rules.not_found(world, probe, "unknown"))


UNREADABLE_NOT_FOUND = f"unreadable task's {wire.INVALID_PARAMS}"
WIRE5_CASES = (str(wire.MISSING_CAPABILITY), str(wire.HEADER_MISMATCH), str(wire.METHOD_NOT_FOUND),
               UNREADABLE_NOT_FOUND)


def _wire5_case(world, q, msg) -> str | None:
    """Which of the sentence's answers this is: a code with a fixed status, or a tasks/* -32602 naming a
    task that exists but the caller cannot read (another tenant's, purged, no runs:read); None: another
    (a never-issued id's -32602 is the one compared with)."""
    code = error_code(msg)
    if code in HTTP_STATUS:
        return str(code)
    if code == wire.INVALID_PARAMS and q.method in TASKS_METHODS:
        run = named_run(world, task_ref(q))
        if run is not None and not can_get_run(world, q.subject, run, q.server):
            return UNREADABLE_NOT_FOUND
    return None


def _wire5_premise(world, step) -> tuple:
    return tuple(dict.fromkeys(c for q, msg in _http_errors(world, step) if (c := _wire5_case(world, q, msg))))


@prop("http-status-agrees", "WIRE-5", "step", "core §Streamable HTTP, §Errors",
      "on streamable HTTP the HTTP status agrees with the JSON-RPC answer: -32021 and -32020 with 400, -32601 "
      "with 404, and an unreadable task's -32602 with exactly the status of a nonexistent one's",
      premise=_wire5_premise, reads=("emitted",), cases=WIRE5_CASES)
def http_status_agrees(world, step):
    for q, msg in _http_errors(world, step):
        code = error_code(msg)
        want = HTTP_STATUS.get(code)
        if want is None and code == wire.INVALID_PARAMS and q.method in TASKS_METHODS:
            want = _not_found_status(world, q)
        if want is not None and q.http_status != want:
            return (f"{q.method} {q.id} was answered error {code} with HTTP {q.http_status}, not {want}"
                    + (" (the status of a nonexistent task's -32602)" if code == wire.INVALID_PARAMS else ""))
    return None


# =============================================================================================
# scenario stories
# =============================================================================================
# Directed drivers an engine replays as its first examples (`verifier.engines.random.explore`). A task
# changing twice in one step needs a listen stream open on a run with two open input requests and a
# tasks/update answering both: random steps all but never send that update at that moment.
def _clarification(world):
    return dict(run=list(world.runs)[0], kind="clarification", form=True)


def _answer_both(world):
    run = world.runs[list(world.runs)[0]]
    first, second = run.interrupts[:2]
    return dict(client="C1", server=run.server, ref=world.rules.task_id(world, run), key=first, also=second,
                response="accept")


STORIES = {
    "listen-sees-both-inputs-answered": [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),   # alice: run1
        ("listen", dict(client="C1", server="S1", declare=True)),                 # acknowledges run1
        ("run_start", lambda w: dict(run=list(w.runs)[0])),
        ("run_interrupt", _clarification), ("run_interrupt", _clarification),    # a second node asks too
        ("tasks_update_two", _answer_both)],                                      # both answered: it resumes
    # A blocking call's run cancelled by its parent's cascade: a call's run has a parent only under
    # P-CALL-PARENT (`Params.call_parents`); where it is off the story stops before the call.
    "blocking-call-cancelled-by-parent-cascade": [
        ("rest_create", dict(subject="alice", server="S1")),                      # run1, no request owns it
        ("call_tool", lambda w: dict(client="C1", server="S1", transport="http", declare=False, tool="flow",
                                     parent=list(w.runs)[0])),                    # r1: run2, run1's child
        ("rest_cancel", lambda w: dict(subject="alice", run=list(w.runs)[0])),  # cascades to run2
        ("run_finish_cancel", lambda w: dict(run=list(w.runs)[1])),              # r1 open, run2 cancelled
        ("answer", dict(request="r1"))],
}
