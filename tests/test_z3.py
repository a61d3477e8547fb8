"""The Z3 engine: the encoding checked against the executable model, BMC counterexamples that replay,
k-induction proofs of the baseline, and honest verdicts.

The cross-checks take small samples of random traces by default and larger ones with `--slow`
(e.g. 120 and 1,000 traces accepted by the Z3 term of the relation, evaluated by Z3); asserting whole
traces to a solver is the costliest and takes the fewest. The k-induction proofs are the same in both.
"""
from __future__ import annotations

import dataclasses
import time

import pytest
import z3

from model.rules import Rules
from model.world import World
from verifier.engines.z3 import Z3_PARAMS, Z3Verdict, check, default_ids
from verifier.engines.z3 import induction as I
from verifier.engines.z3.bmc import _judge, bmc, catalogue_props, replay
from verifier.engines.z3.concrete import abstract, encode_args
from verifier.engines.z3.crosscheck import (PathChecker, RelationEvaluator, concrete_step_ok, guards_exact,
    random_walk)
from verifier.engines.z3.encoding import Encoding, UnsupportedVariant
from verifier.engines.z3.properties import NOT_ENCODED, PROPS, props_for, safety_ids
from verifier.engines.z3.variants import REFERENCE, Z3_RULE_TABLE, make_rules, supported_variants

LARGER = Z3_PARAMS.with_(max_requests=5, max_runs=4, max_time=5, max_effects=3)


@pytest.fixture(scope="module")
def enc():
    return Encoding()


@pytest.fixture(scope="module")
def slow(request):
    return request.config.getoption("--slow")


@pytest.fixture(scope="module")
def walks(slow):
    """Random walks per cross-check: 120 by default, 1,000 with --slow."""
    return 1000 if slow else 120


# ---- cross-check 1: random traces of the executable model are steps of the encoding -------------------------

def test_random_traces_are_accepted(enc, walks):
    """Seeded random walks (120, 1,000 with --slow; four fifths at the stated size, the rest at a
    larger one, where grandchildren, several interrupts and more requests occur) of the executable
    model: every step satisfies the encoding's transition relation, field by field."""
    larger = Encoding(LARGER)
    steps = 0
    for seed in range(walks):
        e = enc if seed < walks * 4 // 5 else larger
        r = random_walk(e, seed, length=18, weighted=seed % 3 != 0)
        assert r.mismatch is None, r.mismatch
        steps += len(r.records)
    assert steps > 10 * walks


def test_parameters_and_variants_traces_are_accepted(slow):
    """The P-... parameters the encoding supports, and every supported variant, under their own rules
    (10 walks per parameter set and 2 per variant; 30 and 6 with --slow)."""
    for p in (LARGER.with_(p_stdio_eof="nothing", p_unauthorized="error", p_approver="error"),
              LARGER.with_(p_retention="from-creation", p_elicit="each-get")):
        e = Encoding(p)
        for seed in range(30 if slow else 10):
            r = random_walk(e, seed, length=30)
            assert r.mismatch is None, r.mismatch
    for name, (cls, _) in supported_variants().items():
        rules = make_rules(cls)
        e = Encoding(cls.make_params(Z3_PARAMS), rules)
        for seed in range(6 if slow else 2):
            r = random_walk(e, seed, length=25)
            assert r.mismatch is None, f"{name}: {r.mismatch}"


def test_the_z3_formula_accepts_traces(enc, slow):
    """The symbolic relation itself (not only its definition run on values) accepts concrete traces,
    asserted as constrained paths (8 traces, 16 with --slow)."""
    checker = PathChecker(enc, depth=6)
    for seed in range(16 if slow else 8):
        r = random_walk(enc, 5000 + seed, length=6)
        assert checker.accepts(r.records), f"seed {5000 + seed}: the solver refused a trace of the model"


def test_the_z3_formula_refuses_a_wrong_successor(enc):
    checker = PathChecker(enc, depth=3)
    r = random_walk(enc, 7, length=3)
    bad = list(r.records)
    post = dict(bad[-1].post)
    post[("clock",)] = post[("clock",)] + 1
    bad[-1] = type(bad[-1])(bad[-1].pre, bad[-1].action, bad[-1].args, bad[-1].A, post)
    assert not checker.accepts(bad)


