"""The host (the OpenWOP MCP server mount): receipt of requests, answers, and the runs' own steps."""
from __future__ import annotations

from . import footprint as fp
from . import identity, wire
from .actions import action
from .lifecycle import RUN_STATUSES, TERMINAL
from .run_index import can_end_live_only, in_order, live_runs, maybe_due, undurable_runs
from .state import Interrupt, Run

LIVE = tuple(s for s in RUN_STATUSES if s not in TERMINAL)


# ---- receipt ---------------------------------------------------------------------------------------
def send(world, q, message: dict) -> None:
    """Send q's whole final response: the RFC's cut (§G.12-13)."""
    q.response = message
    if q.transport == "http":
        q.http_status = world.rules.http_status(world, q, message)
    world.set_phase(q, "send_response")
    world.emit(q.id, message)
    if q.owns is not None and world.rules.releases_ownership(world, q, "sent"):
        q.owns = None


def create_run(world, server: str, subject: str, started_by: str, parent: Run | None = None,
               creating_request: str | None = None) -> Run:
    tenant = world.params.subject(subject).tenant
    run = Run(id=world.rules.mint_run_id(world, tenant, started_by), server=server, tenant=tenant, owner=subject,
              started_by=started_by, parent=parent.id if parent else None, created_at=world.clock,
              updated_at=world.clock, creating_request=creating_request,
              label=f"run{len(world.runs) + 1}")
    world.runs[run.id] = run
    world.append(run, {"type": "run.created", "by": started_by, "request": creating_request,
                       "parent": run.parent})
    if parent is not None:
        parent.children.append(run.id)
    return run


def receive(world, q) -> None:
    """The host receives q. A tools/call is processed at once (its run, if any, is created and owned
    from receipt); every other request waits for `respond`, which processes and answers it, so the
    window between receipt and the whole response exists for it too (§G.12: tasks/* own nothing, a
    claim only a window can test)."""
    if q.method == "tools/call":
        return _receive_call(world, q)
    if world.params.atomic_answers:
        return _process(world, q)
    if q.task_ref is not None and world.rules.owns_on_receipt(world, q):
        run = world.rules.lookup_task(world, q, q.task_ref)
        if run is not None:
            q.owns = run.id


def awaits_respond(q) -> bool:
    """Was q received, and is it still waiting for the host's `respond` (any request but tools/call)?"""
    return q.method != "tools/call" and q.phase == "received"


def receive_and_answer(world, q) -> None:
    """Receive q and answer it in one go: what an observer's probe asks the host."""
    receive(world, q)
    if awaits_respond(q):
        _process(world, q)


def _process(world, q) -> None:
    """Process a request other than tools/call and send its whole answer (a listen: its ack)."""
    R = world.rules
    if q.method == "server/discover":
        return send(world, q, wire.result_response(q.id, R.discover_result(world, q.server)))
    if not R.method_supported(world, q.method):
        return send(world, q, wire.error_response(q.id, wire.METHOD_NOT_FOUND, "Method not found"))
    if q.method in ("tasks/list", "tasks/result"):     # still served: only where a variant says so
        return send(world, q, wire.result_response(q.id, R.removed_method_result(world, q)))
    if q.method == "subscriptions/listen":
        return _receive_listen(world, q)
    # tasks/get, tasks/update, tasks/cancel: unknown on a plain mount (NEG-4); else capability before
    # lookup (NEG-2), header before both.
    if not R.tasks_methods_served(world, q.server):
        return send(world, q, wire.error_response(q.id, wire.METHOD_NOT_FOUND, "Method not found"))
    if not R.tasks_capability_ok(world, q):
        return send(world, q, R.missing_capability(world, q))
    if not R.header_ok(world, q):
        return send(world, q, wire.error_response(q.id, wire.HEADER_MISMATCH, "Mcp-Name does not match taskId"))
    run = R.lookup_task(world, q, q.task_ref)
    if run is None:
        return send(world, q, R.not_found(world, q, "unknown"))
    q.run = run.id
    if q.method == "tasks/get":
        R.on_tasks_get(world, q, run)
        missing = R.missing_elicitation(world, run, q) if R.project_status(world, run)[0] == "input_required" else ()
        if missing:                        # PRJ-4: input the caller cannot receive is never sent to it
            return send(world, q, R.missing_elicitation_error(world, q, missing))
        return send(world, q, wire.result_response(q.id, R.get_task_result(world, run, q)))
    if q.method == "tasks/cancel":
        if not R.can_cancel(world, q.subject, run):
            if world.params.p_unauthorized == "error":
                return send(world, q, R.not_found(world, q, "unauthorized"))
            return send(world, q, wire.result_response(q.id, wire.empty_ack()))
        return send(world, q, R.tasks_cancel(world, q, run))
    if q.method == "tasks/update":
        return _receive_update(world, q, run)
    raise AssertionError(q.method)


