"""Footprints (model.footprint): every action declares what its moves read and write, and the verify
mode (verifier.engines.bfs.footprints) holds every transition of a search to the declaration."""
from __future__ import annotations

import dataclasses

import pytest

from model import footprint as fp
from model.variants import builtins
from model.world import action_table
from verifier.engines.bfs import footprints
from verifier.engines.bfs.search import search
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for

HOST_SMALL_STATES = 16_687


def verified_search(spec: str, depth: int | None = None, variant=None):
    sc = scopes.parse(spec)
    return search(footprints.verifying(make_world_for(variant, sc), _indexed_then_checked), [], sc,
                  want_graph=False, max_depth=depth)


def home_of(variant) -> tuple[str, int | None]:
    """Where a built-in variant's moves are checked: composed-small's first 8 steps for one that
    changes the harness, host-small for the rest."""
    return ("composed-small", 8) if getattr(variant, "harness_rules", None) is not None else ("host-small", None)


def _indexed_then_checked(world, name, args):
    """Before each move: the listens index (which the epilogue reads instead of the request table)
    names exactly the subscriptions/listen requests, in the order sent; then the footprint check."""
    listens = tuple(q.id for q in world.requests.values() if q.method == "subscriptions/listen")
    if world.listens != listens:
        raise footprints.FootprintError(f"World.listens is {world.listens}, the requests hold listens {listens}")
    return footprints.check_move(world, name, args)


def test_the_listens_index_is_checked():
    """A world whose index lost a listen is refused before its next move."""
    sc = scopes.parse("host-small")
    w = make_world_for(None, sc)()
    w.apply("listen", w.moves("listen")[0])
    w.listens = ()
    with pytest.raises(footprints.FootprintError, match="listens"):
        _indexed_then_checked(w, "listen", {})


def test_every_action_declares_a_footprint():
    assert [n for n, a in action_table().items() if not isinstance(a.footprint, fp.Footprint)] == []


def test_host_small_every_transition_within_its_footprint():
    s = verified_search("host-small")
    assert s.fault is None, s.fault
    assert s.complete and s.distinct == HOST_SMALL_STATES      # the same graph as without the checks


# The harness's actions composed-small takes: all of them within 8 steps (17,305 states), which the
# default run verifies; the whole graph (153,960 states, diameter 18) under --slow.
COMPOSED_ACTIONS = {"harness_cancel", "harness_crash", "harness_discover", "harness_listen", "harness_persist",
                    "harness_poll", "harness_receive", "harness_restart", "harness_send_cancel", "harness_start"}


def test_composed_small_first_steps_within_their_footprint():
    s = verified_search("composed-small", depth=8)
    assert s.fault is None, s.fault
    assert s.bounded
    assert {a for a, n in s.actions.items() if n and a.startswith("harness")} == COMPOSED_ACTIONS


@pytest.mark.slow
def test_composed_small_every_transition_within_its_footprint():
    """The whole graph: about 2.5 minutes on an idle machine."""
    s = verified_search("composed-small")
    assert s.fault is None, s.fault
    assert s.complete
    assert {a for a, n in s.actions.items() if n and a.startswith("harness")} == COMPOSED_ACTIONS


# Scopes where the actions the default scopes never take are taken: REST, the clock and purge, a fork
# and a child run, an effect, a pause, stdio, the harness's MRTR, listen and re-issue (bounded), and
# two requests (bounded). Every action but `persist` (never enabled on the baseline) and
# `harness_update` is taken in one of them.
@pytest.mark.slow
@pytest.mark.parametrize("spec, depth", [
    ("host-rest", None), ("host-clock", None), ("host-small,max_runs=2", None), ("host-small,max_effects=1", None),
    ("host-small,max_pauses=1", None), ("host-small,stdio=True", None),
    ("composed-small,max_interrupts=1,harness_max_attempts=2", 9), ("host-pair", 4), ("host-wide", 2)])
def test_other_scopes_every_transition_within_its_footprint(spec, depth):
    s = verified_search(spec, depth)
    assert s.fault is None, s.fault
    assert s.complete or s.bounded


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(builtins()))
def test_every_builtin_variant_within_the_footprints(name):
    """A variant's moves that call no rule it overrides are held to their declarations like the
    baseline's (those that call one are held to nothing)."""
    variant = builtins()[name]
    s = verified_search(*home_of(variant), variant=variant)
    assert s.fault is None, s.fault
    assert s.complete or s.bounded


@pytest.mark.parametrize("name, declared, missing", [
    # deliver writes its request's phase
    ("deliver", fp.footprint(fp.REQUEST, [], ["releases_ownership"]), "wrote ('request', 'r1')"),
    # a run's step reads the clock (its log event carries the time)
    ("run_start", fp.footprint(lambda w, a: {fp.run(a["run"]), fp.log(a["run"])}, fp.RUN_WRITE,
                               ["lifecycle_fire"]), "read ('clock',)"),
    # the rule a run's status change goes through
    ("run_start", fp.footprint(fp.RUN_STEP, fp.RUN_WRITE), "read ('rule', 'lifecycle_fire')"),
])
def test_a_false_declaration_is_caught(monkeypatch, name, declared, missing):
    table = action_table()
    monkeypatch.setitem(table, name, dataclasses.replace(table[name], footprint=declared))
    s = verified_search("host-small")
    assert s.fault is not None and "FootprintError" in s.fault.error and missing in s.fault.error, s.fault
    assert s.fault.action == name


def test_a_call_naming_a_parent_is_held_to_its_footprint(monkeypatch):
    """P-CALL-PARENT's coverage scope, whole: a call naming a parent writes that run (the call's run joins
    its children), and a declaration leaving it out is caught."""
    spec = "host-small,rest_subjects=('alice',),max_interrupts=0,call_parents=True"
    s = verified_search(spec)
    assert s.fault is None and s.complete, s.fault
    table = action_table()
    call = table["call_tool"]
    f = call.footprint
    blind = dataclasses.replace(f, writes=lambda w, a: f.writes(w, a) - {fp.run(a.get("parent"))})
    monkeypatch.setitem(table, "call_tool", dataclasses.replace(call, footprint=blind))
    s = verified_search(spec)
    assert s.fault is not None and "wrote ('run'," in s.fault.error and s.fault.action == "call_tool", s.fault


def test_a_fixed_field_changed_is_caught_unless_an_overridden_rule_changed_it(monkeypatch):
    """Reads of a field a record never changes are no reads: a move that changes one is a fault,
    unless it called a rule the world's rules override (such a move is dependent on every other)."""
    variant = builtins()["response-content-grants-approval"]      # its `resolve` adds an approver
    s = verified_search(*home_of(variant), variant=variant)
    assert s.fault is None and s.complete
    table = action_table()
    deliver = table["deliver"]

    def deliver_and_retarget(world, request):
        deliver.apply(world, request)
        world.requests[request].task_ref = "elsewhere"
    monkeypatch.setitem(table, "deliver", dataclasses.replace(deliver, apply=deliver_and_retarget))
    s = verified_search("host-small")
    assert s.fault is not None and "that never changes once made changed" in s.fault.error, s.fault


def test_a_move_on_an_overridden_rule_is_held_to_nothing():
    """A move calling a rule the world's rules override is dependent on every other: not checked."""
    from model.rules import Rules

    class Quiet(Rules):
        def releases_ownership(self, world, q, event):
            return False

    sc = scopes.SCOPES["host-small"]
    world = make_world_for(Quiet, sc)()
    assert fp.rule("releases_ownership") in footprints.overridden(world)
    assert fp.rule("lifecycle_fire") not in footprints.overridden(world)
