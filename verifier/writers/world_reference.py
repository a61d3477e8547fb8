"""The author's reference: the world and every record a rule reads or writes, which of their fields
are state, the `model.wire` builders and the helpers a rule may call.

`taskmodel rules --world` prints it and docs/amendments.md quotes it between two markers
(tests/test_world_reference.py keeps the two equal, and `refresh` rewrites the quote). Everything
is read from the code, so it cannot drift from it: fields and types from the dataclasses and the
world's constructor, each field's meaning from its comment in the source (`DOCS` below only for
fields and helpers whose source has none), and whether a field is state by changing it in a sample
world and asking `model.snapshot.fingerprint` whether the state changed.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import textwrap
import tokenize

from model import harness as harness_module
from model import identity, lifecycle, projection, wire
from model import rules as rules_module
from model.harness import (
    Binding,
    Harness,
    HarnessClient,
    LocalRun,
    Process,
    ToolExecution,
)
from model.params import SUBJECTS, Params, Subject
from model.snapshot import fingerprint, forget_texts
from model.state import Interrupt, Request, RequestState, Run, Step
from model.world import World

BEGIN = "<!-- BEGIN taskmodel rules --world -->"
END = "<!-- END taskmodel rules --world -->"

# The meaning of fields and helpers whose own source says nothing about them (model/world.py,
# model/harness.py, model/params.py). A field documented in its source is never repeated here.
DOCS = {
    "World": {
        "params": "the parameters (`taskmodel rules` lists them); fixed for an exploration",
        "rules": "the host's rules: this variant's instance",
        "clock": "the model's time, in ticks (`Params.tick_ms` each)",
        "runs": "runId -> run, in the order they were created; purged runs stay, with `purged` set",
        "interrupts": "interruptId -> interrupt",
        "requests": "JSON-RPC id -> request, in the order they were sent",
        "request_states": "MRTR requestState token -> what it was minted for",
        "stdio_open": "(client, server) pairs whose stdio transport is open",
        "effects": "external effects performed so far, over all runs (bounded by `max_effects`)",
        "serial": "the counter minted ids come from (`next_serial`)",
        "history": "the steps taken so far, in order",
        "step": "the step being taken, while it is taken (None between steps)",
        "_memo": "cached enabled-move lists, keyed by what they read, and values kept by depth "
                 "(`model.before.kept`)",
    },
    "Harness": {
        "rules": "the harness's rules: this variant's `HarnessRules` instance",
        "clients": "harness client name -> its live process and disk",
        "runs_started": "local runs started, over all harness clients (`harness_max_runs`)",
        "ops": "operations started (the counter of operation ids)",
        "requests": "requests the harness sent (`harness_max_requests`)",
        "crashes": "process crashes so far (`harness_max_crashes`)",
        "_decoded": "taskId -> the raw runId it names, decoded once",
    },
    "HarnessClient": {
        "name": "the client's name (H1, H2, ...)",
        "subject": "the Subject whose credentials it holds",
        "proc": "the live process, or None after a crash until the restart",
        "disk_tes": "op -> the persisted tool-execution record: what survives a crash",
        "disk_runs": "local run id -> the persisted local run",
        "epochs": "processes started so far (a restart starts a new epoch)",
    },
    "Process": {
        "epoch": "which process of the client this is (1 for the first)",
        "tes": "op -> the live tool-execution record",
        "runs": "local run id -> the live local run",
    },
    "ToolExecution": {
        "op": "the operation id: the record's key, kept across re-issues",
        "node": "the local run's node this call belongs to",
        "server": "the server the call goes to",
        "tool": "the remote tool's name",
        "binding": "the persisted binding (taskId, server, auth), once a handle was received",
        "cancel_intent": "the local run asked to cancel this call (HNS-4: an intent, not an outcome)",
        "cancel_acked": "the server acknowledged the tasks/cancel (no fact about the effect)",
    },
    "LocalRun": {
        "id": "the local run's id",
        "client": "the harness client it belongs to",
    },
    "Subject": {
        "name": "the Subject's name (alice, bob, ...)",
        "tenant": "the tenant it belongs to",
        "scopes": "its scopes (runs:read, runs:cancel, approvals:respond)",
    },
    "helpers": {
        "world.next_serial": "A fresh serial (minted ids use it; the serial is state).",
        "world.timestamp": "The RFC 3339 time of `tick` (now by default), as a task's `createdAt` shows it.",
        "world.append": "Append `event` to the run's log (with `seq` and `at`), and record it in the step.",
        "world.emit": "Send `message` on request `request_id`'s stream (None: on no request), recorded in the step.",
        "world.set_status": "Fire a run lifecycle trigger (through `rules.lifecycle_fire`); sets `terminal_at` "
                            "when the run ends.",
        "world.set_phase": "Fire a request lifecycle trigger (`send_response`, `cancel_request`, ...).",
        "world.open_requests": "The requests still open (received or streaming), on one server or all.",
        "world.owner_of": "The requests that own the run now (OWN-1: at most one on the baseline).",
        "world.last_request": "The id of the request sent last.",
        "world.live_runs": "The runs not purged.",
        "lifecycle.fire": "The status `trigger` takes `status` to in lifecycle `name` (raises IllegalStep if none).",
        "lifecycle.can_fire": "Whether lifecycle `name` has `trigger` from `status`.",
        "identity.project": "The wire form (taskId) of a raw id: every byte outside [A-Za-z0-9._-] as ~XX.",
        "identity.opaque": "The opaque part of a raw `tenant/opaque` id.",
        "identity.tenant_of": "The tenant of a raw `tenant/opaque` id.",
        "params.subject": "The Subject of that name (its `tenant` and `scopes`).",
        "params.serves_tasks": "Whether the mount serves the Tasks extension (`Params.servers`).",
    },
}

# Public methods of the world that are not for rules, and why: a rule is called inside a step.
NOT_FOR_RULES = {
    "apply": "the engines take steps; a rule is called inside one",
    "moves": "the engines' list of enabled moves",
    "enabled": "the engines' check of a move",
    "composed": "builds a world",
    "memo": "caches the clients' enabled-move lists",
}


def _sample_world() -> World:
    """A composed world holding one of every record, so each field can be changed and fingerprinted."""
    params = Params().with_(subjects=tuple(dataclasses.replace(s) for s in SUBJECTS))
    world = World.composed(params)
    run = Run(id="acme/run", server="S1", tenant="acme", owner="alice", started_by="tasked-call")
    world.runs[run.id] = run
    interrupt = Interrupt(id="acme/i-1", run=run.id, kind="approval", approvers=None, form=True)
    world.interrupts[interrupt.id] = interrupt
    q = Request(id="r1", client="C1", subject="alice", server="S1", transport="http", method="tools/call",
                message={"method": "tools/call"})
    world.requests[q.id] = q
    world.request_states["t"] = RequestState("t", "alice", run.id, interrupt.id, q.id)
    world.step = Step(index=0, action="call_tool", args={}, actor="client")
    world.history.append(world.step)
    client = world.harness.clients["H1"]
    te = ToolExecution(op="op1", run="L1", node="n1", server="S1", long=True,
                       binding=Binding("acme~2Frun", "S1", "alice"))
    client.proc.tes["op1"] = te
    client.proc.runs["L1"] = LocalRun("L1", "H1", {"n1": "op1"})
    client.disk_tes["op1"] = te
    client.disk_runs["L1"] = client.proc.runs["L1"]
    return world


# Each record: how a rule reaches it, and where it is in the sample world.
RECORDS = (
    (World, "`world`", lambda w: w),
    (Run, "`world.runs[runId]`; a rule's `run`", lambda w: w.runs["acme/run"]),
    (Interrupt, "`world.interrupts[interruptId]`; a rule's `interrupt`", lambda w: w.interrupts["acme/i-1"]),
    (Request, "`world.requests[requestId]`; a rule's `q`", lambda w: w.requests["r1"]),
    (RequestState, "`world.request_states[token]`; a rule's `rs`", lambda w: w.request_states["t"]),
    (Step, "`world.step` while a step is taken (None between steps); `world.history`", lambda w: w.step),
    (Subject, "`world.params.subject(name)`", lambda w: w.params.subjects[0]),
    (Harness, "`world.harness` in a composed world (None in a host-only one)", lambda w: w.harness),
    (HarnessClient, "`world.harness.clients[client]`", lambda w: w.harness.clients["H1"]),
    (Process, "`world.harness.clients[client].proc`", lambda w: w.harness.clients["H1"].proc),
    (ToolExecution, "a harness rule's `te`; `world.harness.execution(client, op)`",
     lambda w: w.harness.clients["H1"].proc.tes["op1"]),
    (LocalRun, "a harness rule's `run`; `proc.runs[localRunId]`", lambda w: w.harness.clients["H1"].proc.runs["L1"]),
    (Binding, "`te.binding`", lambda w: w.harness.clients["H1"].proc.tes["op1"].binding),
)


# ---- fields and their comments --------------------------------------------------------------------
def _comments(cls) -> tuple[ast.ClassDef, dict[int, str], list[str]] | None:
    """The class's syntax tree, its comments by line, and its source lines (None without a source)."""
    try:
        lines, _ = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return None
    source = textwrap.dedent("".join(lines))
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.string.lstrip("#").strip()
    return ast.parse(source).body[0], found, source.splitlines()