def _receive_update(world, q, run) -> None:
    R = world.rules
    resolved, authorized = False, True
    for key, answer in q.message["params"]["inputResponses"].items():
        i = R.update_key(world, run, key)
        if i is None or i.kind == "external-event":
            continue                       # never issued, or not an input request: resolves nothing
        if not R.eligible_approver(world, q.subject, i):
            authorized = False
        if R.resolve(world, i, q.subject, answer["action"], "tasks/update", answer.get("content")):
            resolved = True
    if not authorized and world.params.p_unauthorized == "error" and not resolved:
        return send(world, q, R.not_found(world, q, "unauthorized"))
    send(world, q, R.update_response(world, q, resolved, authorized))


def _receive_listen(world, q) -> None:
    R = world.rules
    refs = q.message["params"]["notifications"].get("taskIds", [])
    if refs and not R.tasks_capability_ok(world, q):
        return send(world, q, R.missing_capability(world, q))
    q.acked = tuple(R.listen_ack(world, q, refs))
    world.set_phase(q, "stream_event")
    world.emit(q.id, wire.listen_ack_notification(q.id, [R.task_id(world, world.runs[r]) for r in q.acked]))


def _receive_call(world, q) -> None:
    R = world.rules
    params = q.message["params"]
    if q.retry_of is not None:
        return _receive_retry(world, q)
    if params["name"] == "task-only" and not R.tasks_capability_ok(world, q):
        return send(world, q, R.missing_capability(world, q))
    if params["name"] == "bad-args":
        return send(world, q, wire.error_response(q.id, wire.INVALID_PARAMS, "Invalid arguments"))
    parent = None
    ref = (params.get("arguments") or {}).get("parentRunId")      # P-CALL-PARENT (`Params.call_parents`)
    if ref is not None:
        parent = R.lookup_task(world, q, ref)
        if parent is None or parent.status in TERMINAL or parent.status == "cancelling":
            return send(world, q, wire.error_response(q.id, wire.INVALID_PARAMS, "Invalid arguments"))
    joined = R.join_existing_run(world, q)
    if joined is not None:
        q.run = joined.id
        return
    tasked = q.declares_tasks and R.serves_tasks(world, q.server)
    run = create_run(world, q.server, q.subject, "tasked-call" if tasked else "blocking-call", parent=parent,
                     creating_request=q.id)
    run.durable = R.durable_on_create(world, run)
    q.run = run.id
    if R.owns_on_receipt(world, q):
        q.owns = run.id


def _receive_retry(world, q) -> None:
    """An MRTR retry owns the run only when its requestState verifies and the interrupt is open."""
    R = world.rules
    params = q.message["params"]
    rs = world.request_states.get(params.get("requestState") or "")
    if not R.request_state_verifies(world, q, rs):
        return send(world, q, wire.error_response(q.id, wire.INVALID_PARAMS, "Invalid or used requestState"))
    rs.used = True
    q.retry_valid, q.run = True, rs.run
    run = world.runs[rs.run]
    if R.owns_on_receipt(world, q):
        q.owns = run.id
    i = world.interrupts[rs.interrupt]
    answer = (params.get("inputResponses") or {}).get(i.id)
    if answer is not None:
        R.resolve(world, i, q.subject, answer["action"], "mrtr", answer.get("content"))


# ---- answering -------------------------------------------------------------------------------------
def _answer_moves(world):
    out = []
    for q in world.open_requests():
        if q.method == "tools/call" and q.run is not None:
            if _answer(world, q, dry=True) is not None:
                out.append(dict(request=q.id))
    return out


def _answer(world, q, dry=False):
    return _peek(world, q) if dry else world.rules.answer_tools_call(world, q)


def _peek(world, q):
    """Would the host have an answer now? (without minting requestState tokens)"""
    serial, states = world.serial, dict(world.request_states)
    try:
        return world.rules.answer_tools_call(world, q)
    finally:
        world.serial, world.request_states = serial, states


