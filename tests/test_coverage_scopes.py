"""An amendment whose overrides the check's plan never exercised is searched at the coverage scopes
(`scopes.COVERAGE`, and `scopes.HARNESS_COVERAGE` for a harness rule), and what they find is merged
into its verdicts."""
from types import SimpleNamespace

import pytest

from model import wire
from model.amend import Amendment
from model.harness import HarnessRules
from model.lifecycle import OPEN_PHASES, TERMINAL
from model.rules import MCP_REQUEST_CANCELLED
from properties.base import load_catalogue
from verifier.engines.bfs import coverage
from verifier.engines.bfs.run import run_bfs
from verifier.engines.bfs.search import _judged
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


def test_every_coverage_scope_parses_and_is_complete_on_its_side_or_says_its_bound():
    for spec in COVERAGE:
        sc = parse(spec)
        assert not sc.composed and (sc.depth is None or f"bounded: {sc.depth} steps" in COVERAGE[spec]), spec
    for spec in HARNESS_COVERAGE:
        sc = parse(spec)
        assert sc.composed and sc.depth is None, spec


def test_the_coverage_scopes_searched_are_those_of_the_idle_rules_side():
    h, c, live = (SimpleNamespace(kind=k) for k in ("step", "step", "liveness"))
    plan = [(parse("host-small"), [h, live]), (parse("composed-small"), [c])]
    got = lambda idle: [(sc.name, ps) for sc, ps in coverage.coverage_jobs(plan, idle)]     # noqa: E731
    # A scope bounded by depth judges no liveness property: a lasso needs the whole graph.
    assert got(["resolve"]) == [(spec, [h, live] if parse(spec).depth is None else [h]) for spec in COVERAGE]
    assert any(parse(spec).depth for spec in COVERAGE)
    assert got(["harness.input_response"]) == [(spec, [c]) for spec in HARNESS_COVERAGE]
    assert got(["resolve", "harness.plan_call"]) == got(["resolve"]) + got(["harness.plan_call"])
    assert coverage.coverage_jobs(plan[:1], ["harness.plan_call"]) == []
    only_live = [(parse("host-small"), [live])]
    assert [sc.depth for sc, _ in coverage.coverage_jobs(only_live, ["resolve"])] == \
        [None] * sum(parse(spec).depth is None for spec in COVERAGE)


def test_a_bounded_coverage_proof_stays_bounded_until_a_complete_scope_proves_it():
    plan = [(_search("host-small"), [_verdict("p", "proved", "at host-small"), _verdict("r", "vacuous", premise=0),
                                     _verdict("u", "vacuous", premise=0)], None)]
    bounded, full = _search("host-two-runs", 5), _search("host-small,max_pauses=1", 7)
    extra = [(bounded, [_verdict("p", "proved-bounded"), _verdict("r", "proved-bounded", "within 7 steps"),
                        _verdict("u", "proved-bounded", "within 7 steps")], None),
             (full, [_verdict("p", "proved"), _verdict("r", "vacuous", premise=0), _verdict("u", "proved", "pause")],
              None)]
    got = {v.name: v for v in coverage.merged(plan, extra)[0][1]}
    assert got["p"].verdict == "proved"
    assert got["p"].message == "at host-small; and at 2 coverage scopes (12 states; 1 bounded by depth)"
    assert got["r"].verdict == "proved-bounded" and got["r"].message == "within 7 steps"
    assert got["u"].verdict == "proved" and got["u"].message == "pause"


def test_an_override_host_small_never_calls_is_refuted_where_two_requests_are_in_flight(monkeypatch):
    """A cancelled blocking call's result: bob's call, whose run alice cancels by tasks/cancel while it is
    open, at the scope every check searches beside host-small; without that scope, the override is idle
    in the plan and the REST coverage scope refutes it (alice's REST cancel)."""
    props = [load_catalogue()[NTF2]]
    r = run_bfs(BlockingCancelOk, budget=600, props=props, shadow=True)
    v = r.verdicts[0]
    assert v.verdict == "refuted" and v.scope == "host-two-clients", (v.verdict, v.message)
    assert r.overrides["blocking_cancel_result"]["differed"] > 0
    assert set(r.states["scopes"]) == {"host-small", "host-two-clients"}
    monkeypatch.setattr(scopes, "ALSO", ())
    r = run_bfs(BlockingCancelOk, budget=600, props=props, shadow=True)
    v = r.verdicts[0]
    assert v.verdict == "refuted" and v.scope == "host-rest,rest_subjects=('alice',)", (v.verdict, v.message)
    assert len(v.trace) <= 5
    assert r.overrides["blocking_cancel_result"]["differed"] > 0
    assert set(r.states["scopes"]) == {"host-small", *COVERAGE}


def test_the_stdio_pair_scope_refutes_a_stdio_cancellation_that_reaches_another_requests_run():
    """At the stdio coverage scope (one request) the amendment answers as the baseline; the bounded
    stdio pair refutes OWN-4, within its 3 steps."""
    props = [load_catalogue()[OWN4]]
    one = _judged(StdioCancelsSiblingRuns, parse("host-small,stdio=True"), props, True, 600, None, None, None,
                  shadow=True)
    assert one[0].complete and one[1][0].verdict == "proved", one[1][0].message
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
def test_a_harness_override_only_an_input_round_trip_calls_is_refuted_there():
    """Composed-small has no interrupt, so no task of the harness reads input_required there: the
    override is idle in the plan, and the harness coverage scope where a task reads input_required
    refutes HNS-6 at the first request sent for it."""
    r = run_bfs(UpdateAsDefault, budget=600, props=[load_catalogue()[HNS6]], shadow=True)
    v = r.verdicts[0]
    assert v.verdict == "refuted" and v.scope in HARNESS_COVERAGE, (v.verdict, v.message)
    actions = [s.action for s in v.trace]
    assert "run_interrupt" in actions and actions[-1] in ("harness_poll", "harness_update"), actions
    assert r.overrides["harness.binding_credentials"]["differed"] > 0
    assert set(r.states["scopes"]) == {"composed-small", *HARNESS_COVERAGE}
