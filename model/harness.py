"""The client harness: a participant that calls remote MCP tools which may answer with a task.

The client view of RFC 0198 (`../shared/docs/harness-notes.md`, requirements HNS-1..7, LIV-2), composed
with the host over the same network: `World(harness=True)`, `World.composed(...)` or
`model.world.composed_world()`. Every
harness action's `moves` is empty when `world.harness is None`, so a host-only exploration never
sees the harness.

What a harness client holds:
- local runs, each with nodes; a node's remote call is a *tool-execution record* keyed by its
  operation id (the `tool_execution` lifecycle of `model.lifecycle`). The local run is the
  authority (HNS-5): the remote task status lives in the record (`remote_status`), and the local
  run's status is derived from its records only;
- a live process (volatile memory: negotiated capabilities, requests in flight, responses read but
  not yet persisted) or none, after a crash; and a disk that survives a crash. A restart starts a
  new process that resumes from the disk alone (HNS-3).

The mapping it follows is the article's: ToolExecution(op) -> tools/call -> remote taskId -> the
binding (taskId, server identity, auth binding) persisted -> WAITING_EXTERNAL, no worker held ->
tasks/get polling -> the final result normalised into the record. A call that needs a durable
handle goes only to a server whose `server/discover` offered the extension, and is refused
explicitly otherwise (HNS-1). Cancelling is an intent: recorded, then `tasks/cancel` where a task
exists, and the outcome comes only from the remote terminal fact, or is "effect unknown:
reconcile" when that fact cannot be had (HNS-4). A call whose connection dropped before its answer
(or whose process died) is re-issued with the same operation id, as real clients do: that is what
makes the end-to-end gaps E2E-2 and E2E-4 visible.

Every policy is a method of `HarnessRules`, so a client variant is a one-method override. The
actions' weights favour the steps of the harness's stories (start, read, persist, poll, re-issue)
over a crash, which is enabled almost everywhere. At every wait the harness chooses how: by polling
(`harness_poll`) or by a `subscriptions/listen` stream (`harness_listen`), read once by `tasks/get`
to catch up once the host acknowledged it, falling back to polling when the stream ends by the host's
teardown or a dropped connection (LIV-2); `Params.harness_wait` "either" (the default: the article
names both) or "poll" / "listen" to restrict it. A poll honours the `pollIntervalMs` of the last task
view read. Every request for a binding goes to the persisted server and as the persisted auth binding
(HNS-6). Operations are long work, other work, or short exchanges, which never declare Tasks (HNS-7);
`Params.harness_long_ops`, `harness_other_ops` and `harness_short_ops` (each on by default) say which
kinds the harness starts.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from operator import attrgetter

from . import footprint as fp
from . import lifecycle, wire
from .actions import action
from .clients import new_request
from .host import receive
from .lifecycle import TOOL_EXECUTION_TERMINAL as TE_TERMINAL
from .network import deliver, disconnect
from .snapshot import freeze

LOCAL_RUN_STATUSES = ("running", "waiting", "cancelling", "completed", "failed", "cancelled", "reconcile")
IDEMPOTENCY_META = "io.openwop/idempotencyKey"   # where a strengthening carries the operation key
DROPPED = ("lost", "cancelled")                   # request phases the client sees as "no answer will come"
UNKNOWN = "effect unknown: reconcile"
WAIT_MODES = {"either": ("poll", "listen"), "poll": ("poll",), "listen": ("listen",)}   # Params.harness_wait


@dataclass(frozen=True, slots=True)
class Binding:
    """The adapter binding persisted before WAITING_EXTERNAL (HNS-2)."""
    task_id: str        # the remote taskId, as the server returned it
    server: str         # the server identity
    auth: str           # the auth binding: the Subject whose credentials the handle is bound to


@dataclass(slots=True)
class ToolExecution:
    """One node's remote tool call: the local record, keyed by operation id."""
    op: str
    run: str                         # the local run
    node: str
    server: str
    long: bool                       # the work needs a durable handle (a task)
    short: bool = False              # the work needs only a short exchange (HNS-7: no task)
    tool: str = "flow"
    status: str = "planned"          # the tool_execution lifecycle
    declared: bool = False           # the current call declared the Tasks extension
    binding: Binding | None = None
    remote_status: str | None = None  # the remote task status as last read (HNS-5: it lives here)
    request_state: str | None = None  # MRTR: the requestState of an InputRequiredResult
    answers: str | None = None       # MRTR: the request whose InputRequiredResult that was
    input_keys: tuple[str, ...] = ()  # inputRequests keys still to answer
    attempts: int = 0                # tools/call attempts (first call and re-issues)
    cancel_intent: bool = False
    cancel_acked: bool = False
    reason: str = ""                 # why the outcome (a refusal, a reconcile)
    # Volatile: what the live process is doing; a new process clears these when it loads the record.
    request: str | None = None       # the tools/call (or MRTR retry) awaiting its answer
    pending: str | None = None       # a tasks/get or tasks/update in flight
    cancel_req: str | None = None    # a tasks/cancel in flight or acknowledged
    worker: bool = False             # a local worker is blocked on this call
    listen: str | None = None        # the subscriptions/listen this process waits on (LIV-2)
    caught_up: bool = False          # the tasks/get reading the task once that stream was acknowledged was sent
    heard: str | None = None         # the last notifications/tasks read from it (status and time)
    poll_at: int | None = None       # the clock tick before which no tasks/get is sent (pollIntervalMs)
    stream_ended: bool = False       # a subscription for it ended: wait by polling from now on

    @property
    def terminal(self) -> bool:
        return self.status in TE_TERMINAL


@dataclass(slots=True)
class LocalRun:
    id: str
    client: str
    nodes: dict[str, str]            # node id -> operation id
    status: str = "running"          # one of LOCAL_RUN_STATUSES, derived from its records


