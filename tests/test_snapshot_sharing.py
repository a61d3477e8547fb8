"""`model.snapshot.successor`: a copy sharing the records a move leaves alone (what the traffic
validator steps on), held to a full clone's steps, and a write to a shared record refused."""
from __future__ import annotations

import random

import pytest

from model.footprint import writes_of
from model.snapshot import SharedRecordWrite, clone, fingerprint, own, successor
from model.world import World, action_table


def _walk(seed: int, steps: int = 25):
    """Worlds of a random walk of the random engine's instance, each with a move enabled in it."""
    rng, world, table = random.Random(seed), World(), action_table()
    for _ in range(steps):
        moves = [(n, m) for n in table for m in table[n].moves(world)]
        if not moves:
            return
        name, args = rng.choice(moves)
        yield clone(world), name, args      # a copy: the test seals it, the walk goes on
        world.apply(name, args, check=False, say=False)


@pytest.mark.parametrize("seed", range(12))
def test_a_successor_steps_as_a_full_clone_does(seed):
    """Every move of every state of a walk: the sharing successor reaches the full clone's state, and
    the state it came from is left as it was."""
    table = action_table()
    for world, _, _ in _walk(seed):
        before = fingerprint(clone(world), rename=False)
        for name in table:
            for args in table[name].moves(world):
                full = clone(world)
                full.apply(name, args, check=False, say=False)
                shared = successor(world, writes_of(world, table[name], args))
                shared.apply(name, args, check=False, say=False)
                assert fingerprint(shared, rename=False) == fingerprint(full, rename=False), (name, args)
        assert fingerprint(world, rename=False) == before


def test_a_shared_record_refuses_a_write_and_own_copies_it():
    world, name, args = next(w for w in _walk(3, 6) if w[0].runs)
    rid = next(iter(world.runs))
    child = successor(world, set())          # a move declared to write nothing
    assert child.runs[rid] is world.runs[rid]
    with pytest.raises(SharedRecordWrite):
        child.runs[rid].status = "failed"
    own(child, {("run", rid)})
    assert child.runs[rid] is not world.runs[rid]
    child.runs[rid].status = "failed"
    assert world.runs[rid].status != "failed"


def test_a_shared_runs_lists_refuse_an_append():
    """A run shared with other states holds its log, children and interrupts as tuples: appending to
    one in place (as a rule writing beyond its move's footprint would) raises, and the state it came
    from keeps its own; a copy of its own holds lists again."""
    world, name, args = next(w for w in _walk(3, 6) if w[0].runs)
    rid = next(iter(world.runs))
    before = fingerprint(world, rename=False)
    child = successor(world, set())
    run = child.runs[rid]
    with pytest.raises(SharedRecordWrite):
        child.append(run, {"type": "run.note"})
    for lst in (run.log, run.children, run.interrupts):
        with pytest.raises(AttributeError):
            lst.append("x")
    assert fingerprint(world, rename=False) == before
    own(child, {("run", rid)})
    mine = child.runs[rid]
    assert all(type(x) is list for x in (mine.log, mine.children, mine.interrupts))
    child.append(mine, {"type": "run.note"})
    assert len(mine.log) == len(world.runs[rid].log) + 1
    assert fingerprint(clone(child), rename=False) == fingerprint(child, rename=False)   # a list's form is a tuple's
