"""NTF-2's "a blocking call's run cancelled by a parent's cascade" at the plan's scopes. A call's run has a
parent only under P-CALL-PARENT (`Params.call_parents`), which one coverage scope turns on: a host that
answers such a call isError=false answers every other cancelled blocking call as the baseline, so the
scope reaching NTF-2's REST case cannot tell it apart, and the parent scope refutes it."""
from model import wire
from model.amend import Amendment
from properties.base import find, load_catalogue
from verifier.engines.bfs import merge
from verifier.engines.bfs.search import _judged, plan
from verifier.runtime.scopes import COVERAGE, parse

load_catalogue()
NTF2 = find("NTF-2")
PARENT = "host-small,rest_subjects=('alice',),max_interrupts=0,call_parents=True"
REST = "host-small,rest_subjects=('alice',),max_runs=0,rest_answers=('accept','decline','cancel')"
CASCADE = "blocking call's run cancelled by a cascade"


class CascadeCancelOk(Amendment):
    name = "cascade-cancel-ok"

    def blocking_cancel_result(self, world, run):
        return wire.call_tool_result(run.cancel_reason != "parent-cancelled", "run cancelled")


def _judge(variant, spec):
    return _judged(variant, parse(spec), [NTF2], True, 600, None, None, None, shadow=variant is not None)


def test_the_plan_judges_ntf2_where_a_calls_run_has_a_parent():
    assert PARENT in COVERAGE and REST in COVERAGE
    names = {sc.name for sc, props in plan(None, [NTF2]) if NTF2 in props}
    assert {parse(PARENT).name, parse(REST).name} <= names
    s, (v,), _ = _judge(None, PARENT)
    assert s.complete and v.cases[CASCADE] > 0
    assert v.unreached_cases == ["blocking call's run cancelled by tasks/cancel"]      # reached elsewhere


def test_the_parent_scope_refutes_an_amendment_the_rest_scope_cannot_tell():
    rest = _judge(CascadeCancelOk, REST)
    v, counts = rest[1][0], rest[2]["blocking_cancel_result"]
    assert v.verdict == "vacuous" and CASCADE in v.unreached_cases, v.message
    assert counts["calls"] > 0 and not counts["differed"]          # asked at REST cancels, answering as the baseline
    found = _judge(CascadeCancelOk, PARENT)
    v = found[1][0]
    assert v.verdict == "refuted" and "isError=False" in v.message, (v.verdict, v.message)
    actions = [step.action for step in v.trace]
    assert actions[-1] == "answer" and "rest_cancel" in actions, actions
    assert any(step.action == "call_tool" and "parent" in step.args for step in v.trace)
    merged = merge.joined([rest, found])[0][1][0]
    assert merged.verdict == "refuted" and merged.scope == parse(PARENT).name
