"""docs/tutorial.md quotes generated files: every quoted block must match its committed file."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.writers import diagrams
from verifier.writers.diagrams import tutorial

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "tutorial.md"
BLOCKS = tutorial.blocks(DOC.read_text(encoding="utf-8"), ROOT) if DOC.is_file() else []


def test_the_tutorial_quotes_the_diagrams_and_three_counterexamples():
    paths = [b.path for b in BLOCKS]
    for name in ("run-lifecycle", "run-task-projection", "request-lifecycle"):
        assert f"diagrams/{name}.mmd" in paths
    traces = {p.split("/")[1] for p in paths if p.startswith("counterexamples/") and p.endswith("trace.md")}
    assert traces == {"detach-on-disconnect", "mrtr-grace-window", "baseline"}
    assert len(paths) == len(set(paths)), "a file is quoted twice"


@pytest.mark.parametrize("block", BLOCKS, ids=[b.path for b in BLOCKS])
def test_quoted_block_matches_its_file(block):
    if block.status == "missing":
        pytest.skip(f"{block.path} does not exist yet (the verifier has not committed it); the block keeps "
                    "its placeholder until `taskmodel diagrams --tutorial` quotes it")
    assert block.status == "current", (f"docs/tutorial.md quotes a stale copy of {block.path}: "
                                       "run `taskmodel diagrams --tutorial`")


def test_every_relative_link_resolves_or_names_a_counterexample():
    text = DOC.read_text(encoding="utf-8")
    for target in re.findall(r"\]\((\.\./[^)#]+)\)", text):
        path = (DOC.parent / target).resolve()
        if "/counterexamples/" in target:
            continue                      # written by the verifier; may not exist yet
        assert path.exists(), f"docs/tutorial.md links {target}, which does not exist"
    for svg in ("run-lifecycle", "run-task-projection", "request-lifecycle"):
        assert f"(../diagrams/{svg}.svg)" in text


def test_refresh_rewrites_present_files_and_keeps_placeholders(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.mmd").write_text("stateDiagram-v2\n    [*] --> x\n", encoding="utf-8")
    (tmp_path / "d" / "s.md").write_text("# Title\n\n## Steps\n\n1. one\n", encoding="utf-8")
    doc = ("intro\n<!-- include: d/a.mmd -->\nold\n<!-- end include -->\n"
           "<!-- include: d/s.md -->\n<!-- end include -->\n"
           "<!-- include: d/missing.md -->\n*placeholder*\n<!-- end include -->\nend\n")
    new, found = tutorial.refresh(doc, tmp_path)
    assert [b.status for b in found] == ["stale", "stale", "missing"]
    assert "```mermaid\nstateDiagram-v2\n    [*] --> x\n```\n<!-- end include -->" in new
    assert "### Title\n\n#### Steps\n\n1. one\n<!-- end include -->" in new
    assert "*placeholder*\n<!-- end include -->" in new
    again, found = tutorial.refresh(new, tmp_path)
    assert again == new and [b.status for b in found] == ["current", "current", "missing"]


def test_tutorial_step_of_the_generator(tmp_path, capsys):
    (tmp_path / "f.mmd").write_text("stateDiagram-v2\n", encoding="utf-8")
    doc = tmp_path / "t.md"
    doc.write_text("<!-- include: f.mmd -->\n<!-- end include -->\n", encoding="utf-8")
    import os
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert diagrams.main(["--tutorial", "--tutorial-file", "t.md", "--check"]) == 1
        assert diagrams.main(["--tutorial", "--tutorial-file", "t.md"]) == 0
        assert diagrams.main(["--tutorial", "--tutorial-file", "t.md", "--check"]) == 0
    finally:
        os.chdir(cwd)
    assert "```mermaid\nstateDiagram-v2\n```" in doc.read_text(encoding="utf-8")
