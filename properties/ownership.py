"""Ownership and disconnect (RFC 0198 §G.12-13): which request owns a run, and what its cancellation does.

The RFC ties a run to the request that still owes its caller a response:

- OWN-1 (safety). Only a `tools/call` that created a run, and an MRTR retry whose `requestState`
  verified, own a run, and only from receipt until the host has sent the whole final response
  (an earlier SSE event does not end it). `tasks/*`, `subscriptions/listen`, REST calls and invalid
  retries own nothing; at most one request owns a run at a time. The property derives who should
  own from the protocol facts (the request named by the run's `run.created` event, or a verified
  retry, while its phase is received or streaming) and compares that with the host's observable
  ownership field.
- OWN-2 (trace). When the owning request is cancelled (an HTTP disconnect, a stdio
  `notifications/cancelled`, stdio EOF) while its run is not terminal, the same step accepts a
  cancel of that run as `cancelRun` would: a `run.cancelling` with reason `mcp-request-cancelled`
  (unless a cancel was already in progress) and the same cascade to its children; afterwards the run
  starts no node or work effect and neither completes nor fails, and its `run.cancelled` keeps that
  reason. The host's reaction is atomic with the cancellation in this model, so a host that defers
  it (a grace window) or skips it is caught at the very step.
- OWN-3 (trace). Once the whole response to a request was sent, disconnecting or cancelling that
  request changes no run; and every accepted cancel has an allowed cause: `tasks/cancel` naming the
  run, REST `cancelRun` on it, its parent's cascade, or the cancellation of a request that owned it
  at that moment.
- OWN-4 (safety). A request's cancellation, by whatever signal (an HTTP disconnect, a stdio
  `notifications/cancelled`, stdio EOF, the host ending a listen stream) and in whatever phase (an
  answered request owns nothing), cancels only the run it owned and that run's cascade, never a run
  owned by another request, caller or tenant outside it.
- OWN-G3 (known gap). Nothing promises that no effect happens after the owner's cancellation was
  accepted: compensation (and an attempt in flight) may still act. The check reports the first
  `effect.performed` after such an acceptance; a cancel that stops at once closes the gap.
"""
from __future__ import annotations

from model import identity
from model.before import KEPT, READERS, Before, in_table_order, kept, small
from model.wire import INVALID_PARAMS
from model.facts import Leaves

from .base import annotate, handled, learnt_at, prop, status_changes

OPEN = ("received", "streaming")
ANSWERED = ("sent", "delivered", "lost")
# The actions that cancel a request on its connection (`connection_cancellations`): the only steps
# at which OWN-2..4 and OWN-G3 meet a cancellation, so the only ones they read besides a run's log.
CONNECTION_EVENTS = ("disconnect", "stdio_cancel", "stdio_close", "harness_crash")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
REQUEST_CANCELLED = "mcp-request-cancelled"          # run.cancelled.reason registered by RFC §G.12
AFTER_CANCEL_FORBIDDEN = ("run.started", "run.child_started", "interrupt.requested", "run.completed",
                          "run.failed")


# ---- the derived ownership relation -------------------------------------------------------------
def created_runs(world) -> dict[str, str]:
    """requestId -> runId for every run a tools/call created (the request its run.created names).
    Read by five properties at every step: kept for the step being checked (a cache, never state)."""
    step = world.history[-1] if world.history else None
    if step is None:
        return _created_runs(world)
    out = step.derived.get("own.created")
    if out is None:
        out = step.derived["own.created"] = _created_runs(world)
    return out


def _created_runs(world) -> dict[str, str]:
    # Kept from step to step (`model.before.kept`), so that a long session's world is not read whole
    # at every step.
    return kept(world, "own.created", _created_whole)


def _created_whole(world) -> dict[str, str]:
    out = {}
    for r in world.runs.values():
        req = _creating_request(r)
        if req is not None:
            out[req] = r.id
    return out


def _creating_request(r) -> str | None:
    # From the run log alone, as an auditor reads it: a run whose log does not open with the
    # run.created naming its request was created by no request, whatever the host's own record says.
    first = r.log[0] if r.log else None
    req = first.get("request") if first is not None and first.get("type") == "run.created" else None
    return req if r.fork_of is None else None


