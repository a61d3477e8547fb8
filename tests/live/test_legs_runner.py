"""The legs runner: a leg that meets an unexpected error answer is one failed leg, reported, and the
legs after it still run."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.live


def test_unexpected_error_fails_one_leg_and_the_rest_run(start_host, capsys):
    from examples.host.clients.legs import LEGS, NONEXISTENT, run_all
    host = start_host(name="runner")

    def reads_an_unknown_task(c):
        _ = c.alice.get(NONEXISTENT).result           # a -32602 error answer: Exchange.result asserts

    def reads_a_missing_key(c):
        _ = c.alice.call("conformance-delay", {"ms": 10}).result["noSuchKey"]

    checks = {"unknown-task": reads_an_unknown_task, "missing-key": reads_a_missing_key,
              "discover-advertises": LEGS["discover-advertises"]}
    assert run_all(host.base, checks) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL  unknown-task: unexpected answer: AssertionError: no result"), lines
    assert lines[1].startswith("FAIL  missing-key: unexpected answer: KeyError"), lines
    assert lines[2] == "pass  discover-advertises", lines


def test_a_leg_kept_waiting_fails_alone_and_the_rest_run(start_host, capsys):
    import httpx

    from examples.host.clients.legs import LEGS, run_all
    host = start_host(name="runner-timeout")

    def kept_waiting(c):
        raise httpx.ReadTimeout("timed out")        # what an httpx read past its timeout raises

    assert run_all(host.base, {"kept-waiting": kept_waiting, "discover-advertises": LEGS["discover-advertises"]}) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL  kept-waiting: no answer in time: ReadTimeout"), lines
    assert lines[1] == "pass  discover-advertises", lines


def test_a_listen_ends_at_its_deadline_on_a_silent_stream(start_host):
    """Nothing changes while the task runs: no line comes after the acknowledgement, and the listen
    still ends when its time is up, with what it read."""
    import time

    from examples.host.clients.legs import Clients
    host = start_host(name="silent-listen")
    c = Clients(host.base)
    task_id = c.alice.call("conformance-delay", {"ms": 30_000}).result["taskId"]
    started = time.monotonic()
    ex = c.alice.listen([task_id], 1.0)
    assert time.monotonic() - started < 4
    assert [m.get("method") for m in ex.messages] == ["notifications/subscriptions/acknowledged"], ex.messages
    c.alice.cancel(task_id)
