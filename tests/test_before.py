"""`model.before`: a step taken from its footprint (the traffic validator's) records what the records
it may write held before it, and what is kept from step to step (the open requests, the runs each
call created) is carried past it; both held to a step recording the whole world, on every move of
random walks, the variants' worlds included (where a rule is overridden the footprint is unknown and
the whole world is recorded)."""
from __future__ import annotations

import random

import pytest

import model.before
from model.before import Before, StaleBefore
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
    world.open_ids(), world.owning_ids(), _created_runs(world)        # kept from the first state on
    for before, name, args, after in _walk(seed, world):
        step = after.history[-1]
        # carried past the step (nothing has read them in this world yet)
        assert [after._memo[k][0] for k in ("open", "owning", "own.created")] == [after.depth] * 3, (name, args)
        full, whole = _whole(before, name, args)
        for field in ("pre_status", "pre_phase", "pre_owner"):
            assert dict(getattr(step, field)) == getattr(whole, field), (name, args, field)
        views += isinstance(step.pre_phase, Before)
        assert step_facets(after, step) == step_facets(full, whole), (name, args)
        assert status_changes(after, step) == status_changes(full, whole), (name, args)
        assert after.open_ids() == tuple(k for k, q in after.requests.items() if q.phase in ("received", "streaming"))
        assert _created_runs(after) == _created_whole(after)
        assert after.owning_ids() == {k for k, q in after.requests.items() if q.owns is not None}
    assert views > 10


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
    for before, name, args, after in _walk(1, world_factory(cls)()):
        step = after.history[-1]
        full, whole = _whole(before, name, args)
        assert {f: dict(getattr(step, f)) for f in ("pre_status", "pre_phase", "pre_owner")} == \
            {f: getattr(whole, f) for f in ("pre_status", "pre_phase", "pre_owner")}, (name, args)
        assert after.open_ids() == full.open_ids() and after.owning_ids() == full.owning_ids()
        assert _created_runs(after) == _created_whole(full)


def test_a_record_read_after_another_step_raises():
    """A `Before` reads the records it did not save from the world: after the world's next step they
    may hold other values, so a read then is refused rather than wrong."""
    world = World()
    steps = []
    for _, _, _, after in _walk(4, world, 12):
        steps.append(after.history[-1])
        if len(steps) > 1 and isinstance(steps[-2].pre_phase, Before):
            break
    first, stepped = steps[-2], clone(after)
    assert isinstance(first.pre_phase, Before)
    world = first.pre_phase._world
    world.depth += 2            # as if that world had taken two more steps in place
    with pytest.raises(StaleBefore):
        dict(first.pre_phase)
    assert stepped.history == []