def test_traces_accepted_by_the_z3_relation(enc, walks):
    """Random traces (10 steps each; 120, 1,000 with --slow) of the executable model: Z3 evaluates the
    very term BMC and k-induction unroll to true on every step."""
    ev = RelationEvaluator(enc)
    steps = 0
    for seed in range(walks):
        r = random_walk(enc, 10_000 + seed, length=10)
        refused = ev.first_refused(r.records)
        assert refused is None, f"seed {10_000 + seed}: the Z3 relation refuses step {refused} " \
                                f"{r.records[refused].action}({r.records[refused].args})"
        steps += len(r.records)
    assert steps > 8 * walks


def test_the_z3_relation_refuses_wrong_steps(enc):
    """The evaluation can fail: a successor with one field changed, or the step named as another action."""
    ev = RelationEvaluator(enc)
    r = random_walk(enc, 7, length=6)
    for rec in r.records:
        assert ev.accepts(rec)
        for key in (("clock",), ("n_reqs",), ("r_status", 0)):
            post = dict(rec.post)
            post[key] = post[key] + 1
            assert not ev.accepts(dataclasses.replace(rec, post=post)), (rec.action, key)
        other = "clock_tick" if rec.action != "clock_tick" else "run_start"
        assert not ev.accepts(dataclasses.replace(rec, action=other)), rec.action


@pytest.mark.slow
def test_thousand_traces_accepted_by_the_solver(enc):
    checker = PathChecker(enc, depth=10)
    for seed in range(1000):
        r = random_walk(enc, 10_000 + seed, length=10)
        assert checker.accepts(r.records), f"seed {10_000 + seed}"


def test_guards_allow_exactly_the_models_moves(enc):
    """In sampled states the argument choices the encoding's guards allow decode to exactly the
    executable model's moves: a Z3 path takes no step the model refuses, and misses none."""
    for seed in range(4):
        r = random_walk(enc, 300 + seed, length=10)
        world = World(enc.params, enc.rules)
        for rec in r.records:
            world.apply(rec.action, rec.args)
        assert guards_exact(enc, world) == []


def test_id_flags_are_checked_against_the_rules():
    """A variant whose id rules differ from what its flags say is caught by the abstraction: a counter
    taskId declared "projected", or a host that reads no reference declared as the baseline's unproject."""
    from verifier.engines.z3.concrete import AbstractionError

    class CounterCalledProjected(Rules):
        z3_flags = {"task_id": "projected"}

        def task_id(self, world, run):
            return f"t-{42 + list(world.runs).index(run.id)}"

    class NothingCalledUnproject(Rules):
        z3_flags = {"decode_task_ref": "unproject"}

        def decode_task_ref(self, world, ref):
            return None

    for rules, says in ((CounterCalledProjected(), "not the projected form"), (NothingCalledUnproject(), "decode_task_ref")):
        e = Encoding(Z3_PARAMS, rules)
        world = World(e.params, rules)
        abstract(world, e)                                 # no run yet: nothing to disagree about
        world.apply("rest_create", world.moves("rest_create")[0])
        with pytest.raises(AbstractionError, match=says):
            abstract(world, e)


def test_every_executable_action_has_a_case(enc):
    from verifier.engines.z3.encoding import executable_actions
    table = executable_actions()
    # `respond` is never enabled where answers are atomic, as in the encoding's instance; the actions
    # the encoding states it does not encode are the others
    from verifier.engines.z3.encoding import NOT_ENCODED_ACTIONS
    assert enc.params.atomic_answers
    assert {a for a, x in table.items() if x.actor != "harness"} - {"respond", *NOT_ENCODED_ACTIONS} <= set(enc.actions)


# ---- the property formulas agree with the catalogue ---------------------------------------------------------

def test_property_formulas_hold_on_baseline_traces(enc):
    for seed in range(60):
        r = random_walk(enc, 700 + seed, length=20)
        for rec in r.records:
            for rid, zp in props_for(enc).items():
                assert zp.formula(enc, rec.pre, enc.index[rec.action], rec.A, rec.post) is True, (rid, seed, rec.action)


def test_a_formula_violation_is_a_catalogue_violation(slow):
    """On random traces of the baseline and of every supported variant (one each, three with --slow),
    wherever a Z3 formula is violated the catalogue's property of the same id has failed too (the
    formulas never claim more than the catalogue; BMC's replay checks the same for every
    counterexample)."""
    from verifier.engines.z3.crosscheck import formulas_agree
    props = catalogue_props()
    cases = [(None, Z3_PARAMS)] + [(cls, cls.make_params(Z3_PARAMS)) for cls, _ in supported_variants().values()]
    for cls, params in cases:
        e = Encoding(params, make_rules(cls) if cls else None)
        for seed in range(3 if slow else 1):
            problem = formulas_agree(e, 900 + seed, length=20, props=props)
            assert problem is None, f"{getattr(cls, 'name', 'baseline')}: {problem}"


