"""Identity, authorization and isolation of tasks (RFC 0198 §C.5-6, identity.md §5, the invariant
`mcp-task-tenant-scoped`; gap G4 of unresolved question 2).

"Can getRun" is the Subject's right as runs.md states it, computed here from the Subject's tenant and
scopes and the run's state (same server, same tenant, `runs:read`, durably created, not purged); it
is never taken from the host's own lookup. Task ids are decoded with the identity.md §5 grammar
written out in `properties.creation`, not with the model's codec.

spec task-id-is-projected-run-id (ID-1, step) observes every task id the host sends (CreateTaskResult,
tasks/get results, notifications/tasks, listen acknowledgements) and every declaring tasks/* that
names a run in the `%2F` form:
    assert each id decodes (every byte outside [A-Za-z0-9._-] as ~XX, uppercase) to a runId matching
    `^(anon:)?[A-Za-z0-9._~-]{1,128}/[A-Za-z0-9._-]{16,128}$`, re-projects to exactly the id sent
    (projected once, never `%2F`, no `~` in the opaque segment), and names that run: for a
    CreateTaskResult the run behind the call, with an opaque segment of at least 22 characters
    (necessary for 128 bits; the entropy itself is P-MINT); for tasks/get the run the request named.
    A `%2F`-form tasks/get of a run the caller can getRun is not refused while the host's lookup
    resolves the projected form of the same id (the forms are accepted alike).

spec task-id-not-a-credential (ID-2, step) observes every declaring tasks/* (on a serving host, routing
header matching) that names an existing run its caller cannot getRun:
    assert it is answered with an error, never a result, and the step appended nothing to that run
    and left its status as it was: holding the id grants nothing.

spec task-methods-authorized-per-subject (AUTH-1, step) observes every declaring tasks/cancel and
tasks/update on a task its caller can getRun, and every declaring tasks/get of a task its caller could
getRun but for `runs:read`:
    assert a caller lacking the method's right (`runs:cancel` for tasks/cancel; approver eligibility
    for tasks/update) is answered per P-UNAUTHORIZED / P-APPROVER: the empty result, or -32602 where
    they say "error" (or the routing/capability errors -32020, -32021); never 403, -32603 or any
    other error; its tasks/cancel changes nothing; and every interrupt a tasks/update resolves is
    resolved by its caller, who is an eligible approver (same tenant, `approvals:respond`, on the
    approver list the log recorded). A tasks/get without `runs:read` is refused as getRun is:
    -32602 (or -32020 for its routing header), never the task, and it changes nothing. (That a
    reader's tasks/get is answered with the task is TASK-1's; everyone else's is ID-2's and ISO-1's.)

spec unreadable-task-indistinguishable (ISO-1, step) observes every declaring tasks/* naming a task
its caller cannot getRun (another tenant, purged, never created, malformed):
    assert its answer equals, except for the JSON-RPC id, the answer the host gives the same caller on
    the same request for a well-formed id that names no run (asked of the host as a probe), and on
    streamable HTTP is sent with the same HTTP status; that is
    -32602 on a serving host when the routing header matches; never -32603 or 403; and the step
    appended no event and changed no run status.

spec listen-omits-unreadable (ISO-2, step) observes every listen acknowledgement and notifications/tasks
(its cases: an acknowledgement of a listen that asked for another tenant's task, a purged one, one never
created; a status change of a task an open listen stream asked for and cannot read):
    assert the acknowledgement lists only requested tasks the caller can getRun and is the same as the
    host's acknowledgement of the request with the unreadable ids left out (so they count exactly as
    nonexistent ones); a notifications/tasks is only ever sent for a task the listener can getRun.

gap short-opaque-task-resolves (ID-G4) observes tasks/get results:
    exhibited when tasks/get resolves a run whose opaque segment is shorter than 22 characters (a run
    never projected as a task, e.g. created over REST or as a child, minted with identity.md's 16).
"""
from __future__ import annotations

from model import wire

from .base import prop
from .creation import (MIN_OPAQUE, TASKS_METHODS, advertised, can_get_run, declared, decode_task_id, eligible,
                       elicitation_refusal, error_code, header_matches, named_run, probe_request, project,
                       raw_grammatical, result_kind, seen, step_changes, task_ref)


