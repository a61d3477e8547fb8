"""Clients as a nondeterministic environment: any well-formed request, from any client.

Each client speaks for one Subject (Params.client_subject). Sending and the host's receipt are
one step; what the host does on receipt is `host.receive`.
"""
from __future__ import annotations

from . import footprint as fp
from . import identity, wire
from .actions import Product, Union, action, load_all
from .host import receive
from .lifecycle import OPEN_PHASES, TERMINAL
from .state import Request

TOOLS = ("flow", "task-only")     # task-only refuses a call without the extension (-32021)
RESPONSES = ("accept", "decline", "cancel")
NEVER_ISSUED = "acme/i-neverissuedneverissued"      # a well-formed inputResponses key naming no interrupt
# An MRTR retry may also leave a key unanswered: it resolves nothing, and its requestState is spent.
RETRY_RESPONSES = (*RESPONSES, "none")


def may_send(world, reserve: int = 0, client: str | None = None) -> bool:
    """May a client send one more request: within the shared budget (`Params.max_requests`) or, with
    `Params.client_requests`, within `client`'s own (None: any client's)."""
    cap = world.params.client_requests
    if cap is None:
        return len(world.requests) < world.params.max_requests + reserve
    if client is None:
        return any(fp.requests_sent(world, c) < cap + reserve for c in world.params.clients)
    return fp.requests_sent(world, client) < cap + reserve


def _within(world, clients, reserve: int = 0) -> list:
    """The clients among `clients` that may still send."""
    return [c for c in clients if may_send(world, reserve, c)]


def _budget_key(world, reserve: int = 0):
    """What the send moves' memo depends on as far as the budget goes: who may still send."""
    return None if world.params.client_requests is None else tuple(_within(world, world.params.clients, reserve))


def _transports(world, client, server):
    return ["http"] + (["stdio"] if (client, server) in world.stdio_open else [])


def new_request(world, client: str, server: str, transport: str, method: str, *, declares_tasks: bool,
                task_ref: str | None = None, header_ok: bool = True, params: dict | None = None,
                operation: str | None = None, subject: str | None = None) -> Request:
    """Build a request as a client sends it (the harness uses this too), with the client's own
    credentials unless `subject` names others."""
    qid = f"r{len(world.requests) + 1}"
    subject = subject or world.params.client_subject(client).name
    elicit = subject != "carol"          # carol's client does not declare elicitation
    # mallory's client (by default) declares it bare (`elicitation: {}`): form mode, implicitly (PRJ-4)
    bare = subject in world.params.elicitation_bare
    meta = wire.client_meta(declares_tasks, elicit, () if bare else wire.ELICITATION_MODES)
    p = params or {}
    if method == "tools/call":
        msg = wire.tools_call_request(qid, p.get("tool", "flow"), p.get("arguments", {"n": 1}), meta,
                                      p.get("input_responses"), p.get("request_state"))
    elif method == "tasks/get":
        msg = wire.tasks_get_request(qid, task_ref, meta)
    elif method == "tasks/update":
        msg = wire.tasks_update_request(qid, task_ref, p["input_responses"], meta)
    elif method == "tasks/cancel":
        msg = wire.tasks_cancel_request(qid, task_ref, meta)
    elif method == "subscriptions/listen":
        msg = wire.listen_request(qid, p["task_ids"], meta)
    elif method == "server/discover":
        msg = wire.discover_request(qid)
    else:
        msg = wire.unsupported_request(qid, method, meta)
    q = Request(id=qid, client=client, subject=subject, server=server, transport=transport, method=method,
                message=msg, declares_tasks=declares_tasks, declares_elicitation=elicit, task_ref=task_ref,
                operation=operation)
    if transport == "http" and task_ref is not None:
        q.mcp_name = task_ref if header_ok else task_ref + "x"
    world.requests[qid] = q
    if method == "subscriptions/listen":
        world.listens += (qid,)
    if world.step is not None:
        world.step.forms.extend(request_forms(world, q))
    return q


