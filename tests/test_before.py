"""`model.before`: a step taken from its footprint (the traffic validator's) records what the records
it may write held before it, and what is kept from step to step (the open requests, the runs each
call created) is carried past it; both held to a step recording the whole world, on every move of
random walks, the variants' worlds included (where a rule is overridden the footprint is unknown and
the whole world is recorded)."""
from __future__ import annotations

import random

import pytest

import model.before
from model.before import KEPT, Before, StaleBefore, prime
from model.host import LIVE
from model.lifecycle import RUN_STATUSES, TERMINAL
from model.run_index import _due, live_runs, maybe_due, purged_runs, requests_of_run, runs_created_by, undurable_runs
from model.footprint import writes_of
from model.snapshot import clone, successor
from model.variants import builtins
from model.world import World, action_table
from properties.base import status_changes, step_facets
from properties.ownership import _created_runs, _created_whole
from verifier.runtime.worlds import world_factory


def _walk(seed: int, world: World, steps: int = 30):
    """(the world before, action, args, the world after) for a random walk, stepped as the validator
    steps: a sharing successor, its step recorded from the move's footprint."""
    rng, table = random.Random(seed), action_table()
    for _ in range(steps):
        moves = [(n, m) for n in table for m in table[n].moves(world)]
        if not moves:
            return
        name, args = rng.choice(moves)
        after = successor(world, writes_of(world, table[name], args))
        after.apply(name, args, check=False, say=False, writes=writes_of(world, table[name], args))
        yield world, name, args, after
        world = after


def _whole(world, name, args):
    full = clone(world)
    return full, full.apply(name, args, check=False, say=False)


@pytest.fixture
def keep_every_world(monkeypatch):
    """Kept values kept in a world of any size (by default a small world's are read whole)."""
    monkeypatch.setattr(model.before, "SMALL", 0)


@pytest.mark.parametrize("seed", range(10))
def test_a_footprint_step_records_what_a_whole_step_records(seed, keep_every_world):
    views = 0
    world = World()
    prime(world)                                       # every value kept from the first state on
    for before, name, args, after in _walk(seed, world):
        step = after.history[-1]
        # carried past the step (nothing has read them in this world yet), or dropped to be read whole
        assert {k for k in KEPT if after._memo.get(k, (after.depth,))[0] != after.depth} == set(), (name, args)
        _runs_read_as_whole(after)
        full, whole = _whole(before, name, args)
        for field in ("pre_status", "pre_phase", "pre_owner"):
            assert dict(getattr(step, field)) == getattr(whole, field), (name, args, field)
        views += isinstance(step.pre_phase, Before)
        assert step.forms == whole.forms, (name, args)       # read before the move wrote (owning_at_start)
        assert step_facets(after, step) == step_facets(full, whole), (name, args)
        assert status_changes(after, step) == status_changes(full, whole), (name, args)
        assert after.open_ids() == tuple(k for k, q in after.requests.items() if q.phase in ("received", "streaming"))
        assert _created_runs(after) == _created_whole(after)
        assert after.owning_ids() == {k for k, q in after.requests.items() if q.owns is not None}
        after.step = object()                           # as a move of the next step sees it, before it writes
        owning = {k for k, q in after.requests.items() if q.owns is not None}
        assert after.owning_at_start() == owning
        kept_now = after._memo.get("owning")
        after._memo["owning"] = (after.depth - 1, frozenset({"r0"}))      # an earlier state's: not trusted
        assert after.owning_at_start() == owning
        after._memo.pop("owning")
        if kept_now is not None:
            after._memo["owning"] = kept_now
        after.step = None
    assert views > 10


def _runs_read_as_whole(w):
    runs = list(w.runs.values())
    for statuses in (LIVE, ("running",), ("cancelling",), ("running", "cancelling"), RUN_STATUSES):
        assert live_runs(w, statuses) == [r for r in runs if not r.purged and r.status in statuses], statuses
    assert live_runs(w) == [r for r in runs if not r.purged]
    assert undurable_runs(w) == [r for r in runs if not r.durable]
    assert purged_runs(w) == [r for r in runs if r.purged]
    live = w._memo.get("runs.live")          # kept as it is, not only filtered right on reading
    assert live is None or tuple(live[1]) == tuple(r.id for r in runs if not r.purged and r.status not in TERMINAL)
    due = maybe_due(w)          # the runs due at the clock, and maybe others: never one left out
    assert set(map(id, due)) >= {id(r) for r in runs if _due(w, r) <= w.clock}
    assert due == [r for r in runs if r in due]                # in the table's order
    for r in runs:
        assert requests_of_run(w, r.id) == [q for q in w.requests.values() if q.run == r.id]
    for q in [*w.requests, "no-such-request"]:
        assert runs_created_by(w, q) == {k for k, r in w.runs.items() if r.creating_request == q}
    for name, action in action_table().items():      # the moves on a few runs are those of all on them
        if action.moves_on is not None:
            for ids in ({None}, set(w.runs), set(list(w.runs)[::2]) | {"no-such-run"}):
                assert action.moves_on(w, ids) == [m for m in action.moves(w) if m["run"] in ids], (name, ids)


