"""Between the executable model and the encoding: the abstraction of a `World` to an encoded state,
and the codec between a step's `(action, args)` and the encoding's bounded argument choices.

`abstract(world, enc)` is the function the soundness argument of docs/z3.md is about: every
concrete step `w -> w'` taken with `(action, args)` must satisfy
`enc.step(abstract(w), action, encode_args(w, action, args))` landing on `abstract(w')`.
"""
from __future__ import annotations

from model import identity, wire
from model.lifecycle import REQUEST_PHASES, RUN_STATUSES
from properties.creation import EXT, features_problem, probe_request
from properties.notify_wire import CREATE_FIELDS, run_internals

from verifier.engines.z3 import encoding as E
from verifier.engines.z3.encoding import Args, Encoding


# Request forms the executable model's clients send that the encoding has no argument for: the Z3
# engine's verdicts are judged over the environment without them (stated in its bounds), and the
# cross-checks walk the model within that environment (`encoded_moves`).
NOT_ENCODED_FORMS = {
    ("task reference", "tenant segment swapped"): "a task reference naming no run with another tenant's segment",
    ("answer action", "none"): "an MRTR retry answering no key",
    ("tasks/update key", "issued, projected form"): "a tasks/update key in projected form",
}
# Host moves the encoding has no case for: a second interrupt on a run already waiting (parallel nodes).
NOT_ENCODED_MOVES = {"run_interrupt": ("a second interrupt on a waiting run (parallel nodes)",
                                       lambda world, args: world.runs[args["run"]].status != "running")}


def encoded_moves(world, action: str) -> list[dict]:
    """The model's moves of `action` whose requests take only encoded forms (each tried on a clone)."""
    from model.snapshot import clone
    if action in E.NOT_ENCODED_ACTIONS:
        return []
    skip = NOT_ENCODED_MOVES.get(action, (None, lambda world, args: False))[1]
    out = []
    for args in world.moves(action):
        if skip(world, args):
            continue
        if _sends(action) and set(clone(world).apply(action, args, check=False).forms) & NOT_ENCODED_FORMS.keys():
            continue
        out.append(args)
    return out


def _sends(action: str) -> bool:
    """Only clients and the harness send requests, so only their moves take request forms."""
    from model.actions import load_all
    return load_all()[action].actor in ("client", "harness")


class AbstractionError(Exception):
    """A concrete state the encoding cannot represent (more slots than the instance has, ...)."""


def _slot(ids: list, some_id, what: str) -> int:
    if some_id is None:
        return -1
    try:
        return ids.index(some_id)
    except ValueError:
        raise AbstractionError(f"{what} {some_id!r} is unknown") from None


def _ref(world, ref: str) -> tuple[int, int]:
    """A task reference as (run slot, form): form 0 the projected id, 1 the %2F form; a fabricated
    reference has run slot -1 and form 0 (not issued) or 1 (malformed)."""
    found = [(-1, E.FAB_REFS.index(ref))] if ref in E.FAB_REFS else []
    for k, r in enumerate(world.runs.values()):
        tid = world.rules.task_id(world, r)
        if ref == tid:
            found.append((k, 0))
        elif "~2F" in tid and ref == tid.replace("~2F", "%2F"):
            found.append((k, 1))
    if len(found) != 1:
        raise AbstractionError(f"task reference {ref!r} is " + ("ambiguous" if found else
                               "no run's and not a fabricated one"))
    return found[0]


def _task_id_form(flag: str, k: int, rid: str) -> str:
    """The taskId the encoding's `task_id` flag says run slot k with runId `rid` has."""
    return {"projected": identity.project(rid), "counter": f"t-{42 + k}",
            "opaque-handle": "h-" + identity.opaque(rid)}[flag]


