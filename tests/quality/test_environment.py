"""Coverage of the environment: on the baseline, every action fires and every request form of every
dimension (`model.clients.REQUEST_FORMS`) is generated. A form never generated is a vacuity of the
environment: a host bug behind it would read `holds`. Judged on the gate's exploration (seed 0, six
chunks, the scenario stories first), which is deterministic."""
from __future__ import annotations

import pytest

from model.clients import REQUEST_FORMS
from model.variants import resolve
from model.world import action_table
from verifier.engines.random.explore import explore

# Actions the baseline never enables, each with the built-in variant that does: on the RFC as
# written a run is durable from createRun on, so there is nothing for `persist` to do.
VARIANT_ONLY = {"persist": "answer-before-durable"}


@pytest.fixture(scope="module")
def baseline():
    return explore(None, budget=600, seed=0, chunks=6)


def test_every_action_fires_on_the_baseline(baseline):
    never = [a for a in action_table() if not baseline.action_counts.get(a) and a not in VARIANT_ONLY]
    assert never == [], f"actions never fired on the baseline: {never}"
    assert not any(baseline.action_counts.get(a) for a in VARIANT_ONLY), "a variant-only action fired: list it no more"


def test_every_request_form_is_generated_on_the_baseline(baseline):
    never = [(d, f) for d, forms in REQUEST_FORMS.items() for f in forms if not baseline.form_counts.get((d, f))]
    assert never == [], f"request forms never generated on the baseline: {never}"
    unknown = set(baseline.form_counts) - {(d, f) for d, forms in REQUEST_FORMS.items() for f in forms}
    assert not unknown, f"forms outside the catalogue of forms: {unknown}"


@pytest.mark.parametrize("action, variant", sorted(VARIANT_ONLY.items()))
def test_a_variant_only_action_fires_under_its_variant(action, variant):
    r = explore(resolve(variant), budget=600, seed=0, chunks=2)
    assert r.action_counts.get(action, 0) > 0, f"{action} never fired under {variant}"
