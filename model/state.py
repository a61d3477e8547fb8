"""The state of the system: runs, interrupts, requests, subscriptions, the clock, and the step record.

Plain mutable records with slots: the engines step the model thousands of times a second.
Every field a property reads is here and observable; nothing is hidden in closures.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Interrupt:
    id: str                          # raw tenant/opaque interruptId
    run: str                         # the runId of the run it interrupts
    kind: str                        # approval | clarification | external-event
    approvers: tuple[str, ...] | None  # None: any same-tenant subject holding approvals:respond
    form: bool                       # a flat schema (form mode) or a credential (never form mode)
    label: str = ""                  # a short name for stories (i1, i2, ...)
    open: bool = True                # not yet resolved: listed in inputRequests, answerable
    resolved_by: str | None = None   # the Subject who resolved it (None while open, or external)
    resolution: str | None = None    # accept | decline | cancel | external
    via: str | None = None           # tasks/update | mrtr | rest | external | replay


@dataclass(slots=True)
class Run:
    id: str                          # raw runId
    server: str                      # the mount that runs it
    tenant: str                      # the tenant of its id and owner
    owner: str                       # the Subject that started it
    started_by: str                  # tasked-call | blocking-call | rest | child | fork
    status: str = "pending"          # one of lifecycle.RUN_STATUSES
    parent: str | None = None        # the parent's runId, for a child run (or a call's naming one: P-CALL-PARENT)
    children: list[str] = field(default_factory=list)   # the runIds of its child runs
    created_at: int = 0              # the clock tick it was created at
    updated_at: int = 0              # the tick of its last status change or log event
    terminal_at: int | None = None   # the tick it reached a terminal status (None while live)
    durable: bool = True             # readable through getRun (createRun makes it so at once)
    purged: bool = False             # retention elapsed: gone, as if it never existed (ISO-1)
    log: list[dict] = field(default_factory=list)          # its events, each with `seq`, `at` and `type`
    interrupts: list[str] = field(default_factory=list)   # its interruptIds, open and resolved, in order
    creating_request: str | None = None   # the tools/call that created it (None: REST, child, fork)
    fork_of: str | None = None       # the runId it was forked from (REST fork)
    cancel_reason: str | None = None  # the reason `cancel_run` was given
    ttl_failed: bool = False         # free for a variant whose TTL fails the run; the baseline never sets it
    grace_until: int | None = None   # only variants with a grace window set it
    label: str = ""                  # a short name for stories (run1, run2, ...)

    def open_interrupts(self, world) -> list["Interrupt"]:
        """Its interrupts still open, in the order they were raised."""
        return [world.interrupts[i] for i in self.interrupts if world.interrupts[i].open]


@dataclass(slots=True)
class Request:
    id: str                          # the JSON-RPC id, unique in an exploration
    client: str                      # the client that sent it (C1.., or a harness client H1..)
    subject: str                     # the Subject whose credentials it carries
    server: str                      # the mount it was sent to
    transport: str                   # http | stdio
    method: str                      # the JSON-RPC method
    message: dict                    # the JSON-RPC message as sent (never changed afterwards)
    declares_tasks: bool = False     # its own _meta declared the Tasks extension
    declares_elicitation: bool = False   # its own _meta declared elicitation (some mode)
    task_ref: str | None = None      # params.taskId as sent
    mcp_name: str | None = None      # the Mcp-Name routing header (HTTP)
    phase: str = "received"          # one of lifecycle.REQUEST_PHASES
    response: dict | None = None     # the whole final response, once sent
    http_status: int | None = None   # streamable HTTP: the status the response was sent with (WIRE-5)
    run: str | None = None           # the run this request started or continues
    owns: str | None = None          # OWN-1, kept observable: the run this request owns now
    retry_of: str | None = None      # for an MRTR retry, the request whose InputRequiredResult it answers
    retry_valid: bool = False        # the MRTR retry's requestState verified (it continues its run)
    operation: str | None = None     # a client's logical operation id (idempotency, harness)
    acked: tuple[str, ...] = ()      # subscriptions/listen: the raw runIds acknowledged
    cancel_sent: bool = False        # stdio: the client already sent notifications/cancelled
    closed: bool = False             # HTTP: the connection closed after the response arrived
    host_cancelled: bool = False     # the host sent a notifications/cancelled naming it (NTF-1)


@dataclass(slots=True)
class RequestState:
    token: str                       # the opaque requestState, as sent in the InputRequiredResult
    principal: str                   # the Subject it was minted for: only its retry verifies
    run: str                         # the runId the retry continues
    interrupt: str                   # the interruptId the retry answers
    request: str                     # the request whose InputRequiredResult carried it
    used: bool = False               # a retry already spent it (single use)


@dataclass(slots=True)
class Step:
    """One protocol action and everything it did: the unit of traces, stories and replay."""
    index: int                       # its place in the history (0 for the first step)
    action: str                      # the action's name in the action table (call_tool, respond, ...)
    args: dict                       # the move's arguments
    actor: str                       # client | network | host | rest | clock | harness
    events: list[tuple[str, dict]] = field(default_factory=list)      # (runId, event) appended
    emitted: list[tuple[str | None, dict]] = field(default_factory=list)  # (requestId, message) sent
    pre_status: dict[str, str] = field(default_factory=dict)      # runId -> its status before the step
    pre_phase: dict[str, str] = field(default_factory=dict)       # requestId -> its phase before the step
    pre_owner: dict[str, str | None] = field(default_factory=dict)  # requestId -> the run it owned before
    cancelled: list[tuple[str, str]] = field(default_factory=list)   # (requestId, cause) cancelled here
    created: list[str] = field(default_factory=list)   # ids of requests, runs, interrupts made here
    forms: list[tuple[str, str]] = field(default_factory=list)   # (dimension, form) of each request sent here
    note: str = ""                   # the step told in protocol words (empty when not described)
    # What properties derive from this step and the state after it, made once for the step (several
    # properties read it): a cache, never state, and not part of the record.
    derived: dict = field(default_factory=dict, repr=False, compare=False)