# ---- the forms of requests the environment generates (coverage) ------------------------------------
# Every form a dimension of the environment can take: an engine counts how often each was sent
# (`Step.forms`), and one never sent on the baseline is a vacuity of the environment.
REQUEST_FORMS = {
    "method": ("tools/call", "tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen", "server/discover",
               "unsupported"),
    "transport": ("http", "stdio"),
    "tasks declaration": ("declared", "omitted"),
    "elicitation declaration": ("form and url", "form only (implicit)", "none"),
    "task reference": ("own run", "own run, %2F form", "tenant segment swapped", "another tenant's run",
                       "same tenant, another Subject's run", "fabricated", "malformed"),
    "routing header": ("matching", "mismatched"),
    "tasks/update key": ("issued", "issued, projected form", "never issued"),
    "tasks/update keys": ("one", "two of one run", "two of two runs", "one issued, one never issued"),
    # A several-key tasks/update: what its keys name, in any mix (tasks_update_two).
    "tasks/update key mix": ("open", "answered", "projected form", "never issued", "another run's"),
    "answer action": ("accept", "decline", "cancel", "none"),
    "answer content": ("tasks/update: accept with content", "tasks/update: decline or cancel without",
                       "MRTR retry: accept with content", "MRTR retry: decline or cancel without"),
    "mrtr requestState": ("issued to the caller", "spent by an earlier retry", "another principal's"),
    # Every door a run waiting on an external event is reached by (PRJ-1, PRJ-2).
    "door on a run waiting external": ("tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen",
                                       "REST cancelRun"),
    # A tasks/get of a run whose task advertised createdAt + ttlMs (the purge time), by clock ticks (TTL-4).
    "tasks/get around createdAt + ttlMs": ("one tick before", "at it", "after it, not yet purged",
                                           "after it, purged"),
    # Not requests but the connection's signals: what a cancellation, EOF or drop meets.
    "stdio notifications/cancelled": ("of an open request", "crossing its response"),
    "stdio EOF": ("with requests open", "with none open"),
    "HTTP disconnect": ("of an open request", "with its response in flight", "after its response arrived"),
    "listen stream ends": ("torn down by the host", "dropped by its client"),
    # OWN-4: a request is cancelled while another request owns a live run on the same mount.
    "cancelled beside another request's run": ("HTTP disconnect", "stdio notifications/cancelled", "stdio EOF"),
}


def request_forms(world, q) -> list[tuple[str, str]]:
    """The (dimension, form) pairs request q takes, judged from the request as sent."""
    params = q.message.get("params") or {}
    method = q.method if q.method in REQUEST_FORMS["method"] else "unsupported"
    out = [("method", method), ("transport", q.transport),
           ("tasks declaration", "declared" if q.declares_tasks else "omitted"),
           ("elicitation declaration", _elicitation_form(q.message))]
    if q.task_ref is not None:
        out.append(("task reference", _ref_form(world, q)))
        if q.transport == "http":
            out.append(("routing header", "matching" if q.mcp_name == q.task_ref else "mismatched"))
    answers = params.get("inputResponses")
    if q.method == "tasks/update":
        raw = identity.unproject(q.task_ref or "")
        run = world.runs.get(raw) if raw else None
        issued = run.interrupts if run is not None else ()
        out += [("tasks/update key", "issued" if k in issued else "issued, projected form"
                 if identity.unproject(k) in issued else "never issued") for k in answers or {}]
        if answers:
            out.append(("tasks/update keys", _keys_form(world, list(answers))))
    if answers is not None:
        out += [("answer action", a.get("action", "none")) for a in answers.values()] or [("answer action", "none")]
        how = "tasks/update" if q.method == "tasks/update" else "MRTR retry"
        out += [("answer content", f"{how}: accept with content" if a.get("action") == "accept"
                 else f"{how}: decline or cancel without") for a in answers.values()
                if ("content" in a) == (a.get("action") == "accept")]
    if q.method == "tasks/update" and len(answers or {}) > 1:
        out += [("tasks/update key mix", m) for m in sorted(_key_mix(world, q, answers))]
    if q.method in ("tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen"):
        refs = params.get("notifications", {}).get("taskIds", []) if q.task_ref is None else [q.task_ref]
        if any(r is not None and r.status == "waiting-external" and not r.purged
               for r in (world.runs.get(identity.unproject(ref) or "") for ref in refs)):
            out.append(("door on a run waiting external", q.method))
    if q.method == "tasks/get":
        out += _expiry_form(world, world.runs.get(identity.unproject(q.task_ref or "") or ""))
    if q.method == "tools/call" and params.get("requestState") is not None:
        token = params["requestState"]
        rs = world.request_states.get(token)
        spent = any(o is not q and (o.message.get("params") or {}).get("requestState") == token
                    for o in world.requests.values())
        out.append(("mrtr requestState", "another principal's" if rs is None or rs.principal != q.subject
                    else "spent by an earlier retry" if spent else "issued to the caller"))
    return out


def _key_mix(world, q, answers) -> set[str]:
    run = world.runs.get(identity.unproject(q.task_ref or "") or "")
    mix = set()
    for k in answers:
        i = world.interrupts.get(k) or world.interrupts.get(identity.unproject(k) or "")
        if i is None:
            mix.add("never issued")
        elif run is None or i.run != run.id:
            mix.add("another run's")
        else:
            mix.add("projected form" if k not in world.interrupts else "open" if i.open else "answered")
    return mix


def _expiry_form(world, run) -> list[tuple[str, str]]:
    """Where a tasks/get of `run` falls, within a tick, around the createdAt + ttlMs its task advertises."""
    ttl = world.rules.ttl_ms(world, run) if run is not None else None
    if ttl is None:
        return []
    tick = world.params.tick_ms
    ahead = run.created_at * tick + ttl - world.clock * tick     # ms until createdAt + ttlMs
    if not -tick <= ahead <= tick:
        return []
    form = "one tick before" if ahead > 0 else "at it" if ahead == 0 else \
        "after it, purged" if run.purged else "after it, not yet purged"
    return [("tasks/get around createdAt + ttlMs", form)]


