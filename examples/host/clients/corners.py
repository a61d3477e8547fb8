"""Clients for what the legs do not write: runs with two open interrupts, several-key updates, a listen
stream across input-request changes, status messages, a terminal run's cancel never read first.

Each takes `Clients` (examples.host.clients.legs) and raises `LegFailed` on what a faithful host would
not do where the wire shows it, as the legs do. The parallel-interrupt scenarios call the official
suite's `multi_input` fixture (two questions at once): the host must offer the suite's fixtures
(`--suite-fixtures`).
"""
from __future__ import annotations

import json
import threading
import time

from .legs import NONEXISTENT, TERMINAL, Clients, check, poll, run_of

TWO = "multi_input"           # examples/host/fixtures.py: asks two questions at once, then completes


def _two_open(c: Clients) -> tuple[str, list[str]]:
    task_id = c.alice.call(TWO).result["taskId"]
    read = poll(c.alice, task_id, lambda r: r["status"] == "input_required")
    keys = list(read.get("inputRequests") or {})
    check(len(keys) == 2, f"two open interrupts read as {len(keys)} input request(s)")
    return task_id, keys


def _answer(key: str) -> dict:
    return {key: {"action": "accept", "content": {key.rsplit("/", 1)[-1]: "yes"}}}


def answer_both_at_once(c: Clients) -> None:
    """One tasks/update answers both open interrupts: both resolve, the run completes."""
    task_id, keys = _two_open(c)
    c.alice.update(task_id, {**_answer(keys[0]), **_answer(keys[1])})
    done = poll(c.alice, task_id, lambda r: r["status"] != "input_required", timeout=3)
    check(done["status"] in TERMINAL | {"working"}, f"after answering both keys the task reads {done['status']} "
                                                    f"with {list(done.get('inputRequests') or {})} still asked")
    check(run_of(c.alice, task_id)["events"].count("interrupt.resolved") == 2, "not both interrupts resolved")


def answer_one_then_other(c: Clients) -> None:
    """The keys answered one at a time under a listen stream: after the first the task still asks the
    other alone, and the stream is told of that change before the run goes on."""
    task_id, keys = _two_open(c)
    seen: dict = {}
    def ended(ms) -> bool:
        return any(m.get("method") == "notifications/tasks" and m["params"]["status"] in TERMINAL for m in ms)
    stream = threading.Thread(target=lambda: seen.setdefault("listen", c.alice.listen([task_id], 5, until=ended)),
                              daemon=True)
    stream.start()
    time.sleep(0.3)                       # the stream acknowledged before the first answer
    c.alice.update(task_id, _answer(keys[0]))
    after = c.alice.get(task_id).result
    check(after["status"] == "input_required" and list(after.get("inputRequests") or {}) == keys[1:],
          f"after one answer the task reads {after['status']} asking {list(after.get('inputRequests') or {})}")
    c.alice.update(task_id, _answer(keys[1]))
    poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)
    stream.join(10)
    told = [(m["params"]["status"], len(m["params"].get("inputRequests") or {}))
            for m in seen["listen"].notifications("notifications/tasks")]
    check(("input_required", 1) in told, f"the listen stream was not told the input requests changed: {told}")


def read_two_open(c: Clients) -> None:
    """A task waiting on two interrupts asks both."""
    task_id, _ = _two_open(c)
    c.alice.cancel(task_id)


def status_message_free_of_arguments(c: Clients) -> None:
    """A task's statusMessage quotes none of the tool call's arguments (SEC-1)."""
    arguments = {"ms": 400}
    created = c.alice.call("conformance-delay", arguments).result
    read = c.alice.get(created["taskId"]).result
    for task in (created, read):
        check(json.dumps(arguments) not in (task.get("statusMessage") or ""),
              f"statusMessage {task.get('statusMessage')!r} quotes the call's arguments")


def cancel_finished_task_unread(c: Clients) -> None:
    """tasks/cancel of a run that ended, which the caller never read as ended (runList tells it): the
    empty ack (CNL-1), however the host words a missing task."""
    task_id = c.alice.call("conformance-failure").result["taskId"]
    deadline = time.monotonic() + 10
    while run_of(c.alice, task_id)["status"] not in TERMINAL and time.monotonic() < deadline:
        time.sleep(0.05)
    ack = c.alice.cancel(task_id)
    check("result" in (ack.final or {}), f"tasks/cancel of a finished task answered {ack.final}")


def foreign_read_alone(c: Clients) -> None:
    """mallory reads alice's task, and nothing else: no id never created to compare the answer with."""
    task_id = c.alice.call("conformance-cancellable").result["taskId"]
    check(c.mallory.get(task_id).error.get("code") == -32602, "a foreign task not answered -32602")
    c.alice.cancel(task_id)


