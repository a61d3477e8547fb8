"""Every check searches the plan's scopes, the coverage scopes among them (`scopes.COVERAGE`, and
`scopes.HARNESS_COVERAGE` on the harness's side), each judging every property of its side, and a
property's verdicts there are merged into one (`verifier.engines.bfs.merge`)."""
from types import SimpleNamespace

import pytest

from model import wire
from model.amend import Amendment
from model.harness import HarnessRules
from model.lifecycle import OPEN_PHASES, TERMINAL
from model.rules import MCP_REQUEST_CANCELLED
from properties.base import load_catalogue
from verifier.engines.bfs import merge
from verifier.engines.bfs.run import run_bfs
from verifier.engines.bfs.search import _judged, plan, split_catalogue, summed_overrides
from verifier.runtime.results import PropertyVerdict
from verifier.runtime import scopes
from verifier.runtime.scopes import COVERAGE, HARNESS_COVERAGE, parse

NTF2 = "cancelled-blocking-call-answered-error"
OWN4 = "cancel-reaches-owned-run-only"
HNS6 = "harness-uses-bound-credentials"


class BlockingCancelOk(Amendment):
    """Only a cancelled blocking call reaches this rule: at host-small no one cancels such a run."""
    name = "blocking-cancel-ok"

    def blocking_cancel_result(self, world, run):
        return wire.call_tool_result(False, "run cancelled")


class AnswersAsDefault(HarnessRules):
    """Answers a task's input requests with bob's credentials: only a tasks/update asks for them while
    input keys are pending, and composed-small has no interrupt."""
    def binding_credentials(self, world, client, te):
        server, auth = super().binding_credentials(world, client, te)
        return (server, "bob") if te.input_keys else (server, auth)


class UpdateAsDefault(Amendment):
    name = "update-as-default"
    harness_rules = AnswersAsDefault


class StdioCancelsSiblingRuns(Amendment):
    """A stdio cancellation taken as the caller leaving: the runs its other open requests on the mount
    own are cancelled too. Only a second request owning a run while one is cancelled over stdio
    tells it apart from the baseline."""
    name = "stdio-cancels-sibling-runs"

    def on_request_cancelled(self, world, q, cause):
        super().on_request_cancelled(world, q, cause)
        for o in list(world.requests.values()) if cause.startswith("stdio") else []:
            if o is not q and o.owns is not None and o.subject == q.subject and o.server == q.server \
                    and o.phase in OPEN_PHASES and world.runs[o.owns].status not in TERMINAL:
                self.cancel_run(world, world.runs[o.owns], MCP_REQUEST_CANCELLED, f"request:{q.id}:{cause}:sibling")


def _verdict(name, verdict, message="m", premise=1, cases=None, kind="step"):
    v = PropertyVerdict(name, ("X-1",), kind, "c", "s", verdict, message, None, premise, 1, dict(cases or {}))
    v.scope = "plan"
    return v


def _search(name, distinct=10):
    sc = parse(name)
    return SimpleNamespace(scope=sc, distinct=distinct, bounded=sc.depth is not None)


def test_a_refutation_at_any_scope_refutes_and_a_proof_names_the_other_scopes():
    main, cov = _search("host-small"), _search("host-small,max_pauses=1", 7)
    found = _verdict("q", "refuted", "broken")
    found.trace = [object()] * 3
    found.scope = cov.scope.name
    results = [(main, [_verdict("p", "proved", "at host-small"), _verdict("q", "proved"),
                       _verdict("r", "vacuous", premise=0), _verdict("t", "refuted", "first")],
                {"rule": {"calls": 0, "differed": 0}}),
               (cov, [_verdict("p", "proved"), found, _verdict("r", "proved", "at the pause scope"),
                      _verdict("t", "refuted", "second")], {"rule": {"calls": 2, "differed": 1}})]
    out = merge.joined(results)
    got = {v.name: v for v in out[0][1]}
    assert got["p"].verdict == "proved" and got["p"].message == "at host-small; and at 1 more scope (7 states)"
    assert got["p"].judged_at == ["host-small", cov.scope.name]
    assert got["q"].verdict == "refuted" and got["q"].scope == cov.scope.name and got["q"].premise == 2
    assert got["r"].verdict == "proved" and got["r"].message.startswith("at the pause scope")
    assert got["t"].message == "first"
    assert out[1] == (cov, [], {"rule": {"calls": 2, "differed": 1}})
    assert summed_overrides(out) == {"rule": {"calls": 2, "differed": 1}}