def cancellation_forms(world, q, signal: str) -> list[tuple[str, str]]:
    """The connection event `signal` cancelling open request q meets: another request owns a live run
    on the same mount (OWN-4's premise: that run is not q's to cancel). Read before the move writes
    any request (`World.owning_at_start`)."""
    if q.phase not in OPEN_PHASES:
        return []
    owning = map(world.requests.__getitem__, world.owning_at_start())
    if any(o is not q and o.owns is not None and o.server == q.server and o.phase in OPEN_PHASES
           and world.runs[o.owns].status not in TERMINAL for o in owning):
        return [("cancelled beside another request's run", signal)]
    return []


def _elicitation_form(message) -> str:
    el = (((message.get("params") or {}).get("_meta") or {}).get(wire.META_CLIENT_CAPABILITIES) or {}).get("elicitation")
    return "none" if el is None else "form only (implicit)" if not el else "form and url"


def _keys_form(world, keys) -> str:
    if len(keys) == 1:
        return "one"
    named = [world.interrupts.get(k) or world.interrupts.get(identity.unproject(k) or "") for k in keys]
    if any(i is None for i in named):
        return "one issued, one never issued"
    return "two of one run" if len({i.run for i in named}) == 1 else "two of two runs"


def _ref_form(world, q) -> str:
    ref = q.task_ref
    raw = identity.unproject(ref)
    if raw is None:
        return "malformed"
    run = world.runs.get(raw)
    if run is None:
        other = identity.opaque(raw)
        return "tenant segment swapped" if any(identity.opaque(r) == other for r in world.runs) else "fabricated"
    if run.tenant != world.params.subject(q.subject).tenant:
        return "another tenant's run"
    if run.owner != q.subject:
        return "same tenant, another Subject's run"
    return "own run, %2F form" if "%2F" in ref else "own run"


# ---- tools/call ----------------------------------------------------------------------------------
def _call_moves(world):
    if not may_send(world):
        return []
    plain = world.memo("call_tool", (frozenset(world.stdio_open), _budget_key(world)), lambda: Union(
        Product([("transport", _transports(world, c, s)), ("declare", [True, False]), ("tool", TOOLS)],
                extra=dict(client=c, server=s))
        for c in _within(world, _callers(world)) for s, _ in world.params.servers))
    return Union([plain, _parent_call_moves(world)]) if world.params.call_parents else plain


def _parent_call_moves(world) -> list[dict]:
    """P-CALL-PARENT (`Params.call_parents`): each caller's call of `flow` naming, as its parent, a live run
    (neither terminal nor cancelling) of its own tenant on that run's mount: one a caller with runs:read
    can read. After the plain calls, so that their moves keep their places."""
    out = []
    for r in world.runs.values():
        if r.purged or r.status in TERMINAL or r.status == "cancelling":
            continue
        out += [dict(client=c, server=r.server, transport=t, declare=d, tool="flow", parent=r.id)
                for c in _within(world, _callers(world)) if world.params.client_subject(c).tenant == r.tenant
                for t in _transports(world, c, r.server) for d in (True, False)]
    return out


def _callers(world):
    """The clients that call tools: not one whose Subject lacks runs:read (dave). The sources do not
    say what a tasked call of such a Subject gets: CRT-1 wants a CreateTaskResult, CRT-3 one its caller
    can read, and no scope gates tools/call (a question for the RFC's authors, left out here)."""
    return [c for c in world.params.clients if "runs:read" in world.params.client_subject(c).scopes]


CALL_RULES = ("tasks_capability_ok", "serves_tasks", "missing_capability", "http_status", "releases_ownership",
              "join_existing_run", "mint_run_id", "durable_on_create", "owns_on_receipt")
def _send_enables(world, a) -> set:
    """A send stays enabled while the budget lasts (`fp.budget`), its stdio connection is open, and a
    fabricated task reference it names is not sent yet (`_task_refs`): no other move takes back a run,
    an interrupt or a reference."""
    out = fp.budget(world, 0, a["client"])
    if a.get("transport") == "stdio":
        out.add(fp.stdio(a["client"], a["server"]))
    if a.get("ref") in FABRICATED:
        out.add(fp.sent_ref(a["ref"]))
    return out


# The run a call creates has an id the baseline's rule mints from the serial (`fp.new_run`: both lengths,
# so one id more than the move makes). A call naming a parent also reads that run (is it live and
# readable?) and writes it (the new run joins its children), so the parent's staying live enables it.
def _call_footprint(world, a) -> set:
    tenant = world.params.client_subject(a["client"]).tenant
    out = fp.new_request(world, client=a["client"]) | fp.new_run(world, tenant)
    return out | {fp.run(a["parent"])} if "parent" in a else out


