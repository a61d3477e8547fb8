"""Coverage of the environment: on the baseline, every action fires, every rule an amendment may
override (`taskmodel rules`) is called, and every form of every dimension (`model.clients.REQUEST_FORMS`:
requests, answers and connection events) is generated (MIN_FORM times at the default work budget). A form never
generated, or a rule never called, is a vacuity of the environment: a host bug behind it would read
`holds`. Judged on explorations of a fixed seed and work budget in examples (deterministic): the gate's
(seed 0, six chunks, the scenario stories first) for the actions, COVERAGE_EXAMPLES (and, with --slow,
the default work budget) for rules and forms. With --slow, the same for the exhaustive engine: each is
taken at some scope of its plan (default scopes, homes and coverage scopes), searched to completion."""
from __future__ import annotations

import collections
import functools

import pytest

from model.amend import Amendment, rule_names
from model.clients import REQUEST_FORMS
from model.variants import resolve
from model.world import action_table
from properties.base import load_catalogue
from verifier.engines.bfs.search import plan, search
from verifier.engines.random.explore import explore
from verifier.runtime import scopes
from verifier.runtime.budgets import DEFAULT_EXAMPLES, EXAMPLES_PER_CHUNK, chunks_for
from verifier.runtime.worlds import make_world_for

# Actions the baseline never enables, each with the built-in variant that does: on the RFC as
# written a run is durable from createRun on, so there is nothing for `persist` to do.
VARIANT_ONLY = {"persist": "answer-before-durable"}

# Rules no environment makes the baseline host call, each with the reason and the built-in variant
# that does call it.
UNREACHABLE_RULES = {
    "removed_method_result": ("the baseline's method_supported refuses tasks/list and tasks/result (-32601, removed "
                              "in 2026-07-28), so no result of theirs is ever built", "tasks-list-served"),
}

# Rules only a property's check asks, with the property: no action of the model calls them, so a
# search with no property open never does (the exhaustive coverage below searches with none).
CHECK_ONLY_RULES = {"openwop_features": "advertised-iff-served"}   # ADV-1 reads the advertisement

# Request forms only a coverage scope bounded by depth generates, each with that scope: two plain
# requests in flight, or two runs each with an interrupt, grow past 200,000 states when searched
# completely (issue 30's partial-order reduction), and the forms come within the first steps.
BOUNDED_FORMS = {
    ("cancelled beside another request's run", "stdio EOF"): "host-stdio-pair",
    ("cancelled beside another request's run", "stdio notifications/cancelled"): "host-stdio-pair",
    ("tasks/update keys", "two of two runs"): "host-two-runs",
    ("tasks/update key mix", "another run's"): "host-two-runs",
}

# Rules and forms are judged at seed 0 on COVERAGE_EXAMPLES (every form at least once) in the default
# run, and with --slow at the random engine's default work budget, where every form is generated at
# least MIN_FORM times.
COVERAGE_SEED, COVERAGE_EXAMPLES = 0, 2_400
MIN_FORM = 2


@pytest.fixture(scope="module")
def baseline():
    return explore(None, budget=600, seed=0, chunks=6)


def counting(base: type, names, calls: collections.Counter) -> type:
    """`base` (the baseline's Amendment, or a variant) with each rule of `names` counting its calls."""
    def counted(name):
        inner = getattr(base, name)

        def rule(self, *args, **kwargs):
            calls[name] += 1
            return inner(self, *args, **kwargs)
        return rule
    return type(f"Counting{base.__name__}", (base,),
                {"name": base.name or "counting-rules", **{n: counted(n) for n in names}})


@functools.cache
def coverage(examples: int):
    """(the exploration, the rules' call counts) of the baseline at seed 0 on `examples` examples."""
    calls = collections.Counter()
    r = explore(counting(Amendment, rule_names(), calls), budget=3_600, seed=COVERAGE_SEED,
                chunks=chunks_for(examples), examples_per_chunk=EXAMPLES_PER_CHUNK)
    assert not r.faults and not r.stopped, r.stopped or [f.line() for f in r.faults]
    return r, calls


def plan_scopes() -> list[str]:
    """Every scope spec of the exhaustive engine's plan: default scopes, homes and coverage scopes."""
    return [sc.name for sc, _ in plan(None, list(load_catalogue().values()))]


def exhaustive_coverage(specs, progress=None):
    """(actions never taken, rules never called, forms never generated) over complete searches, with no
    property, of the scopes `specs`: the baseline's actions, its rules (but the variant-only, the
    unreachable and the check-only ones) and every request form (`REQUEST_FORMS`)."""
    calls, actions, forms = collections.Counter(), collections.Counter(), collections.Counter()
    rules = counting(Amendment, rule_names(), calls)
    for spec in specs:
        sc = scopes.parse(spec)
        s = search(make_world_for(rules, sc), [], sc, want_graph=False, max_depth=sc.depth)
        assert s.complete or (s.bounded and s.depth == sc.depth), f"{spec} did not complete"
        actions.update({k: n for k, n in s.actions.items() if n})
        forms.update({k: n for k, n in s.forms.items() if n})
        if progress:
            progress(sc, s)
    never = sorted(set(action_table()) - set(actions) - set(VARIANT_ONLY))
    uncalled = sorted(set(rule_names()) - set(calls) - set(UNREACHABLE_RULES) - set(CHECK_ONLY_RULES))
    missing = sorted((d, f) for d, fs in REQUEST_FORMS.items() for f in fs if not forms.get((d, f)))
    return never, uncalled, missing


