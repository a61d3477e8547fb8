"""Advertisement, negotiation and task creation (RFC 0198 §A, §B; ext-tasks §Capability Negotiation,
§Task Creation; the map's `mcp.tasks` rows).

Each property is a monitor over the protocol messages a step sent (`step.emitted`), the requests as
the clients sent them (their own `_meta`), and the runs' logs and statuses before and after the
step. "Declares" always means the request's *own* `params._meta` lists
`io.modelcontextprotocol/tasks` in its client capabilities; "a serving host" means a server whose
`server/discover` result lists the extension in `capabilities.extensions`.

spec advertised-iff-served (ADV-1, invariant) observes server/discover answers and every answer that
shows a host serving Tasks (a CreateTaskResult, a declaring tasks/* answered with anything but
-32021/-32601, notifications/tasks, a listen acknowledgement naming tasks) or refusing it (a
declaring tasks/* or task-listen answered -32021):
    assert the extension is in `capabilities.extensions` exactly when the host serves Tasks, every
    discover answer of a host says the same, its OpenWOP advertisement then lists "extensions" in
    `mcp.features[]` (one way: a host may list it for another extension), and that OpenWOP
    advertisement mentions Tasks nowhere else.

spec task-only-to-declaring-request (NEG-1, step) observes every response:
    assert a result with `resultType: "task"` answers a request whose own `_meta` declared the
    extension (a declaration on an earlier request of the same client does not count).

spec undeclared-tasks-method-refused (NEG-2, step) observes every answer to a tasks/get, tasks/update
or tasks/cancel to a serving host whose own `_meta` does not declare:
    assert it is the error -32021 whose data names the extension as required (-32020 only when the
    request's Mcp-Name header also mismatched), whatever the task id, and the step appended no event
    and changed no run status.

spec plain-mount-knows-no-tasks-methods (NEG-4, step) observes every answer to a tasks/get, tasks/update
or tasks/cancel sent to a host that does not advertise the extension:
    assert it is -32601 (an unknown method) whatever the request declared (so NEG-2 is judged on
    serving hosts only), and the step appended no event and changed no run status.

spec undeclared-task-listen-refused (NEG-3, step) observes every subscriptions/listen asking for
`notifications.taskIds` without declaring:
    assert it is answered -32021 naming the extension, is never acknowledged, and no
    notifications/tasks is ever sent on a listen stream that did not declare.

spec declaring-call-gets-task (CRT-1, step) observes every answer to a declaring tools/call (or MRTR
retry) on a serving host whose run is not terminal when the answer is sent:
    assert the answer is a `CreateTaskResult` (`resultType: "task"`), never InputRequiredResult, a
    plain CallToolResult or an error.

witness finished-run-plain-result (CRT-2) observes answers to declaring tools/call on a serving host:
    reached when the run was already terminal and the answer is a plain CallToolResult.

spec task-durable-when-created (CRT-3, step) observes every CreateTaskResult:
    assert at the moment it is sent, the run its taskId names is the run behind the call, is readable
    by the calling Subject (durable, not purged, same tenant, `runs:read`) and the host's task lookup
    (the tasks/get path) resolves that taskId for that caller.

spec declaring-call-never-held-at-input (CRT-4, invariant) observes the state after every step:
    assert whenever a declaring tools/call on a serving host is still open while its run is
    waiting-approval or waiting-input, the host has an answer to that call enabled now. (This is the
    strongest sound finite-trace form: the model lets the host choose when to answer, so "answered
    within k steps" is a liveness matter; what a host that *holds* the call at an approval shows in
    one state is that it has no answer to give. CRT-1 then fixes which answer that is.)

spec every-readable-run-is-a-task (TASK-1, step) observes every declaring tasks/get with a matching
routing header on a serving host, and every run created or becoming terminal on a serving host:
    assert a tasks/get naming (in any accepted form) a run its caller can getRun is answered with that
    run's task, and the host's task lookup resolves the run's projected runId for every Subject that
    can getRun it, however the run was started (tasked call, blocking call, REST, child, fork).

The step-reading helpers at the top of this module are shared by the identity, projection and
notify_wire catalogues.
"""
from __future__ import annotations

