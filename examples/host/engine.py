"""A tiny in-memory run engine: the runs behind the conformance tools, their logs and their owners.

Each run is an asyncio task running its tool's program; every change appends a run-log event
(the model's event kinds: run.created, run.started, interrupt.requested, interrupt.resolved,
run.cancelling, run.cancelled, run.completed, run.failed) and is reported to `on_event`, which the
recorder writes to the traffic log. Ownership (RFC §G.12-13) is kept here, keyed by
(connection, JSON-RPC id): the transports tell the engine when a response was wholly sent
(`response_sent`) and when a request was cancelled before that (`request_cancelled`).
"""
from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .bugs import Bugs
from .identity import APPROVERS, CANCEL, READ, RESPOND, Subject, mint

TERMINAL = frozenset({"completed", "failed", "cancelled"})
WAITING = frozenset({"waiting-approval", "waiting-input", "waiting-external"})
MCP_REQUEST_CANCELLED = "mcp-request-cancelled"

OwnerKey = tuple[str, Any]     # (connection id, JSON-RPC id)


@dataclass
class Interrupt:
    id: str
    run: str
    kind: str
    approvers: tuple[str, ...] | None
    open: bool = True
    question: dict | None = None       # (fixtures) the elicitation's message and schema; None: the approval form
    answer: dict | None = None         # (fixtures) the content of the answer that resolved it


@dataclass
class Run:
    id: str
    tenant: str
    owner: str
    tool: str
    args: dict
    created_at: float                  # wall clock, for createdAt / lastUpdatedAt
    updated_at: float
    status: str = "pending"
    terminal_at: float | None = None   # monotonic
    log: list[dict] = field(default_factory=list)
    interrupts: list[str] = field(default_factory=list)
    cancel_reason: str | None = None
    elicitation: tuple[str, ...] = ()  # elicitation modes the creating request declared (P-ELICIT)
    output: str | None = None          # (fixtures) the tool result's text; None: "run <status>"
    task: asyncio.Task | None = None
    started: bool = False              # the program task has begun (a task cancelled before that never runs)
    version: int = 0                   # bumped by every change; `changed` is set and replaced then
    changed: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class RequestState:
    principal: str
    run: str
    interrupt: str
    used: bool = False