def _created_after(world, was: dict, step) -> dict | None:
    """`_created_runs` after `step`, from the relation before it and the runs the step wrote or made (a
    run's log is only ever appended to, so an entry, once there, stays); None where a request is
    claimed by two runs (read whole, so that the later run in the table wins as it does there)."""
    pre, out = step.pre_status, None
    for rid in (*pre.changed(), *pre.made()):
        req = _creating_request(world.runs[rid])
        if req is None or was.get(req) == rid:
            continue
        if req in (was if out is None else out):
            return None
        out = dict(was) if out is None else out
        out[req] = rid
    return was if out is None else out


KEPT["own.created"] = _created_after
READERS.append(_created_runs)


def started_run(world, q, created: dict[str, str] | None = None) -> str | None:
    """The run q started (a tools/call) or continues (a verified MRTR retry), else None."""
    if q.method != "tools/call":
        return None
    if created is None:
        created = created_runs(world)
    if q.retry_of is not None:
        return retry_run(world, q, created) if retry_verifies(world, q, created) else None
    return created.get(q.id)


def _token(q) -> str | None:
    return (q.message.get("params") or {}).get("requestState")


def refused_retry(q) -> bool:
    """The host refused the retry's requestState: its whole answer is -32602 (sent at receipt)."""
    return (q.response or {}).get("error", {}).get("code") == INVALID_PARAMS


def retry_run(world, q, created) -> str | None:
    """The run an MRTR retry continues: the run of the request whose InputRequiredResult it answers."""
    prev = world.requests.get(q.retry_of)
    if prev is None:
        return None
    return retry_run(world, prev, created) if prev.retry_of is not None else created.get(prev.id)


def retry_verifies(world, q, created) -> bool:
    """Does q's requestState verify, as an observer of the wire judges it? It was issued, in the
    InputRequiredResult q answers, to q's own principal; no earlier retry carrying it was accepted
    (a state is spent once); and the host did not refuse it. That last clause takes the host's
    word that the interrupt was no longer open; `retry_refused_wrongly` checks that word at the very
    step the retry arrives, from the interrupt's state before it (the one thing the wire does not
    show: which interrupt a state is bound to is read from the host's record of what it issued)."""
    token, prev = _token(q), world.requests.get(q.retry_of)
    if not token or prev is None or prev.subject != q.subject or refused_retry(q):
        return False
    if ((prev.response or {}).get("result") or {}).get("requestState") != token:
        return False
    for other in world.requests.values():
        if other is q:
            return True
        if other.retry_of is not None and _token(other) == token and other.subject == q.subject \
                and not refused_retry(other):
            return False                  # spent by an earlier accepted retry
    return True


def _at_stake(world):
    """The requests OWN-1 judges, in the order sent: those open or owning a run (any other one owns
    nothing and should own nothing). Read from the kept ids (`World.open_ids`, `owning_ids`) in a
    long session's world."""
    reqs = world.requests
    if small(world):
        return reqs.values()
    return [reqs[k] for k in in_table_order(reqs, set(world.open_ids()) | world.owning_ids())]


def _open_before(world, step) -> list:
    """The requests open just before `step`, in the order sent: those open now it did not make, and
    those it wrote that were open (read from the kept ids in a long session's world)."""
    pre = step.pre_phase
    if not isinstance(pre, Before):
        return [world.requests[k] for k, phase in pre.items() if phase in OPEN]
    ids = set(world.open_ids()).difference(pre.made()) | {k for k in pre.changed() if pre.saved[k] in OPEN}
    return [world.requests[k] for k in in_table_order(world.requests, ids)]


def retry_refused_wrongly(world, step) -> str | None:
    """A retry arriving at this step whose state verifies (issued to it, unspent, its interrupt open
    just before) was refused: a valid MRTR retry must be accepted and continue its run."""
    for qid in step.created:
        q = world.requests.get(qid)
        if q is None or q.retry_of is None or not refused_retry(q):
            continue
        token, prev = _token(q), world.requests.get(q.retry_of)
        rs = world.request_states.get(token or "")
        if rs is None or prev is None or prev.subject != q.subject:
            continue
        if ((prev.response or {}).get("result") or {}).get("requestState") != token:
            continue
        if any(o is not q and o.retry_of is not None and _token(o) == token and not refused_retry(o)
               for o in world.requests.values()):
            continue
        i = world.interrupts.get(rs.interrupt)
        resolved_here = any(e.get("type") == "interrupt.resolved" and e.get("interruptId") == rs.interrupt
                            for _, e in step.events)
        if i is not None and (i.open or resolved_here):
            return (f"MRTR retry {qid} of {q.subject} echoed the unspent requestState issued to it by {prev.id} "
                    f"while {world.label(rs.interrupt)} was open, yet was refused ({q.response['error']['code']})")
    return None


