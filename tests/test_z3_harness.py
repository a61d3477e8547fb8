"""The client harness in the Z3 engine: the composed encoding checked against `World.composed`, the
HNS formulas against the catalogue, BMC refuting every client variant with a trace that replays, and
the baseline's HNS ids proved by k-induction (`tests/test_z3.py::test_baseline_safety_ids_proved_by_k_induction`
runs that with every other id)."""
from __future__ import annotations

import collections
import json
import time
from pathlib import Path

import pytest

from model.variants import builtins
from verifier.engines.z3 import check
from verifier.engines.z3 import induction as I
from verifier.engines.z3.concrete import abstract
from verifier.engines.z3.crosscheck import RelationEvaluator, formulas_agree, guards_exact, random_walk
from verifier.engines.z3.encoding import UnsupportedVariant
from verifier.engines.z3.harness import H_ACTIONS, HARNESS_BASELINE_FLAGS, ComposedEncoding, harness_flags
from verifier.engines.z3.properties import PROPS
from verifier.engines.z3.variants import HARNESS_RULE_TABLE, make_rules

MANIFEST = Path(__file__).resolve().parents[1] / "counterexamples" / "manifest.json"
CLIENT_VARIANTS = {"assume-tasks-everywhere": ("HNS-1", "harness-negotiates"),
                   "wait-before-persist": ("HNS-2", "harness-durable-wait"),
                   "mirror-remote-status": ("HNS-5", "harness-local-authority"),
                   "reissue-after-restart": ("HNS-3", "harness-resumes-after-restart"),
                   "cancel-ack-means-no-effect": ("HNS-4", "harness-cancel-is-intent")}


@pytest.fixture(scope="module")
def enc():
    return ComposedEncoding()


@pytest.fixture(scope="module")
def walks(enc):
    return [random_walk(enc, seed, length=30) for seed in range(300)]


def variant_encoding(name):
    return ComposedEncoding(None, make_rules(builtins()[name]))


def test_composed_random_traces_are_accepted(walks):
    """300 random walks of the composed world: every step is a step of the encoding, field by field,
    and every harness action is taken."""
    taken = collections.Counter()
    for r in walks:
        assert r.mismatch is None, r.mismatch
        taken.update(rec.action for rec in r.records)
    assert sum(taken.values()) > 5000
    assert {a for a in H_ACTIONS if taken[a] == 0} == set(), taken


def test_composed_steps_accepted_by_the_z3_term(enc, walks):
    """The Z3 term BMC and k-induction unroll accepts the same steps (Z3 evaluates it)."""
    ev = RelationEvaluator(enc)
    records = [rec for r in walks[:60] for rec in r.records]
    assert ev.first_refused(records) is None


@pytest.mark.parametrize("name", sorted(CLIENT_VARIANTS))
def test_client_variant_traces_are_accepted(name):
    e = variant_encoding(name)
    for seed in range(60):
        r = random_walk(e, seed, length=30)
        assert r.mismatch is None, r.mismatch


def test_a_flag_that_misdescribes_its_harness_rule_is_caught():
    """The mirror variant's world described with the baseline's harness flags diverges on some walk."""
    e = variant_encoding("mirror-remote-status")
    e.hflags = dict(HARNESS_BASELINE_FLAGS)
    found = [r.mismatch for r in (random_walk(e, seed, length=30) for seed in range(60)) if r.mismatch]
    assert found and any("ho_lrun" in m for m in found), found[:1]


def test_a_harness_override_without_a_flag_is_not_encoded():
    with pytest.raises(UnsupportedVariant, match="idempotency_key"):
        variant_encoding("idempotency-key")
    assert harness_flags(builtins()["wait-before-persist"].harness_rules, "wait-before-persist",
                         HARNESS_RULE_TABLE)["persists_binding_before_waiting"] is False


def test_harness_guards_allow_exactly_the_models_moves(enc):
    import random
    from verifier.engines.z3.concrete import encoded_moves
    from verifier.engines.z3.crosscheck import WEIGHTS
    for seed in range(10):
        rng = random.Random(seed)
        world = enc.world()
        for _ in range(rng.randrange(0, 18)):
            enabled = [a for a in enc.actions if encoded_moves(world, a)]
            if not enabled:
                break
            a = rng.choices(enabled, [WEIGHTS.get(x, 1.0) for x in enabled])[0]
            moves = encoded_moves(world, a)
            world.apply(a, moves[rng.randrange(len(moves))])
        assert guards_exact(enc, world) == [], seed


def test_strengthening_invariants_hold_on_composed_walks(enc, walks):
    """Every invariant k-induction assumes (the host's and the harness's) holds on reachable states."""
    invs = I.invariants_for(enc)
    assert any(i.composed for i in invs)
    for r in walks[:100]:
        for rec in r.records:
            broken = [i.name for i in invs if i.formula(enc, rec.post) is not True]
            assert not broken, (r.seed, rec.action, rec.args, broken)


@pytest.mark.parametrize("name", [None] + sorted(CLIENT_VARIANTS))
def test_hns_formulas_agree_with_the_catalogue(name):
    """Wherever an HNS formula is violated on a walk, the catalogue has failed that id by then."""
    e = ComposedEncoding() if name is None else variant_encoding(name)
    for seed in range(40):
        assert formulas_agree(e, seed, length=25) is None


@pytest.mark.parametrize("name", sorted(CLIENT_VARIANTS))
def test_client_variant_refuted_by_bmc_within_the_gate_length(name):
    """Each client variant's id is refuted by a BMC trace no longer than the gate's shrunk one, which
    replays and fails the same catalogue property."""
    rid, prop = CLIENT_VARIANTS[name]
    gate = json.loads(MANIFEST.read_text())["variants"][name]["lengths"][prop]
    v = check(builtins()[name], ids=[rid], depth=gate, timeout=600, induction=False)[0]
    assert v.verdict == "refuted", v.message
    assert v.depth <= gate and v.catalogue_property == prop
    assert all(a.startswith("harness_") or a in ("answer",) for a, _ in v.steps), v.steps


def test_the_harness_ids_have_formulas_on_the_composed_encoding(enc):
    assert {r for r, zp in PROPS.items() if zp.composed} == {"HNS-1", "HNS-2", "HNS-3", "HNS-4", "HNS-5"}
    assert abstract(enc.world(), enc) == enc.initial()
    with pytest.raises(ValueError):
        I.prove(enc, ["OWN-1"], time.time() + 1)


@pytest.mark.slow
def test_thousand_composed_traces_accepted_by_the_z3_term(enc):
    """Under --slow: 1,000 composed walks, each step checked by the Python definition and by the Z3 term."""
    ev = RelationEvaluator(enc)
    for seed in range(1000, 2000):
        r = random_walk(enc, seed, length=30)
        assert r.mismatch is None, r.mismatch
        assert ev.first_refused(r.records) is None, seed


def test_a_failing_parallel_judge_is_a_tool_error_not_a_pass():
    from verifier.engines.z3 import in_parallel

    def boom():
        raise RuntimeError("solver exploded")
    out = in_parallel(lambda: {"OWN-1": "here"}, boom, ["HNS-1", "HNS-2"], "baseline")
    assert out["OWN-1"] == "here"
    assert {out[r].verdict for r in ("HNS-1", "HNS-2")} == {"tool-error"}
    assert "solver exploded" in out["HNS-1"].message and not out["HNS-1"].holds
