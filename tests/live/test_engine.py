"""The host's run engine on its own: ownership and the cut (§G.12-13) without a transport."""
from __future__ import annotations

import asyncio

from examples.host.bugs import Bugs
from examples.host.engine import MCP_REQUEST_CANCELLED, Engine
from examples.host.identity import SUBJECTS

ALICE = SUBJECTS["tok-alice-3f9c2a"]


def _kinds(run):
    return [e["type"] for e in run.log]


async def _settle():
    for _ in range(5):
        await asyncio.sleep(0)


def test_cancel_before_the_handler_ran_cancels_the_run_it_starts():
    async def go():
        e = Engine()
        e.request_cancelled(("h1", 1))            # the drop was seen before the handler created the run
        run = e.create(ALICE, "conformance-cancellable", {}, ("h1", 1), "blocking-call")
        await _settle()
        return run
    run = asyncio.run(go())
    assert _kinds(run) == ["run.created", "run.cancelling", "run.cancelled"]
    assert run.cancel_reason == MCP_REQUEST_CANCELLED and run.status == "cancelled"


def test_cancel_after_the_response_changes_nothing():
    async def go():
        e = Engine()
        run = e.create(ALICE, "conformance-delay", {"ms": 20}, ("h1", 1), "tasked-call")
        e.response_sent(("h1", 1))
        e.request_cancelled(("h1", 1))
        await asyncio.sleep(0.1)
        return run
    run = asyncio.run(go())
    assert _kinds(run) == ["run.created", "run.started", "run.completed"]


def test_detach_on_disconnect_leaves_the_run_running():
    async def go():
        e = Engine(Bugs(detach_on_disconnect=True))
        run = e.create(ALICE, "conformance-cancellable", {}, ("h1", 1), "blocking-call")
        await _settle()
        e.request_cancelled(("h1", 1))
        await _settle()
        status = run.status
        run.task.cancel()
        return status
    assert asyncio.run(go()) == "running"
