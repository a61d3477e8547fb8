"""Clients that reach what the legs never do: a run still working when its caller acts again.

- `answer_again_while_working`: an approval resolved, its run working `ms` more (the approval
  tool's run step with a duration), a second answer to the same key arrives: it resolves nothing.
- `retry_dropped_while_working`: a blocking call's MRTR retry answers the approval and is cut
  while the run works (its SSE response not yet final): the retry owned the run, so it is cancelled.
- `stdio_eof_while_task_runs`: over stdio, a tasked call is answered, then the session ends while
  the task still runs: the run is not the session's to cancel (P-STDIO-EOF cancels open requests).

Each raises `LegFailed` on what a faithful host would not do, as the legs do.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from ..identity import TOKENS
from .legs import TERMINAL, Clients, check, poll, run_of

ACCEPT = {"action": "accept", "content": {"approved": True}}


def _until(pred, timeout: float = 10.0, what: str = "the host") -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        check(time.monotonic() < deadline, f"{what} within {timeout} s")
        time.sleep(0.02)


def answer_again_while_working(c: Clients, ms: int = 1500) -> None:
    task_id = c.alice.call("conformance-approval", {"ms": ms}).result["taskId"]
    key = next(iter(poll(c.alice, task_id, lambda r: r["status"] == "input_required")["inputRequests"]))
    c.bob.update(task_id, {key: ACCEPT})
    check(c.alice.get(task_id).result["status"] == "working", "the approved run is not working")
    c.bob.update(task_id, {key: ACCEPT})                      # the same key again, the run still working
    done = poll(c.alice, task_id, lambda r: r["status"] in TERMINAL, timeout=ms / 1000 + 10)
    check(done["status"] == "completed", f"ended {done['status']}")
    resolved = run_of(c.alice, task_id)["events"].count("interrupt.resolved")
    check(resolved == 1, f"{resolved} interrupt.resolved events for one interrupt")


def retry_dropped_while_working(c: Clients, ms: int = 3000) -> None:
    """bob (the approver) calls blocking, retries with his approval, and cuts the retry mid-run.
    The call's run is the one it made: other runs of the tenant may wait for an approval too."""
    earlier = {r["runId"] for r in c.bob.runs()}
    first = c.bob.call("conformance-approval", {"ms": ms}, tasks=False).result
    check(first.get("resultType") == "input_required", f"not an InputRequiredResult: {first.get('resultType')}")
    key = next(iter(first["inputRequests"]))
    made = [r["runId"] for r in c.bob.runs() if r["runId"] not in earlier and r["status"] == "waiting-approval"]
    check(len(made) == 1, f"{len(made)} new runs waiting for approval after one blocking call")
    own = made[0]

    def status() -> str:
        return next(r["status"] for r in c.bob.runs() if r["runId"] == own)
    c.bob.drop("tools/call", {"name": "conformance-approval", "arguments": {"ms": ms},
                              "requestState": first["requestState"], "inputResponses": {key: ACCEPT}},
               lambda: status() == "running", tasks=False)
    _until(lambda: status() in TERMINAL, ms / 1000 + 10, "the run ending")
    run = next(r for r in c.bob.runs() if r["runId"] == own)
    check(run["status"] == "cancelled" and run["reason"] == "mcp-request-cancelled",
          f"run {run['status']} (reason {run['reason']}) after the retry that owned it was cut")


def stdio_eof_while_task_runs(log: Path, module: str = "examples.host", *extra: str, ms: int = 3000) -> None:
    from .mcp_client import StdioClient
    s = StdioClient(TOKENS["alice"], str(log), *extra, module=module)
    rid = s.send("tools/call", {"name": "conformance-delay", "arguments": {"ms": ms}})
    check(s.read_until(rid)["result"].get("resultType") == "task", "not a CreateTaskResult")
    check(s.close() == 0, "the stdio host did not end cleanly")
    kinds = [e["kind"] for e in map(json.loads, log.read_text().splitlines()) if e["event"] == "run"]
    check("run.cancelling" not in kinds, f"the session's end cancelled the task: {kinds}")