def _say_answer(world, a):
    q = world.requests[a["request"]]
    res = (q.response or {}).get("result") or {}
    kind = {"task": "CreateTaskResult", "input_required": "InputRequiredResult"}.get(
        res.get("resultType"), f"CallToolResult isError={res.get('isError')}")
    if "error" in (q.response or {}):
        kind = f"error {q.response['error']['code']}"
    return f"host answers {q.id} with {kind}"


def _answer_footprint(world, a):
    q = world.requests[a["request"]]
    r = world.runs[q.run]
    return {fp.request(q.id), fp.run(r.id), fp.SERIAL} | {fp.interrupt(i) for i in r.interrupts}


ANSWER_RULES = ("answer_tools_call", "serves_tasks", "tool_result", "blocking_cancel_result", "create_task_result",
                "detailed_task", "project_status", "task_id", "ttl_ms", "purge_time", "status_message",
                "input_requests", "input_required", "missing_elicitation", "elicitation_modes",
                "missing_elicitation_error", "http_status", "releases_ownership")


# A requestState token is minted by a rule from the serial: declared as every requestState.
@action("host", _answer_moves, _say_answer, footprint=fp.footprint(
    _answer_footprint, lambda w, a: {fp.request(a["request"]), fp.SERIAL, fp.table("request_states"),
                                     fp.every("request_state")}, ANSWER_RULES, exact=False, enables=_answer_footprint))
def answer(world, request):
    """The host sends the whole final response to a tools/call or MRTR retry."""
    q = world.requests[request]
    result = _answer(world, q)
    send(world, q, result if "jsonrpc" in result else wire.result_response(q.id, result))


def _stream_moves(world):
    return [dict(request=q.id) for q in world.open_requests()
            if q.method == "tools/call" and q.transport == "http" and q.phase == "received" and q.run]


def _respond_moves(world):
    return [dict(request=q.id) for q in world.open_requests() if awaits_respond(q)]


def _say_respond(world, a):
    q = world.requests[a["request"]]
    if q.method == "subscriptions/listen":
        if q.phase == "streaming":
            return f"host acknowledges subscriptions/listen {q.id} for {len(q.acked)} task(s)"
        return f"host refuses subscriptions/listen {q.id}"
    m = q.response or {}
    what = f"error {m['error']['code']}" if "error" in m else "a result"
    return f"host processes {q.method} {q.id} and answers with {what}"


RESPOND_RULES = ("discover_result", "serves_tasks", "method_supported", "removed_method_result", "tasks_methods_served",
                 "tasks_capability_ok", "missing_capability", "header_ok", "lookup_task", "decode_task_ref", "can_read",
                 "not_found", "on_tasks_get", "project_status", "missing_elicitation", "missing_elicitation_error",
                 "elicitation_modes", "get_task_result", "detailed_task", "task_id", "ttl_ms", "purge_time",
                 "status_message", "input_requests", "tool_result", "can_cancel", "tasks_cancel", "cancel_run",
                 "lifecycle_fire", "update_key", "eligible_approver", "resolve", "do_resolve", "update_response",
                 "listen_ack", "http_status", "releases_ownership")


def respond_reach(world, a) -> set:
    """What processing a request reads: the request, and the runs its task references name
    (a listen's every reference): a run, what a cancel of it reaches (`fp.cancelling`) and their
    interrupts; an update's keys name interrupts. Decoded as the baseline's rules decode them: a
    world whose rules override one is held to nothing (`fp.Footprint`)."""
    q = world.requests[a["request"]]
    out = {fp.request(q.id)}
    if q.method == "subscriptions/listen":
        refs = q.message["params"]["notifications"].get("taskIds", [])
    elif q.method in ("tasks/get", "tasks/update", "tasks/cancel"):
        refs = [q.task_ref]
    else:
        return out | ({fp.table("runs")} | {fp.run(r) for r in world.runs} if q.method == "tasks/list" else set())
    out.add(fp.CLOCK)             # read: a cancel or a resolution logs its time
    for ref in refs:
        raw = identity.unproject(ref)
        if raw is None:
            continue
        out.add(fp.run(raw))
        for r in fp.descendants(world, raw):
            out |= {fp.run(r), fp.log(r)} | {fp.interrupt(i) for i in world.runs[r].interrupts}
    if q.method == "tasks/update":
        for key in q.message["params"]["inputResponses"]:
            raw = identity.unproject(key)
            out |= {fp.interrupt(key)} | ({fp.interrupt(raw)} if raw else set())
    return out


