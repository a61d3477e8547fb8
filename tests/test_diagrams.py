"""The diagrams: derived from model.lifecycle, current in diagrams/, and honest about a missing `dot`."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from model import lifecycle
from model.projection import STATUS_PROJECTION
from verifier.writers import diagrams
from verifier.writers.diagrams import dot, graph, highlight, mermaid, svg
from verifier.writers.diagrams import trace as itf_trace

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "diagrams"


def _sample():
    spec = importlib.util.spec_from_file_location("synthetic_trace", Path(__file__).with_name("synthetic_trace.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    out = tmp_path_factory.mktemp("diagrams")
    return out, diagrams.plan_lifecycles(out)


# ---- the committed diagrams are what the model generates ------------------------------------------
def test_committed_text_diagrams_are_current(planned):
    out, plan = planned
    stale = []
    for path, text in plan.files.items():
        if path.suffix == ".svg":
            continue
        committed = COMMITTED / path.name
        if not committed.is_file() or committed.read_text(encoding="utf-8") != text:
            stale.append(path.name)
    assert not stale, f"diagrams/ is stale ({', '.join(stale)}): run `taskmodel diagrams`"


def test_committed_svgs_are_current(planned):
    out, plan = planned
    if svg.dot_path() is None:
        pytest.skip("Graphviz `dot` is not installed: SVG diagrams were not regenerated or compared "
                    "(apt-get install -y graphviz)")
    committed = sorted(COMMITTED.glob("*.svg"))
    assert committed, "diagrams/ holds no SVG: run `taskmodel diagrams` on a machine with Graphviz"
    versions = {svg.svg_version(p.read_text(encoding="utf-8")) for p in committed}
    if versions != {svg.dot_version()}:
        pytest.skip(f"the committed SVGs were rendered by Graphviz {', '.join(sorted(map(str, versions)))}, "
                    f"this machine has {svg.dot_version()}: layouts differ between versions")
    stale = [p.name for p, text in plan.files.items() if p.suffix == ".svg"
             and (not (COMMITTED / p.name).is_file() or (COMMITTED / p.name).read_text(encoding="utf-8") != text)]
    assert not stale, f"diagrams/ SVGs are stale ({', '.join(stale)}): run `taskmodel diagrams`"


def test_no_stray_files_in_diagrams(planned):
    out, plan = planned
    names = {p.name for p in plan.files} | {p.name for p, _ in plan.skipped}
    stray = sorted(p.name for p in COMMITTED.iterdir() if p.name not in names)
    assert not stray, f"diagrams/ holds files the generator does not write: {stray}"


def test_generation_is_deterministic_and_has_no_machine_paths(tmp_path):
    a = diagrams.plan_lifecycles(tmp_path / "a")
    b = diagrams.plan_lifecycles(tmp_path / "b")
    assert [(p.name, t) for p, t in a.files.items()] == [(p.name, t) for p, t in b.files.items()]
    for path, text in a.files.items():
        for bad in (str(ROOT), str(tmp_path), "/work/", "/tmp/", "/home/", "/root/"):
            assert bad not in text, f"{path.name} contains the machine path {bad!r}"
        assert not re.search(r"20\d\d-\d\d-\d\dT\d\d:\d\d", text), f"{path.name} contains a timestamp"


# ---- derived from the model, not drawn --------------------------------------------------------------
def test_every_lifecycle_is_drawn_with_every_state_and_trigger():
    gs = graph.graphs()
    for name, spec in lifecycle.LIFECYCLES.items():
        mine = [g for g in gs if g.lifecycle == name]
        assert mine, f"no diagram for the {name} lifecycle"
        g = mine[0]
        assert [n.id for n in g.nodes] == list(spec["states"])
        assert g.initial == spec["initial"]
        drawn = {(e.src, e.dst, trig) for e in g.edges for trig in e.label.split("\n")}
        for t in spec["transitions"]:
            for src in ([t["source"]] if isinstance(t["source"], str) else t["source"]):
                assert (src, t["dest"], t["trigger"]) in drawn, (name, src, t)
        text_mmd, text_dot = mermaid.to_mermaid(g), dot.to_dot(g)
        for s in spec["states"]:
            assert f'state "{s}" as {mermaid.ident(s)}' in text_mmd
            assert f'id="{name}-{s}"' in text_dot


def test_a_new_lifecycle_gets_its_diagram(monkeypatch):
    monkeypatch.setitem(lifecycle.LIFECYCLES, "demo_thing", {
        "states": ("idle", "busy", "done"), "initial": "idle",
        "transitions": ({"trigger": "go", "source": "idle", "dest": "busy"},
                        {"trigger": "finish", "source": "busy", "dest": "done"})})
    names = [g.name for g in graph.graphs()]
    assert "demo-thing-lifecycle" in names
    g = next(g for g in graph.graphs() if g.name == "demo-thing-lifecycle")
    assert [n.id for n in g.nodes if n.terminal] == ["done"]
    assert "stateDiagram-v2" in mermaid.to_mermaid(g)


def test_projection_diagram_colours_every_status_by_its_task_status():
    g = graph.projection_graph()
    legend = {label for label, _, _ in g.legend}
    for n in g.nodes:
        task = graph.task_status_of(n.id)
        assert (n.fill, n.stroke) == graph.TASK_COLOURS[task], n.id
        assert f"task status: {task}" in legend
        assert f"task: {STATUS_PROJECTION[n.id][0]}" in n.label
    mmd = mermaid.to_mermaid(g)
    assert "classDef" in mmd and "task status: input_required" in mmd


def test_request_diagram_marks_disconnects_and_the_ownership_cut():
    from model.rules import Rules
    g = graph.request_graph()
    edges = {(e.src, e.dst): e for e in g.edges if e.src != e.dst}
    # The network's disconnect cancels an open request and loses a sent response.
    for src in ("received", "streaming"):
        assert "signal" in edges[(src, "cancelled")].marks and "disconnect" in edges[(src, "cancelled")].label
    assert "signal" in edges[("sent", "lost")].marks and "disconnect" in edges[("sent", "lost")].label
    assert "signal" not in edges[("sent", "delivered")].marks
    # Ownership ends exactly where the rules release it: the whole response sent, or the request cancelled.
    cut = {(e.src, e.dst) for e in g.edges if "cut" in e.marks}
    assert cut == {("received", "sent"), ("streaming", "sent"), ("received", "cancelled"),
                   ("streaming", "cancelled")}
    assert all(Rules().releases_ownership(None, None, dst) for _, dst in cut)
    assert not Rules().releases_ownership(None, None, "stream_event")
    assert [n.id for n in g.nodes if "owning" in n.marks] == ["received", "streaming"]
    # A disconnect after the response arrived changes nothing (§G.13): drawn as a no-effect loop.
    loops = {(e.src, e.label) for e in g.edges if "no-effect" in e.marks}
    assert any(src == "delivered" and "disconnect" in label for src, label in loops)
    mmd = mermaid.to_mermaid(g)
    assert "✂ ownership ends" in mmd and "drop_in_flight · ⚡ by disconnect" in mmd


def test_mermaid_legends_claim_only_what_mermaid_draws():
    """A state diagram's edges are grey in Mermaid: an edge legend names a mark the edges carry, never a colour."""
    for g in graph.graphs():
        mmd = mermaid.to_mermaid(g)
        edges = [x for x in mmd.splitlines() if " --> " in x]
        legend = re.findall(r'state "([^"]*)" as legend_\d+', mmd)
        for label in legend:
            assert not re.match(r"(red|purple|grey|bold|dashed) edge", label), (g.name, label)
            mark = label.split()[0]
            if not mark.isascii():
                assert any(mark in x for x in edges), f"{g.name}: the legend's {mark} is on no edge"
    request = mermaid.to_mermaid(graph.request_graph())
    assert [x for x in re.findall(r'state "([^"]*)" as legend', request) if not x[0].isascii()] == [
        "⚡ a cancellation signal (a red edge in the SVG)", "✂ ownership ends (a purple edge in the SVG)"]
    assert "drop_in_flight\\n⚡ by disconnect" in dot.to_dot(graph.request_graph()), "the SVG carries the marks"