import functools
import re
from itertools import islice

from model import wire
from model.state import Request

from .base import handled, prop, status_changes

EXT = wire.TASKS_EXT
TASKS_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
RUN_TERMINAL = frozenset({"completed", "failed", "cancelled"})     # runs.md: the three terminal statuses
MIN_OPAQUE = 22                                                    # 128 bits in a 64-symbol alphabet


# =============================================================================================
# Reading a step: what was sent, to which request, and what changed. Computed once per step.
# =============================================================================================

class Seen:
    """What one step showed on the wire and in the runs."""
    __slots__ = ("responses", "views", "notes", "changed")

    def __init__(self):
        self.responses: list = []   # (request, response message) for every JSON-RPC response sent
        self.views: list = []       # (request, where, task) where is CreateTaskResult|tasks/get|notifications/tasks
        self.notes: list = []       # (emission key, notification message) for every notification
        self.changed: list = []     # run ids whose status differs from before the step (or are new)


def seen(world, step) -> Seen:
    out = step.derived.get("seen")
    if out is not None:
        return out
    out = step.derived["seen"] = Seen()
    requests = world.requests
    for key, msg in step.emitted:
        if "method" in msg:
            out.notes.append((key, msg))
            if msg["method"] == "notifications/tasks":
                q = requests.get(key)
                if q is not None:
                    out.views.append((q, "notifications/tasks", msg.get("params") or {}))
            continue
        q = requests.get(key)
        if q is None:
            continue
        out.responses.append((q, msg))
        res = msg.get("result")
        if res is None:
            continue
        if res.get("resultType") == "task":
            out.views.append((q, "CreateTaskResult", res))
        elif q.method == "tasks/get" and "taskId" in res:
            out.views.append((q, "tasks/get", res))
    out.changed = [rid for rid, _, _ in status_changes(world, step)]
    return out


def declared(q) -> bool:
    """The request's own `_meta` declares the Tasks extension (never inferred from other requests)."""
    params = q.message.get("params") or {}
    caps = (params.get("_meta") or {}).get(wire.META_CLIENT_CAPABILITIES) or {}
    return EXT in (caps.get("extensions") or {})


def advertised(world, server: str) -> bool:
    """The server's `server/discover` answer lists the extension (asked once per exploration)."""
    cache = world.facts.peek("wire.advertised", {})
    if server not in cache:
        caps = world.rules.discover_result(world, server).get("capabilities") or {}
        cache = world.facts.setdefault("wire.advertised", {})
        cache[server] = EXT in (caps.get("extensions") or {})
    return cache[server]


def error_code(msg: dict) -> int | None:
    err = msg.get("error")
    return err.get("code") if isinstance(err, dict) else None


def result_kind(msg: dict) -> str:
    """A short name of an answer for messages: CreateTaskResult, InputRequiredResult, error -32602, ..."""
    if "error" in msg:
        return f"error {error_code(msg)}"
    res = msg.get("result") or {}
    rt = res.get("resultType", "complete")
    if rt == "task":
        return "CreateTaskResult"
    if rt == "input_required":
        return "InputRequiredResult"
    if "content" in res:
        return f"CallToolResult isError={res.get('isError')}"
    if "taskId" in res:
        return f"the task ({res.get('status')})"
    return f"result {sorted(res)}"


def header_matches(q) -> bool:
    """HTTP routing: the Mcp-Name header equals params.taskId (stdio carries no header)."""
    if q.transport != "http":
        return True
    return q.mcp_name == (q.message.get("params") or {}).get("taskId")


# ---- identity (identity.md §5), written from the spec, not from the model ------------------------

_PROJECTED = re.compile(r"(?:[A-Za-z0-9._-]|~[0-9A-F]{2})+")
_RAW = re.compile(r"(anon:)?[A-Za-z0-9._~-]{1,128}/[A-Za-z0-9._-]{16,128}")
_SAFE = re.compile(r"[A-Za-z0-9._-]")


@functools.lru_cache(maxsize=1 << 16)        # pure, and asked of the same few ids at every step
def project(raw: str) -> str:
    """Every byte outside [A-Za-z0-9._-] written ~XX (uppercase hex), once."""
    return "".join(ch if _SAFE.fullmatch(ch) else "".join(f"~{b:02X}" for b in ch.encode()) for ch in raw)