def _respond_writes(world, a) -> set:
    """What processing a request may write: what it reads but the clock and a run or interrupt its
    references name that does not exist (a lookup that misses writes nothing)."""
    return {k for k in respond_reach(world, a) if k != fp.CLOCK and not fp.missing(world, k)}


@action("host", _respond_moves, _say_respond, footprint=fp.footprint(
    respond_reach, _respond_writes, RESPOND_RULES, enables=fp.REQUEST))
def respond(world, request):
    """The host processes a received tasks/*, listen, discover or removed-method request and sends its
    whole answer (a listen: its acknowledgement, the stream then open)."""
    _process(world, world.requests[request])


@action("host", _stream_moves, lambda w, a: f"host sends an SSE progress event on {a['request']}",
        footprint=fp.footprint(fp.REQUEST, fp.REQUEST, ["releases_ownership"], enables=fp.REQUEST))
def stream_event(world, request):
    """An SSE event before the final response: not the whole response, so ownership stays."""
    q = world.requests[request]
    world.set_phase(q, "stream_event")
    world.emit(q.id, {"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": q.id, "progress": 1}})
    if q.owns is not None and world.rules.releases_ownership(world, q, "stream_event"):
        q.owns = None


# ---- the runs' own steps -------------------------------------------------------------------------
def _runs_in(world, *statuses):
    return live_runs(world, statuses)


def _run_moves(*statuses):
    return lambda world: [dict(run=r.id) for r in _runs_in(world, *statuses)]


def _named(world, ids) -> list:
    """The runs `ids` names (others are left out), in the table's order."""
    return in_order(world, [k for k in ids if k in world.runs])


def _run_moves_on(*statuses):
    """`_run_moves(*statuses)` on the runs `ids` alone (`Action.moves_on`): a long session's runs left
    cancelling, as a log without run events leaves them, are many."""
    return lambda world, ids: [dict(run=r.id) for r in _named(world, ids) if not r.purged and r.status in statuses]


def _say_run(text):
    return lambda w, a: f"{w.label(a['run'])} {text}"


# A run's step stays enabled while its status and purge flag hold (the run's record); an effect also
# while the effect budget lasts.
RUN_STEP = fp.footprint(fp.RUN_STEP, fp.RUN_WRITE, ["lifecycle_fire"], enables=fp.RUN)
EFFECT = fp.footprint(lambda w, a: fp.RUN_STEP(w, a) | {fp.EFFECTS}, lambda w, a: fp.RUN_WRITE(w, a) | {fp.EFFECTS},
                      enables=lambda w, a: {fp.run(a["run"]), fp.log(a["run"]), fp.EFFECTS})


@action("host", _run_moves("pending"), _say_run("starts"), footprint=RUN_STEP, moves_on=_run_moves_on("pending"))
def run_start(world, run):
    r = world.runs[run]
    world.set_status(r, "start")
    world.append(r, {"type": "run.started"})


def _effect_moves(world):
    if world.effects >= world.params.max_effects:
        return []
    return [dict(run=r.id) for r in _runs_in(world, "running")]


@action("host", _effect_moves, _say_run("performs an external effect"), footprint=EFFECT)
def run_effect(world, run):
    """A node of the run acts on the outside world (observable as effect.performed)."""
    world.effects += 1
    world.append(world.runs[run], {"type": "effect.performed", "kind": "work"})


def _compensate_moves(world):
    if world.effects >= world.params.max_effects:
        return []
    return [dict(run=r.id) for r in _runs_in(world, "cancelling")
            if world.rules.effects_while_cancelling(world, r)
            and not any(e["type"] == "effect.performed" and e["kind"] == "compensation" for e in r.log)]


@action("host", _compensate_moves, _say_run("runs its compensation while cancelling"), footprint=EFFECT)
def run_compensate(world, run):
    """cancelRun semantics: compensation acts after the cancel was accepted."""
    world.effects += 1
    world.append(world.runs[run], {"type": "effect.performed", "kind": "compensation"})


INTERRUPT_KINDS = {"approval": "request_approval", "clarification": "request_input",
                   "external-event": "await_external"}


