"""Probes beyond the 13 legs: the refusals and the MRTR path the legs do not reach, so that a
validation of the log judges NEG-2, NEG-3, WIRE-3, WIRE-4, WIRE-5 and the blocking approval flow
on evidence rather than vacuously.

    python -m examples.host.clients.probes http://127.0.0.1:8765
"""
from __future__ import annotations

import sys
import time

from .legs import Clients, check, poll, run_all

TERMINAL = {"completed", "failed", "cancelled"}


def refusals(c: Clients) -> None:
    task_id = c.alice.call("conformance-delay", {"ms": 200}).result["taskId"]
    undeclared = c.alice.get(task_id, tasks=False)           # NEG-2: capability before lookup, 400
    check((undeclared.status, undeclared.error.get("code")) == (400, -32021), f"undeclared get: {undeclared.status}")
    mismatched = c.alice.get(task_id, mcp_name=task_id + "x")  # WIRE-4
    check((mismatched.status, mismatched.error.get("code")) == (400, -32020), f"mismatched Mcp-Name: {mismatched.status}")
    removed = c.alice.send("tasks/list")                     # WIRE-3: removed method, 404
    check((removed.status, removed.error.get("code")) == (404, -32601), f"tasks/list: {removed.status}")
    listen = c.alice.listen([task_id], 2, tasks=False)       # NEG-3
    check(listen.final is not None and listen.final.get("error", {}).get("code") == -32021,
          f"undeclared listen: {listen.messages}")
    only = c.alice.call("conformance-task-only", tasks=False)  # a task-only tool without the extension
    check(only.error.get("code") == -32021, f"task-only tool without the extension: {only.messages}")
    poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)


def blocking_approval(c: Clients) -> None:
    """A blocking approval call: InputRequiredResult, then bob's MRTR retry continues the run."""
    first = c.alice.call("conformance-approval", tasks=False).result
    check(first.get("resultType") == "input_required" and first.get("requestState"), f"answered {first}")
    key = next(iter(first["inputRequests"]))
    stale = c.bob.call("conformance-approval", tasks=False)  # a state minted for alice is not bob's
    check(stale.result.get("resultType") == "input_required", "a fresh call is a new run")
    retry = c.alice.send("tools/call", {"name": "conformance-approval", "arguments": {},
                                        "inputResponses": {key: {"action": "accept", "content": {"approved": True}}},
                                        "requestState": first["requestState"]}, tasks=False)
    # alice is no approver: the retry owns the run but resolves nothing, so the run still waits.
    check(retry.result.get("resultType") == "input_required", f"retry answered {retry.result}")


def dropped_retry_cancels(c: Clients) -> None:
    """§G.12 "continues covers an MRTR retry": bob's retry owns the run until answered; dropped while
    the run works after the approval, it cancels the run (reason mcp-request-cancelled)."""
    earlier = {r["runId"] for r in c.bob.runs()}
    first = c.bob.call("conformance-approval", {"ms": 60000}, tasks=False).result
    key = next(iter(first["inputRequests"]))
    c.bob.drop("tools/call", {"name": "conformance-approval", "arguments": {"ms": 60000},
                              "inputResponses": {key: {"action": "accept", "content": {"approved": True}}},
                              "requestState": first["requestState"]},
                 lambda: any(r["runId"] not in earlier and "interrupt.resolved" in r["events"] for r in c.bob.runs()),
                 tasks=False)
    deadline = time.monotonic() + 5
    while True:
        runs = [r for r in c.bob.runs() if r["runId"] not in earlier]
        if (runs and runs[0]["status"] in TERMINAL) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    check(len(runs) == 1 and "interrupt.resolved" in runs[0]["events"], f"the retried run: {runs}")
    check(runs[0]["status"] == "cancelled" and runs[0]["reason"] == "mcp-request-cancelled",
          f"run {runs[0]['status']} (reason {runs[0]['reason']}) after its retry dropped")


PROBES = {"refusals": refusals, "blocking-approval": blocking_approval, "dropped-retry-cancels": dropped_retry_cancels}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 3
    return run_all(argv[0], PROBES)


if __name__ == "__main__":
    sys.exit(main())