def _doc_of(node, comments: dict[int, str], lines: list[str]) -> str:
    """A field's comment: the one on its own lines, else the comment lines right above it."""
    for n in range(node.lineno, node.end_lineno + 1):
        if n in comments and not lines[n - 1].lstrip().startswith("#"):
            return comments[n]
    above, n = [], node.lineno - 1
    while n >= 1 and lines[n - 1].lstrip().startswith("#"):
        above.insert(0, comments[n])
        n -= 1
    return " ".join(above)


def _declared(cls) -> dict[str, tuple[str | None, str]]:
    """Field name -> (annotation or None, comment) as each class of the MRO declares them: a
    dataclass's fields, or the attributes its `__init__` assigns."""
    out: dict[str, tuple[str | None, str]] = {}
    for klass in reversed([k for k in cls.__mro__ if k is not object]):
        parsed = _comments(klass)
        if parsed is None:
            continue
        tree, comments, lines = parsed
        if dataclasses.is_dataclass(klass):
            for stmt in tree.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    out[stmt.target.id] = (ast.unparse(stmt.annotation), _doc_of(stmt, comments, lines))
            continue
        init = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        for stmt in ast.walk(init) if init is not None else ():
            target = stmt.target if isinstance(stmt, ast.AnnAssign) else \
                stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                    target.value.id == "self" and target.attr not in out:
                hint = ast.unparse(stmt.annotation) if isinstance(stmt, ast.AnnAssign) else None
                out[target.attr] = (hint, _doc_of(stmt, comments, lines))
    return out


