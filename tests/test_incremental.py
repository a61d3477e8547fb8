"""The incremental search of an amendment from the baseline's stored graph gives the search from
scratch, state for state: distinct and generated counts, depth, verdicts, shortest traces, lassos
and premise counts, on built-in variants and on amendments made of their rules."""
from __future__ import annotations

import inspect

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model.amend import Amendment
from model.variants import builtins
from properties.base import load_catalogue
from verifier.engines.bfs import incremental
from verifier.engines.bfs.search import _judged, plan
from verifier.runtime import scopes
from verifier.runtime.shadow import unexercised

# Every built-in is compared under --slow; by default, four: overrides reaching many states and few,
# and one that changes params (searched from scratch).
SAMPLE = ("always-task", "decline-cancels-run", "foreign-task-403", "every-run-128-bits")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("graphs")


def _group(spec):
    return next((sc, ps) for sc, ps in plan(None, list(load_catalogue().values())) if sc.name == spec)


def _summary(result):
    s, verdicts, overrides = result
    return {"distinct": s.distinct, "generated": s.generated, "depth": s.depth, "complete": s.complete,
            "premise": dict(s.premise), "actions": dict(s.actions), "forms": dict(s.forms),
            # The shadow's counts of calls depend on the memo a world carries (a memo hit asks no rule),
            # which a state rebuilt from the store starts without: only what they conclude is the same.
            "unexercised": unexercised(overrides),
            "verdicts": [(v.name, v.verdict, v.premise, v.loop, None if v.trace is None else
                          [(x.action, x.args) if hasattr(x, "action") else x for x in v.trace]) for v in verdicts]}


def _same(variant, spec, folder):
    sc, ps = _group(spec)
    scratch = _judged(variant, sc, ps, True, 600, None, None, None, True)
    got = incremental.judged(variant, sc, ps, True, 600, None, None, None, True, folder=folder)
    assert _summary(got) == _summary(scratch)
    assert scratch[0].complete
    return got[0]


@pytest.mark.parametrize("name", SAMPLE)
def test_incremental_is_the_search_from_scratch(name, folder):
    s = _same(builtins()[name], scopes.DEFAULT_HOST, folder)
    if builtins()[name].params:
        assert s.how == "from scratch: the amendment changes params"
    else:
        assert s.how.startswith("incremental from the stored baseline graph (")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(builtins()))
def test_every_builtin_incremental_is_the_search_from_scratch(name, folder):
    _same(builtins()[name], scopes.DEFAULT_HOST, folder)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, v in builtins().items() if v.harness_rules is not None))
def test_client_variants_at_the_composed_scope(name, folder):
    _same(builtins()[name], scopes.DEFAULT_COMPOSED, folder)


def _bounded_same(variant, spec, folder):
    """`_same` at a coverage scope bounded by depth, with its properties (the host's, no liveness)."""
    sc = scopes.parse(spec)
    ps = [p for p in _group(scopes.DEFAULT_HOST)[1] if p.kind != "liveness"]
    scratch = _judged(variant, sc, ps, True, 600, None, None, None, True)
    got = incremental.judged(variant, sc, ps, True, 600, None, None, None, True, folder=folder)
    assert _summary(got) == _summary(scratch)
    # every state reached by the same move from the same parent: each path replays as its world
    assert got[0].moves == scratch[0].moves and got[0].parents == scratch[0].parents
    assert scratch[0].bounded and not scratch[0].complete
    reason = incremental.scratch_reason(variant, sc, True)
    how = f"from scratch: {reason}" if reason else "incremental from the stored baseline graph ("
    assert got[0].how.startswith(how)
    return got[0]


class SecondCallOtherError(Amendment):
    """The baseline's missing-capability error, but another message once a second request is in:
    the baseline's first path to "a flow call, then an undeclared task-only call" leads elsewhere, so
    the amendment meets that state first the other way round, its request ids swapped."""
    name = "second-call-other-error"

    def missing_capability(self, world, q):
        out = super().missing_capability(world, q)
        if len(world.requests) > 1:
            out = {**out, "error": {**out["error"], "message": "capability missing"}}
        return out


@pytest.mark.parametrize("variant", (builtins()["always-task"], builtins()["stdio-only-cancellation"],
                                     SecondCallOtherError), ids=lambda v: v.name)
