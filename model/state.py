"""The state of the system: runs, interrupts, requests, subscriptions, the clock, and the step record.

Plain mutable records with slots: the engines step the model thousands of times a second.
Every field a property reads is here and observable; nothing is hidden in closures.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Interrupt:
    id: str                          # raw tenant/opaque interruptId
    run: str
    kind: str                        # approval | clarification | external-event
    approvers: tuple[str, ...] | None  # None: any same-tenant subject holding approvals:respond
    form: bool                       # a flat schema (form mode) or a credential (never form mode)
    label: str = ""                  # a short name for stories (i1, i2, ...)
    open: bool = True
    resolved_by: str | None = None
    resolution: str | None = None    # accept | decline | cancel | external
    via: str | None = None           # tasks/update | mrtr | rest | external | replay


@dataclass(slots=True)
class Run:
    id: str                          # raw runId
    server: str
    tenant: str
    owner: str                       # the Subject that started it
    started_by: str                  # tasked-call | blocking-call | rest | child | fork
    status: str = "pending"
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    created_at: int = 0
    updated_at: int = 0
    terminal_at: int | None = None
    durable: bool = True             # readable through getRun (createRun makes it so at once)
    purged: bool = False
    log: list[dict] = field(default_factory=list)
    interrupts: list[str] = field(default_factory=list)
    creating_request: str | None = None
    fork_of: str | None = None
    cancel_reason: str | None = None
    ttl_failed: bool = False
    grace_until: int | None = None   # only variants with a grace window set it
    label: str = ""                  # a short name for stories (run1, run2, ...)

    def open_interrupts(self, world) -> list["Interrupt"]:
        return [world.interrupts[i] for i in self.interrupts if world.interrupts[i].open]


@dataclass(slots=True)
class Request:
    id: str                          # the JSON-RPC id, unique in an exploration
    client: str
    subject: str
    server: str
    transport: str                   # http | stdio
    method: str
    message: dict
    declares_tasks: bool = False
    declares_elicitation: bool = False
    task_ref: str | None = None      # params.taskId as sent
    mcp_name: str | None = None      # the Mcp-Name routing header (HTTP)
    phase: str = "received"
    response: dict | None = None
    http_status: int | None = None   # streamable HTTP: the status the response was sent with (WIRE-5)
    run: str | None = None           # the run this request started or continues
    owns: str | None = None          # OWN-1, kept observable: the run this request owns now
    retry_of: str | None = None      # for an MRTR retry, the request whose InputRequiredResult it answers
    retry_valid: bool = False
    operation: str | None = None     # a client's logical operation id (idempotency, harness)
    acked: tuple[str, ...] = ()      # subscriptions/listen: the raw runIds acknowledged
    cancel_sent: bool = False        # stdio: the client already sent notifications/cancelled
    closed: bool = False             # HTTP: the connection closed after the response arrived
    host_cancelled: bool = False     # the host sent a notifications/cancelled naming it (NTF-1)


@dataclass(slots=True)
class RequestState:
    token: str
    principal: str
    run: str
    interrupt: str
    request: str
    used: bool = False


@dataclass(slots=True)
class Step:
    """One protocol action and everything it did: the unit of traces, stories and replay."""
    index: int
    action: str
    args: dict
    actor: str
    events: list[tuple[str, dict]] = field(default_factory=list)      # (runId, event) appended
    emitted: list[tuple[str | None, dict]] = field(default_factory=list)  # (requestId, message) sent
    pre_status: dict[str, str] = field(default_factory=dict)
    pre_phase: dict[str, str] = field(default_factory=dict)
    pre_owner: dict[str, str | None] = field(default_factory=dict)
    cancelled: list[tuple[str, str]] = field(default_factory=list)   # (requestId, cause) cancelled here
    created: list[str] = field(default_factory=list)   # ids of requests, runs, interrupts made here
    forms: list[tuple[str, str]] = field(default_factory=list)   # (dimension, form) of each request sent here
    note: str = ""
    # What properties derive from this step and the state after it, made once for the step (several
    # properties read it): a cache, never state, and not part of the record.
    derived: dict = field(default_factory=dict, repr=False, compare=False)
