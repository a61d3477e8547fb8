"""Observed messages seen as the model sees them.

Two halves:
- `decode`: a client-to-server request as sent on a connection -> the model client action that
  sends exactly that request (method, task reference and its form, inputResponses keys,
  declarations, the Mcp-Name header, transport, the Subject behind the bearer token), with what
  it carries beyond the action's arguments (`Sent`), or `NotGenerated` when no model client
  sends a request of that form;
- `shape`: a server-to-client message -> its normalised projection (result type, status, error
  code, taskId, inputRequests keys, notification kind), with ids left as slots that `unify`
  binds through the candidate's `Bindings`. Free text (messages, timestamps, statusMessage) and
  the tool's own content are not compared.
"""
from __future__ import annotations

from dataclasses import dataclass

from model import wire
from model.clients import FABRICATED, new_request

from verifier.validate.ids import Bindings, in_form, raw_of

NEVER_ISSUED_KEY = "acme/i-neverissuedneverissued"      # the model's probe of a key never issued
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
REMOVED = ("tasks/list", "tasks/result")
# Task fields a host may add or leave out without the model's caring (free text and hints).
OPTIONAL_TASK_KEYS = frozenset({"statusMessage", "pollIntervalMs", "_meta"})


class NotGenerated(Exception):
    """The observed request is of a form the model's clients never send."""


class UnknownTool(NotGenerated):
    """A call of a tool the mapping does not name: the model knows nothing of what it does."""


KEEP = "keep"       # `Sent.elicitation`: the declaration the Subject's model client sends


@dataclass(frozen=True)
class Sent:
    """What a decoded request carries beyond the model action's arguments (`search.send` applies it):
    a listen's task references (the model's listen names every task it knows of; the validator
    gives it the observed ones), and the request's elicitation declaration where it differs from
    the one the Subject's model client sends. The model gives each Subject's client one declaration
    (alice form and url, carol none, mallory a bare `{}`); a real client of any Subject may send any
    of them, and the host reads it only when it answers (P-ELICIT), never at receipt."""
    listen: tuple | None = None
    elicitation: dict | None | str = KEEP     # the declaration (None: absent), or KEEP


# ---- requests ----------------------------------------------------------------------------------
def _caps(params: dict) -> tuple[bool, dict | None]:
    """(declares the Tasks extension, the elicitation declaration as the model writes it, or None
    when absent). The model reads only the modes it names: other keys are dropped, and a declaration
    naming no mode stays a bare `{}` (form mode, implicitly)."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or wire.META_CLIENT_CAPABILITIES not in meta or wire.META_PROTOCOL_VERSION not in meta:
        raise NotGenerated("a request without the _meta core requires (clientCapabilities, protocolVersion)")
    caps = meta[wire.META_CLIENT_CAPABILITIES] or {}
    if not isinstance(caps, dict):
        raise NotGenerated("clientCapabilities that are not an object")
    tasks = wire.TASKS_EXT in (caps.get("extensions") or {})
    elicitation = caps.get("elicitation")
    if elicitation is not None and not isinstance(elicitation, dict):
        raise NotGenerated(f"an elicitation declaration that is not an object ({elicitation!r})")
    return tasks, None if elicitation is None else {m: {} for m in wire.ELICITATION_MODES if m in elicitation}


_DECLARED: dict = {}


def _model_declares(world, client: str, subject: str) -> dict | None:
    """The elicitation declaration the Subject's model client sends, read off the model's own request
    builder (on a clone, once per rule set and Subject)."""
    key = (type(world.rules), subject)
    if key not in _DECLARED:
        from model.snapshot import clone
        msg = new_request(clone(world), client, world.params.servers[0][0], "http", "tasks/get",
                          declares_tasks=True, task_ref=FABRICATED[0]).message
        _DECLARED[key] = _caps(msg["params"])[1]
    return _DECLARED[key]


def with_elicitation(message: dict, elicitation: dict | None) -> dict:
    """`message` (a model request, never changed) with its elicitation declaration replaced."""
    params = dict(message["params"])
    meta = dict(params["_meta"])
    caps = {k: v for k, v in meta[wire.META_CLIENT_CAPABILITIES].items() if k != "elicitation"}
    if elicitation is not None:
        caps["elicitation"] = {m: {} for m in elicitation}
    meta[wire.META_CLIENT_CAPABILITIES] = caps
    params["_meta"] = meta
    return {**message, "params": params}


def listed_task_ids(params) -> list | None:
    """`notifications.taskIds` of a listen's params (or an acknowledgement's), None when not a list."""
    notes = params.get("notifications") if isinstance(params, dict) else None
    refs = notes.get("taskIds") if isinstance(notes, dict) else None
    return refs if isinstance(refs, list) else None


def task_refs(params) -> list:
    """Every task reference a request's params name: its taskId and the taskIds it listens to."""
    return [params.get("taskId") if isinstance(params, dict) else None, *(listed_task_ids(params) or [])]