@dataclass(slots=True)
class Process:
    """A live harness process: everything here but what was persisted dies with it."""
    epoch: int
    tes: dict[str, ToolExecution] = field(default_factory=dict)
    runs: dict[str, LocalRun] = field(default_factory=dict)
    caps: dict[str, bool] = field(default_factory=dict)          # server -> offers Tasks (server/discover)
    discovering: dict[str, str] = field(default_factory=dict)    # server -> server/discover in flight
    inflight: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # request -> (purpose, op)
    dirty: set[str] = field(default_factory=set)                 # operations changed since persisted
    receipts: dict[str, list[str]] = field(default_factory=dict)  # op -> tools/call answers read, unpersisted


@dataclass(slots=True)
class HarnessClient:
    name: str
    subject: str
    proc: Process | None
    disk_tes: dict[str, ToolExecution] = field(default_factory=dict)
    disk_runs: dict[str, LocalRun] = field(default_factory=dict)
    epochs: int = 1


class Harness:
    """The harness clients of a composed world, and what they sent and read."""

    def __init__(self, world, rules=None):
        if rules is None or isinstance(rules, type):
            rules = (rules or HarnessRules)()
        self.rules = rules
        self.clients = {n: HarnessClient(n, s, Process(1)) for n, s in world.params.harness_clients}
        self.runs_started = 0
        self.ops = 0
        self.requests = 0
        self.crashes = 0
        self.sent: dict[str, tuple[str, int, str, str | None]] = {}   # request -> (client, epoch, purpose, op)
        self.read: set[str] = set()        # requests whose answer (or drop) a harness process took in
        self.said = ""                     # the last harness step, told in protocol words
        self._decoded: dict[str, str | None] = {}

    # ---- what exhaustive search needs (model.snapshot) ------------------------------------------
    def clone(self, world) -> "Harness":
        """An independent copy for `world` (a clone of this harness's world)."""
        new = object.__new__(Harness)
        new.rules = self.rules
        new.clients = {n: _copy_client(c) for n, c in self.clients.items()}
        new.runs_started, new.ops, new.requests, new.crashes = self.runs_started, self.ops, self.requests, self.crashes
        new.sent = dict(self.sent)
        new.read = set(self.read)
        new.said = ""
        new._decoded = self._decoded          # ids never change meaning
        return new

    def state_tuple(self) -> tuple:
        """Everything of the harness that determines the future (`said` is the last step's words)."""
        return (self.runs_started, self.ops, self.requests, self.crashes,
                tuple(client_tuple(c) for c in self.clients.values()),
                tuple(self.sent.items()), tuple(sorted(self.read)))

    def _raw(self, world, task_id: str) -> str | None:
        """The raw runId a bound taskId names (decoded once: ids never change meaning)."""
        if task_id not in self._decoded:
            self._decoded[task_id] = world.rules.decode_task_ref(world, task_id)
        return self._decoded[task_id]

    def execution(self, client: str, op: str) -> ToolExecution | None:
        """The live process's record of op, else the persisted one."""
        c = self.clients[client]
        te = c.proc.tes.get(op) if c.proc is not None else None
        return te if te is not None else c.disk_tes.get(op)

    def holders(self, world, run_id: str) -> list[str]:
        """Which harness clients hold a handle on a host run: a binding or an MRTR requestState, in a
        live process or on disk, or an answer delivered to a live process that it has yet to read."""
        out = []
        for c in self.clients.values():
            stores = (("persisted", c.disk_tes),) + ((("in memory", c.proc.tes),) if c.proc is not None else ())
            for where, tes in stores:
                for te in tes.values():
                    if te.terminal:
                        continue
                    if te.binding is not None and self._raw(world, te.binding.task_id) == run_id:
                        out.append(f"{c.name} ({where} binding of {te.op})")
                    elif te.request_state is not None and getattr(
                            world.request_states.get(te.request_state), "run", None) == run_id:
                        out.append(f"{c.name} ({where} requestState of {te.op})")
            if c.proc is not None:
                for qid in c.proc.inflight:
                    q = world.requests[qid]
                    if q.run == run_id and q.phase == "delivered":
                        out.append(f"{c.name} (answer to {qid} delivered, not yet read)")
        return out


# Every field of a ToolExecution in declaration order, read at C speed: a copy and the record's part
# of the state are made at every step of a search.
_TE_FIELDS = attrgetter(*ToolExecution.__slots__)


def _copy_te(te: ToolExecution) -> ToolExecution:
    return ToolExecution(*_TE_FIELDS(te))


def _copy_local_run(r: LocalRun) -> LocalRun:
    return LocalRun(r.id, r.client, dict(r.nodes), r.status)


def _copy_client(c: HarnessClient) -> HarnessClient:
    p = c.proc
    proc = None if p is None else Process(
        p.epoch, {k: _copy_te(v) for k, v in p.tes.items()}, {k: _copy_local_run(v) for k, v in p.runs.items()},
        dict(p.caps), dict(p.discovering), dict(p.inflight), set(p.dirty), {k: v[:] for k, v in p.receipts.items()})
    return HarnessClient(c.name, c.subject, proc, {k: _copy_te(v) for k, v in c.disk_tes.items()},
                         {k: _copy_local_run(v) for k, v in c.disk_runs.items()}, c.epochs)


_BINDING = ToolExecution.__slots__.index("binding")


def _te_tuple(te: ToolExecution) -> tuple:
    """The record's part of the state, in plain values (its binding as `snapshot.freeze` gives a
    record), so that the state's bytes are marshalled, not made by `repr`: many times faster."""
    t = _TE_FIELDS(te)
    b = t[_BINDING]
    return t if b is None else t[:_BINDING] + (freeze(b),) + t[_BINDING + 1:]


def client_tuple(c: HarnessClient) -> tuple:
    p = c.proc
    proc = None if p is None else (
        p.epoch, tuple((k, _te_tuple(v)) for k, v in p.tes.items()),
        tuple((k, v.id, tuple(v.nodes.items()), v.status) for k, v in p.runs.items()),
        tuple(sorted(p.caps.items())), tuple(sorted(p.discovering.items())), tuple(p.inflight.items()),
        tuple(sorted(p.dirty)), tuple((k, tuple(v)) for k, v in p.receipts.items()))
    return (c.name, proc, tuple((k, _te_tuple(v)) for k, v in c.disk_tes.items()),
            tuple((k, v.id, tuple(v.nodes.items()), v.status) for k, v in c.disk_runs.items()), c.epochs)