def descendants(world, run_id: str) -> list[str]:
    """The runs a cancelRun of run_id cascades to (children, recursively)."""
    out, todo = [], list(world.runs[run_id].children)
    while todo:
        rid = todo.pop()
        if rid not in out:
            out.append(rid)
            todo.extend(world.runs[rid].children)
    return out


def connection_signals(world, step) -> list[tuple[str, str]]:
    """(requestId, cause) for each request this step's connection event signals, whatever its phase
    or method: an HTTP disconnect (also a harness process dying), a stdio notifications/cancelled,
    stdio EOF. Derived from the client's or network's action alone, never from the host's record of
    what it cancelled: a host that ignores a cancellation is then seen ignoring it."""
    if step.action not in CONNECTION_EVENTS:
        return []
    a, args = step.action, step.args
    if a in ("disconnect", "stdio_cancel"):
        qids, cause = [args.get("request")], ("http-disconnect" if a == "disconnect" else "stdio-cancelled")
    elif a == "stdio_close":
        qids, cause = [q.id for q in world.requests.values() if q.client == args.get("client")
                       and q.server == args.get("server") and q.transport == "stdio"], "stdio-eof"
    elif a == "harness_crash" and world.harness is not None:
        qids = [qid for qid, sent in world.harness.sent.items() if sent[0] == args.get("client")]
        cause = "http-disconnect"
    else:
        return []
    return [(qid, cause) for qid in qids if qid in world.requests]


def connection_cancellations(world, step) -> list[tuple[str, str]]:
    """The signals (`connection_signals`) that cancel a request still owing its response: stdio EOF
    only where P-STDIO-EOF says it cancels, and never a listen stream."""
    if step.action == "stdio_close" and world.params.p_stdio_eof != "cancel-open":
        return []
    return [(qid, cause) for qid, cause in connection_signals(world, step) if step.pre_phase.get(qid) in OPEN
            and world.requests[qid].method != "subscriptions/listen"]


def owner_cancellations(world, step) -> list[tuple[str, str, str]]:
    """(requestId, cause, runId) for each request cancelled at this step while it owned a run."""
    cancelled = connection_cancellations(world, step)
    if not cancelled:
        return []
    created = created_runs(world)
    out = []
    for qid, cause in cancelled:
        q = world.requests.get(qid)
        if q is None:
            continue
        rid = started_run(world, q, created)
        if rid is not None:
            out.append((qid, cause, rid))
    return out


def _events(step, run_id: str, kind: str) -> list[dict]:
    return [e for rid, e in step.events if rid == run_id and e.get("type") == kind and not e.get("replayed")]


def _accepted_here(world, step, run_id: str) -> bool:
    return bool(_events(step, run_id, "run.cancelling")) or (
        step.pre_status.get(run_id) == "cancelling")


def _owner_accepts(world, step):
    """(requestId, cause, runId) for owner cancellations of a run that was not terminal before."""
    return [(qid, cause, rid) for qid, cause, rid in owner_cancellations(world, step)
            if step.pre_status.get(rid) not in TERMINAL and rid in step.pre_status]


# ---- OWN-1 --------------------------------------------------------------------------------------
def _own1_premise(world, step):
    """Ownership is at stake at this step: a request that should own a run now, or whose response
    just ended its ownership, was made, moved or changed its ownership field at this step. (The
    invariant reads only requests' phases and ownership and what a new request or run brings: a
    step changing none of them cannot break it, and does not count as testing it.)"""
    created = created_runs(world)
    pre_phase, pre_owner = step.pre_phase, step.pre_owner
    for q in world.requests.values():
        was = pre_phase.get(q.id)
        if q.phase not in OPEN and was not in OPEN:
            continue
        if was is not None and was == q.phase and pre_owner.get(q.id) == q.owns:
            continue
        if started_run(world, q, created) is not None:
            return True
    return False


