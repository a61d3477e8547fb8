"""The independence the footprints declare (model.footprint.conflict) holds on the graphs: every two
moves it calls independent commute, each staying enabled after the other (verifier.engines.bfs.diamonds)."""
from __future__ import annotations

import dataclasses

import pytest

from model import footprint as fp
from model.rules import Rules
from model.variants import builtins
from model.world import action_table
from verifier.engines.bfs import diamonds
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for

from tests.test_footprints import home_of


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


def test_with_a_budget_per_client_one_client_sending_takes_no_move_of_the_other():
    """`Params.client_requests`: after alice's client spent its one request, mallory's still sends, and
    what enables its sends is its own count, which alice's sends do not write."""
    sc = scopes.parse("host-pair,client_requests=1")
    w0 = make_world_for(None, sc)()
    w0.apply("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow"))
    senders = {a["client"] for name, a in diamonds.enabled(w0) if action_table()[name].actor == "client"}
    assert senders == {"C4"}
    assert fp.budget(w0, 0, "C4") == {fp.requests_of("C4")}
    assert fp.requests_of("C4") not in fp.new_request(w0, client="C1")
    w = diamonds.walk("host-pair,client_requests=1", depth=2)
    assert w.broken == [] and w.pairs > 1_000


def test_a_budget_left_out_of_what_enables_a_send_is_caught(monkeypatch):
    """At the last slot of the request budget one send disables the other."""
    monkeypatch.setattr(fp, "budget", lambda world, reserve=0, client=None: set())
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


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(builtins()))
def test_every_independent_pair_commutes_under_every_builtin_variant(name):
    """A variant's moves that call a rule it overrides are dependent on every other; the rest commute
    as the baseline's do."""
    variant = builtins()[name]
    spec, depth = home_of(variant)
    w = diamonds.walk(spec, depth, make_world_for(variant, scopes.parse(spec)))
    assert w.broken == [], w.broken[:1]
