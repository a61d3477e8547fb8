"""The 13 legs of OpenWOP's conformance scenario v2-mcp-tasks, as client scripts.

The RFC does not list the legs one by one; they are derived from its Conformance section, its
Examples (the positive one and the six negatives), §G.12-§G.14 and the falsifiability rows (see
examples/host/README.md for each leg's clause). Each leg drives the host over streamable HTTP and
checks on the wire what the clause requires, raising `LegFailed` naming what it saw otherwise.

    python -m examples.host.clients.legs http://127.0.0.1:8765 [LEG ...]
"""
from __future__ import annotations

import re
import sys
import threading
import time

import httpx

from ..identity import TOKENS, project, unproject
from .mcp_client import TASKS_EXT, HttpClient, declares

TERMINAL = {"completed", "failed", "cancelled"}
NONEXISTENT = "acme~2FAAAAAAAAAAAAAAAAAAAAAAAAnotissued"    # well-formed, never issued
NEVER_ISSUED_KEY = {"acme/i-neverissuedneverissued": {"action": "accept", "content": {"approved": True}}}


class LegFailed(AssertionError):
    pass


def check(ok: bool, what: str) -> None:
    if not ok:
        raise LegFailed(what)


class Clients:
    """One client per Subject, each declaring elicitation as the model's client does (`declares`)."""

    def __init__(self, base: str):
        self.base = base
        for name, token in TOKENS.items():
            setattr(self, name, HttpClient(base, token, elicitation=declares(name)))


def poll(client: HttpClient, task_id: str, until, timeout: float = 10.0) -> dict:
    """tasks/get until `until(result)` holds (respecting a short poll interval)."""
    deadline = time.monotonic() + timeout
    while True:
        result = client.get(task_id).result
        if until(result) or time.monotonic() > deadline:
            return result
        time.sleep(0.05)


def run_of(client: HttpClient, task_id: str) -> dict:
    raw = unproject(task_id)
    return next(r for r in client.runs() if r["runId"] == raw)


def bare(result: dict) -> dict:
    """A result without the SDK's serverInfo `_meta` stamp."""
    return {k: v for k, v in result.items() if k != "_meta"}


# ---- the legs -------------------------------------------------------------------------------------
def discover_advertises(c: Clients) -> None:
    """§A.1: server/discover lists the extension in capabilities.extensions."""
    caps = c.alice.send("server/discover", tasks=False).result.get("capabilities", {})
    check(TASKS_EXT in (caps.get("extensions") or {}), f"extension not advertised: {caps}")


def tasked_call_creates_task(c: Clients) -> str:
    """§B.3 (negative 1): a declaring call whose run is not terminal gets CreateTaskResult."""
    result = c.alice.call("conformance-approval").result
    check(result.get("resultType") == "task", f"not a CreateTaskResult: {result.get('resultType')}")
    check(not {"result", "error", "inputRequests"} & set(result), f"CreateTaskResult not flat: {sorted(result)}")
    check("ttlMs" in result, "ttlMs missing")
    return result["taskId"]


def task_id_is_projected_run_id(c: Clients) -> None:
    """§C.5 (negative 2): taskId is the projected runId, opaque segment >= 128 bits."""
    task_id = c.alice.call("conformance-delay", {"ms": 100}).result["taskId"]
    raw = unproject(task_id)
    check(raw is not None and project(raw) == task_id, f"{task_id!r} is not a runId projected once")
    check(raw.split("/", 1)[0] == "acme", f"{raw!r} is not bound to the caller's tenant")
    check(len(raw.split("/", 1)[1]) >= 22, f"{raw!r}: opaque segment under 22 characters")
    check(any(r["runId"] == raw for r in c.alice.runs()), "no run has that id")


def get_input_required(c: Clients) -> None:
    """§D, ext-tasks §Task Polling: an approval wait reads input_required with its inputRequests."""
    task_id = c.alice.call("conformance-approval").result["taskId"]
    result = poll(c.alice, task_id, lambda r: r["status"] != "working")
    check(result["status"] == "input_required", f"status {result['status']}")
    check(result.get("resultType") == "complete", f"tasks/get resultType {result.get('resultType')}")
    keys = list(result.get("inputRequests") or {})
    check(len(keys) == 1 and re.fullmatch(r"acme/i-[A-Za-z0-9_-]{16,}", keys[0]) is not None,
          f"inputRequests keys {keys}")


