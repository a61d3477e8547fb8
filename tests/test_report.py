"""The static HTML report: self-contained, with a step-through view that works in a real browser."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from verifier.writers import report
from verifier.writers.diagrams import svg

def _sample():
    spec = importlib.util.spec_from_file_location("synthetic_trace", Path(__file__).with_name("synthetic_trace.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture()
def site(tmp_path, monkeypatch):
    """A check result naming one counterexample, and a second counterexample only in the folder."""
    monkeypatch.chdir(tmp_path)
    s = _sample()
    first = s.write(Path("counterexamples"))
    s.write(Path("counterexamples"), variant="mrtr-grace-window")
    Path("check.json").write_text(json.dumps(s.check_result(first.as_posix())), encoding="utf-8")
    code = report.main(["--out", "report/index.html", "--check", "check.json", "--counterexamples",
                        "counterexamples"])
    assert code == 0
    return tmp_path / "report" / "index.html"


def test_report_is_self_contained(site):
    html = site.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", html), "the page loads a resource"
    assert "http://" not in html.replace("http://www.w3.org/", "") and "https://" not in html
    assert "<style>" in html and "<script>" in html
    assert str(site.parent.parent) not in html, "the page holds a machine path"


def test_report_lists_every_property_and_its_verdict(site):
    html = site.read_text(encoding="utf-8")
    for name, verdict in (("OWN-1", "holds"), ("OWN-2", "refuted"), ("e2e-orphan-task", "known-gap"),
                          ("CRT-2", "vacuous")):
        assert f"<code>{name}</code>" in html and f">{verdict}</span>" in html
    assert 'href="#cx=0&amp;step=4"' in html
    assert html.count('<section class="cx"') == 2     # the check's trace once, and the folder's other one


def test_report_has_a_step_panel_per_step(site):
    html = site.read_text(encoding="utf-8")
    assert html.count('class="panel" data-i=') == 10
    assert "r1.phase: received -&gt; cancelled" in html
    assert "OWN-2 broke here:" in html
    # Each trace carries its sequence diagram (a group per step) and its states as JSON; the lifecycle
    # diagrams are held once in the page, copied into a trace when it is opened.
    assert 'id="cx0-sq-4"' in html and 'id="cx1-sq-4"' in html and 'id="cx0-sq-0"' not in html
    assert html.count('<script type="application/json" class="cx-state">') == 2
    if svg.dot_path() is not None:
        assert html.count('<template id="lc-tpl-run">') == 1 and html.count('<template id="lc-tpl-request">') == 1
        assert html.count('id="run-completed"') == 1 and 'id="lc-run-lifecycle-run-completed"' in html


def test_state_data_marks_every_table_and_the_task_a_caller_reads():
    from verifier.writers.diagrams import trace as itf_trace
    from verifier.writers.report import steps
    t = itf_trace.parse(_sample().trace())
    assert [x["name"] for x in steps.state_data(t, None)["tables"]] == ["world", "runs", "requests"]
    for s in t.steps:                       # a run with a taskId is a task its caller can read
        for rec in s.state["runs"].values():
            rec["taskId"] = "acme~2FA"
    data = steps.state_data(t, "detach-on-disconnect")
    names = [x["name"] for x in data["tables"]]
    assert names == ["world", "runs", "tasks", "requests"] and len(data["steps"]) == 5
    runs, tasks = data["tables"][1]["columns"], data["tables"][2]["columns"]
    assert data["steps"][2][1]["run1"][runs.index("status")] == "running"
    assert data["steps"][4][2]["run1"][tasks.index("status")] == "completed"
    assert data["steps"][4][2]["run1"][tasks.index("isError")] == "false"
    assert steps.paths(t) == [{"lc": "run", "name": "run1", "path": [[1, "pending"], [2, "running"], [4, "completed"]]},
                              {"lc": "request", "name": "r1", "path": [[1, "received"], [3, "cancelled"]]}]
    # A variant's own projection is the one a caller reads: paused projects to cancelled there.
    project, source = steps.projector("paused-projects-cancelled")
    assert project("paused") == ("cancelled", None) and "paused-projects-cancelled" in source
    assert steps.projector("no-such-variant")[0]("paused") == ("working", None)


def test_report_without_check_or_dot(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(svg, "dot_path", lambda: None)
    _sample().write(Path("cx"))
    assert report.main(["--out", "r.html", "--counterexamples", "cx", "--diagrams", "nowhere"]) == 0
    html = Path("r.html").read_text(encoding="utf-8")
    assert "No check result was given" in html
    assert "Graphviz <code>dot</code> is missing" in html and "pending (step 1)" in html
    assert "dot` not found" in capsys.readouterr().err


def _latest(trace_path: str) -> dict:
    """A check result as `taskmodel check --engine all` writes it: one object, a result per engine."""
    hyp = _sample().check_result(trace_path)
    bfs = dict(hyp, engine="bfs", scope={"name": "host-small", "tenants": 1},
               states={"distinct": 812, "complete": True},
               properties=[dict(p, trace=None) for p in hyp["properties"][:3]])
    return {"schema_version": 1, "tool": {"name": "taskmodel", "version": "0.1"}, "command": "check",
            "variant": hyp["variant"], "results": [hyp, bfs],
            "expectations": [{"id": "OWN-2", "want": "refuted", "got": ["refuted"], "met": True}], "exit_code": 1}


def test_report_with_no_flags_reads_the_latest_check(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    first = _sample().write(Path("counterexamples"))
    Path("out").mkdir()
    Path("out/latest-check.json").write_text(json.dumps(_latest(first.as_posix())), encoding="utf-8")
    assert report.main([]) == 0
    said = capsys.readouterr().out
    assert "7 properties (hypothesis 4, bfs 3) from out/latest-check.json, 1 counterexample(s)" in said
    html = Path("out/report/index.html").read_text(encoding="utf-8")
    assert 'id="engine-hypothesis"' in html and 'id="engine-bfs"' in html and "exit code 1" in html
    # Bounds, scope and coverage are tables, not JSON.
    assert "<td><code>max_runs</code></td><td>4</td>" in html
    assert "<td><code>name</code></td><td>host-small</td>" in html
    assert "<td><code>call_tool</code></td><td class=num>3</td>" in html and '{"max_runs"' not in html
    summary = html.split('id="summary"')[1].split("</table>")[0]
    assert re.search(r"<td>bfs</td>(<td class=num>[^<]*</td>){4}<td class=num>3</td>", summary), summary
    assert ">as expected</span>" in html
    # Filters; every row and counterexample carries what they match; counterexamples render when opened.
    assert '<select data-filter="verdict"><option value="">all</option><option value="holds">' in html
    assert '<option value="OWN">OWN</option>' in html and 'data-filter="text"' in html
    assert html.count('data-filterable data-verdict="refuted" data-area="OWN" data-ids="OWN-2"') == 2
    assert '<select data-filter="id"><option value="">all</option><option value="CRT-2">' in html
    assert html.count('<details class="cxbox"') == 1 and "<template><section class=\"cx\"" in html


def test_report_without_latest_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert report.main(["--counterexamples", "none"]) == 0
    assert "0 properties (no check result: out/latest-check.json not found)" in capsys.readouterr().out
    Path("out/latest-check.json").write_text('{"results": 3}', encoding="utf-8")
    assert report.main([]) == 3


def test_report_reads_a_typed_trace_of_the_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("recorded_trace", Path(__file__).with_name("recorded_trace.py"))
    rec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rec)
    rec.record(Path("cx"), *rec.LOST)
    assert report.main(["--out", "r.html", "--counterexamples", "cx"]) == 0
    html = Path("r.html").read_text(encoding="utf-8")
    assert html.count('class="panel" data-i=') == 4 and "r1.phase: sent -&gt; lost" in html
    assert '"run1":["pending",' in html          # the state view's row of run1, status first


def test_report_bad_input_exits_3(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert report.main(["--check", "missing.json"]) == 3
    Path("bad.json").write_text("{not json", encoding="utf-8")
    assert report.main(["--check", "bad.json"]) == 3
    assert report.main(["--bogus"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "missing.json" in err[0] and "not JSON" in err[1]


def test_a_propertys_premise_cases_show_how_many_were_reached_and_which_never():
    from verifier.writers.report.tables import cases_cell
    cell = cases_cell({"cases": {"purged, by tasks/get": 3, "another tenant, by tasks/get": 0}})
    assert "1 of 2; never: another tenant, by tasks/get" in cell and "purged, by tasks/get: 3" in cell
    assert cases_cell({"premise": 4}) == ""
