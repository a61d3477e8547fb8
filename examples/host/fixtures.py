"""The official MCP conformance suite's fixture tools (`@modelcontextprotocol/conformance`, its server
`tasks-*` scenarios), served as runs of the host's engine. Test-only: the host offers them with
`--suite-fixtures` (tests/live/test_conformance.py), never by default.

`greet` is a plain tool (no run); every other fixture is a run program, so tasks/get, tasks/update,
tasks/cancel, the projection and the run log are the same as for the RFC's own fixtures.
"""
from __future__ import annotations

import asyncio

from .engine import Engine, Run

_OBJ = {"type": "object"}
# name -> (description, argument schema, task support: "optional" or "required")
FIXTURES = {
    "slow_compute": ("Sleeps `seconds` seconds, then returns a result.",
                     {"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 600},
                                                       "label": {"type": "string"}}}, "optional"),
    "failing_job": ("Returns a tool execution error after about a second.", _OBJ, "required"),
    "protocol_error_job": ("Fails (the host reads every failed run as completed with isError true).", _OBJ,
                           "optional"),
    "confirm_delete": ("Asks to confirm deleting `filename`, then completes.",
                       {"type": "object", "properties": {"filename": {"type": "string"}}}, "optional"),
    "multi_input": ("Asks two questions at once, then completes.", _OBJ, "optional"),
    "test_tool_with_task": ("Asks for `user_name`, then greets that user.", _OBJ, "required"),
}


def greet(name: str = "World") -> str:
    """Returns a greeting (sync-only)."""
    return f"Hello, {name}!"


def _question(message: str, field: str, kind: str = "string") -> dict:
    return {"message": message,
            "schema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}}


def _content(i) -> dict:
    return i.answer if isinstance(i.answer, dict) else {}


async def slow_compute(engine: Engine, run: Run) -> None:
    await asyncio.sleep(float(run.args.get("seconds", 1)))
    engine.complete(run, f"computed {run.args.get('label', '')}".strip())


async def failing_job(engine: Engine, run: Run) -> None:
    await asyncio.sleep(1.0)
    engine.complete(run, "the job failed", failed=True)


async def protocol_error_job(engine: Engine, run: Run) -> None:
    engine.complete(run, "internal failure", failed=True)


async def confirm_delete(engine: Engine, run: Run) -> None:
    name = run.args.get("filename", "")
    (i,) = await engine.ask(run, [_question(f"Delete {name}?", "confirm", "boolean")])
    engine.complete(run, f"deleted {name}" if _content(i).get("confirm", True) else f"kept {name}")


async def multi_input(engine: Engine, run: Run) -> None:
    a, b = await engine.ask(run, [_question("First answer?", "first"), _question("Second answer?", "second")])
    engine.complete(run, f"answers: {_content(a).get('first')}, {_content(b).get('second')}")


async def test_tool_with_task(engine: Engine, run: Run) -> None:
    (i,) = await engine.ask(run, [_question("What is your name?", "user_name")])
    engine.complete(run, f"Hello, {_content(i).get('user_name')}!")


PROGRAMS = {"slow_compute": slow_compute, "failing_job": failing_job, "protocol_error_job": protocol_error_job,
            "confirm_delete": confirm_delete, "multi_input": multi_input, "test_tool_with_task": test_tool_with_task}