def update_resolves_once(c: Clients) -> None:
    """§E.7 and the positive example: only the eligible approver resolves, once; then completed."""
    task_id = c.alice.call("conformance-approval").result["taskId"]
    key = next(iter(poll(c.alice, task_id, lambda r: r["status"] == "input_required")["inputRequests"]))
    answer = {key: {"action": "accept", "content": {"approved": True}}}
    ack = c.alice.update(task_id, answer).result            # alice is not an approver
    check(bare(ack) == {"resultType": "complete"}, f"update ack not empty: {ack}")
    time.sleep(0.1)
    check(c.alice.get(task_id).result["status"] == "input_required", "a non-approver's answer resolved")
    for _ in range(2):                                     # bob, twice: one resolution
        check(bare(c.bob.update(task_id, answer).result) == {"resultType": "complete"}, "update ack not empty")
    done = poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)
    check(done["status"] == "completed" and done["result"].get("isError") is False, f"ended {done['status']}")
    resolved = run_of(c.alice, task_id)["events"].count("interrupt.resolved")
    check(resolved == 1, f"{resolved} interrupt.resolved events")


def get_appends_nothing(c: Clients) -> None:
    """§F.9: answering tasks/get appends nothing to the run's log."""
    task_id = c.alice.call("conformance-approval").result["taskId"]
    poll(c.alice, task_id, lambda r: r["status"] == "input_required")
    before = run_of(c.alice, task_id)["events"]
    for _ in range(3):
        c.alice.get(task_id)
    after = run_of(c.alice, task_id)["events"]
    check(after == before, f"tasks/get appended {after[len(before):]}")


def failure_reads_completed_is_error(c: Clients) -> None:
    """§D: a failed run reads completed with result.isError true (failed is for JSON-RPC errors)."""
    task_id = c.alice.call("conformance-failure").result["taskId"]
    done = poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)
    check(done["status"] == "completed" and done["result"].get("isError") is True, f"read {done}")


def cancel_then_cancel_terminal(c: Clients) -> None:
    """§F.10: tasks/cancel is acked empty and cancels as cancelRun; on a terminal run it is acked and
    appends nothing."""
    task_id = c.alice.call("conformance-cancellable").result["taskId"]
    ack = c.alice.cancel(task_id).result
    check(bare(ack) == {"resultType": "complete"}, f"cancel ack not empty: {ack}")
    done = poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)
    check(done["status"] == "cancelled", f"read {done['status']} after tasks/cancel")
    before = run_of(c.alice, task_id)["events"]
    check(bare(c.alice.cancel(task_id).result) == {"resultType": "complete"}, "terminal cancel not acked")
    after = run_of(c.alice, task_id)["events"]
    check(after == before, f"cancel on a terminal run appended {after[len(before):]}")


def unreadable_is_not_found(c: Clients) -> None:
    """§C.6 (negative 3), task-unreadable-not-found: another tenant's task reads exactly as a
    nonexistent one (code, message, data, HTTP status), on every tasks/* method."""
    task_id = c.alice.call("conformance-cancellable").result["taskId"]
    for method, extra in (("tasks/get", {}), ("tasks/cancel", {}), ("tasks/update", {"inputResponses": NEVER_ISSUED_KEY})):
        foreign = c.mallory.send(method, {"taskId": task_id, **extra})
        missing = c.mallory.send(method, {"taskId": NONEXISTENT, **extra})
        check(foreign.error.get("code") == -32602, f"{method} on a foreign task: {foreign.error}")
        check((foreign.error, foreign.status) == (missing.error, missing.status),
              f"{method}: foreign {foreign.status} {foreign.error} differs from nonexistent {missing.status} {missing.error}")
    check(c.alice.get(task_id).result["status"] == "working", "the foreign requests changed the task")
    c.alice.cancel(task_id)


def listen_omits_unreadable(c: Clients) -> None:
    """§C.6 map row, listen-omits-unreadable: the acknowledgement leaves out a foreign task; the
    caller's own task is notified with what tasks/get returns."""
    own = c.alice.call("conformance-delay", {"ms": 600}).result["taskId"]
    foreign = c.mallory.call("conformance-delay", {"ms": 300}).result["taskId"]
    ex = c.alice.listen([own, foreign, NONEXISTENT], 5, until=lambda ms: any(
        m.get("method") == "notifications/tasks" and m["params"]["status"] in TERMINAL for m in ms))
    acks = ex.notifications("notifications/subscriptions/acknowledged")
    check(len(acks) == 1 and ex.messages[0] is acks[0], "the acknowledgement is not the first message")
    check(acks[0]["params"]["notifications"]["taskIds"] == [own], f"ack lists {acks[0]['params']['notifications']}")
    notes = ex.notifications("notifications/tasks")
    check(all(n["params"]["taskId"] == own for n in notes), "a notification for a task not acknowledged")
    check(notes and notes[-1]["params"]["status"] == "completed", "no notification of the completion")
    got = bare(c.alice.get(own).result)
    last = {k: v for k, v in notes[-1]["params"].items() if k != "_meta"}
    check({k: v for k, v in got.items() if k not in ("resultType", "ttlMs")} ==
          {k: v for k, v in last.items() if k != "ttlMs"}, "the notification differs from tasks/get")