def decode_task_id(ref) -> str | None:
    """The raw runId a projected (or %2F) wire id names, or None when it is not a well-formed id."""
    if not isinstance(ref, str):
        return None
    return _decode(ref)


@functools.lru_cache(maxsize=1 << 16)
def _decode(ref: str) -> str | None:
    text = ref.replace("%2F", "~2F").replace("%2f", "~2F")
    if not _PROJECTED.fullmatch(text):
        return None
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] == "~":
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(ord(text[i]))
            i += 1
    try:
        raw = out.decode()
    except UnicodeDecodeError:
        return None
    return raw if _RAW.fullmatch(raw) else None


def raw_grammatical(raw: str) -> bool:
    return bool(_RAW.fullmatch(raw))


def named_run(world, ref):
    raw = decode_task_id(ref)
    return world.runs.get(raw) if raw is not None else None


def task_ref(q):
    return (q.message.get("params") or {}).get("taskId")


# ---- authorization facts (runs.md, interrupt.md): the Subject's rights, not the host's code ----

def can_get_run(world, subject: str, run, server: str) -> bool:
    """getRun would answer: same server, same tenant, `runs:read`, durably created, not purged."""
    if run is None or run.server != server or run.purged or not run.durable:
        return False
    s = world.params.subject(subject)
    return s.tenant == run.tenant and "runs:read" in s.scopes


def recorded_approvers(run, interrupt_id: str):
    """The approver set the run's log recorded when the interrupt was requested (None: any)."""
    for e in run.log:
        if e.get("type") == "interrupt.requested" and e.get("interruptId") == interrupt_id:
            a = e.get("approvers")
            return None if a is None else tuple(a)
    return None


def eligible(world, subject: str, run, interrupt_id: str) -> bool:
    """interrupt.md: same tenant, `approvals:respond`, and on the recorded approver list if any."""
    s = world.params.subject(subject)
    if s.tenant != run.tenant or "approvals:respond" not in s.scopes:
        return False
    approvers = recorded_approvers(run, interrupt_id)
    return approvers is None or subject in approvers


def open_interrupts(world, run, upto: int | None = None) -> list[str]:
    """Client-answerable interrupts the run's own log shows requested and not yet resolved (in its
    first `upto` events: the log as it was then; the whole log by default)."""
    opened, closed = [], set()
    for e in islice(run.log, upto):
        t = e.get("type")
        if t == "interrupt.requested" and not e.get("replayed") and e.get("kind") != "external-event":
            opened.append(e["interruptId"])
        elif t == "interrupt.resolved":
            closed.add(e.get("interruptId"))
    return [i for i in opened if i not in closed]


def step_changes(world, step) -> str | None:
    """None when the step appended no event and changed no run status; else what it changed."""
    parts = [f"{world.label(rid)} {e.get('type')}" for rid, e in step.events]
    parts += [f"{world.label(rid)} {step.pre_status.get(rid)}->{world.runs[rid].status}"
              for rid in seen(world, step).changed if rid in step.pre_status]
    return ", ".join(parts) if parts else None


def probe_request(q, method: str, ref: str | None, header_ok: bool = True) -> Request:
    """A request like q (same client, Subject, server, transport, declaration) naming `ref`.

    Used to ask the host what it *would* answer; it is never added to the world."""
    params = dict(q.message.get("params") or {})
    if ref is not None:
        params["taskId"] = ref
    msg = {**q.message, "id": "probe", "method": method, "params": params}
    p = Request(id="probe", client=q.client, subject=q.subject, server=q.server, transport=q.transport,
                method=method, message=msg, declares_tasks=declared(q), declares_elicitation=q.declares_elicitation,
                task_ref=ref)
    if q.transport == "http":
        p.mcp_name = ref if header_ok else f"{ref}x"
    return p


def missing_capability_ok(msg: dict) -> bool:
    """-32021 whose data names the Tasks extension as a required client capability."""
    err = msg.get("error") or {}
    data = err.get("data") or {}
    exts = ((data.get("requiredCapabilities") or {}).get("extensions") or {})
    return err.get("code") == wire.MISSING_CAPABILITY and EXT in exts


