"""The third-party server (examples/thirdparty) with one host bug planted by monkeypatching fastmcp-tasks'
handlers in its own process: `python tests/live/thirdparty_planted.py BUG [server flags]`, run with
.venv-thirdparty's Python (tests/live/test_third_party.py). Each bug is a class of issue 52's planted
host bugs, made in a stranger's code instead of the reference host's.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fastmcp_tasks import extension, handlers  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from examples.thirdparty import server  # noqa: E402

TERMINAL = ("completed", "failed", "cancelled")
created: set[str] = set()      # every task id minted, whoever created it


def _remember_created():
    create = extension.create_task

    async def create_task(*args, **kw):
        result = await create(*args, **kw)
        created.add(result.task_id)
        return result
    extension.create_task = create_task


def foreign_task_telltale_message():
    """Another principal's task: -32602 saying whose it is, where an unknown id gets "Task <id> not found"."""
    _remember_created()
    lookup = handlers._lookup_task

    async def _lookup_task(docket, scope, task_id):
        try:
            return await lookup(docket, scope, task_id)
        except MCPError:
            if task_id in created:
                raise MCPError(code=-32602, message=f"Task {task_id} belongs to another principal") from None
            raise
    handlers._lookup_task = _lookup_task


def terminal_cancel_invalid_params():
    """tasks/cancel of a finished task refused -32602 (the 2025-11-25 rule)."""
    cancel = extension.tasks_cancel

    async def tasks_cancel(srv, task_id):
        if (await handlers.tasks_get(srv, task_id)).status in TERMINAL:
            raise MCPError(code=-32602, message=f"Task {task_id} is already finished")
        return await cancel(srv, task_id)
    extension.tasks_cancel = tasks_cancel


def cancel_overwrites_terminal():
    """tasks/cancel of a finished task records the cancellation: the task then reads cancelled."""
    cancel = extension.tasks_cancel

    async def tasks_cancel(srv, task_id):
        if (await handlers.tasks_get(srv, task_id)).status in TERMINAL:
            docket, scope = srv._docket, handlers.get_task_scope()
            await handlers.mark_cancelled(docket, scope, task_id, int(docket.execution_ttl.total_seconds()))
            return handlers.CancelTaskResult()
        return await cancel(srv, task_id)
    extension.tasks_cancel = tasks_cancel


def update_resolves_first_key_only():
    """A tasks/update answering several input requests takes only its first key."""
    translate = handlers.translate_responses

    async def translate_responses(docket, scope, task_id, leg, responses):
        first = dict(list(responses.items())[:1])
        return await translate(docket, scope, task_id, leg, first)
    handlers.translate_responses = translate_responses


def get_without_capability():
    """tasks/* served to a request that did not declare the extension."""
    extension.TasksExtension._require_tasks_capability = lambda self, ctx: None


def mcp_name_unchecked():
    """A tasks/* request whose Mcp-Name header names another task is served."""
    extension.TasksExtension._require_matching_task_route = lambda self, task_id: None


BUGS = {f.__name__.replace("_", "-"): f for f in (foreign_task_telltale_message, terminal_cancel_invalid_params,
                                                  cancel_overwrites_terminal, update_resolves_first_key_only,
                                                  get_without_capability,
                                                  mcp_name_unchecked)}

if __name__ == "__main__":
    BUGS[sys.argv[1]]()
    server.main(sys.argv[2:])