def test_an_unfinished_search_is_said_beside_the_proof():
    results = [(_search("host-small"), [_verdict("p", "proved", "at host-small")], None),
               (_search("host-small,stdio=True"), [_verdict("p", "undetermined", "time cap")], None)]
    v = merge.joined(results)[0][1][0]
    assert v.verdict == "proved" and v.message == "at host-small; at scope host-small,stdio=True: time cap"


def test_cases_reached_only_across_scopes_prove_together_and_a_case_no_scope_reached_stays_vacuous():
    a, b, c = _search("host-small"), _search("host-small,max_pauses=1", 7), _search("host-clock", 5)
    half = {"x": 2, "y": 0}
    other = {"x": 0, "y": 1}
    together = merge.joined([(a, [_verdict("p", "vacuous", cases=half)], None),
                             (b, [_verdict("p", "vacuous", cases=other)], None)])[0][1][0]
    assert together.verdict == "proved" and together.cases == {"x": 2, "y": 1}, together.message
    assert "across 2 scopes" in together.message and together.unreached_cases == []
    never = merge.joined([(a, [_verdict("p", "vacuous", cases=half)], None),
                          (c, [_verdict("p", "vacuous", cases=half)], None)])[0][1][0]
    assert never.verdict == "vacuous" and never.unreached_cases == ["y"]
    assert never.message.startswith("premise case never reached: y at any of 2 scopes"), never.message
    nothing = merge.joined([(a, [_verdict("p", "vacuous", premise=0, cases={"x": 0})], None)])[0][1][0]
    assert nothing.verdict == "vacuous" and nothing.message.startswith("premise never reached")


def test_a_case_reached_only_within_a_depth_bound_makes_the_proof_a_bounded_one():
    full, bounded = _search("host-small"), _search("host-two-runs", 5)
    got = merge.joined([(full, [_verdict("p", "vacuous", cases={"x": 1, "y": 0})], None),
                        (bounded, [_verdict("p", "vacuous", cases={"x": 1, "y": 3})], None)])[0][1][0]
    assert got.verdict == "proved-bounded", got.message
    got = merge.joined([(full, [_verdict("p", "vacuous", cases={"x": 0, "y": 1})], None),
                        (bounded, [_verdict("p", "vacuous", cases={"x": 1, "y": 0})], None),
                        (_search("host-clock"), [_verdict("p", "vacuous", cases={"x": 1, "y": 0})], None)])[0][1][0]
    assert got.verdict == "proved", got.message


def test_a_home_is_the_primary_scope_of_its_property():
    home = scopes.HOMES["TTL-3"][0]
    v = PropertyVerdict("q", ("TTL-3",), "step", "c", "s", "vacuous", "never", None, 0, 1)
    w = PropertyVerdict("q", ("TTL-3",), "step", "c", "s", "proved", "at its home", None, 3, 1)
    out = merge.joined([(_search("host-small"), [v], None), (_search(home, 9), [w], None)])
    assert out[0][1] == [] and out[1][1][0].message.startswith("at its home")
    assert out[1][1][0].judged_at == [parse(home).name, "host-small"]


def test_every_coverage_scope_parses_and_is_complete_on_its_side_or_says_its_bound():
    for spec in COVERAGE:
        sc = parse(spec)
        assert not sc.composed and (sc.depth is None or f"bounded: {sc.depth} steps" in COVERAGE[spec]), spec
    for spec in HARNESS_COVERAGE:
        sc = parse(spec)
        assert sc.composed and sc.depth is None, spec


def test_the_plan_judges_every_property_of_a_side_at_every_scope_of_that_side():
    catalogue = list(load_catalogue().values())
    host, harness = split_catalogue(catalogue)
    homed = [p for p in host if scopes.home(p.ids) and parse(scopes.home(p.ids)).composed]    # LIV-2
    assert homed
    host, harness = [p for p in host if p not in homed], [p for p in catalogue if p in harness or p in homed]
    got = plan(None, catalogue)
    assert [sc.name for sc, _ in got] == [parse(spec).name for spec in scopes.plan_specs()]
    for sc, props in got:
        side = harness if sc.composed else host
        spec = next(s for s in scopes.plan_specs() if parse(s).name == sc.name)
        if spec in scopes.PARTIAL:
            assert props and all(scopes.home(p.ids) == spec for p in props), sc.name
        elif sc.depth is not None:      # a lasso needs the whole graph
            assert props == [p for p in side if p.kind != "liveness"], sc.name
        else:
            assert props == side, sc.name
    assert {*COVERAGE, *HARNESS_COVERAGE, *scopes.ALSO} <= set(scopes.plan_specs())


