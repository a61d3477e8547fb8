"""The ext-tasks profile and its binding (properties/profiles.py, verifier/validate/binding.py) on small
hand-written logs of a plain MCP Tasks server: opaque ids, not-found answers compared up to the id
they echo, SEP-2663's failed task, and the mapping's declarations checked."""
from __future__ import annotations

import json

import pytest

from properties.profiles import judged, out_of_scope
from properties.requirements import REQUIREMENTS
from verifier.validate import LogError, validate_log

META = {"io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}},
                                                       "elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}
MAPPING = {"profile": "ext-tasks", "tokens": {"ta": "alice", "tm": "mallory"}, "tools": {"job": "flow"},
           "host": {"retention_s": 900, "ttl_ms_live": 900000, "http_error_status": 400, "listen": False,
                    "visibility": "creator"}}
TASK = "Zq3vN8x0aUe7Lr2TtQw9YbKc4Hs1Jm6PdGf5Rn0VxAo"     # an opaque id, as fastmcp-tasks mints them


class Log:
    def __init__(self):
        self.lines = [{"event": "header", "t": 0, "format": "mcp-traffic/1", "run_events": False}]
        self.t, self.n = 0.0, 0

    def exchange(self, token, method, params, answer, status=200):
        self.n += 1
        self.t += 0.01
        conn = f"c{self.n}"
        name = params.get("taskId", params.get("name"))
        headers = {"authorization": f"Bearer {token}", "mcp-method": method, "mcp-name": name}
        self.lines += [{"event": "open", "t": self.t, "conn": conn, "transport": "http",
                        "http": {"method": "POST", "path": "/mcp", "headers": headers}},
                       {"event": "message", "t": self.t, "conn": conn, "dir": "c2s",
                        "message": {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}},
                       {"event": "message", "t": self.t, "conn": conn, "dir": "s2c", "http": {"status": status},
                        "message": {"jsonrpc": "2.0", "id": 1, **answer}},
                       {"event": "close", "t": self.t, "conn": conn, "how": "closed", "by": "server"}]

    def text(self):
        return [json.dumps(x) for x in self.lines]


def _task(status, **more):
    return {"taskId": TASK, "status": status, "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 900000, **more}


def _session(foreign_message=f"Task {TASK} not found", failed=None):
    log = Log()
    log.exchange("ta", "tools/call", {"name": "job", "arguments": {}}, {"result": {**_task("working"),
                                                                                    "resultType": "task"}})
    end = _task("failed", **failed) if failed is not None else \
        _task("completed", result={"content": [], "isError": False})
    log.exchange("ta", "tasks/get", {"taskId": TASK}, {"result": {**end, "resultType": "complete"}})
    log.exchange("ta", "tasks/get", {"taskId": "nope"}, {"error": {"code": -32602, "message": "Task nope not found"}},
                 400)
    log.exchange("tm", "tasks/get", {"taskId": TASK}, {"error": {"code": -32602, "message": foreign_message}}, 400)
    return log.text()


def test_the_profile_sorts_every_catalogue_id_once():
    assert set(judged("ext-tasks")) | set(out_of_scope("ext-tasks")) == set(REQUIREMENTS)
    assert not set(judged("ext-tasks")) & set(out_of_scope("ext-tasks"))
    assert all(out_of_scope("ext-tasks").values())


def test_opaque_ids_bind_and_an_echoed_id_tells_nothing_apart():
    res = validate_log(_session(), MAPPING)
    assert res.result == "conforms", (res.divergence, res.reason)
    verdicts = {r["id"]: r["verdict"] for r in res.requirements}
    assert verdicts["ISO-1"] == "held" and "ID-1" not in verdicts and "ID-1" in res.out_of_scope


def test_a_foreign_task_told_apart_is_iso1():
    res = validate_log(_session(foreign_message="Task belongs to another principal"), MAPPING)
    assert res.result == "diverges" and res.divergence.requirement == "ISO-1", res.divergence


def test_a_protocol_errors_failed_task_is_the_models_failed_run():
    assert validate_log(_session(failed={"error": {"code": -32603, "message": "boom"}}), MAPPING).result == "conforms"
    # failed without the error SEP-2663 inlines is no reading of a failed run
    assert validate_log(_session(failed={}), MAPPING).result == "diverges"


def test_a_creator_only_host_needs_a_tenant_per_principal():
    with pytest.raises(LogError, match="share a tenant"):
        validate_log(_session(), {**MAPPING, "tokens": {"ta": "alice", "tm": "bob"}})


def test_list_names_the_profile(capsys):
    from verifier.cli import main
    assert main(["list", "--profile", "ext-tasks", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in data["judged"]] == list(judged("ext-tasks"))
    assert {r["id"]: r["why"] for r in data["out_of_scope"]} == out_of_scope("ext-tasks")
    assert main(["list", "--profile", "ext-tasks"]) == 0
    text = capsys.readouterr().out
    assert "out of scope (" in text and "OWN-2" in text
