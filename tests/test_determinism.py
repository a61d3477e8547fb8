"""The random engine's path is a function of its seed alone.

Not of memory addresses or garbage-collection timing (the same exploration twice in one process, with
a large irregular allocation pattern between), not of string hashing (PYTHONHASHSEED), and not of the
order the model's modules were imported in: the action table's order is what the explorer's choices
index into (its enabled list and its swarm bits), and it once followed import order, so a process
that imported `model.network` or `model.rest` first explored other examples for the same seed.
"""
from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANT = "detach-on-disconnect"        # refutes, shrinks and reaches several properties in a few seconds
RUN = dict(seed=1, chunks=3, examples_per_chunk=10, stories=False, budget=600)


def _summary(r) -> dict:
    """What a seed decides: every verdict and trace, and what the exploration did."""
    return {"verdicts": [[v.name, v.verdict, v.premise] for v in r.verdicts],
            "traces": {v.name: [[s.action, s.args] for s in v.trace] for v in r.verdicts if v.trace is not None},
            "steps": r.steps, "examples": r.examples, "action_counts": r.action_counts}


def _plain(summary: dict) -> dict:
    """The summary as JSON gives it back (as a child process reports it)."""
    return json.loads(json.dumps(summary, sort_keys=True, default=repr))


def _explore() -> dict:
    from model.variants import resolve
    from verifier.engines.random.explore import explore
    return _plain(_summary(explore(resolve(VARIANT), **RUN)))


def _churn(keep: list) -> None:
    """A large, irregular allocation pattern: a few hundred thousand small objects and dicts of
    varied sizes, every few of them freed again, many worlds built and dropped, then a collection."""
    from model.params import Params
    from model.world import World
    rnd = random.Random(20261202)
    objs = []
    for i in range(250_000):
        n = rnd.randrange(12)
        objs.append({j: object() for j in range(n)} if i % 3 else [object()] * n)
    for i in range(0, len(objs), rnd.randrange(2, 7)):
        objs[i] = None
    worlds = [World.composed(Params()) for _ in range(1500)]
    keep.append((objs, worlds[::7]))
    gc.collect()


def test_the_same_exploration_twice_in_one_process_is_the_same():
    first = _explore()
    keep: list = []
    _churn(keep)
    second = _explore()
    assert first["steps"] and first["traces"]           # it explored, and found something to tell
    for key in first:
        assert second[key] == first[key], f"{key} differs between two runs of one seed in one process"


_CHILD = """
import json, sys
for name in sys.argv[1].split(","):
    if name:
        __import__(name)
from tests.test_determinism import _explore
print(json.dumps(_explore()))
"""


def _in_a_process(first_imports: str, hash_seed: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    got = subprocess.run([sys.executable, "-c", _CHILD, first_imports], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr[-3000:]
    return json.loads(got.stdout.strip().splitlines()[-1])


def test_other_processes_other_hash_seeds_and_import_orders_explore_the_same():
    here = _explore()
    runs = {("default", "1"): _in_a_process("", "1"),
            ("model.network first", "2"): _in_a_process("model.network", "2"),
            ("model.rest first", "3"): _in_a_process("model.rest", "3")}
    for (imports, hash_seed), got in runs.items():
        for key in here:
            assert got[key] == here[key], \
                f"{key} differs in a process with PYTHONHASHSEED={hash_seed}, {imports}"


_TABLE_CHILD = """
import sys
for name in sys.argv[1].split(","):
    if name:
        __import__(name)
from model.actions import load_all
from model.world import action_table
assert list(action_table()) == list(load_all())
print(",".join(load_all()))
"""


def test_the_action_table_order_does_not_follow_import_order():
    """The order the explorer's choices index into is fixed (model.actions.MODULE_ORDER)."""
    orders = {}
    for first in ("", "model.network", "model.rest", "model.harness", "model.rest,model.network,model.clients"):
        got = subprocess.run([sys.executable, "-c", _TABLE_CHILD, first], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
        assert got.returncode == 0, got.stderr[-3000:]
        orders[first or "default"] = got.stdout.strip()
    assert len(set(orders.values())) == 1, orders
    names = orders["default"].split(",")
    assert names[0] == "answer" and names.index("disconnect") < names.index("harness_discover") \
        < names.index("rest_create")
