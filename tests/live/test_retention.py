"""A short retention: the faithful host purges a terminal run after `retention` seconds and then reads
it as not found on every tasks/* method, which is a behaviour of the model (its purge, after the clock
passes the run's retention), so the log conforms: with the retention declared in the mapping, and
without it, where each purge is an assumption the result states."""
from __future__ import annotations

import json
import time

import pytest

from tests.live.conftest import MAPPING

pytestmark = pytest.mark.live

TERMINAL = {"completed", "failed", "cancelled"}


@pytest.mark.parametrize("retention", [1, 2])
def test_purged_runs_read_not_found_and_the_log_conforms(start_host, validate, check_schema, retention, tmp_path):
    from examples.host.clients.legs import NONEXISTENT, Clients, poll
    host = start_host(name=f"retention-{retention}", retention_s=retention)
    c = Clients(host.base)
    answer = {"acme/i-neverissuedneverissued": {"action": "accept", "content": {"approved": True}}}
    for ex in (c.alice.get(NONEXISTENT), c.alice.cancel(NONEXISTENT), c.bob.update(NONEXISTENT, answer)):
        assert ex.error.get("code") == -32602, ex.messages       # what a purged task's answer is compared with
    delay = c.alice.call("conformance-delay", {"ms": 50}).result["taskId"]
    failure = c.alice.call("conformance-failure").result["taskId"]
    approval = c.alice.call("conformance-approval").result["taskId"]
    key = next(iter(poll(c.alice, approval, lambda r: r["status"] == "input_required")["inputRequests"]))
    c.bob.update(approval, {key: {"action": "accept", "content": {"approved": True}}})
    cancelled = c.alice.call("conformance-cancellable").result["taskId"]
    c.alice.cancel(cancelled)
    tasks = (delay, failure, approval, cancelled)
    for task_id in tasks:
        assert poll(c.alice, task_id, lambda r: r["status"] in TERMINAL)["status"] in TERMINAL
    time.sleep(retention + 0.5)
    answer = {key: {"action": "accept", "content": {"approved": True}}}
    for task_id in tasks:
        for ex in (c.alice.get(task_id), c.alice.cancel(task_id), c.bob.update(task_id, answer)):
            assert (ex.status, ex.error.get("code")) == (200, -32602), ex.messages
    listen = c.alice.listen([delay], 5, until=lambda ms: bool(ms))
    ack = listen.notifications("notifications/subscriptions/acknowledged")
    assert ack and ack[0]["params"]["notifications"]["taskIds"] == [], ack
    host.stop()
    check_schema(host.log)
    out = validate(host.log)
    assert out["result"] == "conforms", validate.explain(out)
    assert out["matched"] == out["events"]
    assert len([a for a in out["assumptions"] if "purged" in a]) == 12, out["assumptions"]
    verdicts = {r["id"]: r for r in out["requirements"]}
    assert verdicts["TTL-3"]["verdict"] == "held" and verdicts["ISO-1"]["verdict"] == "held"
    declared = tmp_path / "mapping.json"
    declared.write_text(json.dumps({**json.loads(MAPPING.read_text()), "host": {"retention_s": retention}}))
    out = validate(host.log, mapping=declared)
    assert out["result"] == "conforms" and not out["assumptions"], validate.explain(out)
