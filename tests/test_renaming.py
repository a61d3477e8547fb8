"""`model.snapshot.renamed_fingerprint`: the renaming a fingerprint applied tells which of the worlds
that rename to one state a world is (the stored graph's representatives, `bfs.incremental`)."""
from __future__ import annotations

import itertools
import random

from model.snapshot import clone, fingerprint, renamed_fingerprint
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for

def _world():
    return make_world_for(None, scopes.parse("host-pair"))()


def _sent(*moves):
    """host-pair's initial world after `moves` (action, args), in order."""
    w = _world()
    for name, args in moves:
        w.apply(name, args)
    return w


def test_two_orders_of_independent_sends_are_one_state_by_two_renamings():
    w0 = _world()
    call, get = (("call_tool", next(m for m in w0.moves("call_tool") if m["client"] == "C1")),
                 ("tasks_get", next(m for m in w0.moves("tasks_get") if m["client"] == "C4")))
    a, b = _sent(call, get), _sent(get, call)
    (fa, ra), (fb, rb) = renamed_fingerprint(a), renamed_fingerprint(b)
    assert fa == fb == fingerprint(a) and ra != rb
    assert fingerprint(a, rename=False) != fingerprint(b, rename=False)
    assert renamed_fingerprint(clone(a)) == (fa, ra)


def test_one_renamed_fingerprint_and_one_renaming_are_one_world():
    """Over every state of random walks at host-pair: worlds alike in both are alike without renaming,
    and worlds with one renamed fingerprint but other renamings are other worlds."""
    rng, seen = random.Random(7), {}
    for _ in range(60):
        w = _world()
        for _ in range(4):
            moves = [(n, m) for n in ("call_tool", "tasks_get", "tasks_cancel", "listen", "answer", "respond",
                                      "disconnect", "run_start", "run_complete")
                     for m in w.moves(n)]
            if not moves:
                break
            w.apply(*rng.choice(moves))
            f, r = renamed_fingerprint(w)
            seen.setdefault(f, set()).add((r, fingerprint(w, rename=False)))
    merged = [ws for ws in seen.values() if len(ws) > 1]
    assert merged                        # not vacuous: some states stand for two worlds
    for worlds in seen.values():
        for (r1, p1), (r2, p2) in itertools.combinations(worlds, 2):
            assert (r1 == r2) == (p1 == p2)
