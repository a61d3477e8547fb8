"""Coverage of the environment: on the baseline, every action fires, every rule an amendment may
override (`taskmodel rules`) is called, and every form of every dimension (`model.clients.REQUEST_FORMS`:
requests, answers and connection events) is generated (MIN_FORM times at the default work budget). A form never
generated, or a rule never called, is a vacuity of the environment: a host bug behind it would read
`holds`. Judged on explorations of a fixed seed and work budget in examples (deterministic): the gate's
(seed 0, six chunks, the scenario stories first) for the actions, COVERAGE_EXAMPLES (and, with --slow,
the default work budget) for rules and forms."""
from __future__ import annotations

import collections
import functools

import pytest

from model.amend import Amendment, rule_names
from model.clients import REQUEST_FORMS
from model.variants import resolve
from model.world import action_table
from verifier.engines.random.explore import explore
from verifier.runtime.budgets import DEFAULT_EXAMPLES, EXAMPLES_PER_CHUNK, chunks_for

# Actions the baseline never enables, each with the built-in variant that does: on the RFC as
# written a run is durable from createRun on, so there is nothing for `persist` to do.
VARIANT_ONLY = {"persist": "answer-before-durable"}

# Rules no environment makes the baseline host call, each with the reason and the built-in variant
# that does call it.
UNREACHABLE_RULES = {
    "removed_method_result": ("the baseline's method_supported refuses tasks/list and tasks/result (-32601, removed "
                              "in 2026-07-28), so no result of theirs is ever built", "tasks-list-served"),
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