def ineligible_approver_acked(c: Clients) -> None:
    """alice, who may respond but is not the approval's approver (bob is), answers it: the empty ack and
    no resolution (P-APPROVER ack); bob then approves."""
    task_id = c.alice.call("conformance-approval").result["taskId"]
    key = next(iter(poll(c.alice, task_id, lambda r: r["status"] == "input_required")["inputRequests"]))
    ex = c.alice.update(task_id, _answer(key))
    check("result" in (ex.final or {}), f"an ineligible approver's tasks/update answered {ex.final}")
    c.bob.update(task_id, _answer(key))
    check(poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)["status"] == "completed", "not completed")


def decline_keeps_run(c: Clients) -> None:
    """bob declines the approval: the interrupt is resolved declined, the run is not cancelled (UPD-4)."""
    task_id = c.alice.call("conformance-approval").result["taskId"]
    key = next(iter(poll(c.alice, task_id, lambda r: r["status"] == "input_required")["inputRequests"]))
    c.bob.update(task_id, {key: {"action": "decline"}})
    done = poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)
    check(done["status"] != "cancelled", "declining the approval cancelled the run")


def key_of_another_run(c: Clients) -> None:
    """bob answers task A with task B's key: it names no interrupt of A, so nothing resolves (UPD-2)."""
    first = c.alice.call("conformance-approval").result["taskId"]
    second = c.alice.call("conformance-approval").result["taskId"]
    keys = [next(iter(poll(c.alice, t, lambda r: r["status"] == "input_required")["inputRequests"]))
            for t in (first, second)]
    c.bob.update(first, _answer(keys[1]))
    check(c.alice.get(second).result["status"] == "input_required", "a key sent for another task resolved it")
    for t in (first, second):
        c.alice.cancel(t)


def sibling_call_survives_a_drop(c: Clients) -> None:
    """alice holds one blocking call open and drops another: only the dropped call's run is cancelled (OWN-4)."""
    held = threading.Thread(target=c.alice.call, args=("conformance-delay", {"ms": 1500}), kwargs={"tasks": False},
                            daemon=True)
    held.start()
    deadline = time.monotonic() + 5
    while not any(r["tool"] == "conformance-delay" for r in c.alice.runs()) and time.monotonic() < deadline:
        time.sleep(0.02)
    before = {r["runId"] for r in c.alice.runs()}
    c.alice.drop("tools/call", {"name": "conformance-cancellable", "arguments": {}},
                 lambda: len(c.alice.runs()) > len(before), tasks=False)
    held.join(10)
    delay = next(r for r in c.alice.runs() if r["tool"] == "conformance-delay")
    check(delay["status"] == "completed", f"the held call's run ended {delay['status']} when another call dropped")


def task_runs_on_after_its_answer(c: Clients) -> None:
    """A tasked call's run is not ended by its answer having been sent (OWN-3): it completes."""
    task_id = c.alice.call("conformance-delay", {"ms": 300}).result["taskId"]
    done = poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)
    check(done["status"] == "completed", f"the task ended {done['status']}")


def failed_reads_completed(c: Clients) -> None:
    """A failed run reads completed with isError true (PRJ-1), never failed."""
    task_id = c.alice.call("conformance-failure").result["taskId"]
    done = poll(c.alice, task_id, lambda r: r["status"] != "working")
    check(done["status"] == "completed" and done.get("result", {}).get("isError") is True,
          f"a failed run reads {done['status']}")


def bare_elicitation_asked(c: Clients) -> None:
    """A client declaring `elicitation: {}` (form mode, implicitly) is asked for input by a blocking
    approval call, not refused -32021 (PRJ-4)."""
    from .mcp_client import HttpClient
    alice = HttpClient(c.base, c.alice.token, elicitation={})
    ex = alice.call("conformance-approval", tasks=False)
    check("result" in (ex.final or {}) and ex.result.get("resultType") == "input_required",
          f"a bare elicitation declaration was answered {ex.final}")


def nonexistent_reads(c: Clients) -> None:
    """Reads of an id never created by every tasks/* method: what an unreadable task's answer is
    compared with (ISO-1)."""
    for ex in (c.alice.get(NONEXISTENT), c.alice.cancel(NONEXISTENT),
               c.alice.update(NONEXISTENT, {"acme/i-neverissuedneverissued": {"action": "cancel"}})):
        check(ex.error.get("code") == -32602, f"an id never created answered {ex.final}")


CORNERS = {f.__name__: f for f in (answer_both_at_once, answer_one_then_other, read_two_open,
                                   status_message_free_of_arguments, cancel_finished_task_unread, foreign_read_alone,
                                   ineligible_approver_acked, decline_keeps_run, key_of_another_run,
                                   sibling_call_survives_a_drop, task_runs_on_after_its_answer, failed_reads_completed,
                                   bare_elicitation_asked, nonexistent_reads)}