def test_prj2_formula_reads_the_keys(enc):
    """PRJ-2's key clause can fail: on the baseline step that answers a tasks/get of a run waiting for
    an approval, the formula holds, and fails once the result's keys name another interrupt, none, or
    a key naming no interrupt."""
    from verifier.engines.z3.encoding import FOREIGN_KEY, RESP, TS
    world = World(enc.params)
    for action in ("rest_create", "run_start", "run_interrupt"):
        world.apply(action, world.moves(action)[0])
    args = world.moves("tasks_get")[0]                       # alice, declaring, matching Mcp-Name
    pre, A = abstract(world, enc), encode_args(world, "tasks_get", args)
    world.apply("tasks_get", args)
    post = abstract(world, enc)
    q = post[("n_reqs",)] - 1
    assert (post[("q_resp", q)], post[("q_rstat", q)], post[("q_ikeys", q)]) == (RESP["get"], TS["input_required"], 1)
    prj2 = PROPS["PRJ-2"].formula
    assert prj2(enc, pre, enc.index["tasks_get"], A, post) is True
    for wrong in (-1, 0, 2, 1 | FOREIGN_KEY):
        assert prj2(enc, pre, enc.index["tasks_get"], A, {**post, ("q_ikeys", q): wrong}) is not True, wrong


def test_every_host_safety_id_is_encoded_or_says_why():
    for rid in safety_ids():
        assert rid in PROPS or rid in NOT_ENCODED, rid
    assert set(NOT_ENCODED).isdisjoint(PROPS)


# ---- BMC: counterexamples replay and break the same id --------------------------------------------------------

QUICK = [("detach-on-disconnect", "OWN-2", 2), ("get-appends-read-event", "GET-1", 2),
         ("id-as-credential", "ISO-1", 2), ("task-to-non-declaring", "NEG-1", 2),
         ("ownership-ends-at-first-event", "OWN-1", 2), ("read-only-caller-cancels", "AUTH-1", 2),
         ("paused-projects-cancelled", "PRJ-3", 4), ("response-content-grants-approval", "SEC-2", 4),
         ("notify-cancelled-on-run-cancel", "NTF-1", 2), ("tasks-only-for-tasked-runs", "TASK-1", 1),
         ("ttl-below-retention", "TTL-1", 2), ("task-result-type-on-get", "WIRE-1", 2),
         ("ack-carries-status", "WIRE-2", 2), ("drop-every-request", "CRT-4", 3),
         ("short-task-id", "CRT-3", 2), ("opaque-task-handle", "ISO-1", 2), ("task-result-type-on-get", "ID-1", 2),
         ("create-result-carries-input-requests", "PRJ-2", 2)]


@pytest.mark.parametrize("name,rid,length", QUICK)
def test_bmc_counterexample_replays_and_breaks_the_id(name, rid, length):
    cls, _ = supported_variants()[name]
    e = Encoding(cls.make_params(Z3_PARAMS), make_rules(cls))
    found = bmc(e, [rid], length + 1, time.time() + 60, name)[rid]
    assert found.verdict == "refuted", found.message
    assert found.depth == length
    # the steps replay in a fresh model with every move checked, and the catalogue's property of the
    # same id fails on them
    world = World(e.params, e.rules)
    props = catalogue_props()
    failed = set()
    for action, args in found.steps:
        step = world.apply(action, args, check=True)
        for p in props:
            if p.asserted and p.check(world, step):
                failed.update(p.ids)
    assert rid in failed


def test_a_counterexample_that_does_not_replay_is_a_tool_error():
    """A Z3 trace found on one rule set replayed against other rules is reported loudly."""
    cls, _ = supported_variants()["detach-on-disconnect"]
    e = Encoding(cls.make_params(Z3_PARAMS), make_rules(cls))
    from verifier.engines.z3.bmc import Unrolling, make_solver
    path = Unrolling(e, tag="t")
    for _ in range(2):
        path.extend()
    s = make_solver(60)
    s.add(*path.trans)
    s.add(z3.Not(path.holds_at(PROPS["OWN-2"], 2)))
    assert s.check() == z3.sat
    decoded, zstates = path.decode(s.model())
    wrong = Encoding()                     # the baseline: the owner's cancel does cancel the run
    v = _judge(wrong, "OWN-2", 2, decoded, zstates, 0.0, "detach-on-disconnect", catalogue_props())
    assert v.verdict == "tool-error"
    assert "does not replay" in v.message and "step 2" in v.message