PARENT_RULES = ("task_id", "lookup_task", "decode_task_ref", "can_read")
CALL = fp.footprint(lambda w, a: _call_footprint(w, a) | {fp.CLOCK}, _call_footprint, CALL_RULES + PARENT_RULES,
                    exact=False, enables=lambda w, a: _send_enables(w, a) | (
                        {fp.run(a["parent"])} if "parent" in a else set()))


def _sends(received=fp.received, listen: bool = False, enables=_send_enables):
    """A client's request other than tools/call: the new request and its receipt (and the reference it
    sends, `fp.sent_ref`)."""
    def keys(world, a):
        return fp.new_request(world, listen, a["client"]) | received(world) | (
            {fp.sent_ref(a["ref"])} if "ref" in a else set())
    return fp.footprint(keys, keys, enables=enables)


# Sends a client makes once: another of its kind, or the probes' cap, takes the move back.
ONCE = lambda w, a: _send_enables(w, a) | {fp.table("requests")}    # noqa: E731


@action("client", _call_moves, footprint=CALL, say=lambda w, a: (
    f"client {a['client']} sends tools/call {w.last_request()} ({a['tool']}) over {a['transport']} to "
    f"{a['server']}{' declaring tasks' if a['declare'] else ''}"
    f"{' naming ' + w.label(a['parent']) + ' its parent' if 'parent' in a else ''}"))
def call_tool(world, client, server, transport, declare, tool, parent=None):
    """A client calls a tool: the host validates, creates the run and owns it until it answers. With
    `parent` (P-CALL-PARENT), its arguments name that run's taskId as `parentRunId`."""
    arguments = {"n": 1} if parent is None else {
        "n": 1, "parentRunId": world.rules.task_id(world, world.runs[parent])}
    q = new_request(world, client, server, transport, "tools/call", declares_tasks=declare,
                    params={"tool": tool, "arguments": arguments})
    receive(world, q)


def _bad_call_moves(world):
    if not may_send(world) or any(q.message["params"].get("name") == "bad-args" for q in world.requests.values()
                                 if q.method == "tools/call"):
        return []
    return [dict(client=c, server="S1", declare=d) for c in _within(world, world.params.clients[:1])
            for d in (True, False)]


@action("client", _bad_call_moves, footprint=_sends(lambda w: {fp.rule("http_status"), fp.rule("releases_ownership")},
                                                   enables=ONCE),
        say=lambda w, a: (
    f"client {a['client']} sends tools/call {w.last_request()} with arguments its input schema refuses"))
def call_tool_bad_args(world, client, server, declare):
    """Arguments are validated before any run is created: -32602 and no run."""
    q = new_request(world, client, server, "http", "tools/call", declares_tasks=declare,
                    params={"tool": "bad-args", "arguments": {"n": "x"}})
    receive(world, q)


# ---- MRTR retry ----------------------------------------------------------------------------------
def _retry_moves(world):
    if not may_send(world, reserve=world.params.retry_reserve):   # a retry continues a call: requests in reserve
        return []
    return Union(Product([("client", _within(world, world.params.clients, world.params.retry_reserve)),
                          ("response", RETRY_RESPONSES),
                          ("declare", [True, False])],
                         extra=dict(answers=q.id))
                 for q in world.requests.values()
                 if q.phase == "delivered" and q.response
                 and q.response.get("result", {}).get("resultType") == "input_required")


def _retry_footprint(world, a):
    """The retry, the request it answers (its response names the requestState), the stdio connection
    it may go over, and the requestState, run and interrupts that state names."""
    prev = world.requests[a["answers"]]
    token = prev.response["result"].get("requestState")
    out = fp.new_request(world, client=a["client"]) | {fp.request(prev.id), fp.stdio(a["client"], prev.server),
                                   fp.request_state(token), fp.CLOCK}
    rs = world.request_states.get(token)
    if rs is not None:
        out |= {fp.run(rs.run), fp.log(rs.run)} | {fp.interrupt(i) for i in world.runs[rs.run].interrupts}
    return out


@action("client", _retry_moves, footprint=fp.footprint(
    _retry_footprint, _retry_footprint, ("owns_on_receipt", "request_state_verifies", "http_status",
                                         "releases_ownership") + fp.RESOLVE_RULES,
    enables=lambda w, a: fp.budget(w, w.params.retry_reserve, a["client"]) | {fp.request(a["answers"])}),
    say=lambda w, a: (
    f"client {a['client']} retries tools/call {w.last_request()} answering {a['answers']}'s input "
    f"request with {a['response']}{' declaring tasks' if a['declare'] else ''}"))
def mrtr_retry(world, client, answers, response, declare):
    """An MRTR retry: a new request echoing requestState and answering every inputRequests key."""
    prev = world.requests[answers]
    result = prev.response["result"]
    responses = {k: {"action": response, **({"content": {"approved": True}} if response == "accept" else {})}
                 for k in result.get("inputRequests", {}) if response != "none"}
    transport = prev.transport if (client, prev.server) in world.stdio_open or prev.transport == "http" else "http"
    q = new_request(world, client, prev.server, transport, "tools/call", declares_tasks=declare,
                    params={"tool": prev.message["params"]["name"], "arguments": prev.message["params"]["arguments"],
                            "input_responses": responses, "request_state": result.get("requestState")})
    q.retry_of = prev.id
    receive(world, q)