def _sent_task_ids(world, step):
    """(request, where, taskId) for every task id the host sent this step."""
    s = seen(world, step)
    out = [(q, where, view.get("taskId")) for q, where, view in s.views]
    for key, msg in s.notes:
        if msg["method"] == "notifications/subscriptions/acknowledged":
            q = world.requests.get(key)
            for tid in ((msg.get("params") or {}).get("notifications") or {}).get("taskIds") or []:
                out.append((q, "listen acknowledgement", tid))
    return out


def _pct_refs(world, step):
    out = []
    for q, msg in seen(world, step).responses:
        if q.method in TASKS_METHODS and "%2F" in (task_ref(q) or "").upper() and declared(q) and header_matches(q):
            run = named_run(world, task_ref(q))
            if run is not None and can_get_run(world, q.subject, run, q.server) and advertised(world, q.server):
                out.append((q, msg, run))
    return out


ID1_WHERE = {"CreateTaskResult": "in CreateTaskResult", "tasks/get": "in a tasks/get result",
             "notifications/tasks": "in notifications/tasks", "listen acknowledgement": "in a listen acknowledgement"}
ID1_PCT = "a request naming the %2F form"
ID1_CASES = (*ID1_WHERE.values(), ID1_PCT)


def _id1_premise(world, step) -> tuple:
    """Where each task id the host sent was, and a %2F-form tasks/get: the only %2F request whose answer
    the check judges (a tasks/update or tasks/cancel may be refused for a right the caller lacks)."""
    out = [ID1_WHERE[where] for _, where, _ in _sent_task_ids(world, step)]
    return (*out, *(ID1_PCT for q, _, _ in _pct_refs(world, step) if q.method == "tasks/get"))


@prop("task-id-is-projected-run-id", "ID-1", "step", "RFC §C.5, identity.md §5",
      "every taskId the host sends is a grammatical runId projected exactly once that names its run (the run "
      "behind the call for a CreateTaskResult, with an opaque segment of at least 22 characters; the run the "
      "request named for tasks/get); a %2F-form reference is accepted like the projected form",
      premise=_id1_premise, reads=("emitted",), cases=ID1_CASES)
def task_id_is_projected_run_id(world, step):
    for q, where, tid in _sent_task_ids(world, step):
        qid = q.id if q is not None else "?"
        raw = decode_task_id(tid)
        if raw is None or not raw_grammatical(raw):
            return f"{where} to {qid} carries taskId {tid!r}, which is not a projected runId (identity.md §5)"
        if project(raw) != tid:
            return (f"{where} to {qid} carries taskId {tid!r}, not the runId {raw!r} projected exactly once "
                    f"({project(raw)!r})")
        run = world.runs.get(raw)
        if run is None:
            return f"{where} to {qid} carries taskId {tid!r}, which is no run's runId"
        if where == "CreateTaskResult":
            if q.run is not None and raw != q.run:
                return f"CreateTaskResult to {qid} names {world.label(raw)}, not the run behind the call {world.label(q.run)}"
            opaque = raw.split("/", 1)[1]
            if len(opaque) < MIN_OPAQUE:
                return (f"CreateTaskResult to {qid} for {world.label(raw)} carries taskId {tid!r} whose opaque segment "
                        f"has {len(opaque)} characters (< {MIN_OPAQUE}: fewer than 128 bits)")
        elif where == "tasks/get":
            asked = decode_task_id(task_ref(q))
            if asked != raw:
                return f"tasks/get {qid} asked for {task_ref(q)!r} but was answered the task {tid!r} of {world.label(raw)}"
    for q, msg, run in _pct_refs(world, step):
        if q.method == "tasks/get" and "result" not in msg and not elicitation_refusal(msg):
            canonical = project(run.id)
            found = world.rules.lookup_task(world, probe_request(q, "tasks/get", canonical), canonical)
            if found is not None and found.id == run.id:
                return (f"tasks/get {q.id} of {q.subject} names {world.label(run.id)} in the %2F form {task_ref(q)!r} "
                        f"and was answered {result_kind(msg)}, though the projected form resolves: the host must "
                        f"accept the %2F form")
    return None


def _foreign_holders(world, step):
    """Declaring tasks/* on a serving host naming an existing run its caller cannot getRun."""
    out = []
    for q, msg in seen(world, step).responses:
        if q.method in TASKS_METHODS and declared(q) and header_matches(q) and advertised(world, q.server):
            run = named_run(world, task_ref(q))
            if run is not None and not can_get_run(world, q.subject, run, q.server):
                out.append((q, msg, run))
    return out