class HarnessRules:
    """The baseline harness: the article's recommended mapping, HNS-1..7 adopted as rules.

    Client variants override one method each (requirements.md, Variants):
    assume-tasks-everywhere -> `tasks_offered`, wait-before-persist -> `persists_binding_before_waiting`,
    reissue-after-restart -> `resumes_by_polling`, cancel-ack-means-no-effect -> `outcome_of_cancel_ack`,
    mirror-remote-status -> `record_remote_status`, poll-with-default-credentials -> `binding_credentials`,
    task-for-every-call -> `declares_tasks`, subscription-without-fallback -> `falls_back_to_polling`.
    The idempotency-key strengthening's client half overrides `idempotency_key`.
    """

    name = "baseline"

    # ---- HNS-1 negotiation --------------------------------------------------------------------
    def tasks_offered(self, world, client: str, server: str) -> bool | None:
        """What this process observed of the server's Tasks support in `server/discover`
        (None: not asked yet). Capabilities are volatile: a new process asks again."""
        return world.harness.clients[client].proc.caps.get(server)

    def declares_tasks(self, world, client: str, te: ToolExecution) -> bool:
        """HNS-7, per operation: a short exchange does not declare the extension (MRTR covers its
        missing input); other work declares it, ready for a plain result or a handle, except to a
        server observed not to serve it (the plain tools/call path)."""
        return not te.short and self.tasks_offered(world, client, te.server) is not False

    def plan_call(self, world, client: str, server: str, long: bool) -> str | None:
        """"call", "refuse" (the work needs a durable handle the server does not offer: an explicit
        refusal), or None (ask `server/discover` first)."""
        if not long:
            return "call"
        offered = self.tasks_offered(world, client, server)
        if offered is None:
            return None
        return "call" if offered else "refuse"

    def auth_binding(self, world, client: str, server: str) -> str:
        """The credentials a handle is bound to: the client's Subject."""
        return world.harness.clients[client].subject

    def binding_credentials(self, world, client: str, te: ToolExecution) -> tuple[str, str]:
        """HNS-6: (server, Subject) a poll, update, cancel or subscription for te's binding is sent to
        and as: the ones persisted with the binding, never the process's defaults."""
        return te.binding.server, te.binding.auth

    def idempotency_key(self, world, client: str, te: ToolExecution) -> str | None:
        """The key sent with a tools/call (MCP has no such field: only a strengthening sends one)."""
        return None

    # ---- HNS-2 durable wait -------------------------------------------------------------------
    def persists_binding_before_waiting(self, world, client: str, te: ToolExecution) -> bool:
        """A received handle is persisted first; the node enters WAITING_EXTERNAL in the same
        checkpoint, never at receipt."""
        return True

    # ---- HNS-3 restart and re-issue -----------------------------------------------------------
    def resumes_by_polling(self, world, client: str, te: ToolExecution) -> bool:
        """A new process resumes polling every persisted binding (never re-issues its call)."""
        return True

    def reissues_unanswered_call(self, world, client: str, te: ToolExecution) -> bool:
        """A tools/call that will get no answer (its connection dropped, or its process died) is
        re-issued with the same operation id: what real clients do."""
        return True

    # ---- LIV-2 waiting: polling or a subscription -------------------------------------------------
    def wait_by(self, world, client: str, te: ToolExecution) -> tuple[str, ...]:
        """The ways the harness may wait on te's binding now: "poll" (tasks/get) and "listen"
        (subscriptions/listen, with one tasks/get to catch up once it is acknowledged). The article
        names both and prefers neither, so each wait is the harness's choice (`Params.harness_wait`
        "either"; "poll" or "listen" restricts it). Once a subscription for te ended, polling only: the
        fallback LIV-2 asks for (subscribing again is not generated)."""
        if te.stream_ended:
            return ("poll",)
        return WAIT_MODES[world.params.harness_wait]

    def falls_back_to_polling(self, world, client: str, te: ToolExecution) -> bool:
        """A subscription that ends (the host tears it down, the connection drops) is no fact about
        the task: the harness waits by polling instead."""
        return True

    # ---- HNS-4 cancellation as intent ---------------------------------------------------------
    def outcome_of_cancel_ack(self, world, client: str, te: ToolExecution) -> str | None:
        """The empty ack of tasks/cancel is no fact about the effect: no outcome (a trigger of the
        tool_execution lifecycle, or None); keep reading until the remote terminal fact."""
        return None

    def outcome_of_remote(self, world, client: str, te: ToolExecution, status: str, is_error) -> str:
        """The remote terminal fact as the record's outcome (a lifecycle trigger): a remote
        `completed` is recorded completed even after a cancel intent."""
        if status == "cancelled":
            return "remote_cancelled"
        if status == "completed" and not is_error:
            return "complete"
        return "fail"

    # ---- HNS-5 the local run is the authority -------------------------------------------------
    def record_remote_status(self, world, client: str, te: ToolExecution, status: str) -> None:
        """The remote task status is kept inside the tool-execution record only."""
        te.remote_status = status

    def local_run_status(self, world, client: str, run: LocalRun, tes: list[ToolExecution]) -> str:
        return derive_local_status(tes)

    # ---- MRTR ---------------------------------------------------------------------------------
    def input_response(self, world, client: str, te: ToolExecution, key: str) -> dict:
        """The user's answer to one input request (MRTR retry or tasks/update); with a cancel intent
        the input is declined (an MRTR round trip has no tasks/cancel)."""
        if te.cancel_intent:
            return {"action": "decline"}
        return {"action": "accept", "content": {"approved": True}}