# ---- tasks/* -------------------------------------------------------------------------------------
# A well-formed id never issued, and a malformed one no variant issues either (short-task-id issues
# `t-42`, ...: a probe equal to an issued id would be that task, not a fabrication).
FABRICATED = ("acme~2FAAAAAAAAAAAAAAAAAAAAAAAAnotissued", "not-a-run-id")
def _refs_key(world):
    """What the task references depend on: the runs (ids never change) and which fabricated ids
    were already sent."""
    return len(world.runs), sum(q.task_ref in FABRICATED for q in world.requests.values())


def task_refs(world, server: str | None = None) -> list[tuple[str, str]]:
    """Task ids a client may send: every run's projected and %2F forms, plus fabricated ones."""
    return world.memo(f"task_refs:{server}", _refs_key(world), lambda: _task_refs(world, server))


def _task_refs(world, server):
    refs = []
    for r in world.runs.values():
        if server is None or r.server == server:
            tid = world.rules.task_id(world, r)
            refs.append((r.server, tid))
            if "~2F" in tid:
                refs.append((r.server, tid.replace("~2F", "%2F")))
                # The same opaque segment under another tenant: names no run, so a host that looks
                # tasks up by the opaque segment alone answers for a run it was not asked about.
                other = next((t for t in world.params.tenants if t != r.tenant), None)
                if other is not None and "/" in r.id:
                    refs.append((r.server, identity.project(f"{other}/{identity.opaque(r.id)}")))
    # Fabricated ids (well-formed but never issued; malformed): one probe of each is enough.
    used = {q.task_ref for q in world.requests.values()}
    for s, serves in world.params.servers:
        if serves and (server is None or s == server):
            refs.extend((s, ref) for ref in FABRICATED if ref not in used)
    return refs


# Flag combinations a task request varies over (each checked by some property).
HTTP_FLAGS = [dict(transport="http", declare=True, header_ok=True), dict(transport="http", declare=False, header_ok=True),
              dict(transport="http", declare=True, header_ok=False)]
STDIO_FLAGS = [dict(transport="stdio", declare=True, header_ok=True)]


def _task_moves(world, extra=None):
    """Every (client, task reference) with every flag combination; stdio only where it is open."""
    if not may_send(world):
        return []
    key = (_refs_key(world), frozenset(world.stdio_open), len(world.interrupts), _budget_key(world))
    if extra is None:      # tasks/get and tasks/cancel share their moves
        return world.memo("task_moves", key, lambda: _build_task_moves(world, None))
    return world.memo("task_moves:update", key, lambda: _build_task_moves(world, extra))


def _build_task_moves(world, extra):
    parts = []
    for s, ref in task_refs(world):
        axes_extra = [("*extra", extra(world, s, ref))] if extra else []
        target = dict(server=s, ref=ref)
        clients = _within(world, world.params.clients)
        parts.append(Product([("client", clients), ("*flags", HTTP_FLAGS), *axes_extra], target))
        stdio = [c for c in clients if (c, s) in world.stdio_open]
        if stdio:
            parts.append(Product([("client", stdio), ("*flags", STDIO_FLAGS), *axes_extra], target))
    return Union(parts)


def _say_task(method):
    return lambda w, a: (f"client {a['client']} sends {method} {w.last_request()} for {w.label(a['ref'])}"
                         + (f" answering {w.label(a['key'])} with {a['response']}" if 'key' in a else "")
                         + ("" if a['declare'] else " without declaring tasks")
                         + ("" if a['header_ok'] else " with a mismatched Mcp-Name"))


@action("client", _task_moves, _say_task("tasks/get"), footprint=_sends())
def tasks_get(world, client, server, ref, transport, declare, header_ok):
    """tasks/get: read a task (getRun under the caller's Subject)."""
    receive(world, new_request(world, client, server, transport, "tasks/get", declares_tasks=declare,
                               task_ref=ref, header_ok=header_ok))


def _update_extra(world, server, ref):
    raw = world.rules.decode_task_ref(world, ref)
    run = world.runs.get(raw) if raw else None
    keys = list(run.interrupts) if run else []
    # Each key also in its projected form: under P-KEYFORM "raw" that names no interrupt.
    keys = keys + [identity.project(k) for k in keys] + [NEVER_ISSUED]
    return [dict(key=k, response=r) for k in keys for r in RESPONSES]