@pytest.mark.parametrize("seed", range(4))
def test_worlds_stepped_apart_from_one_keep_their_own_values(seed, keep_every_world):
    """Two moves from one state: what each successor keeps is its own (a kept index shared between
    them lists the other's requests too, and is read for its own alone)."""
    rng, table = random.Random(seed), action_table()
    world = World()
    prime(world)
    for _ in range(40):
        moves = [(n, m) for n in table for m in table[n].moves(world)]
        if not moves:
            return
        after = []
        for name, args in rng.sample(moves, min(3, len(moves))):
            w = successor(world, writes_of(world, table[name], args))
            w.apply(name, args, check=False, say=False, writes=writes_of(world, table[name], args))
            after.append(w)
        for w in after:
            _runs_read_as_whole(w)
        world = rng.choice(after)


def test_the_calendar_names_the_runs_due_and_only_those(keep_every_world):
    """Runs become due (purgeable, their TTL elapsed) on the walks, and the calendar names them alone."""
    said = 0
    for seed in range(6):
        world = World()
        prime(world)
        for _, _, _, after in _walk(seed, world, 60):
            due = [r for r in after.runs.values() if _due(after, r) <= after.clock]
            assert maybe_due(after) == due
            said += bool(due)
    assert said


def test_a_small_world_reads_whole_and_agrees():
    for _, _, _, after in _walk(2, World()):
        assert "open" not in after._memo
        assert after.open_ids() == tuple(q.id for q in after.open_requests())
        assert [q.id for q in after.open_requests("S1")] == [q.id for q in after.requests.values()
                                                            if q.phase in ("received", "streaming") and q.server == "S1"]


@pytest.mark.parametrize("variant", ["detach-on-disconnect", "ttl-fails-run", "reissue-after-restart"])
def test_a_variant_step_records_the_same(variant, keep_every_world):
    """A variant's overridden rule makes the footprint unknown: the step records the whole world."""
    cls = builtins()[variant]
    world = world_factory(cls)()
    prime(world)
    for before, name, args, after in _walk(1, world):
        step = after.history[-1]
        full, whole = _whole(before, name, args)
        assert {f: dict(getattr(step, f)) for f in ("pre_status", "pre_phase", "pre_owner")} == \
            {f: getattr(whole, f) for f in ("pre_status", "pre_phase", "pre_owner")}, (name, args)
        assert after.open_ids() == full.open_ids() and after.owning_ids() == full.owning_ids()
        assert _created_runs(after) == _created_whole(full)
        _runs_read_as_whole(after)


def test_a_record_read_after_another_step_raises():
    """A `Before` reads the records it did not save from the world: after the world's next step they
    may hold other values, so a read then is refused rather than wrong."""
    world = World()
    steps, worlds = [], []
    for _, _, _, after in _walk(4, world, 12):
        steps.append(after.history[-1])
        worlds.append(after)
        if len(steps) > 1 and isinstance(steps[-2].pre_phase, Before):
            break
    first, stepped = steps[-2], clone(after)
    assert isinstance(first.pre_phase, Before)
    world = first.pre_phase._world()
    assert world is worlds[-2]
    world.depth += 2            # as if that world had taken two more steps in place
    with pytest.raises(StaleBefore):
        dict(first.pre_phase)
    assert stepped.history == []
    # The view holds its world weakly (the world holds the step holding it: a cycle otherwise); once
    # the world is dropped, a read is refused too.
    world.depth -= 2
    assert len(dict(first.pre_phase)) == len(first.pre_phase)
    del world, worlds[-2], after
    with pytest.raises(StaleBefore):
        dict(first.pre_phase)


@pytest.mark.parametrize("signal", ["disconnect", "stdio_cancel", "stdio_close"])
def test_a_request_cancelled_beside_another_owned_run_is_told_so(signal, keep_every_world):
    """The form a cancellation meets (`model.clients.cancellation_forms`) reads the requests owning a
    run as the state before the step held them (the kept value): alice's two blocking calls, each
    owning its run, one of them cancelled."""
    world, table = World(), action_table()
    prime(world)
    transport = "http" if signal == "disconnect" else "stdio"
    steps = [("call_tool", dict(client="C1", server="S1", transport="http", declare=False, tool="flow"))] * 2
    if transport == "stdio":
        steps.insert(0, ("call_tool", dict(client="C1", server="S1", transport="stdio", declare=False, tool="flow")))
        steps = steps[:2]
    ended = {"disconnect": dict(request="r1"), "stdio_cancel": dict(request="r1"),
             "stdio_close": dict(client="C1", server="S1")}[signal]
    forms = []
    for name, args in [*steps, (signal, ended)]:
        assert args in table[name].moves(world), (name, args)
        after = successor(world, writes_of(world, table[name], args))
        step = after.apply(name, args, check=False, say=False, writes=writes_of(world, table[name], args))
        full, whole = _whole(world, name, args)
        assert step.forms == whole.forms, (name, args)
        forms, world = step.forms, after
    assert ("cancelled beside another request's run", {"disconnect": "HTTP disconnect",
                                                       "stdio_cancel": "stdio notifications/cancelled",
                                                       "stdio_close": "stdio EOF"}[signal]) in forms