@prop("ownership-as-stated", "OWN-1", "invariant", "RFC §G.12",
      "A run is owned exactly by the tools/call that created it or the verified MRTR retry that continues "
      "it, from receipt until the whole final response is sent; nothing else owns it, and a run has at "
      "most one owner.", premise=_own1_premise, reads=("phase", "owns", "created"))
def own1_ownership_follows_protocol(world, step):
    wrong = retry_refused_wrongly(world, step)
    if wrong:
        return wrong
    created = created_runs(world)
    should: dict[str, list[str]] = {}
    for q in _at_stake(world):
        expected = started_run(world, q, created) if q.phase in OPEN else None
        if expected != q.owns:
            if expected is None:
                why = ("its whole response was already sent" if q.phase in ANSWERED
                       else "it was cancelled" if q.phase == "cancelled"
                       else f"a {q.method} never owns a run" if q.method != "tools/call"
                       else "it is an MRTR retry whose requestState did not verify" if q.retry_of
                       else "it created no run")
                return (f"request {q.id} ({q.method}, phase {q.phase}) owns {world.label(q.owns)}, but {why}")
            return (f"request {q.id} ({q.method}, phase {q.phase}) should own {world.label(expected)} "
                    f"(it {'continues' if q.retry_of else 'created'} it and has not sent its whole response), "
                    f"but its ownership field is {world.label(q.owns) if q.owns else 'empty'}")
        if expected is not None:
            should.setdefault(expected, []).append(q.id)
    for rid, owners in should.items():
        if len(owners) > 1:
            return f"{world.label(rid)} has {len(owners)} owners at once: {', '.join(owners)}"
    return None


# ---- OWN-2 --------------------------------------------------------------------------------------
SIGNALS = {"http-disconnect": "HTTP disconnect", "stdio-cancelled": "stdio notifications/cancelled",
           "stdio-eof": "stdio EOF"}
OWN2_CASES = (*SIGNALS.values(), "a cancel already in progress", "a run with children")


def _live_descendants(world, step, rid) -> list[str]:
    """The descendants of rid the cascade must still reach: neither terminal nor cancelling before the step."""
    return [c for c in descendants(world, rid)
            if step.pre_status.get(c) is not None and step.pre_status[c] not in (*TERMINAL, "cancelling")]


def _own2_premise(world, step) -> tuple:
    """Per owner cancelled at this step with its run not terminal: the signal, and whether a cancel was
    already in progress or children must be reached by the cascade."""
    out = []
    for _, cause, rid in _owner_accepts(world, step):
        out.append(SIGNALS[cause])
        if step.pre_status[rid] == "cancelling":
            out.append("a cancel already in progress")
        if _live_descendants(world, step, rid):
            out.append("a run with children")
    return tuple(dict.fromkeys(out))


@prop("owner-cancel-cancels-run", "OWN-2", "trace", "RFC §G.12",
      "When the request that owns a non-terminal run is cancelled, the host accepts a cancel of that run as "
      "cancelRun would (reason mcp-request-cancelled unless a cancel was in progress, same cascade), and the "
      "run then starts no node or work effect and neither completes nor fails.", premise=_own2_premise,
      reads=("events", *CONNECTION_EVENTS), cases=OWN2_CASES)