def test_an_override_host_small_never_calls_is_refuted_where_two_requests_are_in_flight_and_over_rest():
    """A cancelled blocking call's result: bob's call, whose run alice cancels by tasks/cancel while it is
    open, at the scope every check searches beside host-small; and alice's REST cancel at the REST
    coverage scope. Host-small never asks the override."""
    props = [load_catalogue()[NTF2]]
    small = _judged(BlockingCancelOk, parse("host-small"), props, True, 600, None, None, None, shadow=True)
    assert small[1][0].verdict == "vacuous" and not small[2]["blocking_cancel_result"]["calls"]   # its cases unseen
    assert "blocking call's run cancelled by REST" in small[1][0].unreached_cases
    for spec in ("host-two-clients", "host-rest,rest_subjects=('alice',)"):
        s, verdicts, counts = _judged(BlockingCancelOk, parse(spec), props, True, 600, None, None, None, shadow=True)
        assert verdicts[0].verdict == "refuted", (spec, verdicts[0].message)
        assert counts["blocking_cancel_result"]["differed"] > 0
    v = merge.joined([small, (s, verdicts, counts)])[0][1][0]
    assert v.verdict == "refuted" and v.scope == "host-rest,rest_subjects=('alice',)" and len(v.trace) <= 5


def test_the_stdio_pair_scope_refutes_a_stdio_cancellation_that_reaches_another_requests_run():
    """At the stdio coverage scope (one request, so no run beside it: OWN-4 vacuous there) the amendment
    answers as the baseline; the bounded stdio pair refutes OWN-4, within its 3 steps."""
    props = [load_catalogue()[OWN4]]
    one = _judged(StdioCancelsSiblingRuns, parse("host-small,stdio=True"), props, True, 600, None, None, None,
                  shadow=True)
    assert one[0].complete and one[1][0].verdict == "vacuous" and not one[1][0].premise, one[1][0].message
    assert one[2]["on_request_cancelled"]["calls"] > 0 and not one[2]["on_request_cancelled"]["differed"]
    sc = parse("host-stdio-pair")
    s, verdicts, counts = _judged(StdioCancelsSiblingRuns, sc, props, True, 600, None, None, None, shadow=True)
    assert verdicts[0].verdict == "refuted", verdicts[0].message
    assert len(verdicts[0].trace) <= sc.depth and counts["on_request_cancelled"]["differed"] > 0


def test_the_harness_tasks_update_scope_refutes_what_composed_small_cannot_reach():
    """The harness coverage scope of tasks/update, searched alone: a task reads input_required there
    (the default test run's part of the end-to-end test below)."""
    spec = next(s for s in HARNESS_COVERAGE if "harness_max_requests=3" in s)
    s, verdicts, counts = _judged(UpdateAsDefault, parse(spec), [load_catalogue()[HNS6]], True, 600, None, None,
                                  None, shadow=True)
    assert verdicts[0].verdict == "refuted", verdicts[0].message
    assert counts["harness.binding_credentials"]["differed"] > 0


@pytest.mark.slow
def test_a_harness_override_only_an_input_round_trip_calls_is_refuted_by_the_plan():
    """Composed-small has no interrupt, so no task of the harness reads input_required there; the
    harness coverage scope where a task reads input_required, in every check's plan, refutes HNS-6 at
    the first request sent for it."""
    r = run_bfs(UpdateAsDefault, budget=1800, props=[load_catalogue()[HNS6]], shadow=True)
    v = r.verdicts[0]
    assert v.verdict == "refuted" and v.scope in HARNESS_COVERAGE, (v.verdict, v.message)
    actions = [s.action for s in v.trace]
    assert "run_interrupt" in actions and actions[-1] in ("harness_poll", "harness_update"), actions
    assert r.overrides["harness.binding_credentials"]["differed"] > 0
    assert {"composed-small", *HARNESS_COVERAGE} <= set(r.states["scopes"])