def _check_ids(world, enc: Encoding) -> None:
    """The id rules the encoding reads through flags (task_id, decode_task_ref, mint_run_id's lengths)
    agree with the rules' code on this world: each run's taskId, the host's reading of every reference
    sent and of every projected runId, and each runId's 128 bits."""
    rules, f = world.rules, enc.flags
    ids = {}
    for k, (rid, r) in enumerate(world.runs.items()):
        tid = rules.task_id(world, r)
        if tid != _task_id_form(f["task_id"], k, rid):
            raise AbstractionError(f"{world.label(rid)} has taskId {tid!r}, not the {f['task_id']} form of the flag")
        ids[tid] = rid
        if (len(identity.opaque(rid)) >= identity.MIN_OPAQUE_128_BITS) != bool(enc.long_id(E.BY.index(r.started_by))):
            raise AbstractionError(f"{world.label(rid)} (started by {r.started_by}) has an opaque segment of "
                                   f"{len(identity.opaque(rid))} characters, against the Params' mint lengths")
    refs = {q.task_ref for q in world.requests.values() if q.task_ref} | {identity.project(rid) for rid in world.runs}
    for ref in refs:
        want = identity.unproject(ref) if f["decode_task_ref"] == "unproject" else ids.get(ref)
        if rules.decode_task_ref(world, ref) != want:
            raise AbstractionError(f"decode_task_ref({ref!r}) is {rules.decode_task_ref(world, ref)!r}, not {want!r} "
                                   f"as the flag {f['decode_task_ref']!r} says")


def _resp(q) -> tuple[int, int]:
    m = q.response
    if m is None:
        return E.RESP["none"], -1
    if "error" in m:
        code, msg = m["error"]["code"], m["error"]["message"]
        kind = {-32021: "missing-capability", -32020: "header-mismatch", -32601: "method-not-found",
                -32603: "internal-error"}.get(code)
        if kind is None and code == -32602:
            kind = {"Task not found": "not-found", "Invalid arguments": "invalid-args",
                    "Invalid or used requestState": "invalid-request-state"}.get(msg, "invalid-params-other")
        return E.RESP[kind or "other"], -1
    r = m["result"]
    rt = r.get("resultType")
    if rt == "task":
        return E.RESP["create-task"], E.TS[r["status"]]
    if rt == "input_required":
        return E.RESP["input-required"], -1
    if "isError" in r and "content" in r:
        return E.RESP["call-error" if r["isError"] else "call-ok"], -1
    if "taskId" in r:
        return E.RESP["get"], E.TS[r["status"]]
    if "capabilities" in r:
        return E.RESP["discover"], -1
    if set(r) <= {"resultType", "_meta"}:
        return E.RESP["ack"], -1
    return E.RESP["other"], -1


def _ttl(q, tick_ms: int) -> int:
    """The ttlMs of the task a response carries, in ticks; -1 for null or no task."""
    res = (q.response or {}).get("result") or {}
    ttl = res.get("ttlMs") if "taskId" in res else None
    if ttl is None:
        return -1
    if ttl % tick_ms:
        raise AbstractionError(f"ttlMs {ttl} of {q.id} is not a whole number of ticks")
    return ttl // tick_ms


def _flat(q) -> bool:
    """False for a result typed "task" that carries more than a CreateTaskResult's fields (WIRE-2)."""
    res = (q.response or {}).get("result") or {}
    return res.get("resultType") != "task" or set(res) <= CREATE_FIELDS


def _input_keys(q, ints: list) -> int:
    """The inputRequests map q's result carries as a bitmask of interrupt slots (a key naming no
    interrupt sets FOREIGN_KEY); -1 when it carries none (PRJ-2)."""
    keys = ((q.response or {}).get("result") or {}).get("inputRequests")
    return -1 if keys is None else keys_mask(keys, ints)


def keys_mask(keys, ints: list) -> int:
    """inputRequests keys as a bitmask of interrupt slots; a key naming no interrupt sets FOREIGN_KEY."""
    mask = 0
    for key in keys:
        mask |= (1 << ints.index(key)) if key in ints else E.FOREIGN_KEY
    return mask


