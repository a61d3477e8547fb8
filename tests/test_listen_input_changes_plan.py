"""NTF-4 at the plan's scopes: a host that publishes a listen stream's task only when its status changes
(tests/listen_status_changes_only.py, an outsider's amendment of issue 52) withholds a change of a
waiting run's input requests. host-small's run has one interrupt, so nothing there tells it from the
baseline: once proved there, NTF-4 is now vacuous at host-small, and the coverage scope with two
interrupts on one run refutes it at the second, while NTF-3 (what a notification carries) holds."""
from pathlib import Path

from model.amend import load_file
from properties.base import find, load_catalogue
from verifier.engines.bfs import merge
from verifier.engines.bfs.search import _judged, plan
from verifier.runtime.scopes import COVERAGE, parse

load_catalogue()
NTF3, NTF4 = find("NTF-3"), find("NTF-4")
TWO_INPUTS = "host-small,max_interrupts=2,answer_all=True,http_disconnects=False"
STATUS_ONLY = load_file(str(Path(__file__).with_name("listen_status_changes_only.py")))


def _judge(spec):
    return _judged(STATUS_ONLY, parse(spec), [NTF3, NTF4], True, 600, None, None, None)


def test_the_plan_judges_ntf4_where_a_run_has_two_interrupts():
    assert TWO_INPUTS in COVERAGE
    assert any(sc.name == parse(TWO_INPUTS).name and NTF4 in props for sc, props in plan(None, [NTF4]))


def test_host_small_cannot_tell_it_and_the_two_interrupt_scope_refutes_ntf4_not_ntf3():
    small = _judge("host-small")
    got = {v.name: v for v in small[1]}
    assert got[NTF3.name].verdict == "proved", got[NTF3.name].message
    assert got[NTF4.name].verdict == "vacuous", got[NTF4.name].message          # no longer a false proof
    assert "input-requests change, status unchanged" in got[NTF4.name].unreached_cases
    found = _judge(TWO_INPUTS)
    got = {v.name: v for v in found[1]}
    assert got[NTF3.name].verdict == "proved", got[NTF3.name].message
    v = got[NTF4.name]
    assert v.verdict == "refuted" and v.trace[-1].action == "run_interrupt", (v.verdict, v.message)
    assert "input_required ['i1'] -> input_required ['i1', 'i2']" in v.message
    merged = {v.name: v for v in merge.joined([small, found])[0][1]}
    assert merged[NTF4.name].verdict == "refuted" and merged[NTF4.name].scope == parse(TWO_INPUTS).name
    assert merged[NTF3.name].verdict == "proved"