def disconnect_before_response_cancels(c: Clients) -> None:
    """§G.12 (negative 4): a blocking call dropped mid-call cancels its run, reason mcp-request-cancelled;
    runList finds the run the client never got a handle for."""
    before = {r["runId"] for r in c.alice.runs()}
    started = lambda: any(r["runId"] not in before and r["status"] == "running" for r in c.alice.runs())  # noqa: E731
    c.alice.drop("tools/call", {"name": "conformance-cancellable", "arguments": {}}, started, tasks=False)
    deadline = time.monotonic() + 5
    while True:
        new = [r for r in c.alice.runs() if r["runId"] not in before]
        if (new and new[0]["status"] in TERMINAL) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    check(len(new) == 1, f"{len(new)} new runs")
    check(new[0]["status"] == "cancelled" and new[0]["reason"] == "mcp-request-cancelled",
          f"run {new[0]['status']} (reason {new[0]['reason']}) after its owner dropped")


def disconnect_after_response_keeps_run(c: Clients) -> None:
    """§G.13 (negative 5): once CreateTaskResult was sent, the connection closing changes nothing; the
    task is read completed on a new connection."""
    answer = c.alice.drop_after_response("tools/call", {"name": "conformance-delay", "arguments": {"ms": 500}})
    task_id = answer["result"]["taskId"]              # read whole, then the connection was cut
    done = poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)
    check(done["status"] == "completed", f"read {done['status']} after a disconnect that followed the answer")
    check("run.cancelling" not in run_of(c.alice, task_id)["events"], "the run was cancelled")
    blocking = c.alice.drop_after_response("tools/call", {"name": "conformance-delay", "arguments": {"ms": 50}},
                                           tasks=False)  # a blocking call's final result, then the cut
    check(blocking["result"].get("isError") is False, f"the blocking call answered {blocking}")


def no_notifications_cancelled(c: Clients) -> None:
    """§G.14 (negative 6): an operator's cancel of a blocking call's run is answered CallToolResult
    isError true, and no notifications/cancelled is sent on the tools/call stream."""
    before = {r["runId"] for r in c.alice.runs()}
    out: dict = {}
    t = threading.Thread(target=lambda: out.update(ex=c.alice.call("conformance-cancellable", tasks=False)))
    t.start()
    deadline = time.monotonic() + 5
    while not (new := [r for r in c.alice.runs() if r["runId"] not in before and r["status"] == "running"]):
        check(time.monotonic() < deadline, "the blocking call's run never started")
        time.sleep(0.05)
    check(bare(c.alice.cancel(project(new[0]["runId"])).result) == {"resultType": "complete"}, "cancel not acked")
    t.join(10)
    ex = out["ex"]
    check(not ex.notifications("notifications/cancelled"), "notifications/cancelled sent on a tools/call stream")
    check(ex.result.get("isError") is True, f"the cancelled blocking call answered {ex.result}")


LEGS = {f.__name__.replace("_", "-"): f for f in (
    discover_advertises, tasked_call_creates_task, task_id_is_projected_run_id, get_input_required,
    update_resolves_once, get_appends_nothing, failure_reads_completed_is_error, cancel_then_cancel_terminal,
    unreadable_is_not_found, listen_omits_unreadable, disconnect_before_response_cancels,
    disconnect_after_response_keeps_run, no_notifications_cancelled)}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 3
    unknown = [n for n in argv[1:] if n not in LEGS]
    if unknown:
        print(f"error: unknown leg {unknown[0]!r}; legs: {', '.join(LEGS)}", file=sys.stderr)
        return 3
    return run_all(argv[0], {name: LEGS[name] for name in argv[1:] or list(LEGS)})


def run_all(base: str, checks: dict) -> int:
    """Run each named check against the host at `base`, a line each: 0 all pass, 1 one failed,
    4 the host did not answer. A check that meets an answer it cannot read (an error where it needed
    a result: `Exchange.result` asserts; a result missing a key) or none in time fails alone; the
    others still run."""
    c, failed = Clients(base), 0
    for name, run in checks.items():
        try:
            run(c)
            print(f"pass  {name}")
        except LegFailed as e:
            failed += 1
            print(f"FAIL  {name}: {e}")
        except httpx.TimeoutException as e:      # the host is there but kept this leg waiting: this leg fails
            failed += 1
            print(f"FAIL  {name}: no answer in time: {type(e).__name__}: {str(e)[:200]}")
        except httpx.HTTPError as e:
            print(f"error: {name}: the host at {base} did not answer: {e}", file=sys.stderr)
            return 4
        except (AssertionError, LookupError, TypeError, StopIteration) as e:
            failed += 1
            print(f"FAIL  {name}: unexpected answer: {type(e).__name__}: {str(e)[:500]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