def test_a_scope_bounded_by_depth_and_renaming_requests_is_searched_from_its_graph(variant, folder):
    """host-stdio-pair stops at depth 3, and its fingerprint renames request ids: a state stands for
    the worlds that rename to it, stored as the first one met. An amendment's search can meet
    another first, through an edge the baseline took later or through a step it executes; that world
    is expanded in full, and its traces name its own request ids, as in the search from scratch."""
    st = incremental.stored(scopes.parse("host-stdio-pair"), [p for p in _group(scopes.DEFAULT_HOST)[1]
                                                               if p.kind != "liveness"], True, folder)
    assert st.expanded < len(st.fps) and st.inexact          # the last level unexpanded; other worlds met
    _bounded_same(variant, "host-stdio-pair", folder)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ("host-stdio-pair", "host-two-runs"))
@pytest.mark.parametrize("name", sorted(builtins()))
def test_every_builtin_at_the_coverage_scopes_bounded_by_depth(name, spec, folder):
    _bounded_same(builtins()[name], spec, folder)


def _borrowable():
    """(variant, rule) of the built-ins' host rules a generated amendment may take: those needing
    neither `super()` (bound to their own class) nor params or lifecycle steps of their variant."""
    out = []
    for name, v in sorted(builtins().items()):
        if v.params or v.lifecycle_extra:
            continue
        for attr, f in vars(v).items():
            if inspect.isfunction(f) and not attr.startswith("_") and "__class__" not in f.__code__.co_freevars:
                out.append((name, attr))
    return out


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_borrowable()), min_size=1, max_size=2, unique_by=lambda x: x[1]))
def test_generated_amendments(folder, picks):
    body = {"name": "generated", "changes": "rules borrowed from built-ins"}
    for name, attr in picks:
        v = builtins()[name]
        body.update({k: f for k, f in vars(v).items() if k.startswith("_") and not k.startswith("__")
                     and inspect.isfunction(f)})       # the helpers its rules call
        body[attr] = vars(v)[attr]
    _same(type("Generated", (Amendment,), body), scopes.DEFAULT_HOST, folder)


def test_a_stale_graph_is_built_again(folder, monkeypatch):
    """The graph is keyed by the model's code: once that changes, the stored one is not used."""
    sc = scopes.parse("host-small,max_interrupts=0,retry_reserve=0")
    props = [p for p in load_catalogue().values() if p.area == "creation"]
    builds = []
    real = incremental.build
    monkeypatch.setattr(incremental, "build", lambda *a: builds.append(1) or real(*a))
    first = incremental.stored(sc, props, True, folder)
    assert incremental.stored(sc, props, True, folder) is first and len(builds) == 1
    incremental._LOADED.clear()
    again = incremental.stored(sc, props, True, folder)
    assert len(builds) == 1 and again.fps == first.fps            # read back from the file
    monkeypatch.setattr(incremental, "model_hash", lambda: "another model")
    incremental.stored(sc, props, True, folder)
    assert len(builds) == 2


def test_what_is_searched_from_scratch():
    sc = scopes.parse(scopes.DEFAULT_HOST)
    table = builtins()
    assert incremental.scratch_reason(table["every-run-128-bits"], sc, True) == "the amendment changes params"
    assert incremental.scratch_reason(table["cancel-race-completes"], sc, True) == \
        "the amendment adds lifecycle transitions"
    assert incremental.scratch_reason(table["always-task"], sc, True) is None
    # a scope bounded by depth, whose fingerprint renames request ids, is searched from its graph too
    assert incremental.scratch_reason(table["always-task"], scopes.parse("host-pair"), True) is None


def test_a_raising_rule_is_the_same_fault(folder):
    class Raises(Amendment):
        name = "raises-on-cancel"

        def on_request_cancelled(self, world, q, cause):
            raise KeyError("boom")
    sc, ps = _group(scopes.DEFAULT_HOST)
    scratch = _judged(Raises, sc, ps, True, 600, None, None, None, True)
    got = incremental.judged(Raises, sc, ps, True, 600, None, None, None, True, folder=folder)
    assert got[0].fault is not None and got[0].how.startswith("incremental")
    assert (got[0].fault.history, got[0].fault.where, got[0].fault.error) == \
        (scratch[0].fault.history, scratch[0].fault.where, scratch[0].fault.error)
    assert _summary(got) == _summary(scratch)