def derive_local_status(tes) -> str:
    """The local run's status from its tool-execution records alone (HNS-5)."""
    live = [te for te in tes if not te.terminal]
    if live:
        if any(te.cancel_intent for te in live):
            return "cancelling"
        return "waiting" if all(te.status == "waiting_external" for te in live) else "running"
    outcomes = {te.status for te in tes}
    if outcomes == {"completed"}:
        return "completed"
    if "unknown" in outcomes:
        return "reconcile"
    if outcomes & {"failed", "refused"}:
        return "failed"
    return "cancelled" if "cancelled" in outcomes else "completed"


# ---- mechanics -----------------------------------------------------------------------------------
def _live(world):
    h = world.harness
    if h is None:
        return ()
    return [(c, c.proc) for c in h.clients.values() if c.proc is not None]


def _can_send(world) -> bool:
    return world.harness.requests < world.params.harness_max_requests


def _fire(world, c: HarnessClient, te: ToolExecution, trigger: str) -> None:
    """A local transition of the record; the local run's status follows from its records."""
    te.status = lifecycle.fire("tool_execution", te.status, trigger)
    if te.status in TE_TERMINAL:
        te.worker = False
    _sync_run(world, c, te)


def _sync_run(world, c: HarnessClient, te: ToolExecution) -> None:
    p = c.proc
    run = p.runs[te.run]
    run.status = world.harness.rules.local_run_status(world, c.name, run, [p.tes[o] for o in run.nodes.values()])
    p.dirty.add(te.op)


def _send(world, c: HarnessClient, purpose: str, op: str | None, server: str, method: str, *, declare=True,
          task_ref=None, params=None, retry_of=None, key=None, subject=None):
    h = world.harness
    q = new_request(world, c.name, server, "http", method, declares_tasks=declare, task_ref=task_ref,
                    params=params, operation=op, subject=subject)
    if key is not None:
        q.message["params"]["_meta"][IDEMPOTENCY_META] = key
    q.retry_of = retry_of
    h.requests += 1
    h.sent[q.id] = (c.name, c.proc.epoch, purpose, op)
    c.proc.inflight[q.id] = (purpose, op)
    receive(world, q)
    return q


def _bound_send(world, c: HarnessClient, purpose: str, te: ToolExecution, method: str, params=None):
    """A request about te's bound task, with the server and credentials HNS-6 says."""
    server, subject = world.harness.rules.binding_credentials(world, c.name, te)
    return _send(world, c, purpose, te.op, server, method, task_ref=te.binding.task_id, params=params,
                 subject=subject)


def _call(world, c: HarnessClient, te: ToolExecution, retry: bool = False):
    """Send te's tools/call (or, with `retry`, its MRTR retry answering every input request)."""
    R = world.harness.rules
    te.declared = R.declares_tasks(world, c.name, te)
    params = {"tool": te.tool, "arguments": {"n": 1}}
    retry_of = None
    if retry:
        params["input_responses"] = {k: R.input_response(world, c.name, te, k) for k in te.input_keys}
        params["request_state"] = te.request_state
        retry_of = te.answers
    else:
        te.attempts += 1
        c.proc.dirty.add(te.op)          # the attempt is part of the record
    q = _send(world, c, "call", te.op, te.server, "tools/call", declare=te.declared, params=params,
              retry_of=retry_of, key=R.idempotency_key(world, c.name, te))
    te.request, te.worker = q.id, True
    return q


def _persist(world, c: HarnessClient, op: str) -> None:
    """A checkpoint of one record and its local run. A received handle is written first, and the
    node enters WAITING_EXTERNAL in the same checkpoint. The answers it consumed are now durably
    received: the client's receipt (the host learns of it only under a strengthening)."""
    p = c.proc
    te = p.tes[op]
    if te.status == "handle_received":
        _fire(world, c, te, "enter_wait")
    c.disk_tes[op] = replace(te)
    run = p.runs[te.run]
    c.disk_runs[run.id] = replace(run, nodes=dict(run.nodes))
    p.dirty.discard(op)
    for qid in p.receipts.pop(op, ()):
        q = world.requests[qid]
        if q.owns is not None and world.rules.releases_ownership(world, q, "receipt"):
            q.owns = None


# ---- footprints -----------------------------------------------------------------------------------
# The harness's policies are rules an amendment overrides: its steps are declared as calling any of
# them and any host rule, and a request it sends as reaching what the host's receipt may
# (`fp.RECEIPT`). Conservative, all of them: a harness client is one key (its process and disk).
def _client(world, a):
    return {fp.hclient(a["client"])}


def _sending(world, a, listen: bool = False):
    """A request a harness client sends: its record of it, the request and the host's receipt."""
    qid = f"r{len(world.requests) + 1}"
    return _client(world, a) | fp.new_request(world, listen) | fp.RECEIPT | {
        ("harness", "requests"), fp.table("sent"), ("sent", qid)}


def _listening(world, a):
    return _sending(world, a, listen=True)


SENDS = fp.footprint(_sending, _sending, [fp.ANY], [fp.ANY], exact=False)
LISTENS = fp.footprint(_listening, _listening, [fp.ANY], [fp.ANY], exact=False)
START = fp.footprint(lambda w, a: _sending(w, a) | {("harness", "runs_started"), ("harness", "ops")},
                     lambda w, a: _sending(w, a) | {("harness", "runs_started"), ("harness", "ops")},
                     [fp.ANY], [fp.ANY], exact=False)


def _receiving(world, a):
    """An answer (or a drop) taken in: the client, its record of the request, the request (a
    response in flight is delivered now), what subscriptions published, and the answers read."""
    r = a["request"]
    return {fp.hclient(fp.sent_by(world, a)), ("sent", r), fp.request(r), fp.every("sub"), ("read", r),
            fp.table("read")}


def _persisting(world, a):
    """The client, and the requests whose answers the record consumed (their receipt is durable now)."""
    p = world.harness.clients[a["client"]].proc
    return _client(world, a) | {fp.request(q) for q in p.receipts.get(a["op"], ())}


# A crash drops every open connection of the process: declared as every request, run and log.
CRASH = frozenset({("harness", "crashes"), fp.table("sent"), fp.every("request"), fp.every("run"),
                   fp.every("log"), fp.CLOCK})


