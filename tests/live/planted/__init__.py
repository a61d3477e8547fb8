"""A corpus of host bugs planted in the reference host, beyond its six `--bug` switches.

Each entry is a small patch of one host instance (`plant(host)`, an `examples.host.server.Host`),
the client script that reaches it (`drive(ctx)`), the requirement ids `taskmodel validate` may
name for it (the first is the one the bug breaks; a second is the variant's other id where a
built-in variant plays the bug) and the event it must name (`at`: a test of the diverging event in
the log). tests/live/test_planted.py records the traffic of a host with each bug, validates it and
asserts the id and the event; an entry whose log cannot judge its bug expects `conforms-partially`
with its id unjudged. `serve.py` plants one in a stdio host process.
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
    at: Callable | None = None  # (log events, the divergence's index) -> whether it is the event the bug shows at
    suite: bool = False        # the host offers the official suite's fixtures (mapped by mapping-suite.json)
    host: dict | None = None   # what the mapping declares of the host (its `host`), beyond mapping.json
    unjudged: bool = False     # the log cannot judge the bug: conforms-partially, its id unjudged


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


def _corner(name, fails: bool = True):
    """Drive with a client of examples/host/clients/corners.py, which sees the bug on the wire where
    `fails` (its failure is expected then)."""
    def drive(ctx):
        from examples.host.clients.corners import CORNERS
        from examples.host.clients.legs import LegFailed
        try:
            CORNERS[name](ctx.clients)
        except LegFailed:
            if fails:
                return
            raise
        if fails:
            raise AssertionError(f"{name} passed against the planted bug {ctx.name}")
    return drive


# ---- where a divergence must be: tests of the diverging event (`Planted.at`) -------------------------
def _request_of(events, i):
    d = events[i]
    return next((e for e in reversed(events[:i]) if e.get("conn") == d.get("conn") and e["event"] == "message"
                 and e["dir"] == "c2s" and "method" in e["message"]), None)


def answer_to(method, code=None):
    """The host's answer to a `method` request (an error `code`, when given)."""
    def at(events, i):
        d, req = events[i], _request_of(events, i)
        return d["event"] == "message" and d["dir"] == "s2c" and "method" not in d["message"] and req is not None \
            and req["message"]["method"] == method \
            and (code is None or (d["message"].get("error") or {}).get("code") == code)
    return at


def run_event(kind):
    return lambda events, i: events[i]["event"] == "run" and events[i]["kind"] == kind


def notification(status):
    return lambda events, i: events[i]["event"] == "message" and events[i]["message"].get("method") == \
        "notifications/tasks" and events[i]["message"]["params"].get("status") == status


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


@planted("interrupt-answered-again", ["UPD-1", "UPD-2", "AUTH-1"], "an interrupt answered again while its run works")
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


def _purged_answered(**error):
    """A host that remembers the runs it purged and answers a read of one with `error` (a -32602 that
    differs from a nonexistent id's), driven by a read of a nonexistent id, then of a purged task."""
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

        def telling(ctx):
            ref = (ctx.params or {}).get("taskId")
            if isinstance(ref, str) and unproject(ref) in purged:
                raise MCPError(code=NOT_FOUND, **error)
        _wrap_task(host, on_error=telling)

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


@planted("purged-task-expired", ["TTL-3", "ISO-1"], "a purged task answered 'Task expired', a nonexistent one "
                                                    "'Task not found'", retention_s=1.0)
def _():
    return _purged_answered(message="Task expired")


@planted("listen-acks-foreign", ["ISO-2"], "a listen acknowledges another tenant's task")
def _():
    def plant(host):
        host.tasks.listed = lambda ref, subject: host.engine.runs.get(unproject(ref)) if isinstance(ref, str) else None
    return plant, _leg("listen-omits-unreadable")


# ---- runs with two open interrupts, several-key updates, listen streams, status messages (issue 52) --
@planted("update-resolves-first-key-only", ["UPD-4"], "a several-key tasks/update resolves only its first key",
         suite=True, at=answer_to("tasks/update"))
def _():
    def plant(host):
        ext = host.tasks
        answer = ext.answer
        ext.answer = lambda subject, run, responses: answer(subject, run, dict(list(responses.items())[:1]))
    return plant, _corner("answer_both_at_once")


@planted("input-requests-first-only", ["PRJ-2"], "a task waiting on two interrupts asks only the first",
         suite=True, at=answer_to("tasks/get"))
def _():
    def plant(host):
        ext = host.tasks
        asked = ext.input_requests
        ext.input_requests = lambda run: dict(list(asked(run).items())[:1])
    return plant, _corner("read_two_open")


@planted("listen-withholds-input-requests-change", ["NTF-4"], "a listen stream told only of status changes",
         suite=True, at=notification("working"))
def _():
    def plant(host):
        host.tasks.notifies = lambda view, last: last is None or view["status"] != last["status"]
    return plant, _corner("answer_one_then_other")


@planted("status-message-quotes-arguments", ["SEC-1"], "a task's statusMessage quotes the tool call's arguments",
         at=answer_to("tools/call"))