def elicitation_refusal(msg: dict) -> bool:
    """-32021 whose data names elicitation as a required client capability: a task the caller may read,
    whose input it cannot receive (PRJ-4). The task was found: the answer is not a not-found."""
    err = msg.get("error") or {}
    data = err.get("data") or {}
    return err.get("code") == wire.MISSING_CAPABILITY and "elicitation" in (data.get("requiredCapabilities") or {})


# =============================================================================================
# ADV-1
# =============================================================================================

def _mentions_tasks(obj) -> str | None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if "task" in str(k).lower():
                return f"key {k!r}"
            found = _mentions_tasks(v)
            if found:
                return found
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            found = _mentions_tasks(v)
            if found:
                return found
    elif isinstance(obj, str) and ("task" in obj.lower()):
        return f"value {obj!r}"
    return None


def _serving_evidence(world, step):
    """(server, 'served'|'refused', what) for each message this step that shows Tasks served or refused."""
    out = step.derived.get("ADV-1")
    if out is not None:
        return out
    s = seen(world, step)
    out = step.derived["ADV-1"] = []
    for q, msg in s.responses:
        if q.method == "tools/call":
            if (msg.get("result") or {}).get("resultType") == "task":
                out.append((q.server, "served", f"{q.id} answered CreateTaskResult"))
        elif q.method in TASKS_METHODS and declared(q):
            code = error_code(msg)
            if code == wire.MISSING_CAPABILITY and not elicitation_refusal(msg):
                out.append((q.server, "refused", f"declaring {q.method} {q.id} answered -32021"))
            elif code != wire.METHOD_NOT_FOUND:
                out.append((q.server, "served", f"declaring {q.method} {q.id} answered {result_kind(msg)}"))
        elif q.method == "subscriptions/listen" and declared(q) and error_code(msg) == wire.MISSING_CAPABILITY:
            if (q.message.get("params") or {}).get("notifications", {}).get("taskIds"):
                out.append((q.server, "refused", f"declaring task listen {q.id} answered -32021"))
    for key, msg in s.notes:
        q = world.requests.get(key)
        if q is None:
            continue
        if msg["method"] == "notifications/tasks":
            out.append((q.server, "served", f"notifications/tasks sent on {q.id}"))
        elif msg["method"] == "notifications/subscriptions/acknowledged":
            if ((msg.get("params") or {}).get("notifications") or {}).get("taskIds"):
                out.append((q.server, "served", f"listen {q.id} acknowledged task ids"))
    return out


def features_problem(world, server: str, says: bool, where: str) -> str | None:
    """The OpenWOP advertisement lists "extensions" when `says`, and mentions Tasks nowhere. One way only:
    "extensions" means the host honours `capabilities.extensions`, so it may be listed for another extension."""
    feats = world.rules.openwop_features(world, server)
    listed = "extensions" in ((feats.get("mcp") or {}).get("features") or [])
    if says and not listed:
        return (f"{server}: {where} lists {EXT} but mcp.features[] does not list \"extensions\" "
                f"({(feats.get('mcp') or {}).get('features')})")
    extra = _mentions_tasks(feats)
    if extra:
        return f"{server}'s OpenWOP advertisement also advertises Tasks ({extra}): advertised outside server/discover"
    return None


def _discover_answers(world, step):
    return [(q, msg) for q, msg in seen(world, step).responses if q.method == "server/discover" and "result" in msg]


def _adv1_premise(world, step) -> bool:
    return bool(_discover_answers(world, step)) or bool(_serving_evidence(world, step))


@prop("advertised-iff-served", "ADV-1", "invariant", "RFC §A.1",
      "server/discover lists io.modelcontextprotocol/tasks in capabilities.extensions exactly when the host "
      "serves Tasks (answers with a task, serves declaring tasks/*, notifies tasks), every discover answer "
      "agrees, mcp.features[] then lists \"extensions\" (one way: it may be listed for another extension), and "
      "the OpenWOP advertisement mentions Tasks nowhere else", premise=_adv1_premise, reads=("emitted",))