def _model_ref(ref, ids: Bindings) -> str:
    """The model task reference standing for a real one, in the same form."""
    if not isinstance(ref, str):
        raise NotGenerated(f"a taskId that is not a string ({ref!r})")
    if ids.binding.opaque:                   # any form: the task bound to it, else one never created
        got = ids.to_model("run", ref)
        return FABRICATED[0] if got is None else in_form(got, "projected")
    raw, form = raw_of(ref)
    if form in ("literal", "raw"):          # not a projected id: decodes to no run, as the model's malformed probe
        return FABRICATED[1]
    got = ids.to_model("run", raw)
    if got is None:
        swapped = _swapped(raw, ids)
        if swapped is not None:              # a shown run's opaque segment under another tenant: names no run
            return in_form(swapped, form)
        return FABRICATED[0] if form == "projected" else FABRICATED[0].replace("~2F", "%2F")   # naming no run shown
    return in_form(got, form)


def _swapped(raw: str, ids: Bindings) -> str | None:
    tenant, _, opaque = raw.partition("/")
    for real, model in ids.real["run"].items():
        t, _, o = real.partition("/")
        if o == opaque and t != tenant:
            mt, _, mo = model.partition("/")
            other = (ids.tenants or {}).get(tenant, tenant)
            return f"{other}/{mo}" if other != mt else None
    return None


def _model_key(key, ids: Bindings, n: int = 0) -> str:
    """The model key standing for a real inputResponses key, in the same form: the interrupt it is
    bound to, whichever run that is (the host's rule decides what a key of another run resolves), or
    a key never issued (the `n`-th, so that several unbound keys of one update stay several)."""
    raw, form = (key, "raw") if ids.binding.opaque else raw_of(key)
    got = ids.to_model("interrupt", raw)
    if got is None:
        got = NEVER_ISSUED_KEY if n == 0 else f"{NEVER_ISSUED_KEY[:-len(str(n))]}{n}"
        return got if form == "raw" else in_form(got, form)
    return in_form(got, form)


