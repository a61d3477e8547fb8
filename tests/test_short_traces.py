"""Short traces: a random-engine counterexample is shrunk, then shortened by breadth-first search
from the initial state, and a liveness lasso's stem and loop are shortened separately; the result
replays, violates the same property, and is at most twice the exhaustive engine's shortest."""
from functools import cache

import pytest

from model.amend import Amendment
from model.variants import builtins
from properties.base import Property, load_catalogue
from verifier.engines.bfs.search import search
from verifier.engines.bfs.shortest import shortest
from verifier.engines.random.explore import explore
from verifier.runtime import scopes
from verifier.runtime.replay import run_trace, shrink
from verifier.runtime.worlds import guarded_factory, make_world_for, world_factory

CATALOGUE = load_catalogue()


def bfs_length(variant, name: str, scope: str) -> int:
    sc = scopes.parse(scope)
    s = search(make_world_for(variant, sc), [CATALOGUE[name]], sc, want_graph=False)
    found = s.found[name]
    return len(s.path(found.parent)) + 1


@cache
def explored(variant_name: str, prop: str, chunks: int = 6):
    variant = builtins()[variant_name]
    r = explore(variant, budget=120, seed=0, chunks=chunks, props=[CATALOGUE[prop]])
    return variant, r, r.by_name()[prop]


def replays(variant, v) -> bool:
    out = run_trace(world_factory(variant), [(s.action, s.args) for s in v.trace], list(CATALOGUE.values()), v.name)
    return out.violation is not None and len(out.violation.history) == len(v.trace)


def test_hns4_comes_back_within_twice_the_bfs_length():
    variant, r, v = explored("cancel-ack-means-no-effect", "harness-cancel-is-intent")
    assert v.verdict == "refuted"
    assert v.length <= 2 * bfs_length(variant, v.name, "composed-small"), r.bounds["shortened"]
    assert replays(variant, v)


def test_bfs_shortens_what_the_shrinker_leaves():
    """Both stages: the exploration's trace is shrunk, then searched for, and at most twice bfs's."""
    variant, r, v = explored("ttl-pauses-run", "ttl-covers-retention")
    assert r.bounds["shortened"][v.name].startswith("bfs "), r.bounds["shortened"]
    assert v.length <= 2 * bfs_length(variant, v.name, "host-clock")
    assert replays(variant, v)


def test_the_search_finds_a_shorter_violation_than_a_padded_trace():
    """Steps the search never needs (discoveries) come out: the behaviour found is a shortest one
    at the scope the padded trace fits in, with the engine's own parameters, so it replays there."""
    variant, _, v = explored("ttl-pauses-run", "ttl-covers-retention")
    make = guarded_factory(world_factory(variant))
    padded = [("discover", {"client": "C1", "server": s}) for s in ("S1", "S2")] + [(s.action, s.args) for s in v.trace]
    created = [[], []] + [s.created for s in v.trace]       # the discoveries mint r1 and r2: renumbered
    long = run_trace(make, padded, list(CATALOGUE.values()), v.name, created).violation.history
    got = shortest(variant, make, long, list(CATALOGUE.values()), CATALOGUE[v.name])
    assert got.trace is not None and len(got.trace) <= len(v.trace) < len(long), got.how
    assert replays(variant, type(v)(v.name, v.ids, v.kind, v.clause, v.sentence, v.verdict, got.message, got.trace))


def test_a_capped_search_keeps_the_shrunk_trace_and_says_so():
    variant, _, v = explored("ttl-pauses-run", "ttl-covers-retention")
    make = guarded_factory(world_factory(variant))
    got = shortest(variant, make, v.trace, list(CATALOGUE.values()), CATALOGUE[v.name], max_states=5)
    assert got.trace is None and "kept" in got.how and "capped at 5 states" in got.how


def test_the_search_depends_on_its_inputs_alone():
    variant, _, v = explored("ttl-pauses-run", "ttl-covers-retention")
    make = guarded_factory(world_factory(variant))
    runs = [shortest(variant, make, v.trace, list(CATALOGUE.values()), CATALOGUE[v.name]) for _ in range(2)]
    assert [(s.action, s.args) for s in runs[0].trace or []] == [(s.action, s.args) for s in runs[1].trace or []]
    assert runs[0].how == runs[1].how


def test_a_liveness_stem_is_shrunk_apart_from_its_drain():
    """LIV-1 on this variant: the shrunk stem, then its fair drain; the lasso stutters at its end."""
    variant, _, v = explored("ownership-ends-at-first-event", "every-call-answered-or-cancelled")
    assert v.verdict == "refuted"
    assert v.loop == v.length                       # the drain quiesced: it stutters there
    assert v.length <= 2 * 5, [s.note for s in v.trace]     # bfs's lasso at host-small: 5 steps
    assert replays(variant, v)
    moves = [(s.action, s.args) for s in v.trace]
    stem, _ = shrink(world_factory(variant), moves, [s.created for s in v.trace], list(CATALOGUE.values()), v.name)
    assert len(stem) < len(moves)                  # the drain's steps are not part of the stem


class IgnoresResolutions(Amendment):
    """Every resolution is refused: the fair drain resolves the same interrupt for ever."""
    name = "ignores-resolutions"
    kind = "mutant"

    def resolve(self, world, interrupt, subject, action, via, content=None):
        return False


def _still_open(world, step):
    return "an interrupt is still open" if any(i.open for i in world.interrupts.values()) else None


def test_a_livelock_lasso_loop_is_cut_to_its_first_cycle():
    """Without the cut, the drain's 200 steps to its bound would be shown."""
    p = Property("interrupts-answered", ("TEST-1",), "liveness", "test", "a planted property", _still_open)
    r = explore(IgnoresResolutions, budget=60, seed=0, props=[p], chunks=2)
    v = r.by_name()[p.name]
    assert v.verdict == "refuted"
    assert v.length <= 10 and v.loop == v.length - 1, [s.note for s in v.trace]
    assert v.trace[-1].action == "rest_resolve"     # the loop: a resolution refused, for ever


@pytest.mark.slow
def test_every_builtin_variant_within_twice_the_bfs_length():
    """The benchmark's figure (benchmarks/variants.py --lengths) as a test: minutes."""
    import json
    from pathlib import Path

    import benchmarks.variants as bench
    manifest = json.loads((Path(__file__).resolve().parent.parent / "counterexamples" / "manifest.json").read_text())
    assert bench.print_lengths(sorted(builtins()), manifest, 2) == 0