def _():
    def plant(host):
        import json
        ext = host.tasks
        fields = ext.task_fields

        def quoting(run):
            out = fields(run)
            out["status_message"] = f"{out['status_message']} for {json.dumps(run.args)}"
            return out
        ext.task_fields = quoting
    return plant, _corner("status_message_free_of_arguments")


@planted("purged-task-data", ["TTL-3", "ISO-1"], "a purged task's -32602 carries data a nonexistent one's does not",
         retention_s=1.0, host={"retention_s": 1.0}, at=answer_to("tasks/get", NOT_FOUND))
def _():
    return _purged_answered(message="Task not found", data={"purged": True})


@planted("terminal-cancel-invalid-params-unread", ["CNL-1"], "tasks/cancel of a run its caller never read as "
         "ended: -32602, on a host that keeps runs 300 s", host={"retention_s": 300},
         at=answer_to("tasks/cancel", NOT_FOUND))
def _():
    def plant(host):
        def refuse(run):
            raise MCPError(code=NOT_FOUND, message="Task not found")
        host.engine.cancel_terminal = refuse
    return plant, _corner("cancel_finished_task_unread")


@planted("foreign-task-telltale-unjudged", ["ISO-1"], "another tenant's task: -32602 with its own message, on a "
         "log with no id never created to compare it with", unjudged=True)
def _():
    return PLANTED["foreign-task-telltale-message"].plant, _corner("foreign_read_alone", fails=False)


@planted("ineligible-approver-error", ["AUTH-1", "UPD-3"], "an ineligible approver's tasks/update answered -32602, "
         "on a host that declares P-APPROVER ack and keeps runs 300 s", host={"retention_s": 300},
         at=answer_to("tasks/update", NOT_FOUND))
def _():
    def plant(host):
        ext, engine = host.tasks, host.engine
        answer = ext.answer

        def refusing(subject, run, responses):
            for key in responses:
                i = engine.interrupts.get(key)
                if i is not None and i.run == run.id and not engine.eligible(subject, i):
                    raise MCPError(code=NOT_FOUND, message="Task not found")
            answer(subject, run, responses)
        ext.answer = refusing
    return plant, _corner("ineligible_approver_acked")


@planted("decline-cancels-run", ["UPD-4", "OWN-3"], "declining an approval cancels the run",
         at=run_event("run.cancelling"))
def _():
    def plant(host):
        engine = host.engine
        resolve = engine.resolve

        def declining(i, subject, action, via, content=None):
            done = resolve(i, subject, action, via, content)
            if done and action == "decline":
                engine.cancel(engine.runs[i.run], "declined", f"{via}:decline")
            return done
        engine.resolve = declining
    return plant, _corner("decline_keeps_run")


@planted("update-resolves-another-runs-key", ["UPD-2"], "tasks/update resolves a key of another run than the task's",
         at=run_event("interrupt.resolved"))
def _():
    def plant(host):
        ext, engine = host.tasks, host.engine

        def anywhere(subject, run, responses):
            for key, answer in responses.items():
                i = engine.interrupts.get(key)
                if i is not None and isinstance(answer, dict):        # never `i.run == run.id`
                    engine.resolve(i, subject, str(answer.get("action")), "tasks/update", answer.get("content"))
        ext.answer = anywhere
    return plant, _corner("key_of_another_run")


@planted("drop-cancels-siblings", ["OWN-4", "OWN-3"], "a dropped call cancels its caller's other open calls' runs",
         at=run_event("run.cancelling"))
def _():
    def plant(host):
        engine = host.engine
        cancelled = engine.request_cancelled

        def every_owned(key):
            owner = engine.runs.get(engine.owners.get(key, ""))
            cancelled(key)
            for other, rid in list(engine.owners.items()):
                run = engine.runs.get(rid)
                if owner is not None and run is not None and other != key and run.owner == owner.owner:
                    engine.cancel(run, "mcp-request-cancelled", f"request:{key[0]}:{key[1]}")
        engine.request_cancelled = every_owned
    return plant, _corner("sibling_call_survives_a_drop")


@planted("cancel-tasked-after-create", ["OWN-3"], "every tasked run cancelled right after its CreateTaskResult",
         at=run_event("run.cancelling"))
def _():
    def plant(host):
        import asyncio
        ext, engine = host.tasks, host.engine
        create = ext.create_result

        def then_cancel(run):
            out = create(run)
            asyncio.get_running_loop().call_soon(engine.cancel, run, "mcp-request-cancelled", "response-sent")
            return out
        ext.create_result = then_cancel
    return plant, _corner("task_runs_on_after_its_answer")


@planted("failed-reads-cancelled", ["PRJ-1"], "a failed run projected as the task status cancelled",
         at=answer_to("tasks/get"))
def _():
    def plant(host):
        host.tasks.projection = {**host.tasks.projection, "failed": "cancelled"}
    return plant, _corner("failed_reads_completed")


@planted("bare-elicitation-read-as-none", ["PRJ-4"], "a bare `elicitation: {}` read as no form support",
         at=answer_to("tools/call", -32021))
def _():
    def plant(host):
        from examples.host.tasks import elicitation_modes
        host.tasks.elicitation_modes = lambda ctx: elicitation_modes(ctx) if any(
            (((ctx.params or {}).get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}).get(
                "elicitation") or {}) else ()
    return plant, _corner("bare_elicitation_asked")
