"""OWN-4 at the plan's scopes: a cancellation that reaches a run another request owns is refuted by a
check without `--scope`. host-two-clients, the plan's scope with two requests in flight, has no HTTP
disconnect, and host-stdio-pair no second caller: the OWN-4 coverage scopes (`scopes.COVERAGE`) hold
a request dropped beside another request's run, of the same caller, another caller and another
tenant."""
import pytest

from model.amend import Amendment
from model.lifecycle import OPEN_PHASES, TERMINAL
from model.rules import MCP_REQUEST_CANCELLED
from properties.base import load_catalogue
from verifier.engines.bfs import merge
from verifier.engines.bfs.run import run_bfs
from verifier.engines.bfs.search import _judged, plan
from verifier.runtime.scopes import COVERAGE, parse

OWN4 = load_catalogue()["cancel-reaches-owned-run-only"]
TENANTS_PAIR = "host-stdio-pair,clients=('C1','C4'),http_disconnects=True"


class DisconnectCancelsSiblingRuns(Amendment):
    """An HTTP disconnect taken as the caller leaving: the runs the caller's other open requests own are
    cancelled with the dropped request's own."""
    name = "disconnect-cancels-sibling-runs"

    def on_request_cancelled(self, world, q, cause):
        super().on_request_cancelled(world, q, cause)
        for o in list(world.requests.values()) if cause == "http-disconnect" else []:
            if o is not q and o.owns is not None and o.subject == q.subject and o.phase in OPEN_PHASES \
                    and world.runs[o.owns].status not in TERMINAL:
                self.cancel_run(world, world.runs[o.owns], MCP_REQUEST_CANCELLED, f"request:{q.id}:{cause}:sibling")


def _judge(spec):
    return _judged(DisconnectCancelsSiblingRuns, parse(spec), [OWN4], True, 600, None, None, None, shadow=True)


def test_the_plan_searches_a_disconnect_beside_another_requests_run():
    specs = [sc.name for sc, props in plan(None, [OWN4]) if OWN4 in props]
    assert parse(TENANTS_PAIR).name in specs and TENANTS_PAIR in COVERAGE


def test_the_scopes_before_the_pair_answer_as_the_baseline_and_the_pair_refutes_own4():
    """At host-small (one request and its retry) and host-stdio-pair (no HTTP disconnect) the amendment's
    override never answers otherwise and OWN-4 holds (vacuous there for the cases they do not reach);
    the pair of tenants refutes it within its 3 steps: alice's two calls, one dropped."""
    before = [_judge(spec) for spec in ("host-small", "host-stdio-pair")]
    for s, verdicts, counts in before:
        assert verdicts[0].verdict in ("vacuous", "proved-bounded"), (s.scope.name, verdicts[0].message)
        assert not counts["on_request_cancelled"]["differed"], s.scope.name
    found = _judge(TENANTS_PAIR)
    v = found[1][0]
    assert v.verdict == "refuted", v.message
    assert [st.action for st in v.trace] == ["call_tool", "call_tool", "disconnect"], v.trace
    assert "sibling" not in v.message and "outside the owned run's cascade" in v.message
    got = merge.joined([*before, found])[0][1][0]
    assert got.verdict == "refuted" and got.scope == parse(TENANTS_PAIR).name


@pytest.mark.slow
def test_a_check_without_scope_refutes_a_disconnect_that_cancels_the_callers_other_runs():
    r = run_bfs(DisconnectCancelsSiblingRuns, budget=1800, props=[OWN4], shadow=True)
    v = r.verdicts[0]
    assert v.verdict == "refuted", (v.verdict, v.message)
    assert v.scope in {parse(spec).name for spec in COVERAGE} and len(v.trace) == 3, v.scope
    assert r.overrides["on_request_cancelled"]["differed"] > 0
