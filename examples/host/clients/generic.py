"""The project's clients in a mode for any MCP Tasks server (SEP-2663 alone, no OpenWOP surface): the
extension-level legs, on tools the caller names, with nothing read but the wire.

`run(base, tokens, tools)` drives a server at `base` (its MCP endpoint at `/mcp`) as one principal
(`tokens[0]`) and, when a second token is given, a second principal whose reads of the first one's
tasks must get the not-found answer. `tools` names the server's tools for the roles the legs need:
`slow` (completes after `ms`), `ask` (asks one question, form mode, then completes), `cancellable`
(works until cancelled), and optionally `ask_two` (asks two questions at once), `fails` (a tool error)
and `protocol_error` (a JSON-RPC error).
Each leg prints one line, `ok` or `FAIL` with what it saw; the return is the list of failures.

    python -m examples.host.clients.generic http://127.0.0.1:8800 TOKEN [OTHER_TOKEN]
"""
from __future__ import annotations

import json
import sys
import time

from .mcp_client import HttpClient

TERMINAL = ("completed", "failed", "cancelled")
ROLES = {"slow": "slow", "ask": "ask", "ask_two": "multi_input", "cancellable": "cancellable", "fails": "fails",
         "protocol_error": "protocol_error"}


def poll(client: HttpClient, task_id: str, until, timeout: float = 15.0) -> dict:
    """tasks/get until `until(result)` holds (or the timeout): the last result."""
    deadline = time.monotonic() + timeout
    while True:
        result = client.get(task_id).result
        if until(result) or time.monotonic() > deadline:
            return result
        time.sleep(0.1)


def _created(ex) -> str:
    result = ex.result
    assert result.get("resultType") == "task", f"not a CreateTaskResult: {result}"
    return result["taskId"]


def leg_slow_completes(c, tools, **_):
    """A task completes; cancelling it then is acknowledged and changes nothing."""
    tid = _created(c.call(tools["slow"], {"ms": 300}))
    done = poll(c, tid, lambda r: r["status"] in TERMINAL)
    assert done["status"] == "completed" and not done["result"].get("isError"), done
    c.cancel(tid).result
    assert c.get(tid).result["status"] == "completed"


def leg_input_round(c, tools, **_):
    tid = _created(c.call(tools["ask"], {}))
    asked = poll(c, tid, lambda r: r["status"] != "working")
    assert asked["status"] == "input_required" and asked.get("inputRequests"), asked
    (key,) = asked["inputRequests"]
    ack = c.update(tid, {key: {"action": "accept", "content": {"confirm": True}}}).result
    assert set(ack) - {"_meta"} <= {"resultType"}, ack
    done = poll(c, tid, lambda r: r["status"] in TERMINAL)
    assert done["status"] == "completed", done
    again = c.update(tid, {key: {"action": "accept", "content": {"confirm": False}}}).result   # answered: a no-op
    assert set(again) - {"_meta"} <= {"resultType"}, again
    assert c.get(tid).result["status"] == "completed"


def leg_two_questions_one_update(c, tools, **_):
    """A task asking two questions at once, both answered by one tasks/update."""
    if "ask_two" not in tools:
        return
    tid = _created(c.call(tools["ask_two"], {}))
    asked = poll(c, tid, lambda r: r["status"] != "working")
    assert asked["status"] == "input_required" and len(asked.get("inputRequests") or {}) == 2, asked
    c.update(tid, {key: {"action": "accept", "content": {"first": "a", "second": "b"}}
                   for key in asked["inputRequests"]}).result
    done = poll(c, tid, lambda r: r["status"] in TERMINAL or r["status"] == "input_required"
                and set(r["inputRequests"]) != set(asked["inputRequests"]))
    assert done["status"] == "completed", done


def leg_blocking_input_round(c, tools, **_):
    """Without the extension the tool's question comes back as an InputRequiredResult (MRTR); the
    retry carries the answer (and the requestState, where the server sent one)."""
    asked = c.call(tools["ask"], {}, tasks=False).result
    assert asked.get("resultType") == "input_required" and asked.get("inputRequests"), asked
    (key,) = asked["inputRequests"]
    retry = {"name": tools["ask"], "arguments": {}, "inputResponses": {key: {"action": "accept",
                                                                            "content": {"confirm": True}}}}
    if "requestState" in asked:
        retry["requestState"] = asked["requestState"]
    done = c.send("tools/call", retry, tasks=False).result
    assert "taskId" not in done and done.get("isError") is not True, done


