"""The partial-order reduction (verifier.engines.bfs.ample): its claims held on whole graphs, and the
reduced search giving the full search's verdicts."""
from __future__ import annotations

import pytest

from model import footprint as fp
from model.variants import builtins
from properties import visibility
from properties.base import load_catalogue
from verifier.engines import run as run_engine
from verifier.engines.bfs import ample
from verifier.engines.bfs.search import search, verdicts_of
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for


def _declared():
    return [p for p in load_catalogue().values() if visibility.declared(p.name)]


def _local():
    """The properties no request's or run's own step is visible to (`visibility.local`)."""
    return [p for p in load_catalogue().values() if visibility.local(p.name)]


def _whole(spec):
    """The scope searched whole: a bounded search is not reduced."""
    sc = scopes.parse(spec)
    return scopes.Scope(sc.name, sc.doc, sc.sizes, sc.composed, None)


def _searched(spec, props, por, variant=None):
    sc = _whole(spec)
    make = make_world_for(variant, sc)
    s = search(make, props, sc, por=por, want_graph=False)
    assert s.fault is None, s.fault
    return s, {v.name: (v.verdict, v.premise > 0) for v in verdicts_of(s, make, props)}


def test_the_claims_hold_on_the_whole_of_host_small():
    """Every transition of host-small: each move within the envelope of every agent but the one each
    ample set would be, no envelope growing, no move enabling another agent's unless it writes what
    enables it, and each declared property reading within the transition's footprint."""
    s, _ = _searched("host-small", _declared(), "verify")
    assert s.complete and s.distinct == 16_687 and s.por == "on"


@pytest.mark.parametrize("spec", ["host-small", "host-small,stdio=True",
                                  *(pytest.param(x, marks=pytest.mark.slow)
                                    for x in ("host-two-runs", "host-ttl", "host-two-clients"))])
def test_reduced_and_full_searches_agree(spec):
    props = _local()
    full, want = _searched(spec, props, "off")
    reduced, got = _searched(spec, props, "on")
    assert got == want
    assert reduced.complete and reduced.reduced > 0 and reduced.distinct < full.distinct


def _planted(monkeypatch, name, fn):
    """A mutant of the envelopes: caught by the verify mode over host-small (no property: the envelopes'
    claims alone)."""
    monkeypatch.setattr(ample, name, fn)
    s = search(make_world_for(None, scopes.parse("host-small")), [], scopes.parse("host-small"),
               por="verify", want_graph=False)
    assert s.fault is not None
    return s.fault.error


def test_an_envelope_that_leaves_out_a_key_is_caught(monkeypatch):
    real = ample._run_envelope

    def without_log(world, r, new):
        e = real(world, r, new)
        return ample.Envelope(e.writes - {fp.log(r.id)}, e.reads)
    assert "outside the envelope of every agent but" in _planted(monkeypatch, "_run_envelope", without_log)


def test_a_request_waiting_on_a_run_is_enabled_by_it(monkeypatch):
    """A blocking call's answer becomes enabled when its run ends: left out of `enablers`, caught."""
    msg = _planted(monkeypatch, "enablers", lambda world, o: frozenset({o}))
    assert "without writing what enables it" in msg


def test_a_property_reading_beyond_its_declaration_is_caught(monkeypatch):
    monkeypatch.setitem(visibility.BEYOND, "no-purge-before-ttl", frozenset({("all", "runs")}))
    s = search(make_world_for(None, scopes.parse("host-small")), [load_catalogue()["no-purge-before-ttl"]],
               scopes.parse("host-small"), por="verify", want_graph=False)
    assert s.fault is not None and "read ('clock',)" in s.fault.error


def test_a_search_the_reduction_may_not_serve_says_why():
    cat = load_catalogue()
    sc = scopes.parse("host-small")
    make = make_world_for(None, sc)
    live = search(make, _declared() + [cat["every-call-answered-or-cancelled"]], sc, por="on", want_graph=False)
    assert live.por.startswith("off: a liveness property") and live.reduced == 0
    bounded = search(make, _declared(), sc, por="on", want_graph=False, max_depth=3)
    assert bounded.por.startswith("off: the search is bounded by depth")
    undeclared = search(make, [cat["ownership-as-stated"]], sc, por="on", want_graph=False)
    assert undeclared.por.startswith("off: ownership-as-stated does not declare")
    assert search(make, _declared(), sc, por="off", want_graph=False).stats().get("por") is None


def test_no_por_gives_the_full_search():
    """`--no-por` (run_bfs(por=False)): the same verdicts, every state."""
    props = _local()
    on = run_engine("bfs", None, scope="host-small", jobs=1, props=props, incremental=False, por=True)
    off = run_engine("bfs", None, scope="host-small", jobs=1, props=props, incremental=False, por=False)
    assert [(v.name, v.verdict) for v in on.verdicts] == [(v.name, v.verdict) for v in off.verdicts]
    assert on.states["scopes"]["host-small"]["por"] == "on"
    assert on.states["distinct"] < off.states["distinct"] == 16_687


def _host_variants():
    """Three host variants refuting a local property, then (under --slow) every other host variant. A
    harness variant's scope has the harness, whose envelope is everything: nothing there is reduced."""
    ids = {i for p in _local() for i in p.ids}
    host = sorted(n for n, v in builtins().items() if getattr(v, "harness_rules", None) is None)
    refuting = [n for n in host if any(rid in ids and want == "refuted" for rid, want in builtins()[n].expect.items())]
    return [*refuting[:3], *(pytest.param(n, marks=pytest.mark.slow) for n in host if n not in refuting[:3])]


@pytest.mark.parametrize("name", _host_variants())
def test_reduced_and_full_agree_on_variants(name):
    v = builtins()[name]
    props = _local()
    _, want = _searched("host-small", props, "off", v)
    _, got = _searched("host-small", props, "on", v)
    assert got == want


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["host-clock", "host-small,stdio=True", "host-rest",
                                  "host-small,max_runs=2,max_interrupts=0", "host-two-runs", "host-ttl",
                                  "host-small,rest_subjects=('alice',),max_interrupts=0,call_parents=True"])
def test_the_claims_hold_at_wider_scopes(spec):
    s, _ = _searched(spec, _declared(), "verify")
    assert s.complete


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, v in builtins().items() if getattr(v, "harness_rules", None) is None))
def test_the_claims_hold_for_every_variant(name):
    """An overridden rule makes the agents whose actions call it everything; a move calling one that a
    footprint names only in its keys has the effect of everything, which the check holds to the others'
    envelopes."""
    s, _ = _searched("host-small", _declared(), "verify", builtins()[name])
    assert s.complete
