"""A corpus of host bugs planted in the reference host, beyond its six `--bug` switches.

Each entry is a small patch of one host instance (`plant(host)`, an `examples.host.server.Host`),
the client script that reaches it (`drive(ctx)`) and the requirement ids `taskmodel validate` may
name for it (the first is the one the bug breaks; a second is the variant's other id where a
built-in variant plays the bug). tests/live/test_planted.py records the traffic of a host with
each bug, validates it and asserts the id. `serve.py` plants one in a stdio host process.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from collections.abc import Callable

from mcp.shared.exceptions import MCPError

from examples.host.identity import unproject

NOT_FOUND = -32602


@dataclass(frozen=True)
class Planted:
    plant: Callable            # (Host) -> None: patches that host instance only
    drive: Callable            # (Ctx) -> None: the traffic that reaches the bug
    ids: frozenset             # what validate may name
    what: str
    retention_s: float = 300.0
    stdio: bool = False        # driven over stdio: planted in the child process (serve.py)


@dataclass
class Ctx:
    clients: object            # examples.host.clients.legs.Clients
    log: object                # the traffic log's path
    name: str


PLANTED: dict[str, Planted] = {}


def planted(name, ids, what, **kw):
    def deco(pair):
        plant, drive = pair()
        PLANTED[name] = Planted(plant, drive, frozenset(ids), what, **kw)
        return pair
    return deco


def _leg(name):
    """Drive with a leg, which sees the bug on the wire (its failure is expected)."""
    def drive(ctx):
        from examples.host.clients.legs import LEGS, LegFailed
        try:
            LEGS[name](ctx.clients)
        except (LegFailed, AssertionError):
            return
        raise AssertionError(f"the leg {name} passed against the planted bug {ctx.name}")
    return drive


def _reach(name):
    def drive(ctx):
        from examples.host.clients import reach
        from examples.host.clients.legs import LegFailed
        try:
            getattr(reach, name)(ctx.clients)
        except LegFailed:
            return
        raise AssertionError(f"{name} passed against the planted bug {ctx.name}")
    return drive


def _wrap_task(host, on_error):
    """The extension's task lookup (`TasksExtension.task`), its not-found answer altered by `on_error`."""
    ext = host.tasks
    original = ext.task

    def task(ctx):
        try:
            return original(ctx)
        except MCPError as e:
            if e.code == NOT_FOUND and e.message == "Task not found":
                on_error(ctx)
            raise
    ext.task = task


# ---- the corpus ---------------------------------------------------------------------------------
@planted("foreign-task-telltale-message", ["ISO-1"], "another tenant's task: -32602, but its own message")
def _():
    def plant(host):
        def telltale(ctx):
            ref = (ctx.params or {}).get("taskId")
            if host.engine.exists_elsewhere(unproject(ref) if isinstance(ref, str) else None, host.tasks.subject(ctx)):
                raise MCPError(code=NOT_FOUND, message="Task belongs to another tenant")
        _wrap_task(host, on_error=telltale)
    return plant, _leg("unreadable-is-not-found")


@planted("opaque-64-bit-padded", ["ID-1"], "runIds of 30 characters carrying 64 random bits")
def _():
    def plant(host):
        host.engine.new_id = lambda tenant, prefix="r-": f"{tenant}/{prefix}000000000000{secrets.token_hex(8)}"

    def drive(ctx):
        for _ in range(3):
            ctx.clients.alice.call("conformance-delay", {"ms": 50})
    return plant, drive


@planted("opaque-under-22", ["ID-1"], "runIds whose opaque segment has 18 characters")
def _():
    def plant(host):
        host.engine.new_id = lambda tenant, prefix="r-": f"{tenant}/{prefix}{secrets.token_urlsafe(12)}"

    def drive(ctx):
        ctx.clients.alice.call("conformance-delay", {"ms": 50})
    return plant, drive


@planted("mrtr-retry-not-owner", ["OWN-1", "OWN-2"], "an MRTR retry continues the run without owning it")
def _():
    def plant(host):
        ext = host.tasks

        def retry(ctx, subject, raw, key):
            rs = ext.engine.take_request_state(raw.get("requestState"), subject)
            if rs is None:
                raise MCPError(code=NOT_FOUND, message="Invalid or used requestState")
            run = ext.engine.runs[rs.run]
            answer = (raw.get("inputResponses") or {}).get(rs.interrupt)
            if isinstance(answer, dict):
                ext.engine.resolve(ext.engine.interrupts[rs.interrupt], subject, str(answer.get("action")), "mrtr",
                                   answer.get("content"))
            return run                       # never `ext.engine.own(key, run)`
        ext.retry = retry
    return plant, _reach("retry_dropped_while_working")


@planted("terminal-cancel-invalid-params", ["CNL-1"], "tasks/cancel on a terminal task: -32602 (the 2025-11-25 rule)")
def _():
    def plant(host):
        def refuse(run):
            raise MCPError(code=NOT_FOUND, message=f"Cannot cancel task: already in terminal status {run.status}")
        host.engine.cancel_terminal = refuse
    return plant, _leg("cancel-then-cancel-terminal")


@planted("interrupt-answered-again", ["UPD-2", "AUTH-1"], "an interrupt answered again while its run works")
def _():
    def plant(host):
        engine = host.engine

        def resolve(i, subject, action, via, content=None):
            run = engine.runs.get(i.run)
            if run is None or run.status in ("completed", "failed", "cancelled") or not engine.eligible(subject, i):
                return False
            i.open, i.answer = False, content         # open or not, waiting or working
            engine._append(run, "interrupt.resolved", "running" if not engine.open_interrupts(run) else run.status,
                           interruptId=i.id, by=subject.name, action=action, via=via)
            return True
        engine.resolve = resolve
    return plant, _reach("answer_again_while_working")


