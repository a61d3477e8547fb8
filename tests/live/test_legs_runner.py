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