def _leaks(world, q) -> bool:
    """The task view q's response carries has a statusMessage quoting one of its run's internals (SEC-1).
    Judged now: internals only accumulate, so a message that leaked still does."""
    view = (q.response or {}).get("result") or {}
    text = view.get("statusMessage")
    if "taskId" not in view or not isinstance(text, str) or q.run is None:
        return False
    return any(secret in text for secret in run_internals(world, world.runs[q.run], view))


def _stale(world, q, rid) -> bool:
    """The last notifications/tasks a streaming listen got for a run it may read differs from what
    tasks/get would return that caller now (NTF-3). The host sends one at every change of the view."""
    sent = world.last_sent.get((q.id, rid))
    run = world.runs[rid]
    if sent is None or q.phase != "streaming" or rid not in q.acked or not world.rules.can_read(world, q.subject, run):
        return False
    tid = world.rules.task_id(world, run)
    probe = probe_request(q, "tasks/get", tid)
    if world.rules.project_status(world, run)[0] == "input_required" and world.rules.missing_elicitation(world, run, probe):
        return False        # tasks/get refuses it -32021 (PRJ-4): no view is owed to this listener
    now = world.rules.get_task_result(world, run, probe)
    return {k: v for k, v in sent.items() if k != "_meta"} != {k: v for k, v in now.items() if k != "resultType"}


def _reprompted(world, run) -> bool:
    """A fork logged a new (not replayed) interrupt.requested or .resolved for an interrupt its source
    recorded before the fork (RPL-1)."""
    if run.fork_of is None:
        return False
    copied = next((e.get("copied") for e in run.log if e.get("type") == "run.forked"), None)
    history = world.runs[run.fork_of].log[:copied]
    recorded = {e["interruptId"] for e in history if e["type"] in ("interrupt.requested", "interrupt.resolved")}
    return any(e["type"] in ("interrupt.requested", "interrupt.resolved") and not e.get("replayed")
               and e.get("interruptId") in recorded for e in run.log)


def _advertisement(world, q, j) -> dict:
    """A discover answer: whether it lists the extension, and whether the OpenWOP advertisement agrees
    with it and names Tasks nowhere else (ADV-1)."""
    if q.method != "server/discover" or "result" not in (q.response or {}):
        return {}
    says = EXT in ((q.response["result"].get("capabilities") or {}).get("extensions") or {})
    return {("q_says", j): says, ("q_feat", j): features_problem(world, q.server, says, "") is None}


def _recorded_approvers(world, interrupt) -> tuple:
    """The approvers the run's log recorded when the interrupt was requested."""
    for e in world.runs[interrupt.run].log:
        if e["type"] == "interrupt.requested" and e.get("interruptId") == interrupt.id:
            return tuple(e.get("approvers") or ())
    return ()


