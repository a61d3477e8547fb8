"""A small MCP Tasks server written on a third-party implementation of the extension: `fastmcp` with
`fastmcp-tasks` (SEP-2663, on its in-process `memory://` backend, no Redis).

It stands for any stranger's server: it imports nothing of this project, and runs in its own virtual
environment (`.venv-thirdparty`, made by `scripts/setup.sh --browser`), because fastmcp-tasks' pins
conflict with the project's lock. The tests start it as a subprocess and record it through the
recording proxy (`verifier/record`), then validate the log (docs/third-party.md).

    python examples/thirdparty/server.py --port 9000 [--token TOKEN=PRINCIPAL ...]

Tools (each may run as a task; `task=True` lets the server task a call that opts in):
- `slow`: sleeps `ms` milliseconds (1500 by default), then completes;
- `ask`: asks one yes/no question (an `InputRequiredResult` in the tool body, re-run from the top once
  answered: the extension's input round, no `requestState`), then completes;
- `cancellable`: works until cancelled;
- `fails`: a tool error (`completed` with `isError`); `protocol_error`: a JSON-RPC error (`failed`);
- the official conformance suite's fixtures (`greet`, `slow_compute`, `failing_job`,
  `protocol_error_job`, `confirm_delete`, `multi_input`, `test_tool_with_task`).

With `--token`, requests need a bearer token the list names (fastmcp's static verifier): each
principal sees only the tasks it created (fastmcp-tasks scopes tasks by `client_id`). Without, every
request is anonymous and every task is visible to every caller.
"""
from __future__ import annotations

import argparse
import asyncio

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from mcp.shared.exceptions import MCPError

REQUIRED = TaskConfig(mode="required")


def _question(message: str, field: str, kind: str = "string") -> mcp_types.ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return mcp_types.ElicitRequest(params=mcp_types.ElicitRequestFormParams(message=message, requested_schema=schema))


def _asked(ctx: Context, **questions: mcp_types.ElicitRequest):
    """The answers (key -> content) once every question was answered, else the ask itself."""
    answers = ctx.input_responses or {}
    if all(key in answers for key in questions):
        return {key: getattr(answers[key], "content", None) or {} for key in questions}
    return mcp_types.InputRequiredResult(input_requests=questions)


def build(tokens: dict[str, str] | None = None) -> FastMCP:
    auth = None
    if tokens:
        from fastmcp.server.auth.providers.jwt import StaticTokenVerifier
        auth = StaticTokenVerifier({token: {"client_id": who, "scopes": []} for token, who in tokens.items()})
    mcp = FastMCP("thirdparty-tasks", auth=auth)
    mcp.add_extension(TasksExtension())

    @mcp.tool(task=True)
    async def slow(ms: int = 1500) -> str:
        """Sleeps `ms` milliseconds, then completes."""
        await asyncio.sleep(ms / 1000)
        return f"slept {ms} ms"

    @mcp.tool(task=True)
    async def ask(ctx: Context, question: str = "Proceed?"):
        """Asks one yes/no question, then completes."""
        got = _asked(ctx, confirm=_question(question, "confirm", "boolean"))
        if isinstance(got, mcp_types.InputRequiredResult):
            return got
        return "confirmed" if got["confirm"].get("confirm", True) else "declined"

    @mcp.tool(task=True)
    async def cancellable() -> str:
        """Works until cancelled."""
        while True:
            await asyncio.sleep(0.05)

    @mcp.tool(task=True)
    async def fails() -> str:
        """A tool error: the task reads completed with isError."""
        raise ToolError("the job failed")

    @mcp.tool(task=True)
    async def protocol_error() -> str:
        """A JSON-RPC error raised by the tool: the task reads failed with the error."""
        raise MCPError(code=-32603, message="internal failure")

    # The official conformance suite's fixtures (its server tasks-* scenarios name them).
    @mcp.tool
    def greet(name: str = "World") -> str:
        """Returns a greeting (sync-only)."""
        return f"Hello, {name}!"

    @mcp.tool(task=True)
    async def slow_compute(seconds: float = 1.0, label: str = "") -> str:
        """Sleeps `seconds` seconds, then returns a result."""
        await asyncio.sleep(seconds)
        return f"computed {label}".strip()

    @mcp.tool(task=REQUIRED)
    async def failing_job() -> str:
        """Returns a tool execution error after about a second."""
        await asyncio.sleep(1.0)
        raise ToolError("the job failed")

    @mcp.tool(task=True)
    async def protocol_error_job() -> str:
        """Panics into a protocol error."""
        raise MCPError(code=-32603, message="internal failure")

    @mcp.tool(task=True)
    async def confirm_delete(ctx: Context, filename: str = "") -> str:
        """Asks to confirm deleting `filename`, then completes."""
        got = _asked(ctx, confirm=_question(f"Delete {filename}?", "confirm", "boolean"))
        if isinstance(got, mcp_types.InputRequiredResult):
            return got
        return f"deleted {filename}" if got["confirm"].get("confirm", True) else f"kept {filename}"

    @mcp.tool(task=True)
    async def multi_input(ctx: Context) -> str:
        """Asks two questions at once, then completes."""
        got = _asked(ctx, first=_question("First answer?", "first"), second=_question("Second answer?", "second"))
        if isinstance(got, mcp_types.InputRequiredResult):
            return got
        return f"answers: {got['first'].get('first')}, {got['second'].get('second')}"

    @mcp.tool(task=REQUIRED)
    async def test_tool_with_task(ctx: Context) -> str:
        """Asks for `user_name`, then greets that user."""
        got = _asked(ctx, user_name=_question("What is your name?", "user_name"))
        if isinstance(got, mcp_types.InputRequiredResult):
            return got
        return f"Hello, {got['user_name'].get('user_name')}!"

    return mcp


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=9000)
    ap.add_argument("--token", action="append", default=[], metavar="TOKEN=PRINCIPAL",
                    help="a bearer token and the principal (client_id) it authenticates; repeatable")
    args = ap.parse_args(argv)
    tokens = dict(t.split("=", 1) for t in args.token)
    build(tokens).run(transport="http", host="127.0.0.1", port=args.port, path="/mcp", show_banner=False,
                      log_level="warning")


if __name__ == "__main__":
    main()