def rare_forms(r, least: int) -> dict:
    unknown = set(r.form_counts) - {(d, f) for d, forms in REQUEST_FORMS.items() for f in forms}
    assert not unknown, f"forms outside the catalogue of forms: {unknown}"
    return {(d, f): r.form_counts.get((d, f), 0) for d, forms in REQUEST_FORMS.items() for f in forms
            if r.form_counts.get((d, f), 0) < least}


def test_every_action_fires_on_the_baseline(baseline):
    never = [a for a in action_table() if not baseline.action_counts.get(a) and a not in VARIANT_ONLY]
    assert never == [], f"actions never fired on the baseline: {never}"
    assert not any(baseline.action_counts.get(a) for a in VARIANT_ONLY), "a variant-only action fired: list it no more"


def test_every_rule_is_called_on_the_baseline():
    _, calls = coverage(COVERAGE_EXAMPLES)
    never = sorted(set(rule_names()) - set(calls) - set(UNREACHABLE_RULES))
    assert never == [], f"rules `taskmodel rules` lists that the baseline never calls: {never}"
    assert not any(calls[r] for r in UNREACHABLE_RULES), "a rule listed as unreachable was called: list it no more"


@pytest.mark.parametrize("rule, variant", sorted((r, v) for r, (_, v) in UNREACHABLE_RULES.items()))
def test_an_unreachable_rule_is_called_under_its_variant(rule, variant):
    calls = collections.Counter()
    explore(counting(resolve(variant), [rule], calls), budget=600, seed=0, chunks=2)
    assert calls[rule] > 0, f"{rule} is never called under {variant}"


def test_every_form_is_generated_on_the_baseline():
    r, _ = coverage(COVERAGE_EXAMPLES)
    assert rare_forms(r, 1) == {}, f"forms never generated in {COVERAGE_EXAMPLES} examples"


@pytest.mark.slow
def test_every_form_is_generated_often_at_the_default_budget():
    r, calls = coverage(DEFAULT_EXAMPLES)
    rare = rare_forms(r, MIN_FORM)
    assert rare == {}, f"forms generated fewer than {MIN_FORM} times in {DEFAULT_EXAMPLES} examples: {rare}"
    assert sorted(set(rule_names()) - set(calls) - set(UNREACHABLE_RULES)) == []


def test_the_host_ends_listen_streams_through_its_rule():
    """A listen stream torn down by the host asks `server_cancelled_on` (§G.14), so an amendment that
    ends it silently is judged (NTF-1)."""
    r, calls = coverage(COVERAGE_EXAMPLES)
    torn = r.form_counts.get(("listen stream ends", "torn down by the host"), 0)
    assert torn > 0 and calls["server_cancelled_on"] >= torn


@pytest.mark.parametrize("action, variant", sorted(VARIANT_ONLY.items()))
def test_a_variant_only_action_fires_under_its_variant(action, variant):
    r = explore(resolve(variant), budget=600, seed=0, chunks=2)
    assert r.action_counts.get(action, 0) > 0, f"{action} never fired under {variant}"


@pytest.mark.slow
def test_every_action_rule_and_form_is_taken_at_some_scope_of_the_exhaustive_plan():
    """Issue 29: what the random engine generates, the exhaustive engine generates too, somewhere in
    its plan (benchmarks/exhaustive_coverage.py prints the same, with each scope's size)."""
    assert exhaustive_coverage(plan_scopes()) == ([], [], [])


@pytest.mark.parametrize("rule, prop", sorted(CHECK_ONLY_RULES.items()))
def test_a_check_only_rule_is_called_by_its_propertys_check(rule, prop):
    calls = collections.Counter()
    sc = scopes.parse(scopes.DEFAULT_HOST)
    search(make_world_for(counting(Amendment, [rule], calls), sc), [load_catalogue()[prop]], sc, want_graph=False)
    assert calls[rule] > 0, f"{prop}'s check never asks {rule}"
    none = collections.Counter()
    search(make_world_for(counting(Amendment, [rule], none), sc), [], sc, want_graph=False)
    assert none[rule] == 0, f"an action calls {rule}: it is no longer check-only, list it no more"


def test_each_bounded_coverage_scope_generates_its_forms():
    """The forms of BOUNDED_FORMS come at their coverage scope, searched to its bound (the --slow
    test above searches the whole plan)."""
    for spec in sorted(set(BOUNDED_FORMS.values())):
        sc = scopes.parse(spec)
        assert spec in scopes.COVERAGE and sc.depth is not None, spec
        s = search(make_world_for(Amendment, sc), [], sc, want_graph=False, max_depth=sc.depth)
        assert s.bounded and s.depth == sc.depth, spec
        missing = [f for f, at in BOUNDED_FORMS.items() if at == spec and not s.forms.get(f)]
        assert missing == [], f"{spec} never generates {missing}"
