"""The independence the footprints declare (model.footprint.conflict) holds on the graphs: every two
moves it calls independent commute, each staying enabled after the other (verifier.engines.bfs.diamonds)."""
from __future__ import annotations

import dataclasses

import pytest

from model import footprint as fp
from model.rules import Rules
from model.world import action_table
from verifier.engines.bfs import diamonds
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for


def _sends(found, moves):
    return [(moves[i][0], moves[j][0]) for i, j in found.independent
            if action_table()[moves[i][0]].actor == action_table()[moves[j][0]].actor == "client"]


def test_every_independent_pair_commutes_at_host_small():
    w = diamonds.walk("host-small")
    assert w.states == 16_687
    assert w.broken == []
    assert w.pairs > 1_000 and w.with_pair > 1_000      # not vacuous: the declarations do leave pairs


def test_two_sends_commute_up_to_the_renaming_of_request_ids():
    """Two clients' sends mint the same next id; with the request-order symmetry the two orders are one
    state, without it they are dependent by the mint."""
    w0 = make_world_for(None, scopes.parse("host-pair"))()
    moves = diamonds.enabled(w0)
    renamed = diamonds.diamonds(w0, renames=True)
    assert renamed.broken == [] and ("call_tool", "tasks_get") in _sends(renamed, moves)
    assert _sends(diamonds.diamonds(w0, renames=False), moves) == []
    call, get = (next(m for m in moves if m[0] == name) for name in ("call_tool", "tasks_get"))
    effects = [diamonds.effect(w0, *m)[0] for m in (call, get)]
    assert fp.conflict(*effects, w0, renames=True) is None
    assert fp.conflict(*effects, w0, renames=False) in fp.minted(w0) | {fp.MINT}
    w = diamonds.walk("host-pair", depth=2)
    assert w.broken == [] and w.pairs > 1_000


def test_a_budget_left_out_of_what_enables_a_send_is_caught(monkeypatch):
    """At the last slot of the request budget one send disables the other."""
    monkeypatch.setattr(fp, "budget", lambda world, reserve=0: set())
    w = diamonds.walk("host-pair", depth=2)
    assert any("is no longer enabled" in why for *_, why in w.broken), w.broken[:1]


def test_a_write_left_out_of_a_declaration_is_caught(monkeypatch):
    """A run's completion declared as writing nothing: it and the host's answer, which reads the run,
    no longer commute."""
    table = action_table()
    monkeypatch.setitem(table, "run_complete", dataclasses.replace(
        table["run_complete"], footprint=fp.footprint(fp.RUN_STEP, [], ["lifecycle_fire"], enables=fp.RUN)))
    w = diamonds.walk("host-small")
    assert w.broken and all("run_complete" in (t[0], u[0]) for _, t, u, _ in w.broken)


def test_a_move_calling_an_overridden_rule_is_dependent_on_every_other():
    """An override that only calls super() still makes every move that calls it dependent: what an
    amendment's rule reads and writes is not declared."""
    class Holds(Rules):
        def releases_ownership(self, world, q, event):
            return super().releases_ownership(world, q, event)

    w0 = make_world_for(None, scopes.parse("host-pair"))()
    moves = diamonds.enabled(w0)
    calls = lambda found: {moves[k][0] for pair in found.independent for k in pair}     # noqa: E731
    assert "call_tool" in calls(diamonds.diamonds(w0, renames=True))
    w0.rules = Holds()
    found = diamonds.diamonds(w0, renames=True)
    assert "call_tool" not in calls(found) and "tasks_get" in calls(found)


@pytest.mark.slow
@pytest.mark.parametrize("spec, depth", [("host-clock", None), ("host-rest", None), ("host-small,stdio=True", None),
                                         ("host-pair", 3)])
def test_every_independent_pair_commutes_at_other_scopes(spec, depth):
    w = diamonds.walk(spec, depth)
    assert w.broken == [] and w.pairs > 0