def own2_owner_cancel_cancels_run(world, step):
    facts = world.facts.peek("OWN-2", {})              # runId -> (requestId, expected reason)
    fresh = set()                                      # runs whose owner's cancel is accepted at this step
    for qid, cause, rid in _owner_accepts(world, step):
        run, pre = world.runs[rid], step.pre_status[rid]
        cancelling = _events(step, rid, "run.cancelling")
        if pre != "cancelling":
            if not cancelling:
                return (f"request {qid} owned {world.label(rid)} (status {pre}) and was cancelled ({cause}), but the "
                        f"host accepted no cancel of {world.label(rid)} (status now {run.status}, events this step: "
                        f"{[e['type'] for r, e in step.events if r == rid] or 'none'})")
            if cancelling[0].get("reason") != REQUEST_CANCELLED:
                return (f"request {qid} owned {world.label(rid)} and was cancelled ({cause}); the cancel was accepted "
                        f"with reason {cancelling[0].get('reason')!r}, not {REQUEST_CANCELLED!r}")
        if run.status not in ("cancelling", "cancelled"):
            return (f"request {qid} owned {world.label(rid)} and was cancelled ({cause}), yet {world.label(rid)} "
                    f"reads {run.status} after the step")
        for child in _live_descendants(world, step, rid):
            if world.runs[child].status not in ("cancelling", "cancelled"):
                return (f"request {qid}'s cancellation cancelled {world.label(rid)} but not its descendant "
                        f"{world.label(child)} (status {world.runs[child].status}): the cascade of cancelRun is "
                        f"missing")
        for run_id, reason in ((rid, None if pre == "cancelling" else REQUEST_CANCELLED),
                               *((c, None) for c in descendants(world, rid) if step.pre_status.get(c) not in TERMINAL)):
            if run_id not in facts:
                facts = world.facts.setdefault("OWN-2", Leaves())
                facts[run_id] = (qid, reason)
                fresh.add(run_id)
                annotate(world, "OWN-2", run_id, step.index)
    for rid, e in step.events:
        seen = facts.get(rid)
        if seen is None or rid in fresh or e.get("replayed"):
            continue
        qid, reason = seen
        at = learnt_at(world, "OWN-2", rid)
        kind = e.get("type")
        if kind in AFTER_CANCEL_FORBIDDEN or (kind == "effect.performed" and e.get("kind") == "work"):
            what = f"effect.performed ({e.get('kind')})" if kind == "effect.performed" else kind
            return (f"{world.label(rid)} logged {what} after the cancellation of its owner {qid} was accepted "
                    f"(step {at})")
        if kind == "run.cancelled" and reason is not None and e.get("reason") != reason:
            return (f"{world.label(rid)} ended run.cancelled with reason {e.get('reason')!r}; its owner {qid}'s "
                    f"cancellation (step {at}) requires {reason!r}")
    return None


# ---- OWN-3 --------------------------------------------------------------------------------------
def _after_response_targets(world, step) -> list[str]:
    """Requests this step disconnected or cancelled although their whole response was already sent."""
    if step.action in ("disconnect", "stdio_cancel"):
        qid = step.args.get("request")
        return [qid] if step.pre_phase.get(qid) in ANSWERED else []
    if step.action == "stdio_close":
        c, s = step.args.get("client"), step.args.get("server")
        return [q.id for q in world.requests.values() if q.client == c and q.server == s
                and q.transport == "stdio" and step.pre_phase.get(q.id) in ANSWERED]
    if step.action == "harness_crash" and world.harness is not None:     # its connections drop
        return [qid for qid, sent in world.harness.sent.items() if sent[0] == step.args.get("client")
                and step.pre_phase.get(qid) in ANSWERED]
    return []


OWN3_CASES = ("HTTP disconnect", "stdio cancellation", "a tasked call", "a blocking call",
              "a later MRTR retry owns the run")
_AFTER_RESPONSE_SIGNALS = {"disconnect": "HTTP disconnect", "harness_crash": "HTTP disconnect",
                           "stdio_cancel": "stdio cancellation"}     # stdio EOF: a call's case only


def _first_call(world, q):
    while q.retry_of is not None and q.retry_of in world.requests:
        q = world.requests[q.retry_of]
    return q


def _own3_premise(world, step) -> tuple:
    """Per answered request this step disconnected or cancelled whose run is not terminal: the signal, the
    kind of call (its first call answered CreateTaskResult or not), and whether a later MRTR retry owns
    the run at that moment."""
    created, out = None, []
    for qid in _after_response_targets(world, step):
        created = created_runs(world) if created is None else created
        rid = started_run(world, world.requests[qid], created)
        if rid is None or step.pre_status.get(rid) in TERMINAL:
            continue
        if step.action in _AFTER_RESPONSE_SIGNALS:
            out.append(_AFTER_RESPONSE_SIGNALS[step.action])
        first = ((_first_call(world, world.requests[qid]).response or {}).get("result") or {})
        out.append("a tasked call" if first.get("resultType") == "task" else "a blocking call")
        if any(o.id != qid and o.retry_of is not None and started_run(world, o, created) == rid
               for o in _open_before(world, step)):
            out.append("a later MRTR retry owns the run")
    return tuple(dict.fromkeys(out))