def field_names(cls, sample=None) -> list[str]:
    """Every field of a record: a dataclass's fields; for the world and the harness, every attribute
    an instance holds (so one added anywhere is found, not only in `__init__`)."""
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls)]
    names = list(_declared(cls))
    return names + [k for k in vars(sample) if k not in names] if sample is not None else names


def _type_name(value) -> str:
    """A type for an attribute declared without one, from its value in the sample world."""
    name = lambda v: type(v).__name__
    if isinstance(value, dict) and value:
        k, v = next(iter(value.items()))
        return f"dict[{name(k)}, {name(v)}]"
    if isinstance(value, (set, list)) and value:
        return f"{name(value)}[{name(next(iter(value)))}]"
    return name(value)


def _other(value):
    """A value unlike `value`: an empty container for a full one, one with an item for an empty one."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "~"
    if isinstance(value, (dict, list, set, tuple, frozenset)):
        if value:
            return type(value)()
        return {"~": "~"} if isinstance(value, dict) else type(value)(["~"])
    return "~" if value is None else None


def _is_state(world: World, obj, name: str, base: bytes) -> bool:
    """Does changing `obj.name` in `world` change its fingerprint?"""
    old = getattr(obj, name)
    object.__setattr__(obj, name, _other(old))     # also on a frozen record: put back below
    try:
        return fingerprint(world, rename=False) != base
    finally:
        object.__setattr__(obj, name, old)


def record_fields(cls, where) -> list[tuple[str, str, bool, str]]:
    """(name, type, is state, meaning) of every field of a record; the meaning is "" when nothing
    documents it."""
    world = _sample_world()
    base = fingerprint(world, rename=False)
    obj = where(world)
    declared = _declared(cls)
    extra = DOCS.get(cls.__name__, {})
    hints = {f.name: f.type for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
    out = []
    try:
        for name in field_names(cls, obj):
            hint, doc = declared.get(name, (None, ""))
            kind = hints.get(name) or hint or _type_name(getattr(obj, name))
            out.append((name, kind if isinstance(kind, str) else kind.__name__, _is_state(world, obj, name, base),
                        doc or extra.get(name, "")))
    finally:
        forget_texts()
    return out


def undocumented(records=None) -> list[str]:
    """`Record.field` for every field nothing documents (of `RECORDS` by default): the reference test
    wants none."""
    return [f"{cls.__name__}.{name}" for cls, _, where in records or RECORDS
            for name, _, _, doc in record_fields(cls, where) if not doc]


def redundant_docs() -> list[str]:
    """`DOCS` entries naming no field, or a field its source documents already."""
    out = []
    for cls, _, where in RECORDS:
        declared = _declared(cls)
        names = set(field_names(cls, where(_sample_world())))
        out += [f"{cls.__name__}.{n}" for n in DOCS.get(cls.__name__, {})
                if n not in names or declared.get(n, (None, ""))[1]]
    return out


def _added_state() -> list[str]:
    """Whether state a rule adds on its own is part of the fingerprint, probed like a field."""
    out = []
    for what, owner in (("a rule adds to the world (`world.my_count = 0`)", lambda w: w),
                        ("a host rule sets on itself (`self.my_count = 0`)", lambda w: w.rules),
                        ("a harness rule sets on itself (`self.my_count = 0`)", lambda w: w.harness.rules)):
        world = _sample_world()
        base = fingerprint(world, rename=False)
        owner(world).my_count = 0
        state = fingerprint(world, rename=False) != base
        out.append(f"- An attribute {what} is " + ("state." if state else "bookkeeping: keep such state on the world."))
    forget_texts()
    return out


# ---- helpers ---------------------------------------------------------------------------------------
def _signature(fn) -> str:
    """`(a, b=None, *, c=1)`: the parameters a caller passes (no `self`, no annotations)."""
    parts, star = [], False
    for p in list(inspect.signature(fn).parameters.values()):
        if p.name in ("self", "cls"):
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return f"({', '.join(parts)})"


def _first_paragraph(doc: str | None) -> str:
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split()) if doc else ""


def world_methods() -> list[str]:
    return [n for n, v in vars(World).items() if not n.startswith("_") and callable(getattr(World, n))]


def helpers() -> list[tuple[str, object]]:
    """(how a rule calls it, the function) of every helper a rule may call."""
    out = [(f"world.{n}", getattr(World, n)) for n in world_methods() if n not in NOT_FOR_RULES]
    out += [("run.open_interrupts", Run.open_interrupts),
            ("params.subject", Params.subject), ("params.client_subject", Params.client_subject),
            ("params.serves_tasks", Params.serves_tasks),
            ("world.harness.execution", Harness.execution), ("world.harness.holders", Harness.holders),
            ("harness.derive_local_status", harness_module.derive_local_status),
            ("lifecycle.fire", lifecycle.fire), ("lifecycle.can_fire", lifecycle.can_fire),
            ("identity.project", identity.project), ("identity.unproject", identity.unproject),
            ("identity.opaque", identity.opaque), ("identity.tenant_of", identity.tenant_of)]
    return out


def builders() -> list[tuple[str, object]]:
    """(`wire.name`, the function) of every `model.wire` builder."""
    return [(f"wire.{n}", getattr(wire, n)) for n in wire.__all__
            if inspect.isfunction(getattr(wire, n)) and getattr(wire, n).__module__ == wire.__name__]


def _constants() -> list[tuple[str, object]]:
    table = [(f"wire.{n}", getattr(wire, n)) for n in wire.__all__
             if isinstance(getattr(wire, n), (str, int, dict, tuple, frozenset))]
    table += [(f"lifecycle.{n}", getattr(lifecycle, n)) for n in
              ("RUN_STATUSES", "TERMINAL", "WAITING", "CANCELLABLE", "REQUEST_PHASES", "OPEN_PHASES",
               "TOOL_EXECUTION_STATES", "TOOL_EXECUTION_TERMINAL")]
    table += [("projection.STATUS_PROJECTION", projection.STATUS_PROJECTION),
              ("rules.MCP_REQUEST_CANCELLED", rules_module.MCP_REQUEST_CANCELLED),
              ("harness.LOCAL_RUN_STATUSES", harness_module.LOCAL_RUN_STATUSES)]
    return table


def helper_doc(label: str, fn) -> str:
    return _first_paragraph(fn.__doc__) or DOCS["helpers"].get(label, "")


def _shown(value) -> str:
    if isinstance(value, frozenset):        # a set's order would follow string hashing
        return "frozenset({" + ", ".join(repr(v) for v in sorted(value)) + "})"
    return repr(value)


# ---- the reference ---------------------------------------------------------------------------------
def render() -> str:
    """The reference, as markdown: what `taskmodel rules --world` prints and the doc quotes."""
    out = ["## Reference: the world, its records and helpers", "",
           ("Generated from the model's code by `taskmodel rules --world`; a test keeps this section equal "
           "to it. Each field is shown as `name` (type, state or bookkeeping): its meaning. **State** is "
           "part of the fingerprint (`model.snapshot.fingerprint`): two worlds that differ in it are two "
           "states of an exhaustive search. **Bookkeeping** is not: story names, the step record and "
           "history, caches, and what is fixed for an exploration. A rule may read both, but an answer "
           "that depends on bookkeeping makes the exhaustive search merge states that answer differently."),
           ""]
    for cls, reach, where in RECORDS:
        out += [f"### `{cls.__name__}`: {reach}", ""]
        for name, kind, state, doc in record_fields(cls, where):
            out.append(f"- `{name}` ({kind}, {'state' if state else 'bookkeeping'}): {doc}")
        out.append("")
    out += ["### State a rule adds", "", *_added_state(), ""]
    out += ["### Helpers a rule may call", ""]
    out += [f"- `{label}{_signature(fn)}`: {helper_doc(label, fn)}" for label, fn in helpers()]
    out += ["", "Not for rules: " + "; ".join(f"`world.{n}` ({why})" for n, why in NOT_FOR_RULES.items()) + ".", ""]
    out += ["### `model.wire` builders", "",
            "Each returns a JSON-ready dict, validated against the official schemas where it is built.", ""]
    out += [f"- `{label}{_signature(fn)}`: {helper_doc(label, fn)}" for label, fn in builders()]
    out += ["", "### Constants", ""]
    out += [f"- `{label}` = `{_shown(value)}`" for label, value in _constants()]
    return "\n".join(out) + "\n"


def section(doc: str) -> str | None:
    """The reference as a document quotes it (between `BEGIN` and `END`), or None without the markers."""
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        return None
    return doc[start + len(BEGIN):end].strip("\n") + "\n"


def refresh(doc: str) -> str:
    """The document with its quoted reference replaced by the current one."""
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {BEGIN} ... {END} section")
    return f"{doc[:start + len(BEGIN)]}\n{render()}{doc[end:]}"