# ---- server/discover -----------------------------------------------------------------------------
def _discover_moves(world):
    if world.harness is None or not _can_send(world):
        return []
    return [dict(client=c.name, server=s) for c, p in _live(world) for s, _ in world.params.servers
            if s not in p.caps and s not in p.discovering]


@action("harness", _discover_moves, lambda w, a: (
    f"harness {a['client']} sends server/discover {w.last_request()} to {a['server']}"), weight=2,
    footprint=SENDS)
def harness_discover(world, client, server):
    """Capability negotiation: ask the server whether it serves the Tasks extension."""
    c = world.harness.clients[client]
    q = _send(world, c, "discover", None, server, "server/discover", declare=False)
    c.proc.discovering[server] = q.id


# ---- a local run starts: its node calls a remote tool --------------------------------------------
def _start_moves(world):
    h = world.harness
    if h is None or h.runs_started >= world.params.harness_max_runs or not _can_send(world):
        return []
    R, P = h.rules, world.params
    kinds = [long for long, on in ((False, P.harness_other_ops), (True, P.harness_long_ops)) if on]
    out = [dict(client=c.name, server=s, long=long) for c, p in _live(world) for s, _ in P.servers
           for long in kinds if R.plan_call(world, c.name, s, long) is not None]
    if P.harness_short_ops:      # a quick lookup or confirmation: never needs a handle
        out += [dict(client=c.name, server=s, long=False, short=True) for c, _ in _live(world) for s, _ in P.servers]
    return out


@action("harness", _start_moves, lambda w, a: w.harness.said, weight=3, footprint=START)
def harness_start(world, client, server, long, short=False):
    """A local run starts with one node calling tool `flow` on `server`; `long` work needs a durable
    handle, `short` work needs only a short exchange (HNS-7). The call is sent, or refused explicitly
    (HNS-1), and the record written, in one step."""
    h = world.harness
    c, R = h.clients[client], h.rules
    h.runs_started += 1
    h.ops += 1
    run_id, op = f"L{h.runs_started}", f"op{h.ops}"
    if world.step is not None:
        world.step.created.extend((run_id, op))     # minted here: a replay that drops steps renames them
    te = ToolExecution(op=op, run=run_id, node="n1", server=server, long=long, short=short)
    c.proc.tes[op] = te
    c.proc.runs[run_id] = LocalRun(run_id, client, {"n1": op})
    what = (f"harness {client} starts local run {run_id}: node n1 "
            f"({op}{', long work' if long else ', a short exchange' if short else ''})")
    if R.plan_call(world, client, server, long) == "refuse":
        te.reason = f"{server} offers no durable task handle (server/discover without {wire.TASKS_EXT})"
        _fire(world, c, te, "refuse")
        _persist(world, c, op)
        h.said = f"{what} is refused: {te.reason}"
        return
    _fire(world, c, te, "send_call")
    q = _call(world, c, te)
    _persist(world, c, op)
    h.said = f"{what} sends tools/call {q.id} to {server}{' declaring tasks' if te.declared else ''}"


# ---- reading answers -----------------------------------------------------------------------------
def _reissuable(world, client: str, te: ToolExecution) -> bool:
    return not te.cancel_intent and te.attempts < world.params.harness_max_attempts \
        and world.harness.rules.reissues_unanswered_call(world, client, te)


def _receive_moves(world):
    if world.harness is None:
        return []
    out = []
    for c, p in _live(world):
        for qid, (purpose, op) in p.inflight.items():
            phase = world.requests[qid].phase
            if phase in ("sent", "delivered") or (phase == "streaming" and _unheard(world, p.tes[op], qid)):
                out.append(dict(request=qid))
            elif phase in DROPPED and (purpose != "call" or not _reissuable(world, c.name, p.tes[op])):
                out.append(dict(request=qid))
    return out


@action("harness", _receive_moves, lambda w, a: w.harness.said, weight=4, footprint=fp.footprint(
    _receiving, _receiving, [fp.ANY], [fp.ANY], exact=False))
def harness_receive(world, request):
    """A harness process takes in the answer to one of its requests (still in flight: it arrives
    now; or already delivered), or learns that its connection dropped before one came. What it
    learns is volatile until persisted."""
    h = world.harness
    client, _, purpose, op = h.sent[request]
    c = h.clients[client]
    p = c.proc
    q = world.requests[request]
    te = p.tes.get(op) if op is not None else None
    if q.phase == "streaming":
        h.said = _hear(world, c, q, te)
        return
    if q.phase == "sent":
        deliver(world, request)
    del p.inflight[request]
    h.read.add(request)
    if q.phase in DROPPED:
        h.said = _dropped(world, c, q, purpose, te)
    else:
        h.said = _read(world, c, q, purpose, te)


def _dropped(world, c, q, purpose, te) -> str:
    head = f"harness {c.name} learns that the connection of {q.method} {q.id} dropped before its answer"
    if purpose == "discover":
        c.proc.discovering.pop(q.server, None)
        return head
    if purpose == "call":
        te.request, te.worker = None, False
        te.reason = f"{UNKNOWN} (the connection of {q.id} dropped before its answer)"
        _fire(world, c, te, "fact_unobtainable")
        return f"{head}: {te.op} is recorded '{UNKNOWN}'"
    if purpose == "cancel":
        te.cancel_req = None
    elif purpose == "listen":
        return f"harness {c.name} learns that subscriptions/listen {q.id} ended" + _stream_ended(world, c, te)
    else:
        te.pending = None
    return head


