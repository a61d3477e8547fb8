"""The reference host: an MCP server on the official SDK serving the conformance tools as runs, with
the Tasks extension, over streamable HTTP (uvicorn, loopback only) or stdio, recording its traffic."""
from __future__ import annotations

from mcp.server.extension import compose_tool_call_handler
from mcp.server.mcpserver.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolRequestParams
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from .bugs import Bugs
from .engine import Engine
from .fixtures import FIXTURES, PROGRAMS, greet
from .identity import TOKENS, subject_for
from .recorder import RecordingASGI, RecordingStreams, TrafficLog
from .tasks import TOOLS, OpenParams, TasksExtension

MCP_PATH = "/mcp"


class Host:
    def __init__(self, log_path=None, bugs: Bugs | None = None, retention_s: float = 300.0,
                 stdio_authorization: str | None = None, serves_tasks: bool = True,
                 test_subject: str | None = None, suite_fixtures: bool = False):
        self.bugs = bugs or Bugs()
        # Test-only (tests/live/test_conformance.py): a request with no Authorization header at all acts
        # as this Subject, for a client that sends no credential (the official conformance suite).
        self.test_authorization = f"Bearer {TOKENS[test_subject]}" if test_subject else None
        self.tools = dict(TOOLS)            # name -> (description, argument schema): the tools run as runs
        self.task_only = {"conformance-task-only"}
        self.serves_tasks = serves_tasks          # False: a plain mount, the model's S2
        self.log = TrafficLog(log_path, "S1" if serves_tasks else "S2") if log_path else None
        self.engine = Engine(self.bugs, self.log.run_event if self.log else None, retention_s)
        if suite_fixtures:
            self.tools.update({name: (d, schema) for name, (d, schema, _) in FIXTURES.items()})
            self.task_only |= {name for name, (_, _, support) in FIXTURES.items() if support == "required"}
            self.engine.programs.update(PROGRAMS)
        self.stdio_authorization = stdio_authorization
        self.stdio_conn = "s0"
        self.tasks = TasksExtension(self)
        # subscriptions=False: the SDK's listen handler knows only core notification kinds; the Tasks
        # extension's `notifications.taskIds` filter needs its own (registered below).
        self.mcp = MCPServer("openwop-reference-host", extensions=[self.tasks] if serves_tasks else [],
                             subscriptions=False, log_level="WARNING")
        for name, (description, schema) in self.tools.items():
            self.mcp.add_tool(_placeholder(name), name=name, description=description)
        if suite_fixtures:
            self.mcp.add_tool(greet, name="greet", description="Returns `Hello, {name}!` (sync-only).")
        low = self.mcp._lowlevel_server
        low.add_request_handler("subscriptions/listen", OpenParams, self.tasks.listen)
        if not serves_tasks:
            # A plain mount advertises no Tasks and knows no tasks/* method, but its tools are still
            # runs (blocking calls, §G): the same interceptor serves them, never as tasks.
            low.add_request_handler("tools/call", CallToolRequestParams,
                                    compose_tool_call_handler([self.tasks], _unknown_tool))

    # ---- streamable HTTP -------------------------------------------------------------------
    def http_app(self):
        mcp_app = self.mcp.streamable_http_app(streamable_http_path=MCP_PATH, json_response=False)
        # runList, as the conformance suite's disconnect legs need it: the caller's tenant's runs.
        app = Starlette(routes=[Route("/runs", self.run_list), Mount("/", app=mcp_app)],
                        lifespan=lambda app: mcp_app.router.lifespan_context(app))
        return RecordingASGI(app, self.log, self.engine, MCP_PATH) if self.log else app

    async def run_list(self, request: Request):
        subject = subject_for(request.headers.get("authorization") or self.test_authorization)
        if subject is None:
            return JSONResponse({"error": "unauthenticated"}, status_code=401)
        runs = [{"runId": r.id, "status": r.status, "tool": r.tool, "reason": r.cancel_reason,
                 "events": [e["type"] for e in r.log]}
                for r in self.engine.runs.values() if r.tenant == subject.tenant and "runs:read" in subject.scopes]
        return JSONResponse({"runs": runs})

    # ---- stdio -----------------------------------------------------------------------------
    async def serve_stdio(self) -> None:
        low = self.mcp._lowlevel_server
        async with stdio_server() as (read, write):
            if self.log:
                rec = RecordingStreams(self.log, self.engine, self.stdio_authorization or "")
                self.stdio_conn = rec.conn
                read, write = rec.wrap(read, write)
            await low.run(read, write, low.create_initialization_options())


async def _unknown_tool(ctx, params):
    raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")


def _placeholder(name: str):
    """The tool as tools/list shows it. Calls never reach it: TasksExtension.intercept_tool_call runs
    every conformance tool (as a task or a blocking call); its arguments are checked there."""
    def tool(ms: int = 0) -> str:
        raise RuntimeError(f"{name} is served by the Tasks extension's interceptor")
    tool.__name__ = name.replace("-", "_")
    return tool