def _cancel_causes(world, step, rid: str, owned: set[str]) -> bool:
    """Is this acceptance of a cancel of rid explained by an allowed cause at this step?"""
    if rid in owned:
        return True
    if step.action == "rest_cancel" and step.args.get("run") == rid:
        return True
    for q in handled(world, step):
        if q.method == "tasks/cancel" and q.task_ref is not None and _names_run(world, q.task_ref, rid):
            return True
    # A cascade (which runs.md allows to be asynchronous) from the nearest ancestor still running:
    # it passes through children that already finished.
    parent = world.runs[rid].parent
    while parent is not None:
        if _events(step, parent, "run.cancelling") or world.runs[parent].status in ("cancelling", "cancelled"):
            return True
        if world.runs[parent].status not in ("completed", "failed"):
            return False
        parent = world.runs[parent].parent
    return False


def _names_run(world, ref: str, rid: str) -> bool:
    raw = identity.unproject(ref)
    if raw is not None:
        return raw == rid
    return world.rules.task_id(world, world.runs[rid]) == ref   # a variant's own task-id space


@prop("sent-response-detaches-run", "OWN-3", "trace", "RFC §G.13",
      "Once the whole response to a request was sent, no disconnect or cancellation of that request changes "
      "any run; a run's cancel is accepted only through tasks/cancel, cancelRun, a parent's cascade, or the "
      "cancellation of the request that owned it at that moment.", premise=_own3_premise,
      reads=("events", *CONNECTION_EVENTS), cases=OWN3_CASES)
def own3_answered_request_cannot_touch_run(world, step):
    targets = _after_response_targets(world, step)
    if targets:
        # Only the cancellation of a request still owing its response (stdio EOF closes both kinds at
        # once) may explain a change to a run at this step.
        _, explained = _cascade_of_owned(world, step)
        changed = [rid for rid, e in step.events if not e.get("replayed") and rid not in explained]
        changed += [rid for rid, before, _ in status_changes(world, step)
                    if before is not None and rid not in explained]
        if changed:
            qid, rid = targets[0], changed[0]
            evs = [e["type"] for r, e in step.events if r == rid]
            return (f"request {qid}'s whole response was already sent (phase {step.pre_phase[qid]}), yet its "
                    f"{step.action.replace('_', ' ')} changed {world.label(rid)}: status "
                    f"{step.pre_status.get(rid, 'new')} -> {world.runs[rid].status}, events {evs or 'none'}")
    accepted = [(rid, e) for rid, e in step.events if e.get("type") == "run.cancelling" and not e.get("replayed")]
    if not accepted:
        return None
    owned = {rid for _, _, rid in owner_cancellations(world, step)}
    for rid, e in accepted:
        if not _cancel_causes(world, step, rid, owned):
            return (f"{world.label(rid)} accepted a cancel (reason {e.get('reason')!r}) at a {step.action} step, "
                    f"which is none of tasks/cancel on it, cancelRun on it, its parent's cascade, or the "
                    f"cancellation of a request that owned it")
    return None


# ---- OWN-4 --------------------------------------------------------------------------------------
def _cascade_of_owned(world, step) -> tuple[list[tuple[str, str, str]], set[str]]:
    owned = owner_cancellations(world, step)
    allowed: set[str] = set()
    for _, _, rid in owned:
        allowed.add(rid)
        allowed.update(descendants(world, rid))
    return owned, allowed


def _own4_signals(world, step) -> list[tuple[str, str]]:
    """The connection signals (`connection_signals`), and the host ending a listen stream: every way a
    request is ended that OWN-4 holds to cancelling only what the request owned."""
    if step.action == "end_listen":
        return [(step.args.get("request"), "host-ended-listen")]
    return connection_signals(world, step)


OWN4_SIGNALS = {**SIGNALS, "host-ended-listen": "the host ending a listen"}
OWN4_BESIDE = ("the same caller's run", "another caller's run", "another tenant's run")
OWN4_CASES = tuple(f"{sig}, beside {whose}" for sig in OWN4_SIGNALS.values() for whose in OWN4_BESIDE)