def _read(world, c, q, purpose, te) -> str:
    R = world.harness.rules
    resp = q.response
    head = f"harness {c.name} reads the answer to {q.method} {q.id}"
    if purpose == "discover":
        offered = wire.TASKS_EXT in resp["result"]["capabilities"].get("extensions", {})
        c.proc.caps[q.server] = offered
        c.proc.discovering.pop(q.server, None)
        return f"{head}: {q.server} {'offers' if offered else 'does not offer'} {wire.TASKS_EXT}"
    if purpose == "call":
        te.request, te.worker = None, False
        c.proc.receipts.setdefault(te.op, []).append(q.id)
        if "error" in resp:
            code = resp["error"]["code"]
            if q.retry_of is not None:
                te.reason = f"{UNKNOWN} (MRTR retry {q.id} refused with {code})"
                _fire(world, c, te, "fact_unobtainable")
            else:
                te.reason = f"error {code}"
                _fire(world, c, te, "fail")
            return f"{head}: error {code}; {te.op} is {te.status}"
        result = resp["result"]
        kind = result.get("resultType")
        if kind == "task":
            te.binding = Binding(result["taskId"], q.server, R.auth_binding(world, c.name, q.server))
            _note_interval(world, te, result)
            _fire(world, c, te, "receive_handle")
            if not R.persists_binding_before_waiting(world, c.name, te):
                _fire(world, c, te, "enter_wait")
            R.record_remote_status(world, c.name, te, result["status"])
            return f"{head}: CreateTaskResult {world.label(result['taskId'])} ({result['status']})"
        if kind == "input_required":
            te.request_state, te.answers = result.get("requestState"), q.id
            te.input_keys = tuple(result.get("inputRequests", {}))
            _fire(world, c, te, "receive_input_required")
            return f"{head}: InputRequiredResult ({', '.join(world.label(k) for k in te.input_keys)})"
        is_error = bool(result.get("isError"))
        te.reason = f"plain CallToolResult to a{' declaring' if q.declares_tasks else ''} call"
        _fire(world, c, te, R.outcome_of_remote(world, c.name, te, "completed", is_error))
        return f"{head}: CallToolResult isError={is_error}; {te.op} is {te.status}"
    if purpose == "cancel":
        if "error" in resp:
            if not te.terminal:
                te.reason = f"{UNKNOWN} (tasks/cancel {q.id}: {resp['error']['code']})"
                _fire(world, c, te, "fact_unobtainable")
            return f"{head}: error {resp['error']['code']}; {te.op} is {te.status}"
        te.cancel_acked = True
        c.proc.dirty.add(te.op)
        trigger = None if te.terminal else R.outcome_of_cancel_ack(world, c.name, te)
        if trigger is not None:
            te.reason = f"tasks/cancel {q.id} acknowledged"
            _fire(world, c, te, trigger)
            return f"{head}: the empty ack; {te.op} is recorded {te.status}"
        return f"{head}: the empty ack (an intent accepted, no fact about the effect)"
    if purpose == "listen":         # refused (an error): no stream at all
        return f"{head}: error {resp['error']['code']}" + _stream_ended(world, c, te)
    te.pending = None
    if purpose == "update":
        return f"{head}: the empty ack"
    # tasks/get: the remote status, read into the record; a terminal one is the fact HNS-4 waits for.
    if te.terminal:
        return f"{head} ({te.op} already {te.status})"
    if "error" in resp:
        te.reason = f"{UNKNOWN} (tasks/get {q.id}: {resp['error']['code']} {resp['error']['message']})"
        _fire(world, c, te, "fact_unobtainable")
        return f"{head}: error {resp['error']['code']}; {te.op} is recorded '{UNKNOWN}'"
    status = _take_task(world, c, te, resp["result"], f"tasks/get {q.id}")
    return f"{head}: {world.label(q.task_ref)} is {status}; {te.op} is {te.status}"


def _take_task(world, c, te, task: dict, how: str) -> str:
    """A remote task view read into the record; a terminal one is the fact HNS-4 waits for."""
    R = world.harness.rules
    status = task["status"]
    _note_interval(world, te, task)
    if status == "input_required":
        te.input_keys = tuple(task.get("inputRequests", {}))
    if status in wire.TERMINAL_TASK_STATUSES:
        te.reason = f"remote {status} read by {how}"
        _fire(world, c, te, R.outcome_of_remote(world, c.name, te, status, (task.get("result") or {}).get("isError")))
    else:
        c.proc.dirty.add(te.op)
    R.record_remote_status(world, c.name, te, status)
    return status