def _answer_again_moves(world) -> list[dict]:
    """With `Params.answer_again`, past the request budget (within the retry reserve), each run owner's
    tasks/update answering again an interrupt an answer already resolved: a message tasks_update sends
    within it. An interrupt never reopens, so only the budget takes such a move back (`_send_enables`)."""
    if not world.params.answer_again:
        return []
    out = []
    for i in world.interrupts.values():
        run = world.runs[i.run]
        c = _owner_client(world, run)
        if i.open or i.kind == "external-event" or c is None or may_send(world, 0, c) \
                or not may_send(world, world.params.retry_reserve, c):
            continue
        out.append(dict(client=c, server=run.server, ref=world.rules.task_id(world, run), transport="http",
                        declare=True, header_ok=True, key=i.id, response="accept"))
    return out


def _update_moves(world):
    return Union([_task_moves(world, _update_extra), _answer_again_moves(world)])


@action("client", _update_moves, _say_task("tasks/update"), footprint=_sends())
def tasks_update(world, client, server, ref, transport, declare, header_ok, key, response):
    """tasks/update: answer one inputRequests key (resolveInterruptByRun)."""
    content = {"action": response, **({"content": {"approved": True}} if response == "accept" else {})}
    receive(world, new_request(world, client, server, transport, "tasks/update", declares_tasks=declare,
                               task_ref=ref, header_ok=header_ok, params={"input_responses": {key: content}}))


def _two_key_moves(world):
    """A tasks/update answering several keys at once, with one action for all: two issued keys of a run
    with parallel nodes (one answered, the other outstanding: partial fulfilment when only one
    resolves), and every pair, and the three first, of an open key, an answered one, a projected one,
    one never issued and another run's. Sent by every client, declaring, over HTTP, to the run's own
    task id."""
    if not may_send(world):
        return []
    out = []
    for r in world.runs.values():
        if not r.interrupts or r.purged:
            continue
        last = r.interrupts[-1]
        mine = [world.interrupts[i] for i in r.interrupts]
        kinds = [next((i.id for i in mine if i.open), None), next((i.id for i in mine if not i.open), None),
                 identity.project(last), NEVER_ISSUED,
                 next((i for i in world.interrupts if world.interrupts[i].run != r.id), None)]
        kinds = [k for k in kinds if k is not None]
        mixes = ([(r.interrupts[0], r.interrupts[1])] if len(r.interrupts) > 1 else []) + \
            [(a, b) for n, a in enumerate(kinds) for b in kinds[n + 1:]] + \
            ([tuple(kinds[:3])] if len(kinds) >= 3 else [])
        ref = world.rules.task_id(world, r)
        out += [dict(client=c, server=r.server, ref=ref, key=m[0], also=m[1], response=resp,
                     **({"third": m[2]} if len(m) > 2 else {}))
                for c in _within(world, world.params.clients) for m in dict.fromkeys(mixes) for resp in RESPONSES]
    return out


def _answer_all_moves(world) -> list[dict]:
    """With `Params.answer_all`, past the request budget (within the retry reserve), each run owner's
    tasks/update answering both open input requests of a run that has two at once (tasks_update_two's
    message): the task then changes twice in one step (NTF-4)."""
    if not world.params.answer_all:
        return []
    out = []
    for run in world.runs.values():
        keys = [i.id for i in run.open_interrupts(world) if i.kind != "external-event"]
        c = _owner_client(world, run)
        if len(keys) != 2 or run.purged or c is None or may_send(world, 0, c) \
                or not may_send(world, world.params.retry_reserve, c):
            continue
        out.append(dict(client=c, server=run.server, ref=world.rules.task_id(world, run), key=keys[0], also=keys[1],
                        response="accept"))
    return out


def _several_key_moves(world):
    return _two_key_moves(world) + _answer_all_moves(world)


@action("client", _several_key_moves, footprint=_sends(enables=None), say=lambda w, a: (
    f"client {a['client']} sends tasks/update {w.last_request()} for {w.label(a['ref'])} answering "
    f"{w.label(a['key'])}{', ' + w.label(a['third']) if 'third' in a else ''} and {w.label(a['also'])} "
    f"with {a['response']}"))
def tasks_update_two(world, client, server, ref, key, also, response, third=None):
    """tasks/update with two or three inputResponses keys, one answer action for all."""
    content = {"action": response, **({"content": {"approved": True}} if response == "accept" else {})}
    keys = [key, also] + ([third] if third is not None else [])
    receive(world, new_request(world, client, server, "http", "tasks/update", declares_tasks=True, task_ref=ref,
                               header_ok=True, params={"input_responses": {k: dict(content) for k in keys}}))


@action("client", _task_moves, _say_task("tasks/cancel"), footprint=_sends())
def tasks_cancel(world, client, server, ref, transport, declare, header_ok):
    """tasks/cancel: cancel the run behind a task (cancelRun)."""
    receive(world, new_request(world, client, server, transport, "tasks/cancel", declares_tasks=declare,
                               task_ref=ref, header_ok=header_ok))