def abstract(world, enc: Encoding) -> dict:
    """The encoded state of a concrete `World` (abstraction function)."""
    Z = enc.sizes
    P = world.params
    _check_ids(world, enc)
    s = enc.initial()
    runs = list(world.runs)
    ints = list(world.interrupts)
    reqs = list(world.requests)
    if len(runs) > Z.runs or len(ints) > Z.interrupts or len(reqs) > Z.requests:
        raise AbstractionError(f"{len(runs)} runs, {len(ints)} interrupts, {len(reqs)} requests exceed the "
                               f"instance ({Z.runs}, {Z.interrupts}, {Z.requests})")
    subjects = [x.name for x in P.subjects]
    s[("n_runs",)], s[("n_ints",)], s[("n_reqs",)] = len(runs), len(ints), len(reqs)
    s[("clock",)], s[("effects",)] = world.clock, world.effects
    for c, cname in enumerate(P.clients):
        for v, (sname, _) in enumerate(P.servers):
            s[("stdio_open", c, v)] = (cname, sname) in world.stdio_open
    servers = [x for x, _ in P.servers]
    for k, rid in enumerate(runs):
        r = world.runs[rid]
        log = r.log
        s.update({
            ("r_status", k): RUN_STATUSES.index(r.status), ("r_server", k): servers.index(r.server),
            ("r_owner", k): subjects.index(r.owner), ("r_by", k): E.BY.index(r.started_by),
            ("r_parent", k): _slot(runs, r.parent, "run"), ("r_created", k): r.created_at,
            ("r_terminal", k): -1 if r.terminal_at is None else r.terminal_at, ("r_durable", k): r.durable,
            ("r_purged", k): r.purged, ("r_creq", k): _slot(reqs, r.creating_request, "request"),
            ("r_elicit", k): _elicit_level(world, r), ("r_fork", k): r.fork_of is not None,
            ("r_reason", k): E.REASONS.index(r.cancel_reason) if r.cancel_reason in E.REASONS else -1,
            ("r_comp", k): any(e["type"] == "effect.performed" and e.get("kind") == "compensation"
                               and not e.get("replayed") for e in log),
            ("r_log", k): len(log),
            ("r_restres", k): any(e["type"] == "interrupt.resolved" and e.get("via") == "rest" for e in log),
            ("r_grace", k): -1 if r.grace_until is None else r.grace_until,
            ("r_rpt", k): _reprompted(world, r), ("r_upd", k): r.updated_at,
        })
    nres = {i: 0 for i in ints}
    for r in world.runs.values():
        for e in r.log:
            if e["type"] == "interrupt.resolved" and not e.get("replayed") and e["interruptId"] in nres:
                nres[e["interruptId"]] += 1
    for j, iid in enumerate(ints):
        i = world.interrupts[iid]
        by = -1 if i.resolved_by is None else (E.EXTERNAL if i.resolved_by == "external" else subjects.index(i.resolved_by))
        s.update({
            ("i_run", j): _slot(runs, i.run, "run"), ("i_kind", j): E.KINDS.index(i.kind), ("i_form", j): i.form,
            ("i_open", j): i.open, ("i_by", j): by,
            ("i_res", j): -1 if i.resolution is None else E.RESOLUTIONS.index(i.resolution),
            ("i_via", j): -1 if i.via is None else E.VIAS.index(i.via), ("i_nres", j): nres[iid],
        })
        recorded = _recorded_approvers(world, i)
        for x, name in enumerate(subjects):
            s[("i_grant", j, x)] = i.approvers is not None and name in i.approvers and name not in recorded
    states = {rs.request: rs for rs in world.request_states.values()}
    clients = enc.client_names()
    for j, qid in enumerate(reqs):
        q = world.requests[qid]
        method = E.M[q.method]
        params = q.message.get("params", {})
        ref_run, ref_form, key, ans = -1, 0, -1, 0
        if q.method in ("tasks/get", "tasks/update", "tasks/cancel"):
            ref_run, ref_form = _ref(world, q.task_ref)
        if q.method == "tasks/update":
            (kid, answer), = params["inputResponses"].items()
            key = ints.index(kid) if kid in world.interrupts else -1
            ans = E.RESPONSES.index(answer["action"])
        if q.method == "tools/call" and q.retry_of is not None:
            answers = list((params.get("inputResponses") or {}).values())
            ans = E.RESPONSES.index(answers[0]["action"]) if answers else 0
        resp, rstat = _resp(q)
        rs = states.get(qid)
        s.update({
            ("q_client", j): clients.index(q.client), ("q_server", j): servers.index(q.server),
            ("q_tr", j): 0 if q.transport == "http" else 1, ("q_method", j): method, ("q_decl", j): q.declares_tasks,
            ("q_tool", j): E.TOOLS.index(params["name"]) if q.method == "tools/call" else 0,
            ("q_ref_run", j): ref_run, ("q_ref_form", j): ref_form,
            ("q_hdr", j): (q.transport != "http" or q.mcp_name == q.task_ref) if q.task_ref is not None else True,
            ("q_key", j): key, ("q_ans", j): ans, ("q_phase", j): REQUEST_PHASES.index(q.phase),
            ("q_resp", j): resp, ("q_rstat", j): rstat, ("q_run", j): _slot(runs, q.run, "run"),
            ("q_owns", j): _slot(runs, q.owns, "run"), ("q_retry", j): q.retry_of is not None,
            ("q_prev", j): _slot(reqs, q.retry_of, "request"), ("q_rvalid", j): q.retry_valid,
            ("q_csent", j): q.cancel_sent, ("q_closed", j): q.closed,
            ("q_rs_int", j): -1 if rs is None else ints.index(rs.interrupt),
            ("q_rs_used", j): False if rs is None else rs.used, ("q_ttl", j): _ttl(q, P.tick_ms),
            ("q_flat", j): _flat(q), ("q_hcan", j): q.host_cancelled, ("q_leak", j): _leaks(world, q),
            ("q_ikeys", j): _input_keys(q, ints),
            **_advertisement(world, q, j),
        })
        for k, rid in enumerate(runs):
            s[("q_acked", j, k)] = rid in q.acked
            s[("q_stale", j, k)] = _stale(world, q, rid)
    if enc.sizes.hclients:
        from verifier.engines.z3.harness_concrete import abstract_harness
        abstract_harness(world, enc, s, runs, reqs, ints)
    return s