def decode(world, msg: dict, conn, ids: Bindings, mapping: dict):
    """(action, args, Sent) of the model client action sending `msg` on `conn`."""
    method, params = msg.get("method"), msg.get("params") or {}
    subject = conn.subject
    if subject is None:
        raise NotGenerated(conn.no_subject)
    clients = {world.params.client_subject(c).name: c for c in world.params.clients}
    client, server, transport = clients[subject], conn.server, conn.transport
    if method == "notifications/cancelled":
        raise AssertionError("a notification is not decoded here")
    _routing_headers(conn, method, msg.get("params"))
    if method == "server/discover":
        _http_only(transport, method)
        return "discover", dict(client=client, server=server), Sent()
    if not isinstance(params, dict):
        raise NotGenerated("params that are not an object")
    declare, elicitation = _caps(params)
    sent = Sent(elicitation=KEEP if elicitation == _model_declares(world, client, subject) else elicitation)
    if method in REMOVED:
        _http_only(transport, method)
        return "unsupported", dict(client=client, server=server, method=method), sent
    if method == "tools/call":
        action, args = _decode_call(world, params, client, server, transport, declare, ids, mapping)
        return action, args, sent
    if method in TASK_METHODS:
        ref = params.get("taskId")
        mref = _model_ref(ref, ids)
        header_ok = transport != "http" or conn.headers.get("mcp-name") == ref
        if transport == "stdio" and not declare:
            raise NotGenerated(f"a {method} over stdio without declaring the Tasks extension")
        if transport == "stdio" and conn.headers.get("mcp-name") not in (None, ref):
            raise NotGenerated(f"a {method} over stdio with a mismatched Mcp-Name")
        if transport == "http" and not header_ok and not declare:
            raise NotGenerated(f"a {method} with a mismatched Mcp-Name that also does not declare the Tasks extension")
        args = dict(client=client, server=server, ref=mref, transport=transport, declare=declare, header_ok=header_ok)
        if method == "tasks/update":
            return _decode_update(params, args, ids, sent)
        name = {"tasks/get": "tasks_get", "tasks/cancel": "tasks_cancel"}[method]
        return name, args, sent
    if method == "subscriptions/listen":
        _http_only(transport, method)
        refs = listed_task_ids(params)
        if refs is None:
            raise NotGenerated("a subscriptions/listen without notifications.taskIds")
        return "listen", dict(client=client, server=server, declare=declare), \
            Sent(tuple(_model_ref(r, ids) for r in refs), sent.elicitation)
    raise NotGenerated(f"method {method!r}")


# The most keys a model client answers in one tasks/update (model.clients.tasks_update_two).
MAX_UPDATE_KEYS = 3


def _decode_update(params, args, ids, sent):
    """One key: `tasks_update`; two or three with one action for all: `tasks_update_two`, which the
    model's clients send declaring, over HTTP, with a matching Mcp-Name."""
    answers = params.get("inputResponses")
    if not isinstance(answers, dict) or not 1 <= len(answers) <= MAX_UPDATE_KEYS:
        raise NotGenerated(f"a tasks/update answering other than one to {MAX_UPDATE_KEYS} inputRequests keys")
    actions = {a.get("action") if isinstance(a, dict) else None for a in answers.values()}
    if len(actions) != 1 or not actions <= {"accept", "decline", "cancel"}:
        raise NotGenerated(f"a tasks/update answer with action {sorted(map(repr, actions))[0]}" if len(actions) == 1
                           else "a tasks/update answering its keys with different actions")
    response = actions.pop()
    keys = [_model_key(k, ids, n) for n, k in enumerate(answers)]
    if len(keys) == 1:
        return "tasks_update", dict(args, key=keys[0], response=response), sent
    if not (args["transport"] == "http" and args["declare"] and args["header_ok"]):
        raise NotGenerated("a several-key tasks/update over stdio, without declaring the Tasks extension or with a "
                           "mismatched Mcp-Name (the model's clients send one declaring, over HTTP, Mcp-Name matching)")
    two = dict(client=args["client"], server=args["server"], ref=args["ref"], key=keys[0], also=keys[1],
               response=response)
    return "tasks_update_two", dict(two, **({"third": keys[2]} if len(keys) > 2 else {})), sent


def _routing_headers(conn, method, params) -> None:
    """The model's clients send `Mcp-Method` as the method they call, and a tools/call's `Mcp-Name` as
    the tool it names (core §Routing Headers; a server refuses a mismatch with -32020 before reading
    on). Only a tasks/* request's `Mcp-Name` is the model's to vary (WIRE-4)."""
    if conn.transport != "http":
        return
    header = conn.headers.get("mcp-method")
    if header is not None and header != method:
        raise NotGenerated(f"a {method} whose Mcp-Method header says {header!r}")
    name = conn.headers.get("mcp-name")
    if method == "tools/call" and name is not None and isinstance(params, dict) and name != params.get("name"):
        raise NotGenerated(f"a tools/call whose Mcp-Name header says {name!r}, not the tool it names")


def _http_only(transport, method):
    if transport != "http":
        raise NotGenerated(f"{method} over {transport} (the model's clients send it over streamable HTTP)")


