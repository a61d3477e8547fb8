"""tasks/get, tasks/cancel and the TTL (RFC 0198 §F.9-11, runs.md).

- GET-1 (safety). The `tasks/get` step itself appends no event to any run's log and changes no
  run's status: a read is a read.
- CNL-1 (safety). A declaring `tasks/cancel` (matching `Mcp-Name`) from a caller who may read and
  cancel the run is answered with exactly the empty result. On a non-terminal run the cancel is
  accepted as `cancelRun` accepts it: the run reads `cancelling` (or `cancelled`), a
  `run.cancelling` is logged unless a cancel was already in progress, and every non-terminal
  descendant is cancelled by the cascade. On a terminal run nothing is appended and it is not
  `-32602` (the 2025-11-25 rule).
- CNL-2 (safety). Once a run logged `run.cancelling` it reads only `cancelling` or `cancelled`: a
  cancel and a completion race only up to acceptance; and a run reaches `cancelled` only from
  `cancelling`.
- TTL-1 (safety). Every emitted task (`CreateTaskResult`, `tasks/get` result, `notifications/tasks`)
  carries `ttlMs` null, or a non-negative integer with `createdAt + ttlMs` not earlier than the
  run's purge time under P-RETENTION, recomputed here from `Params.retention`: the retention
  starts at the run's terminal event (or at its creation) and a run is never purged before it is
  terminal. While the run is not terminal its purge time is bounded below, and each emitted
  expiry is checked again once the run becomes terminal and the purge time is exact.
- TTL-2 (safety). No run changes status because a task's TTL elapsed (failed, cancelled, paused
  or moved in any other way): the passing of time changes no run's status, and no event names the
  TTL as its reason.
- TTL-3 (safety). For a caller who may read the run (same server and tenant, `runs:read`), a
  declaring `tasks/get` resolves the task before purge; after purge it gets exactly the answer a
  never-issued id gets (the ISO-1 not-found answer: same code, message and data).
- TTL-4 (safety). For a caller who may read the run, until the latest `createdAt + ttlMs` any
  emitted task of the run promised has elapsed, a declaring `tasks/get` resolves the task, and a
  declaring `tasks/update`, `tasks/cancel` or `subscriptions/listen` finds it: never the not-found
  answer (the listen acknowledges it), save the -32602 P-UNAUTHORIZED / P-APPROVER "error" give a
  caller without the right (the official check `TasksNoEarlyTtlExpiry`). RFC §F.11 lets a host advertise a TTL beyond its purge
  time, which breaks this (variant `ttl-beyond-retention`).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from functools import lru_cache

from model import identity
from model.world import EPOCH
from model.facts import Leaves
from model.run_index import maybe_due

from .base import handled, prop, status_changes
from .creation import elicitation_refusal, eligible
from .ownership import CONNECTION_EVENTS
from .update import _key_names, new_request, readable_task, response_to, served_task_request

TERMINAL = frozenset({"completed", "failed", "cancelled"})
TERMINAL_EVENTS = ("run.completed", "run.failed", "run.cancelled")
NEVER_ISSUED = "acme~2FAAAAAAAAAAAAAAAAAAAAAAAAneverminted"


def _own_events(step, kinds=None):
    return [(rid, e) for rid, e in step.events if not e.get("replayed") and (kinds is None or e.get("type") in kinds)]




def _run_of_ref(world, ref):
    raw = identity.unproject(ref) if ref else None
    if raw is None and ref:
        raw = next((r.id for r in world.runs.values() if world.rules.task_id(world, r) == ref), None)
    return world.runs.get(raw) if raw else None


def _descendants(world, rid):
    out, todo = [], list(world.runs[rid].children)
    while todo:
        c = todo.pop()
        if c not in out:
            out.append(c)
            todo.extend(world.runs[c].children)
    return out


# ---- GET-1 ----------------------------------------------------------------------------------------
def _get_request(world, step):
    q = new_request(world, step)
    return q if q is not None and q.method == "tasks/get" else None


def _get1_premise(world, step):
    q = _get_request(world, step)
    if q is None:
        return False
    msg = response_to(step, q.id)
    return msg is not None and "result" in msg


@prop("get-appends-nothing", "GET-1", "step", "RFC §F.9",
      "The tasks/get step itself appends no event to any run's log and changes no run's status.",
      premise=_get1_premise, reads=("created", "respond"))
def get1_read_changes_nothing(world, step):
    q = _get_request(world, step)
    if q is None:
        return None
    if step.events:
        rid, e = step.events[0]
        return (f"tasks/get {q.id} for {world.label(q.task_ref)} appended {e.get('type')} to {world.label(rid)} "
                f"({len(step.events)} event(s) in all)")
    changes = status_changes(world, step)
    if changes:
        rid, before, after = changes[0]
        return f"tasks/get {q.id} changed {world.label(rid)} from {before or 'nothing'} to {after}"
    return None


# ---- CNL-1 ----------------------------------------------------------------------------------------
def _cancel_subject(world, step):
    q = new_request(world, step)
    if q is None or q.method != "tasks/cancel" or not served_task_request(world, q):
        return None, None
    run = readable_task(world, q)
    if run is None or "runs:cancel" not in world.params.subject(q.subject).scopes:
        return None, None
    return q, run


CNL1_CASES = ("a non-terminal run", "a completed run", "a failed run", "a cancelled run")


def _cnl1_premise(world, step) -> tuple:
    """The status the cancelled run had before the step, which decides what the check asks of it."""
    q, run = _cancel_subject(world, step)
    if run is None:
        return ()
    pre = step.pre_status.get(run.id)
    return (f"a {pre} run" if pre in TERMINAL else "a non-terminal run",)


@prop("cancel-acknowledged-as-cancelrun", "CNL-1", "step", "RFC §F.10",
      "An authorized declaring tasks/cancel on a readable task is answered with the empty result; on a "
      "non-terminal run it is accepted as cancelRun accepts it (with the cascade); on a terminal run nothing "
      "is appended.", premise=_cnl1_premise, reads=("created", "respond"), cases=CNL1_CASES)
def cnl1_cancel_acked_and_accepted(world, step):
    q, run = _cancel_subject(world, step)
    if run is None:
        return None
    msg = response_to(step, q.id)
    pre = step.pre_status.get(run.id)
    if msg is None or msg.get("result") != {"resultType": "complete"}:
        got = "no response" if msg is None else (f"error {msg['error'].get('code')}" if "error" in msg
                                                 else f"result {msg.get('result')}")
        return (f"tasks/cancel {q.id} by {q.subject} on {world.label(run.id)} (status {pre}) was answered {got}, "
                f"not the empty result")
    if pre in TERMINAL:
        mine = [e.get("type") for rid, e in step.events if rid == run.id]
        if mine or run.status != pre:
            return (f"tasks/cancel {q.id} on the terminal {world.label(run.id)} ({pre}) appended {mine} / left it "
                    f"{run.status}: a cancel of a terminal run appends nothing")
        return None
    if run.status not in ("cancelling", "cancelled"):
        return (f"tasks/cancel {q.id} by {q.subject} was acknowledged but {world.label(run.id)} reads {run.status} "
                f"(was {pre}): the cancel was not accepted")
    if pre != "cancelling" and not _own_events(step, ("run.cancelling",)):
        return f"tasks/cancel {q.id} moved {world.label(run.id)} to {run.status} without logging run.cancelling"
    for child in _descendants(world, run.id):
        cpre = step.pre_status.get(child)
        if cpre is not None and cpre not in TERMINAL and cpre != "cancelling" \
                and world.runs[child].status not in ("cancelling", "cancelled"):
            return (f"tasks/cancel {q.id} cancelled {world.label(run.id)} but not its descendant "
                    f"{world.label(child)} ({world.runs[child].status}): cancelRun cascades")
    return None


# ---- CNL-2 ----------------------------------------------------------------------------------------
CNL2_CASES = ("by tasks/cancel", "by REST cancelRun", "by the owner's cancellation", "by a parent's cascade")


def _accepted_by(world, step, rid) -> str | None:
    """Which of CNL2_CASES accepted rid's cancel at this step, judged from what the step did (the request
    the host answered, the REST call, the connection event, the ancestor cancelled), not from the reason
    the host logged; None: none of them (a variant's own cause)."""
    if step.action == "rest_cancel" and step.args.get("run") == rid:
        return "by REST cancelRun"
    if any(q.method == "tasks/cancel" and _run_of_ref(world, q.task_ref) is world.runs[rid]
           for q in handled(world, step)):
        return "by tasks/cancel"
    parent = world.runs[rid].parent
    while parent is not None:          # the cascade passes through children that already finished
        up = world.runs[parent]
        if up.status in ("cancelling", "cancelled"):
            return "by a parent's cascade"
        if up.status not in ("completed", "failed"):
            break
        parent = up.parent
    return "by the owner's cancellation" if step.action in CONNECTION_EVENTS else None


def _cancel_seqs(world, step) -> dict:
    """runId -> (seq of its first own run.cancelling, how it was accepted: a CNL2_CASES name or None),
    kept incrementally."""
    facts = world.facts.peek("CNL-2", {})
    for rid, e in step.events:
        if e.get("type") == "run.cancelling" and not e.get("replayed") and rid not in facts:
            facts = world.facts.setdefault("CNL-2", Leaves())
            facts[rid] = (e["seq"], _accepted_by(world, step, rid))
    return facts


def _cnl2_premise(world, step) -> tuple:
    """How each run that accepted a cancel at an earlier step, and took a step now, was cancelled."""
    seqs = _cancel_seqs(world, step)
    touched = {rid for rid, _ in step.events} | {rid for rid, _, _ in status_changes(world, step)}
    out = []
    for rid in touched:
        first, how = seqs.get(rid, (None, None))
        if first is None:
            continue
        mine = [e["seq"] for r, e in step.events if r == rid]
        if (not mine or first < min(mine)) and how is not None:
            out.append(how)
    return tuple(dict.fromkeys(out))


@prop("accepted-cancel-ends-cancelled", "CNL-2", "invariant", "runs.md (cancelRun)",
      "Once a cancel is accepted the run goes cancelling -> cancelled and completes no other way.",
      premise=_cnl2_premise, reads=("events", "status"), cases=CNL2_CASES)
def cnl2_cancelling_only_to_cancelled(world, step):
    seqs = _cancel_seqs(world, step)
    # Checked at every step from the first, a run first reads otherwise at a step that logs to it or
    # moves it: those alone are read (a long session accepts a cancel of hundreds of runs).
    changes = status_changes(world, step)
    for rid in dict.fromkeys([*(r for r, _ in step.events), *(r for r, _, _ in changes)]):
        if rid not in seqs:
            continue
        first = seqs[rid][0]
        run = world.runs[rid]
        if run.status not in ("cancelling", "cancelled"):
            late = [e.get("type") for e in run.log[first + 1:] if e.get("type") in TERMINAL_EVENTS or
                    e.get("type") in ("run.started", "run.resumed")]
            return (f"{world.label(rid)} accepted a cancel (run.cancelling at seq {first}) but now reads {run.status}"
                    f"{' after ' + ', '.join(late) if late else ''}, at a {step.action} step")
    for rid, before, after in changes:
        if after == "cancelled" and before != "cancelling":
            return f"{world.label(rid)} went {before} -> cancelled without passing through cancelling"
    return None


# ---- TTL-1 ----------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _ms_since_epoch(stamp: str) -> int | None:
    try:
        t = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except (TypeError, ValueError):
        return None
    return int((t - EPOCH).total_seconds() * 1000)


def emitted_tasks(step):
    """(requestId, task fields) for every task the host emitted at this step."""
    out = []
    for qid, m in step.emitted:
        res = m.get("result")
        if isinstance(res, dict) and "taskId" in res:
            out.append((qid, res))
        elif isinstance(res, dict) and isinstance(res.get("tasks"), list):     # a variant serving tasks/list
            out.extend((qid, t) for t in res["tasks"] if isinstance(t, dict) and "taskId" in t)
        elif m.get("method") == "notifications/tasks" and isinstance(m.get("params"), dict):
            out.append((qid, m["params"]))
    return out


def terminal_tick(run) -> int | None:
    """When the run became terminal, read from its own terminal event."""
    for e in run.log:
        if e.get("type") in TERMINAL_EVENTS and not e.get("replayed"):
            return e["at"]
    return run.terminal_at if run.status in TERMINAL else None


def purge_tick(world, run) -> tuple[int, bool]:
    """(the run's purge time in ticks, exact?) under P-RETENTION; a lower bound while not terminal."""
    ret, p = world.params.retention, world.params.p_retention
    done = terminal_tick(run)
    if done is not None:
        start = done if p == "from-terminal" else run.created_at
        return max(done, start + ret), True
    return (world.clock + ret if p == "from-terminal" else max(world.clock, run.created_at + ret)), False


def _ttl1_premise(world, step):
    return any(t.get("ttlMs") is not None for _, t in emitted_tasks(step))


@prop("ttl-covers-retention", "TTL-1", "step", "RFC §F.11, map mcp.tasks.fields",
      "At every emission of a task, ttlMs is null or createdAt + ttlMs is not earlier than the run's purge "
      "time (P-RETENTION).", premise=_ttl1_premise, reads=("emitted", "terminal"))
def ttl1_ttl_covers_retention(world, step):
    facts = world.facts.peek("TTL-1", {})           # runId -> (expiry ms, requestId) earliest emitted
    tick = world.params.tick_ms
    for qid, t in emitted_tasks(step):
        run = _run_of_ref(world, t.get("taskId"))
        if "ttlMs" not in t:
            return f"the task {t.get('taskId')} emitted to {qid} carries no ttlMs (a required key)"
        ttl = t["ttlMs"]
        if ttl is None or run is None:
            continue
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
            return (f"the task of {world.label(run.id)} emitted to {qid} carries ttlMs {ttl!r}: neither null nor a "
                    f"count of ms")
        created = _ms_since_epoch(t.get("createdAt"))
        if created is None:
            continue
        expiry = created + ttl
        purge, exact = purge_tick(world, run)
        if expiry < purge * tick:
            return (f"the task of {world.label(run.id)} emitted to {qid} says createdAt {t.get('createdAt')} + ttlMs "
                    f"{ttl} = {expiry} ms, earlier than the run's purge time {purge * tick} ms "
                    f"({'exact' if exact else 'at the earliest'}; retention {world.params.retention} ticks "
                    f"{world.params.p_retention})")
        if not exact and (run.id not in facts or expiry < facts[run.id][0]):
            facts = world.facts.setdefault("TTL-1", Leaves())
            facts[run.id] = (expiry, qid)
            world.facts.setdefault("TTL-1.at", Leaves())[run.id] = step.index
    for rid, before, after in status_changes(world, step):
        if rid in facts and after in TERMINAL:
            facts = world.facts.setdefault("TTL-1", Leaves())
            expiry, qid = facts.pop(rid)
            if not facts:       # nothing pending is no fact at all: a state where none ever was is this one
                del world.facts["TTL-1"]
            at = world.facts.peek("TTL-1.at", {}).get(rid, "?")
            purge, _ = purge_tick(world, world.runs[rid])
            if expiry < purge * tick:
                return (f"the task of {world.label(rid)} emitted to {qid} at step {at} expires at {expiry} ms, earlier "
                        f"than the purge time {purge * tick} ms known now that it is {after}")
    return None


# ---- TTL-2 ----------------------------------------------------------------------------------------
def _ttl2_premise(world, step) -> bool:
    """A clock step at which a run not purged has its advertised TTL elapsed."""
    if step.action != "clock_tick":
        return False
    tick = world.params.tick_ms
    return any(not r.purged and (ttl := world.rules.ttl_ms(world, r)) is not None
               and r.created_at * tick + ttl <= world.clock * tick for r in maybe_due(world, ordered=False))


def _mentions_ttl(e: dict) -> bool:
    text = " ".join(str(e.get(k, "")) for k in ("reason", "cause")).lower()
    return "ttl" in text or "expire" in text


@prop("ttl-never-ends-run", "TTL-2", "step", "RFC §F.11",
      "No run changes status because a task's TTL elapsed (failed, cancelled, paused or moved in any other way): "
      "the TTL describes the handle, not the work.", premise=_ttl2_premise, reads=("events", "clock_tick"))
def ttl2_ttl_moves_no_run(world, step):
    for rid, e in _own_events(step):
        if _mentions_ttl(e):
            return (f"{world.label(rid)} logged {e.get('type')} (reason {e.get('reason')!r}) at a {step.action} step "
                    f"(t={world.clock}): a run changed because its task's TTL elapsed")
    if step.action == "clock_tick":
        for rid, before, after in status_changes(world, step):
            return (f"{world.label(rid)} went {before} -> {after} as time passed (t={world.clock}): the TTL "
                    f"moved the run")
    return None


# ---- TTL-3 ----------------------------------------------------------------------------------------
def _reader_get(world, step):
    """(q, run) for a declaring tasks/get from a caller entitled to read the run, purged or not."""
    q = _get_request(world, step)
    if q is None or not served_task_request(world, q):
        return None, None
    run = _run_of_ref(world, q.task_ref)
    if run is None or run.server != q.server or not run.durable:
        return None, None
    s = world.params.subject(q.subject)
    if s.tenant != run.tenant or "runs:read" not in s.scopes:
        return None, None
    return q, run


def _not_found_reference(world, step, q) -> dict:
    """The error a never-issued id gets: observed at an earlier step when there was one, else asked."""
    facts = world.facts.peek("TTL-3", {})
    if "unknown" in facts:
        return facts["unknown"]
    probe = replace(q, task_ref=NEVER_ISSUED, mcp_name=NEVER_ISSUED)
    return world.rules.not_found(world, probe, "unknown").get("error")


def _observe_unknown(world, step):
    q = _get_request(world, step)
    if q is None or not served_task_request(world, q) or "unknown" in world.facts.peek("TTL-3", {}):
        return
    raw = identity.unproject(q.task_ref or "")
    if raw is not None and raw not in world.runs:
        msg = response_to(step, q.id)
        if msg is not None and "error" in msg:
            world.facts.setdefault("TTL-3", {})["unknown"] = msg["error"]


TTL3_CASES = ("before the purge", "after the purge")


def _ttl3_premise(world, step) -> tuple:
    q, run = _reader_get(world, step)
    return () if run is None else (TTL3_CASES[run.purged],)


@prop("purged-reads-as-not-found", "TTL-3", "step", "RFC §F.11, §C.6",
      "For a caller who can read the run, tasks/get resolves before purge and after purge gets exactly the "
      "answer a nonexistent id gets.", premise=_ttl3_premise, reads=("created", "respond"), cases=TTL3_CASES)
def ttl3_purged_reads_not_found(world, step):
    _observe_unknown(world, step)
    q, run = _reader_get(world, step)
    if run is None:
        return None
    msg = response_to(step, q.id)
    if msg is not None and elicitation_refusal(msg):
        return None                        # found, and its input withheld from this caller (PRJ-4)
    if not run.purged:
        res = (msg or {}).get("result") or {}
        if _run_of_ref(world, res.get("taskId")) is not run:
            got = "no response" if msg is None else (f"error {msg['error'].get('code')} {msg['error'].get('message')!r}"
                                                     if "error" in msg else f"result {res}")
            return (f"tasks/get {q.id} by {q.subject} for {world.label(run.id)} (not purged, status {run.status}) got "
                    f"{got}, not the task")
        return None
    ref = _not_found_reference(world, step, q)
    got = None if msg is None else msg.get("error")
    if msg is None or "result" in msg or got != ref:
        shown = "no response" if msg is None else (f"result {msg['result']}" if "result" in msg else f"error {got}")
        return (f"tasks/get {q.id} by {q.subject} for the purged {world.label(run.id)} got {shown}; a nonexistent "
                f"id gets error {ref}")
    return None


# ---- TTL-4 ----------------------------------------------------------------------------------------
def _advertised_expiries(world, step) -> dict:
    """runId -> (the latest createdAt + ttlMs in ms any emitted task promised, the request it went to)."""
    facts = world.facts.peek("TTL-4", {})
    for qid, t in emitted_tasks(step):
        ttl, created = t.get("ttlMs"), _ms_since_epoch(t.get("createdAt"))
        run = _run_of_ref(world, t.get("taskId"))
        if run is None or created is None or not isinstance(ttl, int) or isinstance(ttl, bool):
            continue
        if run.id not in facts or created + ttl > facts[run.id][0]:
            facts = world.facts.setdefault("TTL-4", Leaves())
            facts[run.id] = (created + ttl, qid)
    return facts


TTL4_DOORS = ("tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen")


def _entitled(world, q, run) -> bool:
    """q's caller may read the run (same server and tenant, `runs:read`, durably created), purged or not."""
    s = world.params.subject(q.subject)
    return run.server == q.server and run.durable and s.tenant == run.tenant and "runs:read" in s.scopes


def _reader_doors(world, step):
    """(q, run) for each task a declaring request of a door TTL-4 names asks of a caller entitled to read it."""
    q = new_request(world, step)
    if q is None or q.method not in TTL4_DOORS or not served_task_request(world, q):
        return []
    refs = _requested_ids(q) if q.method == "subscriptions/listen" else [q.task_ref]
    runs = [_run_of_ref(world, ref) for ref in refs]
    return [(q, run) for run in runs if run is not None and _entitled(world, q, run)]


def _requested_ids(q) -> list:
    return ((q.message.get("params") or {}).get("notifications") or {}).get("taskIds") or []


def _may_refuse(world, q, run) -> bool:
    """The host may answer q -32602 though it found the task: a tasks/cancel or tasks/update its caller has
    no right to, where P-UNAUTHORIZED / P-APPROVER say "error" (that answer is the not-found one)."""
    p, s = world.params, world.params.subject(q.subject)
    if q.method == "tasks/cancel":
        return p.p_unauthorized == "error" and "runs:cancel" not in s.scopes
    if q.method == "tasks/update" and "error" in (p.p_unauthorized, p.p_approver):
        keys = ((q.message.get("params") or {}).get("inputResponses") or {})
        return any(i in run.interrupts and not eligible(world, q.subject, run, i)
                   for k in keys for i in _key_names(world, k))
    return False


def _finds(world, step, q, run) -> bool:
    """Whether the answer to q found the run: tasks/get resolves it (or withholds its input, PRJ-4), a listen
    acknowledges it, tasks/update and tasks/cancel are not answered with the not-found error."""
    if q.method == "subscriptions/listen":
        for key, m in step.emitted:
            if key == q.id and m.get("method") == "notifications/subscriptions/acknowledged":
                acked = ((m.get("params") or {}).get("notifications") or {}).get("taskIds") or []
                return any(_run_of_ref(world, t) is run for t in acked)
        return True                        # refused whole (a capability error): not a not-found
    msg = response_to(step, q.id) or {}
    if q.method == "tasks/get":
        return _run_of_ref(world, (msg.get("result") or {}).get("taskId")) is run or elicitation_refusal(msg)
    return msg.get("error") is None or msg["error"] != _not_found_reference(world, step, q) or _may_refuse(world, q, run)


TTL4_CASES = ("tasks/get", "tasks/update", "tasks/cancel", "a listen acknowledgement")


def _ttl4_premise(world, step) -> tuple:
    """The door of each read of a task whose advertised createdAt + ttlMs (told at an earlier step) is
    still ahead: the reads the check holds to finding it."""
    expiries = world.facts.peek("TTL-4", {})
    now = world.clock * world.params.tick_ms
    return tuple(dict.fromkeys(TTL4_CASES[TTL4_DOORS.index(q.method)] for q, run in _reader_doors(world, step)
                               if run.id in expiries and now < expiries[run.id][0]))


@prop("no-purge-before-ttl", "TTL-4", "step", "ext-tasks §Task TTL, conformance",
      "For a caller who can read the run, until createdAt + ttlMs has elapsed tasks/get resolves the task and "
      "tasks/update, tasks/cancel and a subscriptions/listen acknowledgement find it (never the not-found "
      "answer): no purge before the advertised TTL.", premise=_ttl4_premise, reads=("emitted", "created", "respond"),
      cases=TTL4_CASES)
def ttl4_resolves_until_ttl(world, step):
    expiries = _advertised_expiries(world, step)
    now = world.clock * world.params.tick_ms
    for q, run in _reader_doors(world, step):
        if run.id not in expiries:
            continue
        expiry, told = expiries[run.id]
        if now < expiry and not _finds(world, step, q, run):
            return (f"{q.method} {q.id} by {q.subject} for {world.label(run.id)} at {now} ms did not find it"
                    f"{' (purged)' if run.purged else ''}, though the task sent to {told} promised it until "
                    f"createdAt + ttlMs = {expiry} ms")
    return None


# ---- scenario stories ---------------------------------------------------------------------------
# Directed drivers an engine replays as its first examples (`verifier.engines.random.explore`): a read after purge,
# and a cancel of a terminal task, are reached rarely by random steps.
def _run(n):
    return lambda w: dict(run=list(w.runs)[n - 1])


def _task(method, client, n=1):
    return (method, lambda w: dict(client=client, server="S1", ref=identity.project(list(w.runs)[n - 1]),
                                   transport="http", declare=True, header_ok=True))


STORIES = {
    "read-before-and-after-purge": [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        ("run_start", _run(1)), ("clock_tick", {}), ("run_complete", _run(1)),
        _task("tasks_get", "C3"),                                  # carol reads it: a finite ttlMs
        ("clock_tick", {}), ("clock_tick", {}),                    # the TTL elapses: nothing happens to run1
        ("purge", _run(1)),
        _task("tasks_get", "C3")],                                 # exactly the not-found answer
    "cancel-live-then-terminal": [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        ("run_start", _run(1)), ("run_spawn", _run(1)),
        _task("tasks_cancel", "C1"),                               # accepted, cascading to run2
        ("run_compensate", _run(1)), ("run_finish_cancel", _run(1)),
        _task("tasks_cancel", "C1")],                              # terminal: acknowledged, nothing appended
}