# ---- arguments ----------------------------------------------------------------------------------------

def encode_args(world, action: str, args: dict) -> Args:
    """The encoding's argument choices for a concrete move, read in the state before the step."""
    if action.startswith("harness_"):
        from verifier.engines.z3.harness_concrete import encode_harness_args
        return encode_harness_args(world, action, args)
    P = world.params
    runs, ints = list(world.runs), list(world.interrupts)
    subjects = [x.name for x in P.subjects]
    servers = [x for x, _ in P.servers]
    A = Args()
    for name, v in args.items():
        if name == "client":
            A.client = P.clients.index(v)
        elif name == "server":
            A.server = servers.index(v)
        elif name == "transport":
            A.transport = 0 if v == "http" else 1
        elif name == "declare":
            A.declare = bool(v)
        elif name == "tool":
            A.tool = E.TOOLS.index(v)
        elif name in ("request", "answers"):
            A.req = list(world.requests).index(v)
        elif name == "run":
            A.run = runs.index(v)
        elif name == "interrupt":
            A.intr = ints.index(v)
        elif name == "kind":
            A.kind = E.KINDS.index(v)
        elif name == "form":
            A.form = bool(v)
        elif name == "response":
            A.resp = E.RESPONSES.index(v)
        elif name == "ref":
            A.ref_run, A.ref_form = _ref(world, v)
        elif name == "header_ok":
            A.header = bool(v)
        elif name == "key":
            A.key = ints.index(v) if v in world.interrupts else -1
        elif name == "subject":
            A.subject = subjects.index(v)
        elif name == "method":
            A.method = ("tasks/list", "tasks/result").index(v)
        else:
            raise AbstractionError(f"argument {name!r} of {action} has no encoding")
    if action == "listen" or action == "discover" or action == "unsupported":
        A.transport = 0
    return A


