"""The host as a plain mount (the model's S2): no Tasks advertised, tasks/* unknown methods (NEG-4),
-32021 for what needs Tasks, and §G still binds its blocking calls; its log is validated as S2."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

# One xdist worker takes the module (Makefile: --dist loadfile): its tests share one host, in file order.
pytestmark = pytest.mark.live
MAPPING = Path(__file__).resolve().parents[2] / "examples" / "host" / "mapping-plain.json"
UNKNOWN = "acme~2FAAAAAAAAAAAAAAAAAAAAAAAAnotissued"


def test_plain_mount(start_host, validate, check_schema):
    from examples.host.clients.mcp_client import HttpClient
    host = start_host(name="plain", serves_tasks=False)
    alice = HttpClient(host.base, "tok-alice-3f9c2a")
    caps = alice.send("server/discover", tasks=False).result["capabilities"]
    assert "io.modelcontextprotocol/tasks" not in (caps.get("extensions") or {})           # ADV-1
    answer = alice.call("conformance-delay", {"ms": 50}).result                             # declaring, yet
    assert answer.get("resultType") == "complete" and answer["isError"] is False            # no task (NEG-1)
    for method in ("tasks/get", "tasks/cancel"):                                              # NEG-4
        ex = alice.send(method, {"taskId": UNKNOWN})
        assert (ex.status, ex.error["code"]) == (404, -32601), ex.messages
    assert alice.call("conformance-task-only").error["code"] == -32021
    listen = alice.listen([UNKNOWN], 2)
    assert listen.final["error"]["code"] == -32021                                           # NEG-3 on S2
    alice.drop("tools/call", {"name": "conformance-cancellable", "arguments": {}},            # §G.12 still
               lambda: any(r["status"] == "running" for r in alice.runs()))
    deadline = time.monotonic() + 5
    while not any(r["status"] == "cancelled" for r in alice.runs()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [r["reason"] for r in alice.runs() if r["status"] == "cancelled"] == ["mcp-request-cancelled"]
    check_schema(host.log)
    out = validate(host.log, mapping=MAPPING)
    assert out["result"] == "conforms", validate.explain(out)
    assert {p["id"]: p["verdict"] for p in out["properties"]}["NEG-4"] == "holds"