def advertised_iff_served(world, step):
    facts = world.facts.get("ADV-1")
    if facts is None:
        facts = world.facts["ADV-1"] = {"served": {}, "refused": {}, "said": {}, "features": set()}
    touched = set()
    for q, msg in _discover_answers(world, step):
        caps = msg["result"].get("capabilities") or {}
        exts = caps.get("extensions") or {}
        says = EXT in exts
        if says and not isinstance(exts[EXT], dict):
            return f"{q.server}'s server/discover ({q.id}) lists {EXT} with {exts[EXT]!r}, not an object"
        before = facts["said"].setdefault(q.server, says)
        if before != says:
            return (f"{q.server}'s server/discover answers disagree: {q.id} says the extension is "
                    f"{'' if says else 'not '}served, an earlier answer said the opposite")
        problem = features_problem(world, q.server, says, f"server/discover ({q.id})")
        if problem:
            return problem
        facts["features"].add(q.server)
        touched.add(q.server)
    for server, kind, what in _serving_evidence(world, step):
        facts[kind].setdefault(server, what)
        touched.add(server)
    for server in touched:
        adv = facts["said"].get(server)
        if adv is None:
            adv = advertised(world, server)
        if adv and server in facts["refused"]:
            return f"{server} advertises {EXT} but refuses it: {facts['refused'][server]}"
        if not adv and server in facts["served"]:
            return f"{server} does not advertise {EXT} but serves it: {facts['served'][server]}"
        if server not in facts["features"]:
            facts["features"].add(server)
            problem = features_problem(world, server, adv, "server/discover")
            if problem:
                return problem
    return None


# =============================================================================================
# NEG-1, NEG-2, NEG-3
# =============================================================================================

def _neg1_premise(world, step) -> bool:
    return any(q.method == "tools/call" and not declared(q) for q, _ in seen(world, step).responses)


@prop("task-only-to-declaring-request", "NEG-1", "step", "ext-tasks §Capability Negotiation",
      "no CreateTaskResult (resultType \"task\") answers a request whose own _meta did not declare the "
      "extension; earlier requests of the same client do not count", premise=_neg1_premise, reads=("emitted",))
def task_only_to_declaring_request(world, step):
    for q, msg in seen(world, step).responses:
        if (msg.get("result") or {}).get("resultType") == "task" and not declared(q):
            run = f" for {world.label(q.run)}" if q.run else ""
            earlier = [o.id for o in world.requests.values() if o.client == q.client and o is not q and declared(o)]
            hint = f" (client {q.client} declared on {', '.join(earlier)} only)" if earlier else ""
            return f"{q.method} {q.id} did not declare {EXT} in its own _meta but was answered CreateTaskResult{run}{hint}"
    return None


def _undeclared_tasks_answers(world, step):
    """On a serving host only: a plain mount knows no tasks/* method at all (NEG-4)."""
    return [(q, msg) for q, msg in seen(world, step).responses
            if q.method in TASKS_METHODS and not declared(q) and advertised(world, q.server)]


NEG2_NAMED = ("a readable task", "another tenant's", "none")
NEG2_CASES = tuple(f"{m}, naming {k}" for m in TASKS_METHODS for k in NEG2_NAMED)


def _neg2_named(world, q) -> str | None:
    """What q's task id names, as the sentence's "whatever the id" enumerates it (None: a task of the
    caller's tenant it cannot read, which the sentence does not name)."""
    run = named_run(world, task_ref(q))
    if run is None:
        return "none"
    if can_get_run(world, q.subject, run, q.server):
        return "a readable task"
    return "another tenant's" if run.tenant != world.params.subject(q.subject).tenant else None


def _neg2_premise(world, step) -> tuple:
    return tuple(f"{q.method}, naming {k}" for q, _ in _undeclared_tasks_answers(world, step)
                 if (k := _neg2_named(world, q)))


@prop("undeclared-tasks-method-refused", "NEG-2", "step", "ext-tasks §Error Handling",
      "tasks/get, tasks/update and tasks/cancel whose own _meta does not declare the extension are answered "
      "-32021 naming the extension (the capability check precedes the lookup, so the answer is the same "
      "whatever the id; -32020 is tolerated only with a mismatched Mcp-Name) and change nothing",
      premise=_neg2_premise, reads=("emitted",), cases=NEG2_CASES)
