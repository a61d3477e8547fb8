"""A bare `elicitation: {}` declares form mode (the MCP schema's "form mode only (implicit)", the SDK's
resolver): such a client is asked for input, not refused with -32021; a url-only client still is."""
from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.live


def _client(host, elicitation):
    from examples.host.clients.mcp_client import HttpClient
    from examples.host.identity import TOKENS
    return HttpClient(host.base, TOKENS["alice"], elicitation=elicitation)


def _poll_status(client, task_id, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        ex = client.get(task_id)
        if ex.final and "error" in ex.final:
            return ex
        if ex.result["status"] != "working" or time.monotonic() > deadline:
            return ex
        time.sleep(0.05)


def test_bare_elicitation_gets_input_required(start_host, validate):
    host = start_host(name="bare-elicitation")
    alice = _client(host, {})
    blocking = alice.call("conformance-approval", tasks=False)
    assert blocking.result.get("resultType") == "input_required", blocking.messages
    assert len(blocking.result["inputRequests"]) == 1 and blocking.result.get("requestState")
    task_id = alice.call("conformance-approval").result["taskId"]
    read = _poll_status(alice, task_id)
    assert read.result["status"] == "input_required", read.messages
    (request,) = read.result["inputRequests"].values()
    assert request["method"] == "elicitation/create" and request["params"].get("mode", "form") == "form", request
    host.stop()
    out = validate(host.log)       # a declaration of another Subject's model client: judged all the same
    assert out["result"] == "conforms" and out["exchanges"]["unjudged"] == 0, validate.explain(out)


def test_url_only_elicitation_is_still_refused(start_host, validate):
    host = start_host(name="url-elicitation")
    alice = _client(host, {"url": {}})
    refused = alice.call("conformance-approval", tasks=False)
    assert refused.error.get("code") == -32021, refused.messages
    assert refused.error["data"]["requiredCapabilities"] == {"elicitation": {"form": {}}}
    host.stop()
    out = validate(host.log)
    assert out["result"] == "conforms" and out["exchanges"]["unjudged"] == 0, validate.explain(out)