# The status a run waits in for each kind: a waiting run's other node (parallel nodes) may suspend on
# another interrupt of the kind it already waits on, and it resumes once every one is resolved.
WAITS_ON = {"waiting-approval": "approval", "waiting-input": "clarification", "waiting-external": "external-event"}


def _forms(kind):
    return (True, False) if kind != "external-event" else (True,)


def _interrupt_moves(world, ids=None):
    cap = world.params.max_interrupts
    if len(world.interrupts) >= (world.params.max_runs if cap is None else cap):
        return []
    if ids is None:
        running, waiting = _runs_in(world, "running"), _runs_in(world, *WAITS_ON)
    else:                   # on the runs `ids` alone (`Action.moves_on`)
        named = [r for r in _named(world, ids) if not r.purged]
        running, waiting = [r for r in named if r.status == "running"], [r for r in named if r.status in WAITS_ON]
    return ([dict(run=r.id, kind=k, form=f) for r in running for k in INTERRUPT_KINDS for f in _forms(k)]
            + [dict(run=r.id, kind=WAITS_ON[r.status], form=f) for r in waiting for f in _forms(WAITS_ON[r.status])])


# The new interrupt's id is the one the baseline's rule mints (`fp.new_interrupt`).
SUSPEND = fp.footprint(fp.RUN_STEP, lambda w, a: fp.RUN_WRITE(w, a) | fp.new_interrupt(w, w.runs[a["run"]].tenant),
                       ["lifecycle_fire", "mint_interrupt_id"],
                       enables=lambda w, a: {fp.run(a["run"]), fp.table("interrupts")})


@action("host", _interrupt_moves, lambda w, a: (
    f"{'another node of ' if len(w.runs[a['run']].open_interrupts(w)) > 1 else ''}{w.label(a['run'])} suspends on "
    f"{w.label(w.runs[a['run']].interrupts[-1])}, an {a['kind']} interrupt{'' if a['form'] else ' (credential)'}"),
    footprint=SUSPEND, moves_on=_interrupt_moves)
def run_interrupt(world, run, kind, form):
    """The run suspends on an interrupt: approval (bob approves), clarification, or an external event;
    a run already waiting on that kind opens another one (a parallel node), its status unchanged."""
    r = world.runs[run]
    waiting = r.status in WAITS_ON
    approvers = ("bob",) if kind == "approval" else None
    i = Interrupt(id=world.rules.mint_interrupt_id(world, r.tenant), run=r.id, kind=kind, approvers=approvers, form=form,
                  label=f"i{len(world.interrupts) + 1}")
    world.interrupts[i.id] = i
    r.interrupts.append(i.id)
    if not waiting:
        world.set_status(r, INTERRUPT_KINDS[kind])
    world.append(r, {"type": "interrupt.requested", "interruptId": i.id, "kind": kind, "approvers": approvers})


def _terminal_moves(world, ids=None):
    if ids is not None:     # on the runs `ids` alone (`Action.moves_on`)
        runs = [r for r in _named(world, ids) if not r.purged]
    else:
        runs = live_runs(world, LIVE) if can_end_live_only(world, "complete") else live_runs(world)
    return [dict(run=r.id) for r in runs if world.rules.lifecycle_can("run", r.status, "complete")]


@action("host", _terminal_moves, _say_run("completes"), footprint=RUN_STEP, moves_on=_terminal_moves)
def run_complete(world, run):
    r = world.runs[run]
    world.set_status(r, "complete")
    world.append(r, {"type": "run.completed"})


@action("host", _run_moves("running"), _say_run("fails"), footprint=RUN_STEP, moves_on=_run_moves_on("running"))
def run_fail(world, run):
    r = world.runs[run]
    world.set_status(r, "fail")
    world.append(r, {"type": "run.failed"})


def child_runs(world) -> int:
    """The child runs the host started, over all runs (what `Params.max_children` bounds; not a call's run
    that names a parent, P-CALL-PARENT)."""
    return sum(r.started_by == "child" for r in world.runs.values())


def _spawn_moves(world):
    cap = world.params.max_children
    if len(world.runs) >= world.params.max_runs or cap is not None and child_runs(world) >= cap:
        return []
    return [dict(run=r.id) for r in _runs_in(world, "running")]