def _decode_call(world, params, client, server, transport, declare, ids, mapping):
    tools = mapping.get("tools") or {}
    name = params.get("name")
    if not isinstance(name, str):
        raise NotGenerated(f"a tools/call whose name is not a string ({name!r})")
    tool = tools.get(name, name if name in ("flow", "task-only", "bad-args") else None)
    if tool is None:
        raise UnknownTool(f"tools/call of tool {name!r}, which the mapping does not name")
    # A retry without requestState, where rounds carry none (binding.py), is a new call of the tool.
    if "requestState" in params or "inputResponses" in params and not ids.binding.stateless_rounds:
        return _decode_retry(world, params, client, transport, declare, ids)
    if tool == "bad-args":
        _http_only(transport, "tools/call of bad-args")
        return "call_tool_bad_args", dict(client=client, server=server, declare=declare)
    return "call_tool", dict(client=client, server=server, transport=transport, declare=declare, tool=tool)


def _decode_retry(world, params, client, transport, declare, ids):
    token = params.get("requestState")
    mtoken = ids.to_model("token", token) if isinstance(token, str) else None
    rs = world.request_states.get(mtoken) if mtoken else None
    if rs is None:
        raise NotGenerated("an MRTR retry echoing a requestState the host never sent")
    prev = world.requests[rs.request]
    result = (prev.response or {}).get("result") or {}
    answers = params.get("inputResponses") or {}
    keys = [ids.real_of(k) for k in answers]
    want = [ids.to_real("interrupt", k) for k in result.get("inputRequests") or {}]
    if keys and sorted(map(str, keys)) != sorted(map(str, want)):
        raise NotGenerated("an MRTR retry answering other keys than the inputRequests it echoes")
    actions = {(a or {}).get("action") if isinstance(a, dict) else None for a in answers.values()} or {"none"}
    if len(actions) != 1 or not actions <= {"accept", "decline", "cancel", "none"}:
        raise NotGenerated("an MRTR retry answering its input requests with different or unknown actions")
    expect = prev.transport if prev.transport == "http" or (client, prev.server) in world.stdio_open else "http"
    if transport != expect:
        raise NotGenerated(f"an MRTR retry over {transport} of a call made over {prev.transport}")
    return "mrtr_retry", dict(client=client, answers=prev.id, response=actions.pop(), declare=declare)


# ---- what the server sends ---------------------------------------------------------------------
def _slot(kind: str, value) -> tuple:
    if not isinstance(value, str):
        return ("$lit", repr(value))
    if kind == "token":
        return ("$id", kind, value, "raw")
    return ("$id", kind, *raw_of(value))


def _input_requests(reqs) -> tuple:
    if not isinstance(reqs, dict):
        return ("$lit", repr(reqs))
    def entry(v) -> tuple:
        v = v if isinstance(v, dict) else {}
        params = v.get("params") if isinstance(v.get("params"), dict) else {}
        return v.get("method"), params.get("mode", "form")
    return tuple((_slot("interrupt", k), *entry(v)) for k, v in reqs.items())


def _required(err: dict) -> tuple:
    """What a -32021 says the request lacked: each required capability with the keys it names (the
    Tasks extension, or the elicitation modes a run's input needs, PRJ-4)."""
    data = err.get("data") if isinstance(err.get("data"), dict) else {}
    caps = data.get("requiredCapabilities")
    if not isinstance(caps, dict):
        return ("$lit", repr(caps))
    return tuple((k, tuple(sorted(v)) if isinstance(v, dict) else repr(v)) for k, v in sorted(caps.items()))


def _task(t: dict) -> tuple:
    status = t.get("status")
    result = t.get("result") if isinstance(t.get("result"), dict) else {}
    error = t.get("error") if isinstance(t.get("error"), dict) else {}
    return ("task", _slot("run", t.get("taskId")), status, t.get("ttlMs") is None,
            _input_requests(t["inputRequests"]) if "inputRequests" in t else None,
            result.get("isError") if status == "completed" else None,
            error.get("code") if status == "failed" else None,
            tuple(sorted(set(t) - OPTIONAL_TASK_KEYS)))