def undeclared_tasks_method_refused(world, step):
    for q, msg in _undeclared_tasks_answers(world, step):
        ok = missing_capability_ok(msg) or (error_code(msg) == wire.HEADER_MISMATCH and not header_matches(q))
        if not ok:
            return (f"{q.method} {q.id} from {q.subject} without declaring {EXT}, for {world.label(task_ref(q) or '')}, "
                    f"was answered {result_kind(msg)}, not -32021 naming the extension")
        changed = step_changes(world, step)
        if changed:
            return f"undeclared {q.method} {q.id} changed state: {changed}"
    return None


def _plain_mount_tasks_answers(world, step):
    return [(q, msg) for q, msg in seen(world, step).responses
            if q.method in TASKS_METHODS and not advertised(world, q.server)]


NEG4_CASES = tuple(f"{m}, {d}" for m in TASKS_METHODS for d in ("declaring", "not declaring"))


def _neg4_premise(world, step) -> tuple:
    return tuple(f"{q.method}, {'declaring' if declared(q) else 'not declaring'}"
                 for q, _ in _plain_mount_tasks_answers(world, step))


@prop("plain-mount-knows-no-tasks-methods", "NEG-4", "step", "core §Errors, ext-tasks §Capability Negotiation",
      "a mount that does not serve the extension answers tasks/get, tasks/update and tasks/cancel as unknown "
      "methods (-32601), whatever the request declared, and changes nothing",
      premise=_neg4_premise, reads=("emitted",), cases=NEG4_CASES)
def plain_mount_knows_no_tasks_methods(world, step):
    for q, msg in _plain_mount_tasks_answers(world, step):
        if error_code(msg) != wire.METHOD_NOT_FOUND:
            how = "declaring" if declared(q) else "not declaring"
            return (f"{q.method} {q.id} ({how} {EXT}) to {q.server}, which does not serve the extension, was "
                    f"answered {result_kind(msg)}, not -32601 (an unknown method)")
        changed = step_changes(world, step)
        if changed:
            return f"{q.method} {q.id} to the plain mount {q.server} changed state: {changed}"
    return None


def _undeclared_task_listens(world, step):
    out = []
    for q in handled(world, step):
        if q.method == "subscriptions/listen" and not declared(q):
            if ((q.message.get("params") or {}).get("notifications") or {}).get("taskIds"):
                out.append(q)
    return out


@prop("undeclared-task-listen-refused", "NEG-3", "step", "ext-tasks §Task Status Notifications",
      "a subscriptions/listen asking for notifications.taskIds without declaring the extension is answered "
      "-32021 naming the extension and never acknowledged; no notifications/tasks is sent on a listen "
      "stream that did not declare", premise=lambda world, step: bool(_undeclared_task_listens(world, step)),
      reads=("emitted", "created", "respond"))
def undeclared_task_listen_refused(world, step):
    s = seen(world, step)
    for q in _undeclared_task_listens(world, step):
        sent = [m for k, m in step.emitted if k == q.id]
        answers = [m for m in sent if "method" not in m]
        if not answers or not all(missing_capability_ok(m) for m in answers):
            kinds = [m.get("method") or result_kind(m) for m in sent] or ["nothing"]
            return (f"subscriptions/listen {q.id} from {q.subject} asked for task ids without declaring {EXT} and "
                    f"was answered {', '.join(kinds)}, not -32021")
    for key, msg in s.notes:
        if msg["method"] in ("notifications/tasks", "notifications/subscriptions/acknowledged"):
            q = world.requests.get(key)
            if q is not None and q.method == "subscriptions/listen" and not declared(q):
                ids = ((msg.get("params") or {}).get("notifications") or {}).get("taskIds")
                if msg["method"] == "notifications/tasks" or ids:
                    what = (f"notifications/tasks for {world.label(msg['params'].get('taskId', ''))}"
                            if msg["method"] == "notifications/tasks" else f"an acknowledgement of {ids}")
                    return f"listen {q.id} of {q.subject} did not declare {EXT} but was sent {what}"
    return None


# =============================================================================================
# CRT-1, CRT-2, CRT-3, CRT-4
# =============================================================================================

