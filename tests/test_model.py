"""The model's own mechanics: lifecycles, identity, every action, and the emitted wire messages."""
import random

import pytest

from model import identity, lifecycle
from model.actions import Product, load_all
from model.projection import STATUS_PROJECTION
from model.world import ModelError, World
from verifier.runtime.schemas import validate_message


def test_run_lifecycle_has_the_ten_statuses_and_no_exit_from_terminal():
    assert len(lifecycle.RUN_STATUSES) == 10
    for status in lifecycle.TERMINAL:
        assert not any(lifecycle.can_fire("run", status, t) for t in lifecycle.triggers("run"))
    assert lifecycle.fire("run", "cancelling", "finish_cancel") == "cancelled"
    with pytest.raises(lifecycle.IllegalStep):
        lifecycle.fire("run", "cancelling", "complete")


def test_projection_table_equals_the_interop_map(shared_dir):
    import json
    rows = json.loads((shared_dir / "schemas/openwop-interop-map.json").read_text())["mcp"]["tasks"]["status"]
    table = {r["runStatus"]: r["taskStatus"] for r in rows}
    assert table == {k: v for k, (v, _) in STATUS_PROJECTION.items()}
    assert set(table) == set(lifecycle.RUN_STATUSES)


def test_identity_projection_round_trips_and_refuses_t42():
    raw = identity.mint("acme", 5, 22)
    wire = identity.project(raw)
    assert wire.startswith("acme~2F") and identity.unproject(wire) == raw
    assert identity.unproject(wire.replace("~2F", "%2F")) == raw
    assert identity.is_projected_once(wire)
    assert identity.unproject("t-42") is None
    assert not identity.is_projected_once(identity.project(wire))   # projected twice


def test_product_moves_decode_and_membership():
    p = Product([("a", [1, 2]), ("*g", [dict(x=1, y=2), dict(x=3, y=4)])], extra=dict(k="v"))
    assert len(p) == 4 and list(p)[3] == {"k": "v", "a": 2, "x": 3, "y": 4}
    assert {"k": "v", "a": 1, "x": 3, "y": 4} in p and {"k": "v", "a": 1, "x": 1, "y": 4} not in p


def test_apply_refuses_a_move_that_is_not_enabled():
    w = World()
    with pytest.raises(ModelError):
        w.apply("run_start", {"run": "acme/nope"})


def _walk(seed, steps=60):
    rnd = random.Random(seed)
    table = load_all()
    w = World()
    for _ in range(steps):
        enabled = [(n, m) for n in table for m in [table[n].moves(w)] if m for _ in range(table[n].weight)]
        if not enabled:
            break
        name, moves = rnd.choice(enabled)
        w.apply(name, moves[rnd.randrange(len(moves))])
    return w


def test_random_walks_fire_every_action():
    fired = set()
    for seed in range(120):
        fired |= {s.action for s in _walk(seed).history}
    host_side = {n for n, a in load_all().items() if a.actor != "harness"}
    missing = host_side - fired - {"persist"}      # persist is enabled only by answer-before-durable
    assert not missing, missing


def test_every_emitted_message_validates_against_the_official_schemas():
    checked = 0
    for seed in range(40):
        w = _walk(seed)
        for step in w.history:
            for qid, msg in step.emitted:
                context = w.requests[qid].method if qid in w.requests and "id" in msg and "method" not in msg \
                    else "notification"
                errors = validate_message(msg, context)
                assert not errors, (step.note, msg, errors)
                checked += 1
    assert checked > 200


def test_tasked_call_answer_is_a_create_task_result_with_the_projected_run_id():
    w = World()
    w.apply("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow"))
    w.apply("answer", {"request": "r1"})
    msg = w.requests["r1"].response
    run = next(iter(w.runs.values()))
    assert msg["result"]["resultType"] == "task" and msg["result"]["taskId"] == identity.project(run.id)
    assert w.requests["r1"].owns is None