SMALL = "host-small,max_interrupts=0,retry_reserve=0"


def _small():
    return scopes.parse(SMALL), [p for p in load_catalogue().values() if p.area == "creation"]


def test_a_search_bounded_by_work_builds_no_graph_but_uses_a_stored_one(tmp_path):
    """A state bound would not cover the whole graph's build: such a search goes from scratch until an
    unbounded one has stored the graph, then from it, with the same states and verdicts."""
    sc, props = _small()
    v = builtins()["always-task"]
    first = incremental.judged(v, sc, props, True, 600, 500, None, None, folder=tmp_path)
    assert first[0].how.startswith("from scratch: no stored graph") and not list(tmp_path.glob("*.pickle"))
    incremental.stored(sc, props, True, tmp_path)
    again = incremental.judged(v, sc, props, True, 600, 500, None, None, folder=tmp_path)
    assert again[0].how.startswith("incremental")
    assert _summary(again) == _summary(first) and not first[0].complete


def test_the_graph_is_part_of_the_checks_work(tmp_path):
    """Its build stops at the check's cap: the search says so, stores nothing, and is undetermined."""
    sc, props = _small()
    s, verdicts, _ = incremental.judged(builtins()["always-task"], sc, props, True, 0.0, None, None, None,
                                        folder=tmp_path)
    assert s.how == f"from scratch: the baseline's graph at {sc.name} was not built within the cap"
    assert not s.complete and not list(tmp_path.glob("*.pickle"))
    assert {v.verdict for v in verdicts} <= {"undetermined", "unreached"}


def test_a_graph_being_built_elsewhere_is_waited_for(tmp_path):
    """Two checks (or two gate workers) never build one graph twice: the second waits on the lock."""
    import fcntl
    sc, props = _small()
    path = tmp_path / f"{incremental.store_key(sc, props, True)}.lock"
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        with pytest.raises(incremental.NotBuilt, match="being built elsewhere"):
            incremental.stored(sc, props, True, tmp_path, deadline=0.0)
    assert incremental.stored(sc, props, True, tmp_path).fps


def test_the_gate_builds_the_default_scopes_graphs_its_variants_use():
    from verifier.cli.gate_jobs import graph_jobs
    table = builtins()
    names = ["baseline", "always-task", "every-run-128-bits", "subscription-without-fallback"]
    classes = {n: None if n == "baseline" else table[n] for n in names}
    settings = {n: {"bfs": True} for n in names}
    got = {scope.name: users for scope, _, users in graph_jobs(classes, settings).values()}
    # the baseline takes both default scopes from their graphs; a params-changing amendment is
    # searched from scratch; a client variant's composed scope shares the baseline's graph
    assert got == {scopes.parse(None).name: ["baseline", "always-task", "subscription-without-fallback"],
                   scopes.parse(None, composed=True).name: ["baseline", "subscription-without-fallback"]}
    assert graph_jobs({"every-run-128-bits": table["every-run-128-bits"]}, {"every-run-128-bits": {"bfs": True}}) == {}


def test_the_gate_and_check_search_the_default_scopes_alike():
    """One stored graph serves both: the gate's properties at a default scope are the check's."""
    from verifier.cli.gate_jobs import search_plan
    from verifier.engines.bfs.search import plan
    checked = {sc.name: [p.name for p in ps] for sc, ps in plan(None, list(load_catalogue().values()))}
    gated = search_plan(builtins()["subscription-without-fallback"], {})
    assert {sc.name: [p.name for p in ps] for sc, ps in gated} == {
        n: checked[n] for n in (scopes.DEFAULT_HOST, scopes.DEFAULT_COMPOSED)}


def test_a_capped_check_does_not_build_the_graph(tmp_path, monkeypatch):
    """A check with a wall-clock cap searches from scratch and says why (a build the cap cut would be
    lost whole); one without a cap builds the graph, and both give the same search."""
    import math

    from verifier.engines.bfs import run
    monkeypatch.setenv(incremental.CACHE_ENV, str(tmp_path))
    sc, props = _small()
    v = builtins()["always-task"]
    capped = run._judge(True, v, 1800.0)(v, sc, props, True, 600, None, None, None)
    assert capped[0].how.startswith("from scratch: no stored graph") and "wall-clock cap" in capped[0].how
    assert not list(tmp_path.glob("*.pickle"))
    uncapped = run._judge(True, v, math.inf)(v, sc, props, True, 600, None, None, None)
    assert uncapped[0].how.startswith("incremental") and list(tmp_path.glob("*.pickle"))
    assert _summary(uncapped) == _summary(capped)