def test_readme_embeds_mermaid_and_links_svgs(planned):
    out, plan = planned
    readme = plan.files[out / "README.md"]
    for g in graph.graphs():
        assert f"({g.name}.svg)" in readme
        assert mermaid.to_mermaid(g).rstrip("\n") in readme
    assert readme.count("```mermaid") == len(graph.graphs())


# ---- a counterexample's path --------------------------------------------------------------------------
def test_trace_reader_is_tolerant():
    s = _sample()
    t = itf_trace.parse(s.trace())
    assert t.focus_run() == s.RUN
    assert t.status_path(s.RUN) == [(1, "pending"), (2, "running"), (4, "completed")]
    data = s.trace()
    data["#meta"]["focus_run"] = None
    assert itf_trace.parse(data).focus_run() == s.RUN       # the last run whose status changed
    data["#meta"]["focus_run"] = "run1"                      # a label instead of the raw id
    assert itf_trace.parse(data).focus_run() == s.RUN


def test_highlighted_path_marks_visited_states_and_the_violation():
    t = itf_trace.parse(_sample().trace())
    g = highlight.path_graph(t)
    marks = {n.id: n.marks for n in g.nodes}
    assert "visited" in marks["pending"] and "visited" in marks["running"]
    assert "violation" in marks["completed"]
    assert not marks["cancelled"]
    taken = {(e.src, e.dst) for e in g.edges if "visited" in e.marks}
    assert taken == {("pending", "running"), ("running", "completed")}
    mmd = mermaid.to_mermaid(g)
    notes = [line.split(" : ", 1)[1] for line in mmd.splitlines() if line.strip().startswith("note ")]
    assert notes and not any(":" in n for n in notes), "Mermaid cannot parse a colon in a note"
    mid = highlight.path_graph(t, upto=2)
    assert "current" in mid.node("running").marks and not any("violation" in n.marks for n in mid.nodes)


