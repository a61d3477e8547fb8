"""NEG-4, PRJ-4, TTL-4, WIRE-5, NTF-4, HNS-6, HNS-7, LIV-2 and the widened TTL-2: each holds on random
baseline walks and on a baseline story that exercises it (also under the parameters that open the
choice), and its built-in variant refutes it on the same story."""
from __future__ import annotations

import random

import pytest

from model.actions import load_all
from model.params import Params
from model.stories import play
from model.variants import builtins
from properties.base import find, load_catalogue
from verifier.runtime.worlds import world_factory
from verifier.runtime.replay import run_trace

CATALOGUE = list(load_catalogue().values())
ACTIONS = load_all()
NEW = ("NEG-4", "PRJ-4", "TTL-2", "TTL-4", "WIRE-5", "NTF-4", "HNS-6", "HNS-7", "LIV-2")


def run(n):
    return lambda w: list(w.runs)[n - 1]


def task(n):
    return lambda w: w.rules.task_id(w, w.runs[list(w.runs)[n - 1]])


def moves(make, story):
    """The literal moves of a story (functions of the world resolved as it goes)."""
    return [(action, args, named) for action, args, _, named in play(make(), story, strict=False)]


def outcome(variant, story, rid, params=None):
    make = world_factory(variant, params)
    taken = moves(make, story)
    return (run_trace(make, [(a, args) for a, args, _ in taken], CATALOGUE, find(rid).name),
            sum(named for *_, named in taken))


def get(client, n=1, server="S1", declare=True):
    return ("tasks_get", dict(client=client, server=server, ref=task(n), transport="http", declare=declare,
                              header_ok=True))


BOUND = [("harness_start", dict(client="H1", server="S1", long=False)), ("answer", dict(request="r1")),
         ("harness_receive", dict(request="r1")), ("harness_persist", dict(client="H1", op="op1"))]
STORIES = {
    "NEG-4": ("capability-error-on-plain-mount", [
        ("call_tool", dict(client="C1", server="S2", transport="http", declare=False, tool="flow")),
        get("C1", server="S2"), get("C1", server="S2", declare=False)]),
    "PRJ-4": ("elicit-without-capability", [
        ("call_tool", dict(client="C3", server="S1", transport="http", declare=True, tool="flow")),
        ("run_start", dict(run=run(1))), ("run_interrupt", dict(run=run(1), kind="approval", form=True)),
        get("C3"), get("C1")]),
    "TTL-2": ("ttl-pauses-run", [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        ("run_start", dict(run=run(1))), ("clock_tick", {}), ("clock_tick", {})]),
    "TTL-4": ("ttl-beyond-retention", [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        ("answer", dict(request="r1")), ("run_start", dict(run=run(1))), ("run_complete", dict(run=run(1))),
        get("C3"), ("clock_tick", {}), ("clock_tick", {}), ("purge", dict(run=run(1))), get("C3")]),
    "WIRE-5": ("missing-capability-http-200", [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        get("C1", declare=False), get("C4"), get("C1", server="S1", declare=True)]),
    "NTF-4": ("listen-notifies-first-change-only", [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        ("listen", dict(client="C1", server="S1", declare=True)), ("run_start", dict(run=run(1))),
        ("run_interrupt", dict(run=run(1), kind="approval", form=True))]),
    "HNS-6": ("poll-with-default-credentials", BOUND + [
        ("harness_crash", dict(client="H1")), ("harness_restart", dict(client="H1")),
        ("harness_poll", dict(client="H1", op="op1"))]),
    "HNS-7": ("task-for-every-call", [
        ("harness_discover", dict(client="H1", server="S1")), ("harness_receive", dict(request="r1")),
        ("harness_start", dict(client="H1", server="S1", long=True)),
        ("harness_start", dict(client="H1", server="S1", long=False, short=True))]),
    "LIV-2": ("subscription-without-fallback", BOUND + [
        ("harness_listen", dict(client="H1", op="op1")), ("harness_poll", dict(client="H1", op="op1")),
        ("harness_receive", dict(request="r3")),
        ("end_listen", dict(request="r2")), ("harness_receive", dict(request="r2")),
        ("run_start", dict(run=run(1))), ("run_complete", dict(run=run(1)))]),
}


@pytest.mark.parametrize("rid", NEW)
def test_the_variant_refutes_it_where_the_baseline_holds(rid):
    name, story = STORIES[rid]
    variant = builtins()[name]
    assert variant.expect[rid] == "refuted"
    got, n = outcome(variant, story, rid)
    assert n == len(story), f"the story stops at step {n + 1} on {name}"
    assert got.violation is not None and rid in got.violation.prop.ids, got.reason
    base, _ = outcome(None, story, rid, variant.make_params())      # the variant's parameters, baseline rules
    assert base.violation is None, base.violation.message


def test_each_new_property_holds_on_random_composed_walks():
    props = [find(rid) for rid in NEW]
    for seed in range(25):
        rng = random.Random(seed)
        world = world_factory(None)()
        for _ in range(40):
            enabled = [n for n in ACTIONS if len(world.moves(n))]
            name = rng.choice(enabled)
            ms = world.moves(name)
            step = world.apply(name, ms[rng.randrange(len(ms))], check=False)
            for p in props:
                if p.kind != "liveness":
                    assert p.check(world, step) is None, (seed, p.name, p.check(world, step))


@pytest.mark.parametrize("changes", [dict(ttl_live_ticks=8), dict(harness_wait="listen"),
                                     dict(harness_short_ops=True), dict(p_elicit="each-get"),
                                     dict(http_error_status=400)])
def test_the_baseline_holds_them_under_each_new_parameter(changes):
    params = Params().with_(**changes)
    for rid, (_, story) in STORIES.items():
        got, _ = outcome(None, story, rid, params)
        assert got.violation is None, (rid, got.violation.message)


def test_a_finite_live_ttl_is_honoured_by_the_purge():
    make = world_factory(None, Params().with_(ttl_live_ticks=8))
    world = make()
    for action, args, _ in moves(make, STORIES["TTL-4"][1][:7]):       # created, answered, completed, two ticks
        world.apply(action, args)
    (r,) = world.runs.values()
    assert world.rules.ttl_ms(world, r) == 8000 and world.moves("purge") == []    # retention alone would purge


def test_a_subscription_that_ends_falls_back_to_polling():
    make = world_factory(None, Params().with_(harness_wait="listen"))
    world = make()
    for action, args, _ in moves(make, STORIES["LIV-2"][1]):
        world.apply(action, args)
    te = world.harness.clients["H1"].proc.tes["op1"]
    assert te.stream_ended and te.listen is None
    assert world.moves("harness_poll") == [dict(client="H1", op="op1")]


def test_a_plain_mount_answers_tasks_methods_as_unknown_with_404():
    make = world_factory(None)
    world = make()
    for action, args, _ in moves(make, STORIES["NEG-4"][1]):
        world.apply(action, args)
    answers = [q for q in world.requests.values() if q.method == "tasks/get"]
    assert [q.response["error"]["code"] for q in answers] == [-32601, -32601]
    assert {q.http_status for q in answers} == {404}