def shape(msg: dict) -> tuple:
    """The normalised projection of a server-to-client message (see the module's docstring)."""
    if "method" in msg:
        method, params = msg["method"], msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if method == "notifications/tasks":
            return ("note", method, _task(params))
        if method == "notifications/subscriptions/acknowledged":
            ids = listed_task_ids(params) or []
            return ("note", method, tuple(_slot("run", t) for t in ids))
        return ("note", method)
    if "error" in msg:
        err = msg["error"] if isinstance(msg["error"], dict) else {}
        if err.get("code") == wire.MISSING_CAPABILITY:
            return ("error", err["code"], _required(err))
        return ("error", err.get("code"))
    res = msg.get("result") if isinstance(msg.get("result"), dict) else {}
    kind = res.get("resultType")
    if kind == "task":
        return ("result", "task", _task(res))
    if kind == "input_required":
        return ("result", kind, _input_requests(res.get("inputRequests")), _slot("token", res.get("requestState")))
    if "taskId" in res:
        return ("result", kind, _task(res))
    if "supportedVersions" in res:
        exts = ((res.get("capabilities") or {}).get("extensions") or {})
        return ("result", kind, "discover", wire.TASKS_EXT in exts)
    if "content" in res:
        return ("result", kind, "tool", bool(res.get("isError")))
    return ("result", kind, tuple(sorted(set(res) - {"_meta"})))


def unify(observed, model, ids: Bindings):
    """The bindings under which the observed shape equals the model's (a copy when it binds
    anything new), or None when they differ."""
    new: list = []
    observed, model = ids.binding.fold(observed, model)
    if not _unify(observed, model, ids, new):
        return None
    if not new:
        return ids
    out = ids.copy()
    for kind, real, mod in new:
        out.bind(kind, real, mod)
    return out


def _unify(a, b, ids, new) -> bool:
    if type(a) is not tuple or type(b) is not tuple:
        return a == b
    if a and a[0] == "$id":
        if not (b and b[0] == "$id" and a[1] == b[1] and (a[3] == b[3] or ids.binding.opaque)):
            return False
        kind, real, mod = a[1], a[2], b[2]
        if ids.binding.opaque:               # the host's id as sent, whatever its form, bound whole
            real = in_form(real, a[3])
        elif a[3] == "literal":
            return real == mod
        for k, r, m in new:
            if k == kind and (r == real or m == mod):
                return r == real and m == mod
        if ids.to_model(kind, real) == mod:
            return True
        if not ids.can_bind(kind, real, mod):
            return False
        new.append((kind, real, mod))
        return True
    return len(a) == len(b) and all(_unify(x, y, ids, new) for x, y in zip(a, b))


def describe(msg: dict) -> str:
    """A message in a few words, for `allowed` and reasons."""
    s = shape(msg)
    if s[0] == "note":
        if s[1] == "notifications/tasks":
            asks = s[2][4]
            return f"notifications/tasks status {s[2][2]}" + (f" ({len(asks)} input request(s))" if asks else "")
        return s[1]
    if s[0] == "error":
        required = s[2] if len(s) > 2 and isinstance(s[2], tuple) and all(isinstance(x, tuple) for x in s[2]) else ()
        return f"error {s[1]}" + "".join(f" requiring {k} {', '.join(v) if isinstance(v, tuple) else v}"
                                         for k, v in required)
    if s[1] in ("task", "complete") and len(s) > 2 and isinstance(s[2], tuple) and s[2] and s[2][0] == "task":
        t = s[2]
        what = "CreateTaskResult" if s[1] == "task" else "tasks/get result"
        return f"{what} status {t[2]}" + (f" isError={t[5]}" if t[5] is not None else "")
    if s[1] == "input_required":
        return f"InputRequiredResult ({len(s[2])} input request(s))"
    if len(s) > 2 and s[2] == "tool":
        return f"CallToolResult isError={str(s[3]).lower()}"
    if len(s) > 2 and s[2] == "discover":
        return f"DiscoverResult {'with' if s[3] else 'without'} the Tasks extension"
    return f"result {s[1]} {list(s[2]) if len(s) > 2 else ''}".strip()