def test_replay_names_a_move_the_model_refuses(enc):
    bogus = [("answer", {f: 0 for f in ("client", "server", "transport", "tool", "req", "run", "intr", "kind",
                                         "resp", "ref_run", "ref_form", "key", "subject", "method")}
              | {"declare": False, "form": False, "header": True})]
    rep = replay(enc, bogus)
    assert not rep.ok and rep.diverged_at == 1


# ---- k-induction -------------------------------------------------------------------------------------------

def test_baseline_safety_ids_proved_by_k_induction():
    verdicts = check(depth=2, timeout=600)       # generous: the machine may be shared; benchmarks/z3.py times it
    by = {v.ids[0]: v for v in verdicts}
    assert set(by) == set(default_ids())
    for rid in PROPS:
        assert by[rid].verdict == "proved", (rid, by[rid].message)
        assert by[rid].k == 1
    for rid in NOT_ENCODED:
        assert by[rid].verdict == "undetermined" and by[rid].message.startswith("not encoded")


def test_invariants_are_proved_on_the_baseline(enc):
    rep = I.invariants_proved(enc, time.time() + 60)
    assert rep.ok, rep.failures
    assert set(rep.proved) == {i.name for i in I.invariants_for(enc)}
    assert {i.name for i in I.INVARIANTS} - set(rep.proved) == {i.name for i in I.INVARIANTS if i.composed}


def test_an_invariant_check_out_of_time_is_not_remembered(enc, monkeypatch):
    """A check cut short by its deadline proves nothing, and a later check is not answered from it."""
    monkeypatch.setattr(I, "_CACHE", {})
    rep = I.invariants_proved(enc, time.time())
    assert not rep.ok and {why for _, why in rep.failures} == {"time cap"}
    assert I._CACHE == {}


def test_a_counterexample_to_induction_reads_as_two_states(enc, monkeypatch):
    """Without the strengthening invariants OWN-1 is not inductive: the report shows the state before,
    the action and the state after, in the model's words."""
    monkeypatch.setattr(I, "INVARIANTS", [])
    monkeypatch.setattr(I, "_CACHE", {})
    v = I.prove(enc, ["OWN-1"], time.time() + 60, kmax=1)["OWN-1"]
    assert v.verdict == "undetermined"
    text = v.message
    assert "before:" in text and "action:" in text and "after:" in text
    assert "r1:" in text or "run1:" in text
    assert "(declare" not in text and "ExprRef" not in text


# ---- verdicts and the contract --------------------------------------------------------------------------------

def test_not_encoded_ids_are_undetermined_never_holding():
    v, = check(ids=["E2E-2"], timeout=5)            # an end-to-end known gap: no Z3 formula
    assert v.verdict == "undetermined" and not v.holds and "not encoded" in v.message


def test_a_variant_the_encoding_cannot_describe_is_undetermined():
    class ContentAndBehaviour(Rules):
        name = "no-flags"

        def tool_result(self, world, run):          # a rule the encoding reads, overridden without a flag
            return super().tool_result(world, run)
    v, = check(ContentAndBehaviour(), ids=["NTF-2"], timeout=5)
    assert v.verdict == "undetermined" and "z3_flags" in v.message
    with pytest.raises(UnsupportedVariant):
        Encoding(Z3_PARAMS, ContentAndBehaviour())


def test_rule_table_rows_have_implementations():
    """Every row of the rule-flag table names a built-in variant or has a reference implementation,
    and every reference implementation's own z3_flags are accepted."""
    from verifier.engines.z3.variants import builtin_variants
    built = builtin_variants()
    assert all(name in built or name in REFERENCE for name in Z3_RULE_TABLE)
    assert set(REFERENCE) <= set(Z3_RULE_TABLE)
    for name, cls in REFERENCE.items():
        Encoding(cls.make_params(Z3_PARAMS), cls())


def test_verdict_is_plain_data():
    v = Z3Verdict(("OWN-2",), "refuted", 2, None, 1.5, [("disconnect", {"request": "r1"})], "m")
    d = v.as_dict()
    assert d["ids"] == ["OWN-2"] and d["steps"] == [["disconnect", {"request": "r1"}]]
