"""An amendment whose overrides the check's plan never exercised is searched at the coverage scopes
(`scopes.COVERAGE`), and what they find is merged into its verdicts."""
from types import SimpleNamespace

import pytest

from model import wire
from model.amend import Amendment
from properties.base import load_catalogue
from verifier.engines.bfs import coverage
from verifier.engines.bfs.run import run_bfs
from verifier.runtime.results import PropertyVerdict
from verifier.runtime.scopes import COVERAGE, parse

NTF2 = "cancelled-blocking-call-answered-error"


class BlockingCancelOk(Amendment):
    """Only a cancelled blocking call reaches this rule: at host-small no one cancels such a run."""
    name = "blocking-cancel-ok"

    def blocking_cancel_result(self, world, run):
        return wire.call_tool_result(False, "run cancelled")


def _verdict(name, verdict, message="m", premise=1):
    v = PropertyVerdict(name, ("X-1",), "step", "c", "s", verdict, message, None, premise, 1)
    v.scope = "plan"
    return v


def _search(name, distinct=10):
    return SimpleNamespace(scope=parse(name), distinct=distinct)


def test_a_refutation_at_a_coverage_scope_refutes_and_a_proof_names_both():
    plan = [(_search("host-small"), [_verdict("p", "proved", "at host-small"), _verdict("q", "proved"),
                                     _verdict("r", "vacuous", premise=0), _verdict("t", "refuted", "first")],
             {"rule": {"calls": 0, "differed": 0}})]
    cov = _search("host-small,max_pauses=1", 7)
    found = _verdict("q", "refuted", "broken")
    found.scope = cov.scope.name
    extra = [(cov, [_verdict("p", "proved"), found, _verdict("r", "proved", "at the pause scope"),
                    _verdict("t", "refuted", "second")], {"rule": {"calls": 2, "differed": 1}})]
    out = coverage.merged(plan, extra)
    got = {v.name: v for v in out[0][1]}
    assert got["p"].verdict == "proved" and got["p"].message == "at host-small; and at 1 coverage scope (7 states)"
    assert got["q"].verdict == "refuted" and got["q"].scope == cov.scope.name and got["q"].premise == 2
    assert got["r"].verdict == "proved" and got["r"].message == "at the pause scope"
    assert got["t"].message == "first"
    assert out[1] == (cov, [], {"rule": {"calls": 2, "differed": 1}})
    assert coverage.idle_overrides(plan) == ["rule"] and coverage.idle_overrides(out) == []


def test_an_unfinished_coverage_search_is_said_beside_the_proof():
    plan = [(_search("host-small"), [_verdict("p", "proved", "at host-small")], None)]
    extra = [(_search("host-small,stdio=True"), [_verdict("p", "undetermined", "time cap")], None)]
    v = coverage.merged(plan, extra)[0][1][0]
    assert v.verdict == "proved" and v.message == "at host-small; at scope host-small,stdio=True: time cap"


def test_every_coverage_scope_parses_and_is_a_host_scope():
    for spec in COVERAGE:
        sc = parse(spec)
        assert not sc.composed and sc.depth is None, spec


@pytest.mark.xdist_group("coverage")
def test_an_override_only_a_coverage_scope_calls_is_refuted_there():
    props = [load_catalogue()[NTF2]]
    r = run_bfs(BlockingCancelOk, budget=600, props=props, shadow=True)
    v = r.verdicts[0]
    assert v.verdict == "refuted" and v.scope == "host-rest,rest_subjects=('alice',)", (v.verdict, v.message)
    assert len(v.trace) <= 5
    assert r.overrides["blocking_cancel_result"]["differed"] > 0
    assert set(r.states["scopes"]) == {"host-small", *COVERAGE}