def test_the_gate_starts_a_variant_once_its_graphs_are_stored(monkeypatch):
    """A variant's exploration is submitted only after the builds of the graphs it uses finished; one
    that uses none starts at once."""
    from concurrent.futures import ThreadPoolExecutor
    from verifier.cli import gate
    import time
    log = []

    def build(scope, names):
        time.sleep(0.3 if scope == "composed" else 0.0)    # a free worker would explore b meanwhile
        log.append(("built", scope))
        return ""

    monkeypatch.setattr(gate, "build_graph", build)
    monkeypatch.setattr(gate, "explore_one", lambda spec, mine: log.append(("explored", spec)) or spec)
    graphs = {"k1": ("host", [], ["a", "b"]), "k2": ("composed", [], ["b"])}
    with ThreadPoolExecutor(4) as pool:
        done = gate._explore_local(pool, ["b", "c", "a"], {"a": "a", "b": "b", "c": "c"},
                                   {"a": {}, "b": {}, "c": {}}, graphs, 4)
    assert done == {"a": "a", "b": "b", "c": "c"}
    at = {e: i for i, e in enumerate(log)}
    assert at[("explored", "a")] > at[("built", "host")]
    assert at[("explored", "b")] > max(at[("built", "host")], at[("built", "composed")])


def test_the_gate_hands_a_free_worker_the_ready_variant_using_the_most_graphs(monkeypatch):
    """With one worker, the variants are not queued in order as they become ready: once the composed
    graph is stored, its user (the longest work) goes before the host-only variants still waiting."""
    from concurrent.futures import ThreadPoolExecutor
    from verifier.cli import gate
    log = []
    monkeypatch.setattr(gate, "build_graph", lambda scope, names: log.append(("built", scope)))
    monkeypatch.setattr(gate, "explore_one", lambda spec, mine: log.append(("explored", spec)) or spec)
    graphs = {"k1": ("host", [], ["a", "b", "c", "d"]), "k2": ("composed", [], ["d"])}
    with ThreadPoolExecutor(1) as pool:
        gate._explore_local(pool, ["a", "b", "c", "d"], {n: n for n in "abcd"}, {n: {} for n in "abcd"}, graphs, 1)
    assert log == [("built", "host"), ("built", "composed"), ("explored", "d"), ("explored", "a"),
                   ("explored", "b"), ("explored", "c")]


def _memory(fires: bool):
    """A witness that remembers, in `world.facts`, every action taken so far, and is reached at the
    first `respond` when `fires`: a property whose check keeps state, and closes early."""
    from properties.base import Property

    def check(world, step):
        world.facts["TST-1"] = world.facts.get("TST-1", frozenset()) | {step.action}
        return f"{step.action} reached" if fires and step.action == "respond" else None
    return Property("remembers-actions", ("TST-1",), "witness", "test", "remembers", check)


def test_the_states_searched_do_not_depend_on_when_a_property_closed():
    """A closed property is still checked, unheard: had its memory stopped growing when it closed,
    the search would reach states the stored graph (built with every property open) lacks."""
    from model.world import World
    from properties.base import Property
    from verifier.engines.bfs.search import search
    sc = scopes.parse("host-small,max_interrupts=0,retry_reserve=0")
    make = lambda: World(sc.params())       # noqa: E731
    holds = Property("holds", ("TST-2",), "invariant", "test", "holds", lambda world, step: None)  # keeps it going
    closes = search(make, [_memory(True), holds], sc, want_graph=False)
    stays_open = search(make, [_memory(False), holds], sc, want_graph=False)
    assert "remembers-actions" in closes.found and closes.complete and stays_open.complete
    assert (closes.distinct, closes.generated, closes.depth) == \
        (stays_open.distinct, stays_open.generated, stays_open.depth)