def leg_cancel_then_cancel_terminal(c, tools, **_):
    tid = _created(c.call(tools["cancellable"], {}))
    assert c.get(tid).result["status"] == "working"
    c.cancel(tid).result
    assert poll(c, tid, lambda r: r["status"] in TERMINAL)["status"] == "cancelled"
    c.cancel(tid).result                                    # terminal: acknowledged, nothing changes
    assert c.get(tid).result["status"] == "cancelled"


def leg_tool_error_and_protocol_error(c, tools, **_):
    if "fails" in tools:
        tid = _created(c.call(tools["fails"], {}))
        done = poll(c, tid, lambda r: r["status"] in TERMINAL)
        assert done["status"] == "completed" and done["result"].get("isError") is True, done
    if "protocol_error" in tools:
        tid = _created(c.call(tools["protocol_error"], {}))
        done = poll(c, tid, lambda r: r["status"] in TERMINAL)
        assert done["status"] == "failed" and "error" in done, done


def leg_not_found_alike(c, tools, other=None, **_):
    """An unknown id on get, update and cancel; another principal's task the same way."""
    tid = _created(c.call(tools["slow"], {"ms": 200}))
    answers = {}
    for who, ref in ((c, "no-such-task-" + tid[:8]), *(((other, tid),) if other else ())):
        for ex in (who.get(ref), who.cancel(ref), who.update(ref, {"k": {"action": "cancel"}})):
            assert ex.error["code"] == -32602, ex.messages
            said = json.dumps({**ex.error, "status": ex.status}).replace(ref, "{taskId}")
            answers.setdefault(said, ref)
    assert len(answers) == 1, f"the not-found answers differ beyond the id they echo: {sorted(answers)}"
    poll(c, tid, lambda r: r["status"] in TERMINAL)


def leg_negotiation_and_headers(c, tools, **_):
    tid = _created(c.call(tools["slow"], {"ms": 200}))
    assert c.get(tid, tasks=False).error["code"] == -32021
    assert c.get(tid, mcp_name="another-" + tid[:6]).error["code"] == -32020
    assert c.send("tasks/list", {}).error["code"] == -32601
    plain = c.call(tools["slow"], {"ms": 100}, tasks=False).result        # not declared: no task
    assert "taskId" not in plain and plain.get("isError") is not True, plain
    poll(c, tid, lambda r: r["status"] in TERMINAL)


def leg_disconnect_after_create_keeps_task(c, tools, **_):
    """The connection cut once the CreateTaskResult is read: the task runs on."""
    answer = c.drop_after_response("tools/call", {"name": tools["slow"], "arguments": {"ms": 300}})
    tid = answer["result"]["taskId"]
    assert poll(c, tid, lambda r: r["status"] in TERMINAL)["status"] == "completed"


LEGS = [leg_slow_completes, leg_input_round, leg_two_questions_one_update, leg_blocking_input_round,
        leg_cancel_then_cancel_terminal, leg_tool_error_and_protocol_error, leg_not_found_alike,
        leg_negotiation_and_headers, leg_disconnect_after_create_keeps_task]


def run(base: str, tokens: list[str], tools: dict | None = None, out=print) -> list[str]:
    tools = dict(ROLES if tools is None else tools)
    c = HttpClient(base, tokens[0])
    other = HttpClient(base, tokens[1]) if len(tokens) > 1 else None
    failed = []
    for leg in LEGS:
        name = leg.__name__.removeprefix("leg_").replace("_", "-")
        try:
            leg(c, tools, other=other)
        except (AssertionError, KeyError, ValueError) as e:
            failed.append(name)
            out(f"FAIL {name}: {str(e)[:300]}")
        else:
            out(f"ok   {name}")
    return failed


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[-1])
    sys.exit(1 if run(sys.argv[1], sys.argv[2:]) else 0)