def _declaring_call_answers(world, step, terminal: bool):
    out = []
    for q, msg in seen(world, step).responses:
        if q.method == "tools/call" and q.run is not None and declared(q) and advertised(world, q.server):
            run = world.runs.get(q.run)
            if run is not None and (run.status in RUN_TERMINAL) == terminal:
                out.append((q, msg, run))
    return out


# The run's status when the host answers: the catalogue's four, and pending and cancelling, which its
# sentence ("not terminal") names too (the reference host answers every tasked call while pending).
CRT1_CASES = ("pending", "running", "paused", "waiting-external", "waiting-approval or waiting-input", "cancelling")


def _crt1_case(status: str) -> str | None:
    if status in ("waiting-approval", "waiting-input"):
        return "waiting-approval or waiting-input"
    return status if status in CRT1_CASES else None


def _crt1_premise(world, step) -> tuple:
    return tuple(c for _, _, run in _declaring_call_answers(world, step, terminal=False)
                 if (c := _crt1_case(run.status)))


@prop("declaring-call-gets-task", "CRT-1", "step", "RFC §B.3",
      "on a serving host, a declaring tools/call (or MRTR retry) whose run is not terminal when the host answers "
      "is answered CreateTaskResult, never InputRequiredResult, a plain CallToolResult or an error",
      premise=_crt1_premise, reads=("emitted",), cases=CRT1_CASES)
def declaring_call_gets_task(world, step):
    for q, msg, run in _declaring_call_answers(world, step, terminal=False):
        if (msg.get("result") or {}).get("resultType") != "task":
            return (f"declaring tools/call {q.id} of {q.subject} on {q.server} was answered {result_kind(msg)} while "
                    f"{world.label(run.id)} was {run.status} (not terminal): §B.3 requires CreateTaskResult")
    return None


@prop("finished-run-plain-result", "CRT-2", "witness", "RFC §B.4",
      "a declaring tools/call whose run finished before the host answered is answered with the plain "
      "CallToolResult", premise=lambda world, step: bool(_declaring_call_answers(world, step, terminal=True)),
      reads=("emitted",))
def finished_run_plain_result(world, step):
    for q, msg, run in _declaring_call_answers(world, step, terminal=True):
        res = msg.get("result") or {}
        if res.get("resultType", "complete") == "complete" and "content" in res:
            return (f"declaring tools/call {q.id} on {q.server} answered with the plain CallToolResult "
                    f"isError={res.get('isError')} because {world.label(run.id)} was already {run.status}")
    return None


def _create_results(world, step):
    return [(q, view) for q, where, view in seen(world, step).views if where == "CreateTaskResult"]


@prop("task-durable-when-created", "CRT-3", "step", "ext-tasks §Task Creation",
      "when a CreateTaskResult is sent, the run its taskId names is the run behind the call, readable by the "
      "caller (durable, not purged, same tenant, runs:read), and the host's tasks/get lookup resolves it for "
      "that caller", premise=lambda world, step: bool(_create_results(world, step)), reads=("emitted",))
def task_durable_when_created(world, step):
    for q, view in _create_results(world, step):
        tid = view.get("taskId")
        run = named_run(world, tid)
        if run is None or (q.run is not None and run.id != q.run):
            behind = world.label(q.run) if q.run else "no run"
            return f"CreateTaskResult to {q.id} carries taskId {tid!r}, which names no run / not {behind}"
        if not can_get_run(world, q.subject, run, q.server):
            why = "purged" if run.purged else "not yet durably readable" if not run.durable else "not readable"
            return (f"CreateTaskResult to {q.id} ({q.subject}) sent for {world.label(run.id)} while it is {why}: "
                    f"a tasks/get for {tid} would not resolve")
        found = world.rules.lookup_task(world, probe_request(q, "tasks/get", tid), tid)
        if found is None or found.id != run.id:
            return (f"CreateTaskResult to {q.id} ({q.subject}) sent for {world.label(run.id)}, but a tasks/get for "
                    f"{tid} by the same caller would answer not-found")
    return None