def _beside(world, q, o) -> str:
    """Whose run o's is, seen from the cancelled request q's caller."""
    if o.subject == q.subject:
        return OWN4_BESIDE[0]
    same = world.params.subject(o.subject).tenant == world.params.subject(q.subject).tenant
    return OWN4_BESIDE[1] if same else OWN4_BESIDE[2]


def _own4_premise(world, step) -> tuple:
    """A request still open is ended at this step (by any signal) while another request owns a live run
    outside the ended requests' cascade: the signal, and whose that run is."""
    ended = [(world.requests[qid], cause) for qid, cause in _own4_signals(world, step)
             if step.pre_phase.get(qid) in OPEN]
    if not ended:
        return ()
    signalled = {q.id for q, _ in ended}
    _, allowed = _cascade_of_owned(world, step)
    created = created_runs(world)
    out = []
    for o in _open_before(world, step):
        if o.id in signalled:
            continue
        rid = started_run(world, o, created)
        if rid is not None and rid not in allowed and step.pre_status.get(rid, "completed") not in TERMINAL:
            out.extend(f"{OWN4_SIGNALS[cause]}, beside {_beside(world, q, o)}" for q, cause in ended)
    return tuple(dict.fromkeys(out))


@prop("cancel-reaches-owned-run-only", "OWN-4", "step", "RFC title, §G.12",
      "A cancellation of request q, by whatever signal (an HTTP disconnect, a notifications/cancelled, stdio EOF, "
      "the host ending a listen) and whatever q's phase, cancels only the run q owns and the runs that run's "
      "cancelRun cascades to; never another request's, caller's or tenant's run.", premise=_own4_premise,
      reads=(*CONNECTION_EVENTS, "end_listen"), cases=OWN4_CASES)
def own4_cancellation_stays_in_cascade(world, step):
    cancelled = _own4_signals(world, step)
    if not cancelled:
        return None
    owned, allowed = _cascade_of_owned(world, step)
    hit = {rid for rid, e in step.events if e.get("type") == "run.cancelling" and not e.get("replayed")}
    hit |= {rid for rid, was, now in status_changes(world, step)
            if now in ("cancelling", "cancelled") and was not in (None, "cancelling", "cancelled")}
    for rid in sorted(hit - allowed):
        r = world.runs[rid]
        which = ", ".join(f"{qid} ({cause})" for qid, cause in cancelled)
        mine = ", ".join(world.label(o) for _, _, o in owned) or "no run"
        return (f"the cancellation of request {which} (which owned {mine}) also cancelled {world.label(rid)} "
                f"(started by {r.owner} of tenant {r.tenant}, status {step.pre_status.get(rid)} -> {r.status}), "
                f"outside the owned run's cascade")
    return None


# ---- OWN-G3 -------------------------------------------------------------------------------------
def _g3_premise(world, step):
    return any(_accepted_here(world, step, rid) for _, _, rid in _owner_accepts(world, step))


@prop("no-effect-after-owner-cancel", "OWN-G3", "gap", "RFC §Security (gap G3)",
      "Nothing promises that no external effect happens after the owner's cancellation was accepted: "
      "compensation and an attempt in flight may act afterwards.", premise=_g3_premise,
      reads=("events", *CONNECTION_EVENTS))
def own_g3_effect_after_owner_cancel(world, step):
    facts = world.facts.peek("OWN-G3", {})          # runId -> requestId
    fresh = set()
    for qid, _, rid in _owner_accepts(world, step):
        if _accepted_here(world, step, rid):
            for run_id in (rid, *descendants(world, rid)):
                if run_id not in facts:
                    facts = world.facts.setdefault("OWN-G3", Leaves())
                    facts[run_id] = qid
                    fresh.add(run_id)
                    annotate(world, "OWN-G3", run_id, step.index)
    for rid, e in step.events:
        owner = facts.get(rid)
        if owner is not None and rid not in fresh and e.get("type") == "effect.performed":
            return (f"{world.label(rid)} performed an external effect ({e.get('kind')}) after the cancellation of "
                    f"its owner {owner} was accepted (step {learnt_at(world, 'OWN-G3', rid)})")
    return None