def test_traces_step_writes_lifecycle_beside_every_trace(tmp_path, capsys):
    s = _sample()
    a = s.write(tmp_path / "cx")
    b = s.write(tmp_path / "cx", variant="mrtr-grace-window")
    assert diagrams.main(["--traces", "--counterexamples", str(tmp_path / "cx")]) == 0
    for p in (a, b):
        mmd = (p.parent / "lifecycle.mmd").read_text(encoding="utf-8")
        assert "stateDiagram-v2" in mmd and "violation — OWN-2" in mmd and "▶ complete · step 4" in mmd
        assert (p.parent / "lifecycle.svg").is_file() == (svg.dot_path() is not None)
        assert str(tmp_path) not in mmd
    assert diagrams.main(["--traces", "--check", "--counterexamples", str(tmp_path / "cx")]) == 0


def test_missing_dot_is_said_never_silent(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(svg, "dot_path", lambda: None)
    s = _sample()
    s.write(tmp_path / "cx")
    code = diagrams.main(["--lifecycles", "--traces", "--out", str(tmp_path / "d"),
                          "--counterexamples", str(tmp_path / "cx")])
    err = capsys.readouterr().err
    assert code == 0
    assert "dot` not found" in err and "SVG skipped" in err and "apt-get install" in err
    assert not list((tmp_path / "d").glob("*.svg")) and list((tmp_path / "d").glob("*.mmd"))
    assert not list((tmp_path / "cx").glob("**/*.svg"))


def test_check_flag_reports_drift(tmp_path, capsys):
    out = tmp_path / "d"
    assert diagrams.main(["--lifecycles", "--out", str(out)]) == 0
    assert diagrams.main(["--lifecycles", "--check", "--out", str(out)]) == 0
    (out / "run-lifecycle.mmd").write_text("stale\n", encoding="utf-8")
    assert diagrams.main(["--lifecycles", "--check", "--out", str(out)]) == 1
    assert "run-lifecycle.mmd: differs" in capsys.readouterr().out


def test_bad_usage_exits_3(capsys):
    assert diagrams.main(["--no-such-flag"]) == 3
    assert "unrecognized arguments" in capsys.readouterr().err


def test_generate_returns_the_written_paths(tmp_path):
    paths = diagrams.generate(tmp_path)
    assert all(p.is_file() for p in paths)
    assert {p.suffix for p in paths} >= {".dot", ".mmd", ".md"}


def test_committed_counterexamples_have_current_lifecycles():
    root = ROOT / "counterexamples"
    traces = diagrams.trace_files(root)
    if not traces:
        pytest.skip("no counterexample is committed yet under counterexamples/")
    plan = diagrams.plan_traces(root)
    compare_svg = svg.dot_path() is not None and all(
        svg.svg_version(p.read_text(encoding="utf-8")) == svg.dot_version()
        for p in root.glob("**/lifecycle.svg"))
    stale = [line for line in diagrams.drift(plan) if compare_svg or not line.split(":")[0].endswith(".svg")]
    assert not stale, f"highlighted lifecycles are stale ({'; '.join(stale[:5])}): run `taskmodel diagrams`"


# ---- the sequence diagram: one definition, drawn as Mermaid and as SVG --------------------------------
def _lasso(loop: int) -> itf_trace.Trace:
    t = itf_trace.parse(_sample().trace())
    t.loop = loop
    return t


def test_sequence_svg_draws_every_event_of_the_mermaid_diagram():
    from html import unescape

    from verifier.writers.diagrams import sequence
    t = itf_trace.parse(_sample().trace())
    d = sequence.build(t)
    mmd, drawn = sequence.to_mermaid(d), unescape(sequence.to_svg(d, prefix="p-"))
    assert [i for i, _ in d.steps] == [1, 2, 3, 4]
    for i, events in d.steps:                            # a group per step, holding its events' words
        group = re.search(rf'<g class="sq-step[^"]*" data-i="{i}" id="p-sq-{i}">(.*?)</g>', drawn, re.S).group(1)
        for e in events:
            assert e.text in mmd
            assert all(w in group for w in e.text.split()), (i, e.text)
    drop = next(e for _, events in d.steps for e in events if isinstance(e, sequence.Note) and e.mark == "drop")
    assert drop.text.startswith("✂ 3.") and 'class="sq-note sq-drop"' in drawn
    assert d.verdict.mark == "violation" and "⚠ violation: OWN-2 breaks OWN-2" in drawn
    assert 'class="sq-step sq-last" data-i="4"' in drawn
    assert [lane for lane, _ in d.lanes] == ["C1", "Network", "Host"]


def test_sequence_svg_boxes_a_lasso_loop_and_notes_a_stutter():
    from verifier.writers.diagrams import sequence
    looped = sequence.to_svg(sequence.build(_lasso(1)))
    assert 'class="sq-loop"' in looped and "loops for ever from step 1: steps 2 to 4 repeat" in looped
    stutter = sequence.to_svg(sequence.build(_lasso(4)))
    assert 'class="sq-loop"' not in stutter and "stays at step 4 for ever" in stutter
    assert "loop " not in sequence.to_mermaid(sequence.build(_lasso(4)))


def test_highlighted_lifecycle_draws_every_run_of_the_trace():
    t = itf_trace.parse(_sample().trace())
    for k, status in ((3, "pending"), (4, "running")):          # a second run, started at step 3
        t.steps[k].state["runs"]["acme/BBBB"] = {"label": "run2", "status": status}
    g = highlight.path_graph(t)
    assert "the paths of run1, run2" in g.title
    edge = next(e for e in g.edges if (e.src, e.dst) == ("pending", "running"))
    assert edge.label.endswith("step 2 (run1), 4 (run2)") and "visited" in edge.marks
    assert "violation" in g.node("completed").marks            # the focus run's last state, as before
    assert g.legend[0][0] == "visited by run1, run2"