# The child's id is the one the baseline's rule mints (`fp.new_run`: either length, so not exact).
@action("host", _spawn_moves, _say_run("starts a child run"), footprint=fp.footprint(
    fp.RUN_STEP, lambda w, a: fp.RUN_WRITE(w, a) | fp.new_run(w, w.runs[a["run"]].tenant), ["mint_run_id"], exact=False,
    enables=lambda w, a: {fp.run(a["run"]), fp.table("runs")}))
def run_spawn(world, run):
    parent = world.runs[run]
    child = create_run(world, parent.server, parent.owner, "child", parent=parent)
    world.append(parent, {"type": "run.child_started", "child": child.id})


@action("host", _run_moves("cancelling"), _say_run("finishes cancelling"), footprint=RUN_STEP, moves_on=_run_moves_on("cancelling"))
def run_finish_cancel(world, run):
    r = world.runs[run]
    world.set_status(r, "finish_cancel")
    world.append(r, {"type": "run.cancelled", "reason": r.cancel_reason})


def _external_moves(world):
    return [dict(interrupt=i.id) for i in world.interrupts.values()
            if i.open and i.kind == "external-event" and not world.runs[i.run].purged]


@action("host", _external_moves, lambda w, a: f"the external event of {w.label(a['interrupt'])} arrives",
        footprint=fp.footprint(fp.resolving, fp.resolved, fp.RESOLVE_RULES, enables=fp.resolving))
def external_event(world, interrupt):
    i = world.interrupts[interrupt]
    world.rules.resolve(world, i, "external", "external", "external")


# ---- the clock, TTL and retention ----------------------------------------------------------------
def _tick_moves(world):
    return [{}] if world.clock < world.params.max_time else []


TICK_RULES = frozenset({fp.rule("on_ttl_elapsed")})


@action("clock", _tick_moves, lambda w, a: f"time passes (now t={w.clock})", footprint=fp.footprint(
    lambda w, a: {fp.CLOCK, fp.table("runs")} | {fp.run(r) for r in w.runs}, [fp.CLOCK],
    ["ttl_ms", "purge_time", "on_ttl_elapsed"], enables=[fp.CLOCK]))
def clock_tick(world):
    world.clock += 1
    if not fp.overridden(world) & TICK_RULES:       # the baseline's on_ttl_elapsed does nothing (§F.11)
        return
    for r in list(world.runs.values()):
        ttl = world.rules.ttl_ms(world, r)
        if ttl is not None and not r.purged and r.created_at * world.params.tick_ms + ttl <= world.clock * world.params.tick_ms:
            world.rules.on_ttl_elapsed(world, r)


def _purgeable(world, r) -> bool:
    t = world.rules.purge_time(world, r)
    return not r.purged and t is not None and t <= world.clock


def _purge_moves(world):
    return [dict(run=r.id) for r in maybe_due(world) if _purgeable(world, r)]


def _purge_moves_on(world, ids):
    return [dict(run=r.id) for r in _named(world, ids) if _purgeable(world, r)]


# A long session's runs ended long ago are purgeable until purged: many moves, each on its own run.
@action("host", _purge_moves, _say_run("is purged (retention elapsed)"), footprint=fp.footprint(
    fp.RUN, fp.RUN, enables=lambda w, a: {fp.run(a["run"]), fp.CLOCK}), moves_on=_purge_moves_on)
def purge(world, run):
    world.runs[run].purged = True


def _persist_moves(world):
    return [dict(run=r.id) for r in undurable_runs(world)]


@action("host", _persist_moves, _say_run("becomes durably readable"), footprint=fp.footprint(
    fp.RUN, fp.RUN, enables=fp.RUN))
def persist(world, run):
    world.runs[run].durable = True


# ---- answering at once, for hand-written stories -----------------------------------------------------
# Connection events a story may put between a request's receipt and its answer.
WINDOW_ACTIONS = frozenset({"respond", "disconnect", "stdio_cancel", "stdio_close", "harness_crash"})


def answer_pending(world, step, next_action: str | None = None, check: bool = True) -> list:
    """The host's `respond` to every request `step` created that waits for one, unless the story's next
    step is a connection event (it then hits the open window): stories and tests name the protocol's
    client steps, and their answers follow at once. The steps taken, in order."""
    if next_action in WINDOW_ACTIONS:
        return []
    out = []
    for qid in step.created:
        q = world.requests.get(qid)
        if q is not None and awaits_respond(q):
            out.append(world.apply("respond", {"request": qid}, check=check))
    return out