@planted("stdio-eof-cancels-tasks", ["OWN-3"], "a stdio session's end cancels the tasks it created", stdio=True)
def _():
    def plant(host):
        engine = host.engine
        engine.response_sent = lambda key: engine.answered.add(key)        # the owner is never released
        from examples.host import recorder
        eof = recorder.RecordingStreams.eof

        def eof_all(rec):
            eof(rec)
            for key, rid in list(engine.owners.items()):
                if key[0] == rec.conn and rid in engine.runs:
                    engine.cancel(engine.runs[rid], "mcp-request-cancelled", f"request:{key[0]}:{key[1]}")
        recorder.RecordingStreams.eof = eof_all      # a child process of its own (serve.py)

    def drive(ctx):
        from examples.host.clients.legs import LegFailed
        from examples.host.clients.reach import stdio_eof_while_task_runs
        try:
            stdio_eof_while_task_runs(ctx.log, "tests.live.planted.serve")
        except LegFailed:
            return
        raise AssertionError("the session's end left the task running")
    return plant, drive


@planted("waiting-approval-reads-working", ["PRJ-1"], "the waiting-approval row projected as working")
def _():
    def plant(host):
        host.tasks.projection = {**host.tasks.projection, "waiting-approval": "working"}

    def drive(ctx):
        import time
        c = ctx.clients
        task_id = c.alice.call("conformance-approval").result["taskId"]
        time.sleep(0.3)
        c.alice.get(task_id)
        c.alice.cancel(task_id)
    return plant, drive


@planted("blocking-cancel-not-error", ["NTF-2"], "a cancelled blocking call answered isError false")
def _():
    def plant(host):
        from model import wire
        host.tasks.tool_result = lambda run: wire.call_tool_result(run.status == "failed", f"run {run.status}")
    return plant, _leg("no-notifications-cancelled")


@planted("read-only-caller-cancels", ["AUTH-1"], "tasks/cancel checks only the tenant, not runs:cancel")
def _():
    def plant(host):
        host.engine.can_cancel = lambda subject, run: subject.tenant == run.tenant

    def drive(ctx):
        c = ctx.clients
        task_id = c.alice.call("conformance-cancellable").result["taskId"]
        c.carol.cancel(task_id)                       # carol may read, not cancel
        c.alice.get(task_id)
        c.alice.cancel(task_id)
    return plant, drive


@planted("ttl-one-ms", ["TTL-1", "TTL-4"], "a finished task advertises ttlMs 1, far below the retention")
def _():
    def plant(host):
        host.tasks.ttl_ms = lambda run: None if run.terminal_at is None else 1

    def drive(ctx):
        from examples.host.clients.legs import poll
        c = ctx.clients
        task_id = c.alice.call("conformance-failure").result["taskId"]
        poll(c.alice, task_id, lambda r: r["status"] == "completed")
    return plant, drive


@planted("tasks-get-without-capability", ["NEG-2"], "tasks/get served to a request that did not declare Tasks")
def _():
    def plant(host):
        ext = host.tasks

        def task(ctx):                      # TasksExtension.task without its capability check (NEG-2)
            subject = ext.subject(ctx)
            ref = (ctx.params or {}).get("taskId")
            if ctx.request is not None and ctx.request.headers.get("mcp-name") != ref:
                raise MCPError(code=-32020, message="Mcp-Name does not match taskId")
            run = ext.engine.lookup(unproject(ref) if isinstance(ref, str) else None, subject)
            if run is None:
                raise MCPError(code=NOT_FOUND, message="Task not found")
            return subject, run
        ext.task = task

    def drive(ctx):
        c = ctx.clients
        task_id = c.alice.call("conformance-delay", {"ms": 100}).result["taskId"]
        c.alice.get(task_id, tasks=False)
    return plant, drive


@planted("purged-task-expired", ["TTL-3", "ISO-1"], "a purged task answered 'Task expired', a nonexistent one "
                                                    "'Task not found'", retention_s=1.0)
def _():
    def plant(host):
        engine, purged = host.engine, set()
        lookup = engine.lookup

        def remembering(raw, subject):
            run = engine.runs.get(raw) if raw else None
            got = lookup(raw, subject)
            if run is not None and raw not in engine.runs:
                purged.add(raw)
            return got
        engine.lookup = remembering

        def expired(ctx):
            ref = (ctx.params or {}).get("taskId")
            if isinstance(ref, str) and unproject(ref) in purged:
                raise MCPError(code=NOT_FOUND, message="Task expired")
        _wrap_task(host, on_error=expired)

    def drive(ctx):
        import time

        from examples.host.clients.legs import NONEXISTENT, poll
        c = ctx.clients
        c.alice.get(NONEXISTENT)
        task_id = c.alice.call("conformance-failure").result["taskId"]
        poll(c.alice, task_id, lambda r: r["status"] == "completed")
        time.sleep(1.3)
        c.alice.get(task_id)
    return plant, drive


@planted("listen-acks-foreign", ["ISO-2"], "a listen acknowledges another tenant's task")
def _():
    def plant(host):
        host.tasks.listed = lambda ref, subject: host.engine.runs.get(unproject(ref)) if isinstance(ref, str) else None
    return plant, _leg("listen-omits-unreadable")
