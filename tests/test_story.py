"""Counterexamples people read: the sequence diagram's lifelines and arrows, and trace.md."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

from verifier.writers import itf
from verifier.runtime.worlds import world_factory
from verifier.writers.story import sequence, story

ARROW = re.compile(r"^\s*(\w+)(->>|-->>|-x|--x|->|-->)(\w+): (\d+)\. (.*)$")
NOTE = re.compile(r"^\s*Note over (\w+)(?:,(\w+))?: (.*)$")
CALL = ("call_tool", {"client": "C1", "server": "S1", "transport": "http", "declare": True, "tool": "flow"})


def _recorded():
    spec = importlib.util.spec_from_file_location("recorded_trace", Path(__file__).with_name("recorded_trace.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _built(steps, **meta) -> dict:
    """An ITF trace of `steps` on the baseline, with the meta a story reads."""
    head = {"variant": "baseline", "property": "demo", "ids": ["OWN-2"], "kind": "trace", "clause": "RFC §G.12",
            "sentence": "a sentence", "message": "a message", "length": len(steps), **meta}
    return itf.build(world_factory(None), [SimpleNamespace(action=a, args=b) for a, b in steps], head)


def _arrows(mmd: str) -> list[tuple[str, str, int, str]]:
    return [(m[1], m[3], int(m[4]), m[5]) for m in map(ARROW.match, mmd.splitlines()) if m]


def _notes(mmd: str) -> list[tuple[set, str]]:
    return [({m[1], m[2]} - {None}, m[3]) for m in map(NOTE.match, mmd.splitlines()) if m]


def test_a_lost_response_ends_at_the_network(tmp_path):
    folder = _recorded().record(tmp_path, *_recorded().LOST)
    mmd = (folder / "sequence.mmd").read_text(encoding="utf-8")
    lines = mmd.splitlines()
    assert lines[0] == "sequenceDiagram"
    assert [x.split()[1] for x in lines if x.strip().startswith("participant")] == ["H1", "Network", "Host"]
    arrows = _arrows(mmd)
    assert arrows[:2] == [("H1", "Network", 1, arrows[0][3]), ("Network", "Host", 1, "tools/call r1")]
    assert ("Host", "Network", 2, "host answers r1 with CreateTaskResult") in arrows
    assert not [a for a in arrows if a[2] == 3], "the drop is an event, not a message"
    assert not [a for a in arrows if a[1] == "H1" or (a[0], a[1]) == ("Network", "Host") and a[2] > 1]
    drop = [(lanes, t) for lanes, t in _notes(mmd) if t.startswith("✂ 3.")]
    assert drop and drop[0][0] == {"H1", "Network"} and "lost in the network" in drop[0][1]
    # The violation is a note on the last step, inside its highlight.
    tail = lines[lines.index("    rect rgb(254, 226, 226)"):]
    assert any("e2e-orphan-task shows the known gap E2E-1" in x for x in tail) and tail[-1].strip() == "end"


def test_an_answer_goes_host_network_client():
    data = _built([CALL, ("answer", {"request": "r1"}), ("deliver", {"request": "r1"}), ("clock_tick", {})])
    mmd = sequence(data)
    arrows = [(a, b, i) for a, b, i, _ in _arrows(mmd)]
    assert arrows == [("C1", "Network", 1), ("Network", "Host", 1), ("Host", "Network", 2), ("Network", "C1", 3)]
    arrived = next(t for a, b, i, t in _arrows(mmd) if i == 3)
    assert "reaches client C1" in arrived and "CreateTaskResult" in arrived
    assert ({"Clock"}, "4. time passes (now t=1)") in _notes(mmd)
    assert "    participant Clock" in mmd.splitlines() and "participant REST" not in mmd


def test_a_rest_caller_has_its_lifeline():
    data = _built([("rest_create", {"subject": "alice", "server": "S1"})])
    lines = sequence(data).splitlines()
    assert "    participant REST as REST caller" in lines
    assert [(a, b) for a, b, _, _ in _arrows("\n".join(lines))] == [("REST", "Host")]


def test_trace_md_embeds_the_diagram_and_every_state(tmp_path):
    folder = _recorded().record(tmp_path, *_recorded().LOST)
    md = (folder / "trace.md").read_text(encoding="utf-8")
    head = md.split("## Sequence")[0]
    assert "**Known gap**: E2E-1 (RFC §G.12–13)" in head and "e2e-orphan-task" in head
    block = re.search(r"```mermaid\n(.*?)\n```", md, re.S)
    assert block and block.group(1) + "\n" == (folder / "sequence.mmd").read_text(encoding="utf-8")
    assert md.count("<details><summary>the whole state after step") == 3 == md.count("</details>")
    state3 = md.split("the whole state after step 3")[1]
    assert "r1: client=H1" in state3 and "phase=lost" in state3 and "status=pending" in state3
    assert "   - r1.phase: sent -> lost" in md          # the step still shows only what changed
    assert "Loops" not in md


def test_a_lasso_is_told_as_a_loop():
    data = _built([CALL, ("answer", {"request": "r1"}), ("deliver", {"request": "r1"})])
    data["loop"] = 1
    mmd = sequence(data)
    lines = mmd.splitlines()
    start = next(i for i, x in enumerate(lines) if x.strip().startswith("loop "))
    assert "loops for ever from step 1" in lines[start]
    assert {int(m[4]) for m in map(ARROW.match, lines[start:]) if m} == {2, 3}
    assert lines[-1] == "    end"
    assert "- **Loops**: the behaviour loops for ever from step 1: steps 2 to 3 repeat" in story(data)
    data["loop"] = 3
    assert "stays at step 3 for ever" in story(data) and "loop " not in sequence(data)


def test_a_client_named_like_mermaid_syntax_gets_a_safe_lane():
    from verifier.writers.diagrams.sequence import _lane
    lanes: dict[str, str] = {}
    assert [_lane(n, "client", lanes) for n in ("end", "Host", "9x", "C 1")] == ["c_end", "c_Host", "c_9x", "C_1"]
    assert lanes["c_Host"] == "client Host"