@prop("task-id-not-a-credential", "ID-2", "step", "RFC §C.5-6",
      "a declaring tasks/* naming an existing run its caller cannot getRun is answered with an error, never a "
      "result, and appends nothing to that run or changes its status: possessing a taskId grants nothing",
      premise=lambda world, step: bool(_foreign_holders(world, step)), reads=("emitted",))
def task_id_not_a_credential(world, step):
    for q, msg, run in _foreign_holders(world, step):
        if "result" in msg:
            return (f"{q.method} {q.id} of {q.subject} holds the id of {world.label(run.id)} (tenant {run.tenant}"
                    f"{', purged' if run.purged else ''}) which {q.subject} cannot getRun, and was answered "
                    f"{result_kind(msg)}: the taskId acted as a credential")
        touched = [e.get("type") for rid, e in step.events if rid == run.id]
        if touched or step.pre_status.get(run.id) != run.status:
            return (f"{q.method} {q.id} of {q.subject}, who cannot getRun {world.label(run.id)}, changed it: "
                    f"{touched or [step.pre_status.get(run.id), run.status]}")
    return None


def _requested_in(run, interrupt_id: str) -> bool:
    return any(e.get("type") == "interrupt.requested" and e.get("interruptId") == interrupt_id
               and not e.get("replayed") for e in run.log)


def _lacks_right(world, q, run) -> str | None:
    s = world.params.subject(q.subject)
    if q.method == "tasks/cancel" and "runs:cancel" not in s.scopes:
        return "runs:cancel"
    if q.method == "tasks/update":
        for key in (q.message.get("params") or {}).get("inputResponses") or {}:
            if _requested_in(run, key) and not eligible(world, q.subject, run, key):
                return f"eligibility for {world.label(key)}"
    return None


def _readable_tasks_answers(world, step):
    out = []
    for q, msg in seen(world, step).responses:
        if q.method in TASKS_METHODS and declared(q) and advertised(world, q.server):
            run = named_run(world, task_ref(q))
            if run is not None and can_get_run(world, q.subject, run, q.server):
                out.append((q, msg, run))
    return out


def _lacks_only_read(world, q, run) -> bool:
    """q's caller could getRun `run` but for `runs:read` (the right tasks/get needs)."""
    s = world.params.subject(q.subject)
    return ("runs:read" not in s.scopes and s.tenant == run.tenant and run.server == q.server and run.durable
            and not run.purged)


def _unread_gets(world, step):
    """Declaring tasks/get on a serving host naming a run its caller could getRun but for `runs:read`."""
    out = []
    for q, msg in seen(world, step).responses:
        if q.method == "tasks/get" and declared(q) and advertised(world, q.server):
            run = named_run(world, task_ref(q))
            if run is not None and _lacks_only_read(world, q, run):
                out.append((q, msg, run))
    return out


AUTH1_CASES = ("tasks/get without read", "tasks/update without respond", "tasks/update by an ineligible approver",
               "tasks/cancel without cancel")


def _auth1_case(world, q, run) -> str | None:
    """The right a reader's tasks/update or tasks/cancel lacks, as a case (None: it lacks none)."""
    if q.method == "tasks/get" or not _lacks_right(world, q, run):
        return None
    if q.method == "tasks/cancel":
        return "tasks/cancel without cancel"
    if "approvals:respond" not in world.params.subject(q.subject).scopes:
        return "tasks/update without respond"
    return "tasks/update by an ineligible approver"


def _auth1_premise(world, step) -> tuple:
    out = ["tasks/get without read" for _ in _unread_gets(world, step)]
    return (*out, *(c for q, _, run in _readable_tasks_answers(world, step) if (c := _auth1_case(world, q, run))))


@prop("task-methods-authorized-per-subject", "AUTH-1", "step", "RFC §C.6, runs.md",
      "on a task its caller can getRun but lacking the method's right (runs:cancel for tasks/cancel, approver "
      "eligibility for tasks/update), tasks/* is answered with the empty result, or -32602 only where "
      "P-UNAUTHORIZED / P-APPROVER say error (or -32020/-32021); never 403, -32603 or another error, never a "
      "state change; every interrupt tasks/update resolves is resolved by its caller as an eligible approver "
      "(tenant, approvals:respond, the approver list recorded in the log); a tasks/get without runs:read is "
      "refused as getRun is (-32602, never the task) and changes nothing",
      premise=_auth1_premise, reads=("emitted",), cases=AUTH1_CASES)