def test_the_baseline_is_taken_from_its_own_stored_graph(folder):
    """The graph is the baseline's own search: nothing is executed but the transitions where a
    property still open failed (its message comes from the real checker)."""
    s = _same(None, scopes.DEFAULT_HOST, folder)
    assert s.how.startswith("incremental from the stored baseline graph (")
    assert 0 < s.work.executed < s.generated / 100


def test_a_graph_stored_in_part_gives_the_search_from_scratch(tmp_path, monkeypatch):
    """Past `MAX_STATES` the graph is stored with its later states unexpanded: a search expands
    those in full, and still equals the search from scratch; an override asked only there cannot
    be compared with the stored graph: the shadow judges it there, and without the shadow's counts it
    is not called unexercised."""
    monkeypatch.setattr(incremental, "MAX_STATES", 3000)
    sc, ps = _group(scopes.DEFAULT_HOST)
    st = incremental.stored(sc, ps, True, tmp_path)
    assert 3000 <= len(st.fps) and st.expanded < len(st.fps) == len(st.codes)
    for name in ("always-task",):
        got = _same(builtins()[name], scopes.DEFAULT_HOST, tmp_path)
        assert got.how.startswith("incremental from the stored baseline graph (")

    class SuperOnly(Amendment):
        name = "super-only-not-found"

        def not_found(self, *args, **kw):
            return super().not_found(*args, **kw)
    got = _same(SuperOnly, scopes.DEFAULT_HOST, tmp_path)
    assert got.work.unknown["not_found"] > 0 and "not_found" not in incremental.unexercised(got)
    assert "not_found unexercised at scope host-small (complete)" in got.how


def test_the_graph_of_a_search_that_settles_is_stored_as_far_as_it_went(tmp_path):
    """Where every property is answered early, the baseline's search stops at that level, and so
    does the build: the graph is stored that far (its next level unexpanded). The baseline's search
    from it is the one from scratch, and so is an amendment's that must search further."""
    sc = scopes.parse(scopes.DEFAULT_HOST)
    ps = [load_catalogue()["finished-run-plain-result"]]        # a witness the baseline reaches in 4 steps
    st = incremental.stored(sc, ps, True, tmp_path)
    assert 0 < st.expanded < len(st.fps) < 5000       # of host-small's 16,687
    for variant in (None, builtins()["always-task"], builtins()["drop-every-request"]):
        scratch = _judged(variant, sc, ps, True, 600, None, None, None, True)
        got = incremental.judged(variant, sc, ps, True, 600, None, None, None, True, folder=tmp_path)
        assert _summary(got) == _summary(scratch)
        assert got[0].how.startswith("incremental from the stored baseline graph (")
    assert got[0].distinct > len(st.fps)       # drop-every-request never reaches it: searched on, in full


class _PublishesAsBaselineKeepsRuns(Amendment):
    """`after_step`, asked by every step, only defers to the baseline; `on_request_cancelled` keeps
    the run a cancelled request owns."""
    name = "publishes-as-baseline-keeps-runs"

    def after_step(self, world):
        super().after_step(world)

    def on_request_cancelled(self, world, q, cause):
        return None


def test_the_store_says_which_override_answered_otherwise(folder, monkeypatch):
    """The shadow runs only where the store holds nothing to compare with, and on a step that asked
    several overrides and differs, to tell which answered otherwise: the override every step asks
    stays unexercised beside the one that acts, as in the search from scratch."""
    from verifier.runtime import shadow
    v = _PublishesAsBaselineKeepsRuns
    _same(v, scopes.DEFAULT_HOST, folder)
    sc, ps = _group(scopes.DEFAULT_HOST)
    baseline_asked = []
    real = shadow._asked
    monkeypatch.setattr(shadow, "_asked", lambda baseline, *a, **kw: baseline_asked.append(baseline.__name__)
                        or real(baseline, *a, **kw))
    s, _, counts = incremental.judged(v, sc, ps, True, 600, None, None, None, True, folder=folder)
    assert counts["after_step"]["calls"] > 0 and counts["after_step"]["differed"] == 0, counts
    assert counts["on_request_cancelled"]["differed"] > 0, counts
    assert "after_step unexercised at scope host-small (complete)" in s.how
    # the compared steps asked no shadow: its calls are the rest of the count
    assert s.work.asked["after_step"] > 0
    assert baseline_asked.count("after_step") == counts["after_step"]["calls"] - s.work.asked["after_step"]
