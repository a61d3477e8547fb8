"""The Tasks extension (io.modelcontextprotocol/tasks 2026-07-28) as RFC 0198 maps it onto the runs.

Hung on the SDK's extension mechanism: `tasks/get`, `tasks/update` and `tasks/cancel` are
`MethodBinding`s, `tools/call` is intercepted (`intercept_tool_call`) so a declaring call gets a
`CreateTaskResult` (`resultType: "task"`, an extension result shape the SDK passes through
unsieved), and `require_client_extension` gives -32021. Result shapes come from the model's own
builders (model/wire.py), the executable statement of what a faithful host sends.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any

import jsonschema
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types import RequestParams
from pydantic import ConfigDict

from model import wire

from .engine import TERMINAL, Engine, Interrupt, Run
from .identity import Subject, project, subject_for, unproject

TASKS_EXT = wire.TASKS_EXT

# §D (map mcp.tasks.status): run status -> task status; failed reads completed with isError true.
PROJECTION = {
    "pending": "working", "running": "working", "paused": "working", "cancelling": "working",
    "waiting-external": "working", "waiting-approval": "input_required", "waiting-input": "input_required",
    "completed": "completed", "failed": "completed", "cancelled": "cancelled",
}

_MS = {"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 600000}},
       "additionalProperties": False}
TOOLS = {   # the RFC's conformance fixtures, and one tool that runs only as a task
    "conformance-approval": ("Waits for bob's approval, then works `ms` milliseconds (0 by default) and completes.",
                             _MS),
    "conformance-failure": ("Fails.", _MS),
    "conformance-delay": ("Completes after `ms` milliseconds (1500 by default).", _MS),
    "conformance-cancellable": ("Runs until cancelled.", _MS),
    "conformance-task-only": ("Runs only as a task (-32021 without the extension).", _MS),
}


APPROVAL_SCHEMA = {"type": "object", "properties": {"approved": {"type": "boolean"}}}


class OpenParams(RequestParams):
    """The extension methods read their params raw (ctx.params); this only admits them."""
    model_config = ConfigDict(extra="allow")


class _Raw:
    """A notification the SDK has no type for (notifications/tasks, ...): `send_notification` dumps it."""

    def __init__(self, message: dict):
        self.message = message

    def model_dump(self, **_):
        return self.message


def iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def declares(ctx, key: str = "extensions") -> dict:
    caps = ((ctx.params or {}).get("_meta") or {}).get(wire.META_CLIENT_CAPABILITIES) or {}
    return caps.get(key) or {}


def elicitation_modes(ctx) -> tuple[str, ...]:
    """The elicitation modes a request declared. A bare `elicitation: {}` (the shape from before modes
    existed) is form mode: the schema's "form mode only (implicit)" example, as the SDK's resolver reads it."""
    caps = ((ctx.params or {}).get("_meta") or {}).get(wire.META_CLIENT_CAPABILITIES) or {}
    declared = caps.get("elicitation")
    if not isinstance(declared, dict):
        return ()
    return tuple(m for m in ("form", "url") if m in declared or (m == "form" and "url" not in declared))


class TasksExtension(Extension):
    identifier = TASKS_EXT

    def __init__(self, host):
        self.host = host                # examples.host.server.Host: the engine, the bugs, the stdio credential
        # Attributes, so that a planted bug (tests/live/planted/) swaps a row or a reading of them.
        self.projection = PROJECTION
        self.elicitation_modes = elicitation_modes

    @property
    def engine(self) -> Engine:
        return self.host.engine

    def methods(self):
        return [MethodBinding("tasks/get", OpenParams, self.tasks_get),
                MethodBinding("tasks/update", OpenParams, self.tasks_update),
                MethodBinding("tasks/cancel", OpenParams, self.tasks_cancel)]

    # ---- projection --------------------------------------------------------------------------
    def ttl_ms(self, run: Run) -> int | None:
        """Null while the purge time is unknown; then exactly the time to purge (TTL-1, TTL-4)."""
        if run.terminal_at is None:
            return None
        purge_wall = time.time() + (run.terminal_at + self.engine.retention_s - time.monotonic())
        return max(0, int((purge_wall - run.created_at) * 1000))

    def tool_result(self, run: Run) -> dict:
        """completed -> isError false; failed and cancelled -> isError true (§G.14)."""
        return wire.call_tool_result(run.status != "completed", run.output or f"run {run.status}")

    def input_requests(self, run: Run) -> dict:
        out = {}
        for i in self.engine.open_interrupts(run):
            q = i.question or {"message": f"{i.kind} needed", "schema": APPROVAL_SCHEMA}
            out[i.id] = wire.elicitation_input_request(q["message"], q["schema"])
        return out

    def task_fields(self, run: Run) -> dict:
        status = self.projection[run.status]
        fields = dict(task_id=project(run.id), status=status, created_at=iso(run.created_at),
                      last_updated_at=iso(run.updated_at), ttl_ms=self.ttl_ms(run),
                      status_message=f"run is {run.status}")
        if status == "input_required":
            fields["input_requests"] = self.input_requests(run)
        elif status == "completed":
            fields["result"] = self.tool_result(run)
        return fields

    def get_result(self, run: Run) -> dict:
        return wire.get_task_result(**self.task_fields(run))

    def create_result(self, run: Run) -> dict:
        t = self.task_fields(run)
        return wire.create_task_result(t["task_id"], t["status"], t["created_at"], t["last_updated_at"],
                                       t["ttl_ms"], t["status_message"])

    # ---- the caller and the task it names ----------------------------------------------------
    def subject(self, ctx) -> Subject:
        auth = ctx.request.headers.get("authorization") if ctx.request is not None else self.host.stdio_authorization
        subject = subject_for(auth or self.host.test_authorization)
        if subject is None:
            raise MCPError(code=wire.INVALID_PARAMS, message="Unknown credential")
        return subject

    def owner_key(self, ctx) -> tuple[str, Any]:
        conn = ctx.request.scope.get("refhost.conn") if ctx.request is not None else self.host.stdio_conn
        return conn, ctx.request_id

    def task(self, ctx) -> tuple[Subject, Run]:
        """NEG-2 (capability) before WIRE-4 (Mcp-Name) before the lookup; unreadable reads as unknown."""
        subject = self.subject(ctx)
        require_client_extension(ctx, TASKS_EXT)
        ref = (ctx.params or {}).get("taskId")
        # The SDK checks Mcp-Name only for tools/call, prompts/get and resources/read; the extension's
        # routing header for tasks/* is checked here (ext-tasks §Routing Headers).
        if ctx.request is not None and ctx.request.headers.get("mcp-name") != ref:
            raise MCPError(code=wire.HEADER_MISMATCH, message="Mcp-Name does not match taskId")
        raw = unproject(ref) if isinstance(ref, str) else None
        run = self.engine.lookup(raw, subject)
        if run is None:
            if self.host.bugs.foreign_task_403 and self.engine.exists_elsewhere(raw, subject):
                raise MCPError(code=wire.INTERNAL_ERROR, message="Forbidden",
                               data={"httpStatus": 403, "error": "id_tenant_mismatch"})
            raise MCPError(code=wire.INVALID_PARAMS, message="Task not found")   # ISO-1: one answer
        return subject, run

    def require_tasks(self, ctx) -> None:
        """-32021 unless the request declared the extension and this mount serves it."""
        if not self.host.serves_tasks:
            raise MCPError(code=wire.MISSING_CAPABILITY, message="Missing required client capability",
                           data=wire.missing_capability_data())
        require_client_extension(ctx, TASKS_EXT)

    def missing_elicitation(self, run: Run) -> dict | None:
        """PRJ-4 (P-ELICIT creating-request): form-mode input only to a creator that declared it."""
        if PROJECTION[run.status] == "input_required" and "form" not in run.elicitation:
            return {"requiredCapabilities": {"elicitation": {"form": {}}}}
        return None

    # ---- tasks/* -----------------------------------------------------------------------------
    async def tasks_get(self, ctx, params):
        subject, run = self.task(ctx)
        self.engine.read(run, subject)
        missing = self.missing_elicitation(run)
        if missing:
            raise MCPError(code=wire.MISSING_CAPABILITY, message="Missing required client capability", data=missing)
        return self.get_result(run)

    async def tasks_update(self, ctx, params):
        subject, run = self.task(ctx)
        self.answer(subject, run, (ctx.params or {}).get("inputResponses") or {})
        return wire.empty_ack()          # P-APPROVER, P-UNAUTHORIZED: the empty ack, whatever it resolved

    def answer(self, subject: Subject, run: Run, responses: dict) -> None:
        """resolveInterruptByRun for every key: an interrupt of this run only, each at most once (§E.7)."""
        for key, answer in responses.items():
            i = self.engine.interrupts.get(key)
            if i is not None and i.run == run.id and isinstance(answer, dict):
                self.engine.resolve(i, subject, str(answer.get("action")), "tasks/update", answer.get("content"))

    async def tasks_cancel(self, ctx, params):
        subject, run = self.task(ctx)
        if self.engine.can_cancel(subject, run):
            if run.status in TERMINAL:
                self.engine.cancel_terminal(run)
            else:
                self.engine.cancel(run, "tasks-cancel", f"tasks/cancel:{ctx.request_id}")
        return wire.empty_ack()

    # ---- tools/call --------------------------------------------------------------------------
    async def intercept_tool_call(self, params, ctx, call_next):
        raw = dict(ctx.params or {})
        name = raw.get("name")
        if name not in self.host.tools:
            return await call_next(ctx)
        subject = self.subject(ctx)
        if name in self.host.task_only:
            self.require_tasks(ctx)
        args = raw.get("arguments") or {}
        try:
            jsonschema.validate(args, self.host.tools[name][1])      # before any run is created
        except jsonschema.ValidationError:
            raise MCPError(code=wire.INVALID_PARAMS, message="Invalid arguments") from None
        key = self.owner_key(ctx)
        tasked = TASKS_EXT in declares(ctx) and self.host.serves_tasks
        if raw.get("requestState") is not None:
            run = self.retry(ctx, subject, raw, key)
        else:
            run = self.engine.create(subject, name, args, key, "tasked-call" if tasked else "blocking-call")
            run.elicitation = self.elicitation_modes(ctx)
        if tasked:                                           # §B.3, §B.4
            return self.tool_result(run) if run.status in TERMINAL else self.create_result(run)
        return await self.block(ctx, subject, run, key)

    def retry(self, ctx, subject: Subject, raw: dict, key) -> Run:
        """An MRTR retry owns the run only when its requestState verifies and its interrupt is open."""
        rs = self.engine.take_request_state(raw.get("requestState"), subject)
        if rs is None:
            raise MCPError(code=wire.INVALID_PARAMS, message="Invalid or used requestState")
        run = self.engine.runs[rs.run]
        self.engine.own(key, run)
        answer = (raw.get("inputResponses") or {}).get(rs.interrupt)
        if isinstance(answer, dict):
            self.engine.resolve(self.engine.interrupts[rs.interrupt], subject, str(answer.get("action")), "mrtr",
                                answer.get("content"))
        return run

    async def block(self, ctx, subject: Subject, run: Run, key) -> dict:
        """A blocking call: held open while the run works, InputRequiredResult at a client wait."""
        told = False
        while True:
            seen = run.version
            if key in self.engine.cancelled:
                # A cancelled request gets no response (core §Cancellation): the transport ends this
                # handler (HTTP disconnect, stdio notifications/cancelled or EOF) once it learns of it.
                await asyncio.Event().wait()
            if run.status in TERMINAL:
                return self.tool_result(run)
            if run.status in ("waiting-approval", "waiting-input"):
                missing = self.missing_elicitation(run)
                if missing:
                    raise MCPError(code=wire.MISSING_CAPABILITY, message="Missing required client capability",
                                   data=missing)
                i: Interrupt = self.engine.open_interrupts(run)[0]
                return wire.input_required_result(self.input_requests(run),
                                                  self.engine.mint_request_state(subject, run, i))
            if (run.status == "cancelling" and self.host.bugs.notify_cancelled_on_run_cancel and not told
                    and run.cancel_reason != "mcp-request-cancelled"):
                told = True      # planted (NTF-1): the v1 habit of reporting a run's cancel this way
                await ctx.session.send_notification(_Raw(wire.server_cancelled_notification(
                    ctx.request_id, f"run {run.cancel_reason}")), related_request_id=ctx.request_id)
            await self.engine.wait_change(run, seen)

    # ---- subscriptions/listen ----------------------------------------------------------------
    def listed(self, ref, subject: Subject) -> Run | None:
        """The run a listen's taskId names for this caller: as tasks/* reads it (ISO-2)."""
        return self.engine.lookup(unproject(ref) if isinstance(ref, str) else None, subject)

    async def listen(self, ctx, params):
        """ISO-2: the acknowledgement leaves out what the caller cannot read; NTF-3: each notification is
        what tasks/get would return now."""
        refs = ((ctx.params or {}).get("notifications") or {}).get("taskIds") or []
        subject = self.subject(ctx)
        if refs:
            self.require_tasks(ctx)
        acked = []
        for ref in refs:
            run = self.listed(ref, subject)
            if run is not None and run not in acked:
                acked.append(run)
        sid = ctx.request_id
        await ctx.session.send_notification(
            _Raw(wire.listen_ack_notification(sid, [project(r.id) for r in acked])), related_request_id=sid)
        ids = {r.id for r in acked}
        last = {r.id: self.get_result(r) for r in acked}
        changed: asyncio.Queue = asyncio.Queue()

        def watch(run: Run) -> None:
            # The view as of this change, taken now: two changes before the stream is next scheduled
            # are two notifications, in order (NTF-4), never the later alone.
            if run.id in ids and self.engine.lookup(run.id, subject) is not None and not self.missing_elicitation(run):
                changed.put_nowait((run.id, self.get_result(run)))

        self.engine.watchers.append(watch)
        try:
            while True:
                rid, view = await changed.get()
                if self.notifies(view, last.get(rid)):
                    last[rid] = view
                    await ctx.session.send_notification(_Raw(wire.task_status_notification(view, sid)),
                                                        related_request_id=sid)
        finally:
            self.engine.watchers.remove(watch)

    @staticmethod
    def notifies(view: dict, last: dict | None) -> bool:
        """Whether a listen stream is told of a task's view: whenever it changed (NTF-4)."""
        return view != last