def _unsupported_moves(world):
    if not may_send(world):
        return []
    sent = {q.method for q in world.requests.values()}
    return [dict(client=c, server=s, method=m) for c in _within(world, world.params.clients[:1])
            for s, serves in world.params.servers if serves for m in ("tasks/list", "tasks/result") if m not in sent]


@action("client", _unsupported_moves, lambda w, a: f"client {a['client']} sends {a['method']} {w.last_request()}",
        footprint=_sends(enables=ONCE))
def unsupported(world, client, server, method):
    """A method the 2026-07-28 revision removed."""
    receive(world, new_request(world, client, server, "http", method, declares_tasks=True))


def _listen_moves(world):
    # One probe is enough to check what a listen stream says; more only eat the request budget.
    if not may_send(world) or len(world.listens) >= 2:
        return []
    return Product([("client", _within(world, world.params.clients)), ("server", [s for s, _ in world.params.servers]),
                    ("declare", [True, False])])


# The task ids it asks for: every run's (which runs exist; a run's id and server never change) and the
# fabricated ones not sent yet.
@action("client", _listen_moves, footprint=_sends(
    lambda w: fp.received(w) | {fp.table("runs"), fp.rule("task_id")} | {fp.sent_ref(ref) for ref in FABRICATED},
    listen=True, enables=lambda w, a: fp.budget(w, 0, a["client"]) | {fp.table("listens")}),
        say=lambda w, a: (
    f"client {a['client']} opens subscriptions/listen {w.last_request()} on {a['server']} for every task it "
    f"knows of{'' if a['declare'] else ' without declaring tasks'}"))
def listen(world, client, server, declare):
    """subscriptions/listen asking for notifications/tasks on every known task id."""
    refs = [ref for s, ref in task_refs(world, server)]
    receive(world, new_request(world, client, server, "http", "subscriptions/listen", declares_tasks=declare,
                               params={"task_ids": refs}))


def _discover_moves(world):
    if not may_send(world):
        return []
    asked = {q.server for q in world.requests.values() if q.method == "server/discover"}
    return [dict(client=c, server=s) for c in _within(world, world.params.clients[:1]) for s, _ in world.params.servers
            if s not in asked]


@action("client", _discover_moves, lambda w, a: f"client {a['client']} sends server/discover to {a['server']}",
        footprint=_sends(enables=ONCE))
def discover(world, client, server):
    """server/discover: the host's advertisement."""
    receive(world, new_request(world, client, server, "http", "server/discover", declares_tasks=False))


# ---- stdio cancellation --------------------------------------------------------------------------
def _stdio_cancel_moves(world):
    return [dict(request=q.id) for q in world.requests.values()
            if q.transport == "stdio" and q.phase in ("received", "streaming", "sent") and not q.cancel_sent]


def _cancel_footprint(world, a):
    """A request cancelled by its connection: it, and the run it owns with every run below it."""
    q = world.requests[a["request"]]
    return {fp.request(q.id), fp.CLOCK} | fp.cancelling(world, q.owns)


CANCEL_RULES = ("cancellation_applies", "on_request_cancelled", "cancel_run", "lifecycle_fire", "releases_ownership")


@action("client", _stdio_cancel_moves, footprint=fp.footprint(_cancel_footprint, fp.unclocked(_cancel_footprint),
                                                              CANCEL_RULES, enables=fp.REQUEST),
        say=lambda w, a: (
    f"client {w.requests[a['request']].client} sends notifications/cancelled for {a['request']}"))
def stdio_cancel(world, request):
    """A stdio client cancels its own request (it may cross the response in flight)."""
    from .network import cancel_request
    q = world.requests[request]
    q.cancel_sent = True
    if world.step is not None:
        world.step.forms.append(("stdio notifications/cancelled",
                                 "crossing its response" if q.phase == "sent" else "of an open request"))
        world.step.forms.extend(cancellation_forms(world, q, "stdio notifications/cancelled"))
    world.emit(None, wire.cancelled_notification(request, "client cancelled"))
    cancel_request(world, world.requests[request], "stdio-cancelled")


def _stdio_close_moves(world):
    used = {(q.client, q.server) for q in world.requests.values() if q.transport == "stdio"}
    return [dict(client=c, server=s) for (c, s) in sorted(world.stdio_open & used)]


def _close_footprint(world, a):
    """The connection, and every request sent over it (with what cancelling each may reach)."""
    out = {fp.stdio(a["client"], a["server"]), fp.table("stdio_open"), fp.table("requests"), fp.CLOCK}
    for q in world.requests.values():
        if (q.client, q.server, q.transport) == (a["client"], a["server"], "stdio"):
            out |= {fp.request(q.id)} | fp.cancelling(world, q.owns)
    return out


@action("client", _stdio_close_moves, lambda w, a: f"client {a['client']} closes its stdio transport to {a['server']}",
        footprint=fp.footprint(_close_footprint, fp.unclocked(_close_footprint), CANCEL_RULES, enables=lambda w, a: {
            fp.stdio(a["client"], a["server"]), fp.table("stdio_open"), fp.table("requests")}))