# ---- scenario stories ---------------------------------------------------------------------------
# Directed drivers an engine replays as its first examples (`verifier.engines.random.explore`): an MRTR retry that
# owns the run and drops, answered requests whose connections drop, an owner dropped while its run is
# already cancelling, and listens the host ends beside a run another request owns, are reached rarely by
# random steps.
def _run(n):
    return lambda w: dict(run=list(w.runs)[n - 1])


def _call(client, server, declare, transport="http"):
    return ("call_tool", dict(client=client, server=server, transport=transport, declare=declare, tool="flow"))


STORIES = {
    "retry-owner-disconnects": [
        _call("C2", "S2", False), ("run_start", _run(1)),
        ("run_interrupt", lambda w: dict(run=list(w.runs)[0], kind="approval", form=True)),
        ("answer", dict(request="r1")), ("deliver", dict(request="r1")),     # InputRequiredResult, delivered
        ("mrtr_retry", dict(client="C2", answers="r1", response="accept", declare=False)),   # r2 owns run1
        ("disconnect", dict(request="r1")),                                  # answered: run1 is r2's (§G.13)
        ("disconnect", dict(request="r2")),                                  # §G.12: run1 is cancelled
        ("run_compensate", _run(1)), ("run_finish_cancel", _run(1))],
    # Retries that own nothing (another principal's state; the spent state reused) beside one that
    # verifies and answers nothing: it owns run1 until its own answer asks again.
    "retries-spend-their-state": [
        _call("C2", "S2", False), ("run_start", _run(1)),
        ("run_interrupt", lambda w: dict(run=list(w.runs)[0], kind="approval", form=True)),
        ("answer", dict(request="r1")), ("deliver", dict(request="r1")),     # InputRequiredResult
        ("mrtr_retry", dict(client="C1", answers="r1", response="accept", declare=False)),   # not C1's state
        ("mrtr_retry", dict(client="C2", answers="r1", response="none", declare=False)),     # r3 owns run1
        ("answer", dict(request="r3")), ("deliver", dict(request="r3")),     # asked again, a fresh state
        ("mrtr_retry", dict(client="C2", answers="r1", response="accept", declare=False))],  # r1's, spent
    # stdio EOF while a call is open (P-STDIO-EOF "cancel-open"): the owner is cancelled with it.
    "stdio-eof-cancels-owner": [
        _call("C1", "S2", False, "stdio"), ("run_start", _run(1)),
        ("stdio_close", dict(client="C1", server="S2")),                     # r1 open: cancelled, run1 too
        ("run_finish_cancel", _run(1))],
    "answered-requests-disconnect": [
        _call("C1", "S1", True), ("run_start", _run(1)),
        ("answer", dict(request="r1")), ("disconnect", dict(request="r1")),  # CreateTaskResult lost in flight
        _call("C1", "S1", True), ("answer", dict(request="r2")), ("deliver", dict(request="r2")),
        ("disconnect", dict(request="r2")),                                  # dropped after it arrived
        _call("C1", "S1", True, "stdio"), ("answer", dict(request="r3")),
        ("stdio_cancel", dict(request="r3"))],                               # crosses the response in flight
    "owner-drops-while-cancelling": [
        _call("C1", "S1", False), ("run_start", _run(1)),
        ("rest_cancel", lambda w: dict(subject="alice", run=list(w.runs)[0])),   # run1 cancelling
        ("disconnect", dict(request="r1")),                                  # its owner drops: no second cancel
        ("run_finish_cancel", _run(1))],
    # mallory's listen, then alice's own, each ended by the host while alice's blocking call owns run1.
    "listens-ended-beside-an-owned-run": [
        _call("C1", "S1", False), ("run_start", _run(1)),
        ("listen", dict(client="C4", server="S1", declare=True)), ("end_listen", dict(request="r2")),
        ("listen", dict(client="C1", server="S1", declare=True)), ("end_listen", dict(request="r3"))],
    "owner-cancel-with-cascade-beside-another-run": [
        _call("C1", "S2", False), ("run_start", _run(1)), ("run_spawn", _run(1)),
        _call("C1", "S2", False), ("run_start", _run(3)),
        ("disconnect", dict(request="r1")),                                  # run1 and run2, not run3
        ("run_compensate", _run(1)), ("run_finish_cancel", _run(1)), ("run_finish_cancel", _run(2))],
}