# The argument names of every encoded action, as its moves list them.
ARG_NAMES = {
    "answer": ("request",), "stream_event": ("request",), "run_start": ("run",), "run_effect": ("run",),
    "run_compensate": ("run",), "run_interrupt": ("run", "kind", "form"), "run_complete": ("run",),
    "run_fail": ("run",), "run_spawn": ("run",), "run_finish_cancel": ("run",), "external_event": ("interrupt",),
    "clock_tick": (), "purge": ("run",), "persist": ("run",),
    "call_tool": ("client", "server", "transport", "declare", "tool"),
    "call_tool_bad_args": ("client", "server", "declare"),
    "mrtr_retry": ("client", "answers", "response", "declare"),
    "tasks_get": ("client", "server", "ref", "transport", "declare", "header_ok"),
    "tasks_update": ("client", "server", "ref", "transport", "declare", "header_ok", "key", "response"),
    "tasks_cancel": ("client", "server", "ref", "transport", "declare", "header_ok"),
    "unsupported": ("client", "server", "method"), "listen": ("client", "server", "declare"),
    "discover": ("client", "server"), "stdio_cancel": ("request",), "stdio_close": ("client", "server"),
    "disconnect": ("request",), "deliver": ("request",), "end_listen": ("request",),
    "rest_create": ("subject", "server"), "rest_cancel": ("subject", "run"),
    "rest_resolve": ("subject", "interrupt", "response"), "operator_pause": ("run",), "operator_resume": ("run",),
    "fork": ("run",),
}


def decode_args(world, action: str, A: dict) -> dict:
    """The concrete args of a move from the encoding's argument values (plain ints and bools),
    read in the concrete state before the step."""
    if action.startswith("harness_"):
        from verifier.engines.z3.harness_concrete import decode_harness_args
        return decode_harness_args(world, action, A)
    P = world.params
    runs, ints, reqs = list(world.runs), list(world.interrupts), list(world.requests)
    servers = [x for x, _ in P.servers]

    def at(seq, i, what):
        if not 0 <= i < len(seq):
            raise AbstractionError(f"{action}: {what} slot {i} does not exist (there are {len(seq)})")
        return seq[i]

    if action == "rest_create":                     # model.rest._create_moves: alice on the first server
        return {"subject": P.subjects[0].name, "server": servers[0]}
    out = {}
    for name in ARG_NAMES[action]:
        if name == "client":
            out[name] = at(P.clients, A["client"], "client")
        elif name == "server":
            out[name] = at(servers, A["server"], "server")
        elif name == "transport":
            out[name] = "http" if A["transport"] == 0 else "stdio"
        elif name == "declare":
            out[name] = bool(A["declare"])
        elif name == "tool":
            out[name] = E.TOOLS[A["tool"]]
        elif name in ("request", "answers"):
            out[name] = at(reqs, A["req"], "request")
        elif name == "run":
            out[name] = at(runs, A["run"], "run")
        elif name == "interrupt":
            out[name] = at(ints, A["intr"], "interrupt")
        elif name == "kind":
            out[name] = E.KINDS[A["kind"]]
        elif name == "form":
            out[name] = bool(A["form"])
        elif name == "response":
            out[name] = E.RESPONSES[A["resp"]]
        elif name == "ref":
            if A["ref_run"] == -1:
                out[name] = E.FAB_REFS[A["ref_form"]]
            else:
                r = world.runs[at(runs, A["ref_run"], "run")]
                tid = world.rules.task_id(world, r)
                out[name] = tid if A["ref_form"] == 0 else tid.replace("~2F", "%2F")
        elif name == "header_ok":
            out[name] = bool(A["header"]) if A["transport"] == 0 else True
        elif name == "key":
            out[name] = E.NEVER_ISSUED_KEY if A["key"] == -1 else at(ints, A["key"], "interrupt")
        elif name == "subject":
            out[name] = at(P.subjects, A["subject"], "subject").name
        elif name == "method":
            out[name] = ("tasks/list", "tasks/result")[A["method"]]
    return out


def diff(a: dict, b: dict) -> list:
    """The keys where two encoded states differ, with both values."""
    return [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b), key=str) if a.get(k) != b.get(k)]


def _elicit_level(world, run) -> int:
    """The encoding's r_elicit (Encoding.elicit_level): the modes the run's creating request declared,
    0 none, 1 form only, 2 form and url; 2 for a run no request created (its asker is read instead)."""
    if run.creating_request is None:
        return 2
    modes = wire.declared_elicitation_modes(world.requests[run.creating_request].message)
    return {(): 0, ("form",): 1, ("form", "url"): 2}[modes]