def task_methods_authorized_per_subject(world, step):
    p = world.params
    for q, msg, run in _unread_gets(world, step):
        if error_code(msg) not in (wire.INVALID_PARAMS, wire.HEADER_MISMATCH):
            return (f"tasks/get {q.id} of {q.subject} (lacking runs:read) on {world.label(run.id)} was answered "
                    f"{result_kind(msg)}: tasks/get needs getRun's right, so it is refused as not found")
        changed = step_changes(world, step)
        if changed:
            return (f"tasks/get {q.id} of {q.subject} (lacking runs:read) on {world.label(run.id)} changed state: "
                    f"{changed}")
    for q, msg, run in _readable_tasks_answers(world, step):
        if q.method == "tasks/get":
            continue                       # a reader's tasks/get is TASK-1's
        lacking = _lacks_right(world, q, run)
        if lacking:
            code = error_code(msg)
            allowed = {wire.HEADER_MISMATCH, wire.MISSING_CAPABILITY}
            if p.p_unauthorized == "error" or (q.method == "tasks/update" and p.p_approver == "error"):
                allowed.add(wire.INVALID_PARAMS)
            if "error" in msg and code not in allowed:
                return (f"{q.method} {q.id} of {q.subject} on {world.label(run.id)} (readable, lacking {lacking}) was "
                        f"answered error {code}, not per P-UNAUTHORIZED={p.p_unauthorized} / P-APPROVER={p.p_approver}")
            if q.method == "tasks/cancel":
                changed = step_changes(world, step)
                if changed:
                    return (f"tasks/cancel {q.id} of {q.subject} (lacking runs:cancel) on {world.label(run.id)} changed "
                            f"state: {changed}")
        if q.method == "tasks/update":
            for rid, e in step.events:
                if e.get("type") != "interrupt.resolved":
                    continue
                iid = e.get("interruptId")
                by = e.get("by")
                if by != q.subject or not eligible(world, q.subject, world.runs[rid], iid):
                    return (f"tasks/update {q.id} of {q.subject} resolved {world.label(iid)} of {world.label(rid)} "
                            f"(recorded by {by!r}) though {q.subject} is not an eligible approver of it")
    return None


# ---- ISO-1 ---------------------------------------------------------------------------------------

def _unreadable_answers(world, step):
    out = []
    for q, msg in seen(world, step).responses:
        if q.method in TASKS_METHODS and declared(q):
            ref = task_ref(q)
            run = named_run(world, ref)
            if run is None or not can_get_run(world, q.subject, run, q.server):
                out.append((q, msg, run))
    return out


ISO1_KINDS = ("another tenant", "purged", "never created", "malformed")
ISO1_CASES = tuple(f"{k}, by {m}" for k in ISO1_KINDS for m in TASKS_METHODS)


def _unreadable_kind(world, subject: str, ref, run) -> str | None:
    """Which of the catalogue's unreadable tasks `ref` (naming `run`, or None) is to `subject` (None: one
    it does not enumerate, a reader of the caller's own tenant lacking runs:read)."""
    if run is None:
        return "malformed" if decode_task_id(ref) is None else "never created"
    if run.purged:
        return "purged"
    return "another tenant" if run.tenant != world.params.subject(subject).tenant else None


def _iso1_kind(world, q, run) -> str | None:
    """Which of the sentence's unreadable tasks q names."""
    return _unreadable_kind(world, q.subject, task_ref(q), run)


def _iso1_premise(world, step) -> tuple:
    return tuple(f"{kind}, by {q.method}" for q, _, run in _unreadable_answers(world, step)
                 if advertised(world, q.server) and (kind := _iso1_kind(world, q, run)))


def nonexistent_answer(world, q):
    """The probe the host answers as the same caller's same request for a well-formed id naming no run:
    its `response`, and on streamable HTTP its `http_status`."""
    from model.host import receive_and_answer
    tenant = world.params.subject(q.subject).tenant
    opaque = "zzNeverIssuedTaskId000"
    while f"{tenant}/{opaque}" in world.runs:
        opaque += "0"
    ref = project(f"{tenant}/{opaque}")
    probe = probe_request(q, q.method, ref, header_ok=header_matches(q))
    receive_and_answer(world, probe)
    return probe