class Engine:
    def __init__(self, bugs: Bugs | None = None, on_event: Callable[[Run, dict], None] | None = None,
                 retention_s: float = 300.0):
        self.bugs = bugs or Bugs()
        self.on_event = on_event or (lambda run, event: None)
        self.retention_s = retention_s
        self.runs: dict[str, Run] = {}
        self.interrupts: dict[str, Interrupt] = {}
        self.owners: dict[OwnerKey, str] = {}
        self.answered: set[OwnerKey] = set()
        self.cancelled: set[OwnerKey] = set()     # requests cancelled before their response: never answered
        self.request_states: dict[str, RequestState] = {}
        self.watchers: list[Callable[[Run], None]] = []   # listen streams
        # tool -> async program(engine, run) for tools beyond the RFC's fixtures (examples/host/fixtures.py)
        self.programs: dict[str, Callable] = {}
        self.new_id = mint       # the id minter: an attribute, so a planted bug (tests/live/planted/) swaps it

    # ---- the log ---------------------------------------------------------------------------
    def _append(self, run: Run, event_type: str, status: str | None = None, **data) -> None:
        if status is not None:
            run.status = status
            if status in TERMINAL:
                run.terminal_at = time.monotonic()
        run.updated_at = time.time()
        event = {"type": event_type, "seq": len(run.log), **data}
        run.log.append(event)
        self.on_event(run, event)
        run.version += 1
        run.changed.set()
        run.changed = asyncio.Event()
        for watch in list(self.watchers):
            watch(run)

    # ---- runs ------------------------------------------------------------------------------
    def create(self, subject: Subject, tool: str, args: dict, owner: OwnerKey | None, started_by: str) -> Run:
        now = time.time()
        run = Run(id=self.new_id(subject.tenant), tenant=subject.tenant, owner=subject.name, tool=tool, args=args,
                  created_at=now, updated_at=now)
        self.runs[run.id] = run
        self._append(run, "run.created", "pending", by=started_by)
        run.task = asyncio.get_running_loop().create_task(self._program(run))
        if owner is not None:
            self.own(owner, run)
        return run

    async def _program(self, run: Run) -> None:
        run.started = True
        if run.status == "cancelling":         # cancelled while pending, before this task first ran
            self._append(run, "run.cancelled", "cancelled", reason=run.cancel_reason)
            return
        try:
            self._append(run, "run.started", "running")
            if run.tool in self.programs:
                await self.programs[run.tool](self, run)
            elif run.tool == "conformance-approval":
                i = Interrupt(id=self.new_id(run.tenant, "i-"), run=run.id, kind="approval", approvers=APPROVERS)
                self.interrupts[i.id] = i
                run.interrupts.append(i.id)
                self._append(run, "interrupt.requested", "waiting-approval", interruptId=i.id, kind=i.kind,
                             approvers=list(APPROVERS), mode="form")
                while run.status in WAITING:
                    await run.changed.wait()
                await asyncio.sleep(float(run.args.get("ms", 0)) / 1000)   # work after the approval
                self._finish(run, "completed", "run.completed")
            elif run.tool == "conformance-failure":
                await asyncio.sleep(float(run.args.get("ms", 50)) / 1000)
                self._finish(run, "failed", "run.failed")
            elif run.tool == "conformance-cancellable":
                await asyncio.sleep(float(run.args.get("ms", 600_000)) / 1000)   # until cancelled
                self._finish(run, "completed", "run.completed")
            else:                                          # conformance-delay, conformance-task-only
                await asyncio.sleep(float(run.args.get("ms", 1500)) / 1000)
                self._finish(run, "completed", "run.completed")
        except asyncio.CancelledError:
            if run.status == "cancelling":
                self._append(run, "run.cancelled", "cancelled", reason=run.cancel_reason)

    def _finish(self, run: Run, status: str, kind: str) -> None:
        if run.status == "running":
            self._append(run, kind, status)

    def complete(self, run: Run, output: str | None = None, failed: bool = False) -> None:
        run.output = output
        self._finish(run, "failed" if failed else "completed", "run.failed" if failed else "run.completed")

    async def ask(self, run: Run, questions: list[dict]) -> list[Interrupt]:
        """Open one input interrupt per question at once (anyone of the tenant with approvals:respond may
        answer) and wait until every one is answered."""
        asked = []
        for q in questions:
            i = Interrupt(id=self.new_id(run.tenant, "i-"), run=run.id, kind="clarification", approvers=None, question=q)
            self.interrupts[i.id] = i
            run.interrupts.append(i.id)
            asked.append(i)
        for i in asked:
            self._append(run, "interrupt.requested", "waiting-input", interruptId=i.id, kind=i.kind, mode="form")
        while run.status in WAITING:
            await run.changed.wait()
        return asked

    def cancel(self, run: Run, reason: str, cause: str) -> bool:
        """cancelRun: accept a cancel of a non-terminal run; the run then finishes cancelling."""
        if run.status in TERMINAL or run.status == "cancelling":
            return False
        run.cancel_reason = reason
        self._append(run, "run.cancelling", "cancelling", reason=reason, cause=cause)
        if run.task is not None and run.started:   # a task not yet started sees `cancelling` when it does
            run.task.cancel()
        return True

    def cancel_terminal(self, run: Run) -> None:
        """tasks/cancel on a terminal run: acknowledged, nothing appended (§F.10), unless planted."""
        if self.bugs.cancel_terminal_appends:
            self._append(run, "run.cancelled", run.status, reason="tasks-cancel")

    def read(self, run: Run, subject: Subject) -> None:
        """tasks/get is a pure read (§F.9), unless the planted audit event is on."""
        if self.bugs.get_appends_read_event:
            self._append(run, "task.read", run.status, by=subject.name)

    # ---- authorization (getRun, cancelRun, resolveInterruptByRun) -------------------------
    def lookup(self, raw: str | None, subject: Subject) -> Run | None:
        """The run `raw` names for this Subject: None for unknown, purged, foreign or unreadable."""
        run = self.runs.get(raw) if raw else None
        if run is not None and run.terminal_at is not None and time.monotonic() > run.terminal_at + self.retention_s:
            del self.runs[run.id]           # purged: retention elapsed
            return None
        if run is None or run.tenant != subject.tenant or READ not in subject.scopes:
            return None
        return run

    def exists_elsewhere(self, raw: str | None, subject: Subject) -> bool:
        run = self.runs.get(raw) if raw else None
        return run is not None and run.tenant != subject.tenant

    @staticmethod
    def can_cancel(subject: Subject, run: Run) -> bool:
        return subject.tenant == run.tenant and CANCEL in subject.scopes

    def eligible(self, subject: Subject, i: Interrupt) -> bool:
        if self.bugs.update_skips_approver_check:
            return True
        run = self.runs[i.run]
        return (subject.tenant == run.tenant and RESPOND in subject.scopes
                and (i.approvers is None or subject.name in i.approvers))

    def open_interrupts(self, run: Run) -> list[Interrupt]:
        return [self.interrupts[i] for i in run.interrupts if self.interrupts[i].open]

    def resolve(self, i: Interrupt, subject: Subject, action: str, via: str, content: dict | None = None) -> bool:
        """Resolve at most once (§E.7), by an eligible approver only."""
        run = self.runs.get(i.run)
        if run is None or not i.open or run.status not in WAITING or not self.eligible(subject, i):
            return False
        i.open, i.answer = False, content
        self._append(run, "interrupt.resolved", "running" if not self.open_interrupts(run) else run.status,
                     interruptId=i.id, by=subject.name, action=action, via=via)
        return True

    # ---- MRTR requestState -----------------------------------------------------------------
    def mint_request_state(self, subject: Subject, run: Run, i: Interrupt) -> str:
        token = f"rs-{secrets.token_urlsafe(16)}"
        self.request_states[token] = RequestState(subject.name, run.id, i.id)
        return token

    def take_request_state(self, token: str | None, subject: Subject) -> RequestState | None:
        """A retry continues the run only with an unused state of its own principal, interrupt open."""
        rs = self.request_states.get(token or "")
        if rs is None or rs.used or rs.principal != subject.name or not self.interrupts[rs.interrupt].open:
            return None
        rs.used = True
        return rs

    # ---- ownership (§G.12-13) --------------------------------------------------------------
    def own(self, key: OwnerKey, run: Run) -> None:
        """`key` now owns `run`; a request already cancelled (its drop seen before its handler ran)
        cancels the run it starts or continues at once."""
        self.owners[key] = run.id
        if key in self.cancelled:
            self.cancelled.discard(key)
            self.request_cancelled(key)

    def response_sent(self, key: OwnerKey) -> None:
        """The whole response left the host: the request no longer owns its run."""
        self.answered.add(key)
        self.owners.pop(key, None)

    def request_cancelled(self, key: OwnerKey) -> None:
        """The owning request was cancelled before its whole response: cancel its run (§G.12)."""
        if key in self.answered:
            return
        self.cancelled.add(key)
        run_id = self.owners.pop(key, None)
        if run_id is None or self.bugs.detach_on_disconnect:
            return
        run = self.runs.get(run_id)
        if run is not None:
            self.cancel(run, MCP_REQUEST_CANCELLED, f"request:{key[0]}:{key[1]}")

    @staticmethod
    async def wait_change(run: Run, seen: int) -> None:
        """Until the run changes after version `seen` (a change during an await is not missed)."""
        while run.version == seen:
            await run.changed.wait()