def _held_calls(world):
    out = []
    for q in world.open_requests():
        if (q.method == "tools/call" and q.run is not None
                and declared(q) and advertised(world, q.server)):
            run = world.runs.get(q.run)
            if run is not None and run.status in ("waiting-approval", "waiting-input"):
                out.append((q, run))
    return out


@prop("declaring-call-never-held-at-input", "CRT-4", "invariant", "RFC §B.3 rationale",
      "after every step, a declaring tools/call on a serving host that is still open while its run is "
      "waiting-approval or waiting-input has an answer enabled now (the host never holds it at a wait for "
      "client input; CRT-1 fixes that this answer is a CreateTaskResult)",
      premise=lambda world, step: bool(_held_calls(world)))
def declaring_call_never_held_at_input(world, step):
    held = _held_calls(world)
    if not held:
        return None
    answerable = world.moves("answer")
    for q, run in held:
        if {"request": q.id} not in answerable:
            return (f"declaring tools/call {q.id} of {q.subject} on {q.server} is held open with no answer while "
                    f"{world.label(run.id)} is {run.status}: the client that opted in gets no handle")
    return None


# =============================================================================================
# TASK-1
# =============================================================================================

def _readable_gets(world, step):
    out = []
    for q, msg in seen(world, step).responses:
        if q.method == "tasks/get" and declared(q) and header_matches(q) and advertised(world, q.server):
            run = named_run(world, task_ref(q))
            if run is not None and can_get_run(world, q.subject, run, q.server):
                out.append((q, msg, run))
    return out


def _task1_runs(world, step):
    """Runs created, or entering a terminal status, on a serving host this step."""
    out = []
    for rid in seen(world, step).changed:
        run = world.runs[rid]
        if (rid not in step.pre_status or run.status in RUN_TERMINAL) and advertised(world, run.server):
            out.append(run)
    return out


TASK1_STARTS = {"tasked-call": "started by a tasked call", "blocking-call": "started by a blocking call",
                "rest": "started over REST", "child": "a child", "fork": "a fork"}
TASK1_CASES = tuple(TASK1_STARTS.values())


def _task1_premise(world, step) -> tuple:
    """How each run judged this step was started: one a reader's tasks/get named, or one created or
    ended that some Subject can getRun (the lookup is probed for each)."""
    subjects = world.params.subjects
    runs = [run for _, _, run in _readable_gets(world, step)]
    runs += [run for run in _task1_runs(world, step)
             if any(can_get_run(world, s.name, run, run.server) for s in subjects)]
    return tuple(c for run in runs if (c := TASK1_STARTS.get(run.started_by)))


@prop("every-readable-run-is-a-task", "TASK-1", "step", "RFC §Why UQ4, map rows",
      "every run a caller can getRun is addressable as a task through its projected runId however it was "
      "started: a declaring tasks/get naming it is answered with that run's task, and the host's task lookup "
      "resolves the projected runId for every Subject that can getRun it (probed when the run is created and when "
      "it becomes terminal)",
      premise=_task1_premise, reads=("emitted", "terminal"), cases=TASK1_CASES)
def every_readable_run_is_a_task(world, step):
    for q, msg, run in _readable_gets(world, step):
        res = msg.get("result")
        if elicitation_refusal(msg):
            continue                       # found, and its input withheld from this caller (PRJ-4)
        if res is None or decode_task_id(res.get("taskId")) != run.id:
            return (f"tasks/get {q.id} of {q.subject} for {world.label(run.id)} (started by {run.started_by}, which "
                    f"{q.subject} can getRun) was answered {result_kind(msg)}, not its task")
    for run in _task1_runs(world, step):
        tid = project(run.id)
        for s in world.params.subjects:
            if not can_get_run(world, s.name, run, run.server):
                continue
            probe = Request(id="probe", client="probe", subject=s.name, server=run.server, transport="stdio",
                            method="tasks/get", message={"params": {"taskId": tid}}, declares_tasks=True,
                            task_ref=tid)
            found = world.rules.lookup_task(world, probe, tid)
            if found is None or found.id != run.id:
                return (f"{world.label(run.id)} (started by {run.started_by}, {run.status}) is readable by {s.name} "
                        f"but its projected runId {tid} does not resolve as a task for {s.name}")
    return None
