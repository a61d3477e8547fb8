"""The reference host over stdio: a session is one connection; a notifications/cancelled naming an
open blocking call, and EOF with one still open, cancel its run (§G.12, P-STDIO-EOF); a cancelled
request gets no response; the session's log is validated."""
from __future__ import annotations

import json
import time

from pathlib import Path

import pytest

MAPPING = Path(__file__).resolve().parents[2] / "examples" / "host" / "mapping.json"
# One xdist worker takes the module (Makefile: --dist loadfile): its tests share one host, in file order.
pytestmark = pytest.mark.live


def _until_runs_started(log: Path, n: int, timeout: float = 10.0) -> None:
    """Until the host's log shows `n` runs started (the request being cancelled owns a live run)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and log.read_text().count('"kind":"run.started"') >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"fewer than {n} runs started within {timeout} s")


def test_stdio_cancel_and_eof(tmp_path, validate, check_schema):
    from examples.host.clients.mcp_client import StdioClient
    log = tmp_path / "stdio.jsonl"
    s = StdioClient("tok-alice-3f9c2a", str(log))
    tasked = s.send("tools/call", {"name": "conformance-delay", "arguments": {"ms": 100}})
    created = s.read_until(tasked)["result"]
    assert created["resultType"] == "task"
    cancelled = s.send("tools/call", {"name": "conformance-cancellable", "arguments": {}}, tasks=False)
    _until_runs_started(log, 2)
    s.cancel_request(cancelled)
    later = s.send("tools/call", {"name": "conformance-delay", "arguments": {"ms": 100}}, tasks=False)
    assert s.read_until(later)["result"]["isError"] is False      # the cancelled call was never answered
    held = s.send("tools/call", {"name": "conformance-cancellable", "arguments": {}}, tasks=False)
    _until_runs_started(log, 4)
    assert s.close() == 0
    check_schema(log)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    answered = {e["message"].get("id") for e in events if e["event"] == "message" and e["dir"] == "s2c"}
    assert cancelled not in answered and held not in answered
    reasons = [e["data"]["reason"] for e in events if e["event"] == "run" and e["kind"] == "run.cancelled"]
    assert reasons == ["mcp-request-cancelled", "mcp-request-cancelled"]
    assert [e["how"] for e in events if e["event"] == "close"] == ["dropped"]
    # stdio carries no bearer token on the wire: the mapping names the session's Subject (`stdio`).
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({**json.loads(MAPPING.read_text()), "stdio": "alice"}))
    out = validate(log, mapping=mapping)
    assert out["result"] == "conforms", validate.explain(out)