def _note_interval(world, te, task: dict) -> None:
    """The `pollIntervalMs` of the task view just read: no tasks/get for te before that much time
    has passed (rounded up to whole ticks); a view without one leaves the pace to the harness."""
    ms = task.get("pollIntervalMs")
    if isinstance(ms, int) and not isinstance(ms, bool) and ms > 0:
        te.poll_at = world.clock - (-ms // world.params.tick_ms)
    else:
        te.poll_at = None


def _interval_elapsed(world, te) -> bool:
    """The last pollIntervalMs has elapsed, or the instance's clock is at its bound (the interval can
    never elapse in the instance: waiting for it would be the model's bound, not the harness's pace)."""
    return te.poll_at is None or world.clock >= min(te.poll_at, world.params.max_time)


# ---- waiting by subscription (LIV-2) --------------------------------------------------------------
def _notification(world, te, qid) -> dict | None:
    """The last notifications/tasks the host sent on subscription qid for te's bound task."""
    raw = world.harness._raw(world, te.binding.task_id) if te.binding is not None else None
    return world.last_sent.get((qid, raw))


def _heard_key(task: dict) -> str:
    return f"{task.get('status')}@{task.get('lastUpdatedAt')}"


def _unheard(world, te, qid) -> bool:
    task = _notification(world, te, qid)
    return task is not None and not te.terminal and _heard_key(task) != te.heard


def _hear(world, c, q, te) -> str:
    """Read the latest notifications/tasks of a subscription; a terminal one ends the wait on it."""
    task = _notification(world, te, q.id)
    te.heard = _heard_key(task)
    status = _take_task(world, c, te, task, f"notifications/tasks on {q.id}")
    if te.terminal:
        del c.proc.inflight[q.id]
        world.harness.read.add(q.id)
        te.listen = None
    return (f"harness {c.name} reads notifications/tasks on {q.id}: {world.label(task['taskId'])} is {status}; "
            f"{te.op} is {te.status}")


def _stream_ended(world, c, te) -> str:
    if te is None or te.terminal:
        return ""
    if world.harness.rules.falls_back_to_polling(world, c.name, te):
        te.listen = None
        te.stream_ended = True
        return f"; {te.op} waits by polling now"
    return f"; {te.op} keeps waiting on it"


# ---- checkpoint, crash, restart ------------------------------------------------------------------
def _persist_moves(world):
    return [dict(client=c.name, op=op) for c, p in _live(world) for op in sorted(p.dirty)]


@action("harness", _persist_moves, lambda w, a: (
    f"harness {a['client']} persists {a['op']} ({w.harness.clients[a['client']].disk_tes[a['op']].status})"), weight=3,
    footprint=fp.footprint(_persisting, _persisting, ["releases_ownership"], [fp.ANY], exact=False))
def harness_persist(world, client, op):
    """A checkpoint of one tool-execution record (and its local run) to disk."""
    _persist(world, world.harness.clients[client], op)


def _crash_moves(world):
    h = world.harness
    if h is None or h.crashes >= world.params.harness_max_crashes:
        return []
    return [dict(client=c.name) for c, _ in _live(world)]


@action("harness", _crash_moves, lambda w, a: w.harness.said, weight=1, footprint=fp.footprint(
    lambda w, a: _client(w, a) | CRASH, lambda w, a: _client(w, a) | CRASH, [fp.ANY], [fp.ANY], exact=False))
def harness_crash(world, client):
    """The process dies at any step: its volatile memory is gone and its open connections drop."""
    h = world.harness
    c = h.clients[client]
    c.proc = None
    h.crashes += 1
    dropped = []
    for qid, (owner, _, _, _) in h.sent.items():
        q = world.requests[qid]
        if owner == client and (q.phase in ("received", "streaming", "sent")
                                or (q.phase == "delivered" and not q.closed and q.run is not None)):
            disconnect(world, qid)
            dropped.append(qid)
    h.said = (f"harness {client}'s process crashes: its volatile memory is lost"
              + (f" and the connections of {', '.join(dropped)} drop" if dropped else ""))


def _restart_moves(world):
    if world.harness is None:
        return []
    return [dict(client=c.name) for c in world.harness.clients.values() if c.proc is None]


@action("harness", _restart_moves, lambda w, a: w.harness.said, weight=2, footprint=fp.footprint(
    _client, _client, [fp.ANY], [fp.ANY], exact=False))
def harness_restart(world, client):
    """A new process loads the disk: it resumes polling every persisted binding; a call whose
    answer never came is re-issued later; one with a cancel intent ends "effect unknown"."""
    h = world.harness
    c, R = h.clients[client], h.rules
    c.epochs += 1
    p = c.proc = Process(c.epochs)
    for op, d in c.disk_tes.items():
        p.tes[op] = replace(d, request=None, pending=None, cancel_req=None, worker=False, listen=None,
                            caught_up=False, heard=None, poll_at=None)
    for rid, d in c.disk_runs.items():
        p.runs[rid] = replace(d, nodes=dict(d.nodes))
    told = []
    for te in p.tes.values():
        if te.terminal:
            continue
        if te.binding is not None:
            if te.status == "handle_received":
                _fire(world, c, te, "enter_wait")
            if R.resumes_by_polling(world, client, te):
                told.append(f"resumes polling {world.label(te.binding.task_id)} for {te.op}")
            else:
                te.binding = None
                _fire(world, c, te, "reissue")
                told.append(f"drops the binding of {te.op} to call again")
        elif te.status == "calling":
            if te.cancel_intent:
                te.reason = f"{UNKNOWN} (the process died with the tools/call of {te.op} unanswered)"
                _fire(world, c, te, "fact_unobtainable")
                told.append(f"records {te.op} '{UNKNOWN}'")
            else:
                told.append(f"finds {te.op} unanswered")
    h.said = f"harness {client} restarts as a new process from its disk" + (f": {'; '.join(told)}" if told else "")


# ---- re-issue, poll, answer input ----------------------------------------------------------------
def _reissue_moves(world):
    if world.harness is None or not _can_send(world):
        return []
    out = []
    for c, p in _live(world):
        for te in p.tes.values():
            if te.status == "calling" and _reissuable(world, c.name, te) and (
                    te.request is None or world.requests[te.request].phase in DROPPED):
                out.append(dict(client=c.name, op=te.op))
    return out


def _reissuing(world, a):
    """The re-issued call, and the earlier request it gives up on (taken as read)."""
    old = world.harness.clients[a["client"]].proc.tes[a["op"]].request
    return _sending(world, a) | {fp.table("read"), ("read", old)}


@action("harness", _reissue_moves, lambda w, a: w.harness.said, weight=3, footprint=fp.footprint(
    _reissuing, _reissuing, [fp.ANY], [fp.ANY], exact=False))
def harness_reissue(world, client, op):
    """Re-issue a tools/call that will get no answer, as a new request with the same operation id."""
    h = world.harness
    c = h.clients[client]
    te = c.proc.tes[op]
    old = te.request
    if old is not None:
        c.proc.inflight.pop(old, None)
        h.read.add(old)
    q = _call(world, c, te)
    why = f"the connection of {old} dropped before its answer" if old else "its answer never came to a live process"
    h.said = f"harness {client} re-issues the tools/call of {op} as {q.id} ({why})"


def _waiting(world):
    """(client, record) for each record of a live process waiting on its binding with no read in flight."""
    return [(c, te) for c, p in _live(world) for te in p.tes.values()
            if te.status == "waiting_external" and te.binding is not None and te.pending is None]


def _poll_moves(world):
    if world.harness is None or not _can_send(world):
        return []
    R = world.harness.rules
    return [dict(client=c.name, op=te.op) for c, te in _waiting(world) if _interval_elapsed(world, te) and (
        (te.listen is None and "poll" in R.wait_by(world, c.name, te))
        or (te.listen is not None and not te.caught_up and world.requests[te.listen].phase == "streaming"))]


@action("harness", _poll_moves, lambda w, a: w.harness.said, weight=3, footprint=SENDS)
def harness_poll(world, client, op):
    """WAITING_EXTERNAL: poll the bound task (no worker is held between polls); or, waiting on a
    subscription the host has acknowledged, read the task once to catch up on what changed before it."""
    h = world.harness
    c = h.clients[client]
    te = c.proc.tes[op]
    task = world.label(te.binding.task_id)
    catch_up = te.listen is not None
    q = _bound_send(world, c, "get", te, "tasks/get")
    te.pending = q.id
    if catch_up:
        te.caught_up = True
        h.said = f"harness {client} reads {task} with tasks/get {q.id} to catch up on subscription {te.listen} ({op})"
    else:
        h.said = f"harness {client} polls tasks/get {q.id} for {task} ({op})"


def _listen_moves(world):
    if world.harness is None or not _can_send(world):
        return []
    R = world.harness.rules
    return [dict(client=c.name, op=te.op) for c, te in _waiting(world)
            if te.listen is None and "listen" in R.wait_by(world, c.name, te)]


@action("harness", _listen_moves, lambda w, a: (
    f"harness {a['client']} waits on {w.label(w.harness.clients[a['client']].proc.tes[a['op']].binding.task_id)} "
    f"by subscriptions/listen {w.last_request()} ({a['op']})"), weight=2,
    footprint=LISTENS)
def harness_listen(world, client, op):
    """WAITING_EXTERNAL, waiting by subscription (LIV-2): open a subscriptions/listen for the bound
    task, with the persisted server and credentials (HNS-6); once the host acknowledges it, one
    tasks/get catches up (`harness_poll`), and each notifications/tasks is read as it comes."""
    h = world.harness
    c = h.clients[client]
    te = c.proc.tes[op]
    server, subject = h.rules.binding_credentials(world, client, te)
    sub = _send(world, c, "listen", op, server, "subscriptions/listen", params={"task_ids": [te.binding.task_id]},
                subject=subject)
    te.listen, te.caught_up, te.heard = sub.id, False, None


def _update_moves(world):
    if world.harness is None or not _can_send(world):
        return []
    return [dict(client=c.name, op=te.op) for c, p in _live(world) for te in p.tes.values()
            if te.status == "waiting_external" and te.remote_status == "input_required" and te.input_keys
            and te.pending is None]


@action("harness", _update_moves, lambda w, a: (
    f"harness {a['client']} answers the input requests of {a['op']}'s task with tasks/update {w.last_request()}"), weight=2,
    footprint=SENDS)
def harness_update(world, client, op):
    """A task reads input_required: answer its inputRequests through tasks/update."""
    h = world.harness
    c = h.clients[client]
    te = c.proc.tes[op]
    answers = {k: h.rules.input_response(world, client, te, k) for k in te.input_keys}
    q = _bound_send(world, c, "update", te, "tasks/update", params={"input_responses": answers})
    te.pending, te.input_keys = q.id, ()


def _mrtr_moves(world):
    if world.harness is None or not _can_send(world):
        return []
    return [dict(client=c.name, op=te.op) for c, p in _live(world) for te in p.tes.values()
            if te.status == "input_required" and te.request_state is not None]


@action("harness", _mrtr_moves, lambda w, a: (
    f"harness {a['client']} retries the tools/call of {a['op']} as {w.last_request()} answering its input requests (MRTR)"), weight=2,
    footprint=SENDS)
def harness_mrtr(world, client, op):
    """A short input round trip stays MRTR: a new tools/call echoing requestState."""
    c = world.harness.clients[client]
    te = c.proc.tes[op]
    _fire(world, c, te, "retry_input")
    _call(world, c, te, retry=True)
    te.request_state, te.input_keys = None, ()


# ---- cancellation as intent ----------------------------------------------------------------------
def _cancel_moves(world):
    if not world.params.harness_cancels:
        return []
    return [dict(client=c.name, run=run.id) for c, p in _live(world) for run in p.runs.values()
            if any(not p.tes[op].terminal and not p.tes[op].cancel_intent for op in run.nodes.values())]


def _cancelling(world, a):
    """The client, and the requests whose answers the run's records consumed (each record is persisted)."""
    p = world.harness.clients[a["client"]].proc
    return _client(world, a) | {fp.request(q) for op in p.runs[a["run"]].nodes.values() for q in p.receipts.get(op, ())}


@action("harness", _cancel_moves, lambda w, a: (
    f"harness {a['client']} cancels local run {a['run']}: the cancel intent is recorded"), weight=2,
    footprint=fp.footprint(_cancelling, _cancelling, ["releases_ownership"], [fp.ANY], exact=False))
def harness_cancel(world, client, run):
    """Cancel a local run: record the intent durably on every unfinished record of it."""
    c = world.harness.clients[client]
    for op in c.proc.runs[run].nodes.values():
        te = c.proc.tes[op]
        if not te.terminal and not te.cancel_intent:
            te.cancel_intent = True
            _sync_run(world, c, te)
            _persist(world, c, op)


def _send_cancel_moves(world):
    if world.harness is None or not _can_send(world):
        return []
    return [dict(client=c.name, op=te.op) for c, p in _live(world) for te in p.tes.values()
            if te.cancel_intent and te.status == "waiting_external" and te.binding is not None
            and te.cancel_req is None and not te.cancel_acked]


@action("harness", _send_cancel_moves, lambda w, a: (
    f"harness {a['client']} sends tasks/cancel {w.last_request()} for "
    f"{w.label(w.harness.clients[a['client']].proc.tes[a['op']].binding.task_id)} ({a['op']})"), weight=2,
    footprint=SENDS)
def harness_send_cancel(world, client, op):
    """The remote half of a cancel: tasks/cancel on the bound task (cooperative, not a fact)."""
    c = world.harness.clients[client]
    te = c.proc.tes[op]
    q = _bound_send(world, c, "cancel", te, "tasks/cancel")
    te.cancel_req = q.id