def _describe(world, q, run) -> str:
    ref = task_ref(q)
    if run is None:
        return f"{ref!r} (malformed)" if decode_task_id(ref) is None else f"{ref!r} (no such run)"
    if run.purged:
        return f"{world.label(run.id)} (purged)"
    if run.tenant != world.params.subject(q.subject).tenant:
        return f"{world.label(run.id)} (tenant {run.tenant})"
    return f"{world.label(run.id)} (unreadable)"


@prop("unreadable-task-indistinguishable", "ISO-1", "step", "RFC §C.6",
      "a declaring tasks/* naming a task its caller cannot getRun (another tenant, purged, unknown, malformed) "
      "gets exactly the answer, except the JSON-RPC id, and the HTTP status that the host gives the same request "
      "for an id naming no run: -32602 on a serving host (routing header matching), never -32603 or 403; nothing "
      "changes",
      premise=_iso1_premise, reads=("emitted",), cases=ISO1_CASES)
def unreadable_task_indistinguishable(world, step):
    for q, msg, run in _unreadable_answers(world, step):
        code = error_code(msg)
        what = _describe(world, q, run)
        if "result" in msg:
            return f"{q.method} {q.id} of {q.subject} for {what} was answered {result_kind(msg)}, not not-found"
        if code in (wire.INTERNAL_ERROR, 403, -403) or q.http_status == 403:
            return (f"{q.method} {q.id} of {q.subject} for {what} was answered error {code}"
                    + (" with HTTP 403" if q.http_status == 403 else ""))
        probe = nonexistent_answer(world, q)
        ref = probe.response or {}
        if ref.get("error") != msg.get("error") or set(ref) != set(msg):
            return (f"{q.method} {q.id} of {q.subject} for {what} was answered {msg.get('error')}, but an id naming no "
                    f"run gets {ref.get('error') or result_kind(ref)}: the answer tells them apart")
        if q.http_status != probe.http_status:
            return (f"{q.method} {q.id} of {q.subject} for {what} was answered with HTTP {q.http_status}, but an id "
                    f"naming no run gets HTTP {probe.http_status}: the status tells them apart")
        if advertised(world, q.server) and header_matches(q) and code != wire.INVALID_PARAMS:
            return f"{q.method} {q.id} of {q.subject} for {what} was answered error {code}, not -32602"
        changed = step_changes(world, step)
        if changed:
            return f"{q.method} {q.id} of {q.subject} for {what} changed state: {changed}"
    return None


# ---- ISO-2 ---------------------------------------------------------------------------------------

def _acks(world, step):
    out = []
    for key, msg in seen(world, step).notes:
        if msg["method"] == "notifications/subscriptions/acknowledged":
            q = world.requests.get(key)
            if q is not None:
                out.append((q, ((msg.get("params") or {}).get("notifications") or {}).get("taskIds") or []))
    return out


def _requested(q) -> list:
    return ((q.message.get("params") or {}).get("notifications") or {}).get("taskIds") or []


ISO2_ACKED = {"another tenant": "an acknowledgement naming another tenant's task",
              "purged": "an acknowledgement naming a purged task",
              "never created": "an acknowledgement naming a task never created"}
ISO2_CHANGE = "a change of a task the listener cannot read"
ISO2_CASES = (*ISO2_ACKED.values(), ISO2_CHANGE)


def _unread_changes(world, step) -> bool:
    """A run that existed before the step changed its status while an open listen stream that asked for
    it cannot getRun it: the moment a notifications/tasks would leak it."""
    changed = [world.runs[rid] for rid in seen(world, step).changed if rid in step.pre_status]
    if not changed:
        return False
    for qid in world.listens:
        q = world.requests[qid]
        if q.phase == "streaming":
            asked = {decode_task_id(r) for r in _requested(q)}
            if any(run.id in asked and not can_get_run(world, q.subject, run, q.server) for run in changed):
                return True
    return False


def _iso2_premise(world, step) -> tuple:
    """Each unreadable task a listen acknowledged this step had asked for (a malformed id is no case of
    the sentence), and a change a listener may not hear of."""
    out = []
    for q, _ in _acks(world, step):
        for ref in _requested(q):
            run = named_run(world, ref)
            if not can_get_run(world, q.subject, run, q.server):
                out.append(ISO2_ACKED.get(_unreadable_kind(world, q.subject, ref, run)))
    if _unread_changes(world, step):
        out.append(ISO2_CHANGE)
    return tuple(c for c in out if c)


