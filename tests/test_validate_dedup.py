"""The trace validator merges the states that explain a log alike: by `same_state` (what a state's
fingerprint tells apart) in its searches and by `_same_future` (what `_future`'s key tells apart) among
its candidates, each read in the time of the records two worlds do not share. Held to the whole-state
keys at every comparison a long generated session makes, conforming and diverging (diagnosed)."""
from __future__ import annotations

import pytest

import verifier.validate.search as search
from benchmarks.validate import diverging, session
from model.snapshot import fingerprint, same_state
from verifier.validate import validate_log
from verifier.writers.traffic import MAPPING


@pytest.fixture
def compared(monkeypatch):
    """Every comparison the validator makes, checked against the whole-state keys: (pairs, merged)."""
    seen = {"states": [0, 0], "futures": [0, 0]}
    same_future = search._same_future

    def states(a, b):
        got = same_state(a, b)
        assert got == (fingerprint(a, rename=False) == fingerprint(b, rename=False))
        seen["states"][0] += 1
        seen["states"][1] += got
        return got

    def futures(a, b, texts, kept):
        got = same_future(a, b, texts, kept)
        assert got == (search._future(a, texts) == search._future(b, texts))
        seen["futures"][0] += 1
        seen["futures"][1] += got
        return got
    monkeypatch.setattr(search, "same_state", states)
    monkeypatch.setattr(search, "_same_future", futures)
    return seen


@pytest.mark.parametrize("run_events", [False, True])
def test_merges_agree_with_the_whole_state_keys(compared, run_events):
    lines = session(40, run_events)
    assert validate_log(lines, MAPPING, budget=600, diagnose=False).result == "conforms"
    got = validate_log(diverging(lines), MAPPING, budget=600, diagnose=True)
    assert got.result == "diverges" and got.divergence.requirement == "ISO-1"
    # client side (no run events to pin the host's steps), both kinds of comparison were made, and
    # some of each merged two states, some did not
    for pairs, merged in compared.values() if not run_events else ():
        assert 0 < merged < pairs, compared


def test_same_state_tells_a_changed_record_apart():
    from model.snapshot import successor
    from model.world import World
    world = World()
    world.apply("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow"))
    a, b = successor(world, None), successor(world, None)
    assert same_state(a, b)
    (q,) = b.requests.values()
    q.phase = "cancelled"
    assert not same_state(a, b)


@pytest.mark.parametrize("prune", [True, False])
def test_the_last_level_of_an_answers_search_takes_only_moves_writing_its_request(monkeypatch, prune):
    """A client-side log leaves the runs of dropped calls cancelling (their finish is no event it
    shows), so near a long session's end every state has one move per such run. Searching for an
    answer the model cannot give, the unfocused pass took every pair of them: at 500 conversations
    past the 20,000-state cap, `undetermined` after 90 s where it now diverges in 9. Its last level
    takes only the moves that may write the answered request: held here at 150 conversations under a
    2,000-state cap, which the search exceeds without it."""
    monkeypatch.setattr(search.Matcher.__init__, "__defaults__", (6, 2000, 512, None))
    if not prune:
        monkeypatch.setattr(search.Matcher, "_may_answer", lambda self, world, name, args, qid: True)
    got = validate_log(diverging(session(150, False)), MAPPING, budget=600, diagnose=False)
    if prune:
        assert got.result == "diverges", got.reason
    else:
        assert got.result == "undetermined" and "more than 2000 model states" in got.reason