def stdio_close(world, client, server):
    """stdio EOF: per P-STDIO-EOF every request still open on it is cancelled (default) or nothing."""
    from .network import cancel_request
    world.stdio_open.discard((client, server))
    if world.step is not None:
        open_ = any(q.client == client and q.server == server and q.transport == "stdio"
                    and q.phase in ("received", "streaming") for q in world.requests.values())
        world.step.forms.append(("stdio EOF", "with requests open" if open_ else "with none open"))
        on_it = [q for q in world.requests.values() if (q.client, q.server, q.transport) == (client, server, "stdio")]
        world.step.forms.extend(dict.fromkeys(f for q in on_it for f in cancellation_forms(world, q, "stdio EOF")))
    if world.params.p_stdio_eof == "cancel-open":
        for q in list(world.requests.values()):
            if q.client == client and q.server == server and q.transport == "stdio" and q.phase in ("received", "streaming"):
                cancel_request(world, q, "stdio-eof")


# ---- focus: requests random steps reach rarely ---------------------------------------------------
# Each focus action sends a request another client action could send (the same message; beyond
# max_requests only within Params.focus_reserve), chosen where a premise needs a rare moment: a run
# waiting on an external event (which `external_event` soon ends) reached by every MCP door (REST's
# cancelRun reaches it as `rest_cancel`), and a tasks/get within a tick of the createdAt + ttlMs its
# task advertised (the purge time). Both moments come late in a behaviour, when the request budget is
# mostly spent. The request is only received in the focus step (`respond` answers it later, unless
# Params.atomic_answers), so a property that reads which action a step took misses nothing.
def _owner_client(world, run) -> str | None:
    return next((c for c in world.params.clients if world.params.client_subject(c).name == run.owner), None)


def _door_moves(world, run, doors) -> list[dict]:
    c = _owner_client(world, run)
    if c is None or not may_send(world, world.params.focus_reserve, c):
        return []
    read = dict(client=c, server=run.server, ref=world.rules.task_id(world, run), transport="http",
                declare=True, header_ok=True)
    by = {"tasks_get": read, "tasks_cancel": read, "listen": dict(client=c, server=run.server, declare=True),
          "tasks_update": dict(read, key=run.interrupts[-1] if run.interrupts else NEVER_ISSUED, response="accept")}
    listens = len(world.listens)
    return [dict(by[d], door=d) for d in doors if d != "listen" or listens < 2]


def _waiting_external_moves(world):
    return [m for r in world.runs.values() if r.status == "waiting-external" and not r.purged
            for m in _door_moves(world, r, ("listen", "tasks_cancel", "tasks_update", "tasks_get"))]


def _near_expiry_moves(world):
    return [m for r in world.runs.values() if _expiry_form(world, r) for m in _door_moves(world, r, ("tasks_get",))]


def _say_focus(world, a):
    return load_all()[a["door"]].say(world, {k: v for k, v in a.items() if k != "door"})


# Weighted so that one is likely taken within the few steps its moment lasts (each enabled action is
# drawn in proportion to its weight, `model.actions.WEIGHTS`).
def _door_footprint(part):
    """The footprint of the door's own move."""
    def keys(world, a):
        door = load_all()[a["door"]].footprint.of(world, {k: v for k, v in a.items() if k != "door"})
        return door[part]
    return keys


DOOR = fp.footprint(_door_footprint(0), _door_footprint(1))


@action("client", _waiting_external_moves, _say_focus, weight=20, footprint=DOOR)
def read_waiting_external(world, door, **args):
    """A run's owner reaches it by `door` (the action it takes a move of) while it waits on an external
    event (PRJ-1, PRJ-2)."""
    load_all()[door].apply(world, **args)


@action("client", _near_expiry_moves, _say_focus, weight=6, footprint=DOOR)
def read_near_expiry(world, door, **args):
    """A run's owner reads its task within a tick of createdAt + ttlMs, before or after the purge (TTL-4)."""
    load_all()[door].apply(world, **args)


def _external_interrupt_moves(world, ids=None):
    moves = world.moves("run_interrupt") if ids is None else load_all()["run_interrupt"].moves_on(world, ids)
    return [m for m in moves if m["kind"] == "external-event"]


@action("host", _external_interrupt_moves, lambda w, a: load_all()["run_interrupt"].say(w, a), weight=2,
        footprint=fp.footprint(lambda w, a: load_all()["run_interrupt"].footprint.of(w, a)[0],
                               lambda w, a: load_all()["run_interrupt"].footprint.of(w, a)[1], exact=False,
                               enables=lambda w, a: load_all()["run_interrupt"].footprint.enabling(w, a)),
        moves_on=_external_interrupt_moves)
def await_external(world, run, kind, form):
    """A run suspends on an external event: `run_interrupt`'s rarest kind, taken as often as another kind
    (so that a run waiting on an external event is there to be read)."""
    load_all()["run_interrupt"].apply(world, run=run, kind=kind, form=form)