@prop("listen-omits-unreadable", "ISO-2", "step", "RFC §C.6, map",
      "a subscriptions/listen acknowledgement lists only requested tasks the caller can getRun and equals the "
      "host's acknowledgement of the same request without the unreadable ids; notifications/tasks reaches a "
      "listener only for a task it can getRun", premise=_iso2_premise, reads=("emitted", "status"), cases=ISO2_CASES)
def listen_omits_unreadable(world, step):
    for q, acked in _acks(world, step):
        requested = _requested(q)
        wanted = {decode_task_id(r) for r in requested} - {None}
        for tid in acked:
            raw = decode_task_id(tid)
            run = world.runs.get(raw) if raw else None
            if raw not in wanted:
                return f"listen {q.id} of {q.subject} was acknowledged {tid!r}, which it did not ask for"
            if not can_get_run(world, q.subject, run, q.server):
                return (f"listen {q.id} of {q.subject} was acknowledged {world.label(raw)} (tenant {run.tenant if run else '?'}"
                        f"{', purged' if run and run.purged else ''}), which {q.subject} cannot getRun")
        readable = [r for r in requested if can_get_run(world, q.subject, named_run(world, r), q.server)]
        if len(readable) != len(requested):
            without = set(world.rules.listen_ack(world, q, readable))
            got = {decode_task_id(t) for t in acked}
            if without != got:
                return (f"listen {q.id} of {q.subject}: the acknowledgement {sorted(world.label(r) for r in got if r)} "
                        f"differs from the one without the unreadable ids {sorted(world.label(r) for r in without)}")
    for key, msg in seen(world, step).notes:
        if msg["method"] != "notifications/tasks":
            continue
        q = world.requests.get(key)
        tid = (msg.get("params") or {}).get("taskId")
        run = named_run(world, tid)
        if q is None or not can_get_run(world, q.subject, run, q.server):
            who = q.subject if q is not None else "?"
            what = world.label(run.id) if run is not None else repr(tid)
            return f"notifications/tasks for {what} sent on {key} to {who}, who cannot getRun it"
    return None


# ---- ID-G4 ---------------------------------------------------------------------------------------

def _get_results(world, step):
    return [(q, view) for q, where, view in seen(world, step).views if where == "tasks/get"]


@prop("short-opaque-task-resolves", "ID-G4", "gap", "RFC §UQ2",
      "tasks/get resolves a run whose opaque segment is shorter than 22 characters (under 128 bits): a run "
      "never projected as a task is still addressable through tasks/* (gap G4)",
      premise=lambda world, step: bool(_get_results(world, step)), reads=("emitted",))
def short_opaque_task_resolves(world, step):
    for q, view in _get_results(world, step):
        raw = decode_task_id(view.get("taskId"))
        if raw is None:
            continue
        opaque = raw.split("/", 1)[1]
        if len(opaque) < MIN_OPAQUE:
            run = world.runs.get(raw)
            how = f", started by {run.started_by}" if run else ""
            return (f"tasks/get {q.id} of {q.subject} resolved {world.label(raw)}{how}, whose opaque segment "
                    f"{opaque!r} has {len(opaque)} characters (< {MIN_OPAQUE})")
    return None


# ---- directed test drivers -----------------------------------------------------------------------

def _foreign(action):
    """mallory (C4, tenant beta) names alice's task on S1 with a declaring request."""
    return (action, lambda w: dict(client="C4", server="S1", ref=w.rules.task_id(w, next(iter(w.runs.values()))),
                                   transport="http", declare=True, header_ok=True))


# A listen from another tenant is where a cross-tenant leak shows (ISO-2), and random steps rarely
# open one of the two listens a world allows after a run exists: the story opens it at once, and
# alice's task changes while mallory listens.
STORIES = {
    "foreign-listener": [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),   # alice: run1
        ("listen", dict(client="C4", server="S1", declare=True)),            # mallory asks for every task on S1
        ("run_start", dict(run=lambda w: next(iter(w.runs)))),               # a change mallory must not hear of
        _foreign("tasks_get"), _foreign("tasks_cancel")],                   # and names alice's task directly
}
