"""An author's amendment is first-class: its traces record the file and its sha256, `replay --variant
FILE` replays them (saying when the file changed), a trace alone never makes the tool import a
file, and the generated reproducer finds the amendment relative to itself."""
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.writers.counterexamples import shown_path
from verifier.runtime.exitcodes import EXIT_OK, EXIT_USAGE
from verifier.cli.replay_command import replay_file

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "fixtures" / "spec_repo"
CASE = "counterexamples/spec-detach-on-disconnect/owner-cancel-cancels-run"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The sample spec repository, recorded afresh from inside it with the smallest settings (a second)."""
    spec = tmp_path_factory.mktemp("recorded") / "spec"
    shutil.copytree(SPEC, spec)
    (spec / "counterexamples" / "manifest.json").write_text(json.dumps(
        {"settings": {"chunks": 2, "examples_per_chunk": 10, "steps": 20, "budget_cap": 60, "seed": 0}}), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(spec)
        assert main(["gate", "--variants", ".", "--record", "--jobs", "1"]) == EXIT_OK
    return spec


@pytest.fixture
def repo(recorded, tmp_path, monkeypatch):
    """A copy of it each test may change, as the current folder."""
    shutil.copytree(recorded, tmp_path / "spec")
    monkeypatch.chdir(tmp_path / "spec")
    return tmp_path / "spec"


def test_trace_records_the_file_relative_to_the_current_folder_and_its_hash(repo):
    meta = json.loads((repo / CASE / "trace.itf.json").read_text(encoding="utf-8"))["#meta"]
    digest = hashlib.sha256((repo / "detach_on_disconnect.py").read_bytes()).hexdigest()
    assert meta["variant"] == "spec-detach-on-disconnect"
    assert meta["amendment"] == {"file": "detach_on_disconnect.py", "sha256": digest}


def test_a_file_outside_the_current_folder_is_recorded_by_its_name(tmp_path, monkeypatch):
    (tmp_path / "inside").mkdir()
    monkeypatch.chdir(tmp_path / "inside")
    assert shown_path(tmp_path / "elsewhere" / "x.py") == "x.py"
    assert shown_path(tmp_path / "inside" / "sub" / "x.py") == "sub/x.py"


def test_replay_with_the_amendment(repo, capsys):
    assert replay_file(repo / CASE / "trace.itf.json", "detach_on_disconnect.py") == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("replayed 2 steps of spec-detach-on-disconnect: ") and "note:" not in out


def test_replay_says_in_one_line_that_the_file_changed_and_still_replays(repo, capsys):
    with open(repo / "detach_on_disconnect.py", "a", encoding="utf-8") as f:
        f.write("# edited after the trace was recorded\n")
    assert replay_file(repo / CASE / "trace.itf.json", "detach_on_disconnect.py") == EXIT_OK
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("note: detach_on_disconnect.py differs from the amendment"), lines
    assert lines[1].startswith("replayed 2 steps")


def test_replay_with_another_amendment_says_so(repo, capsys):
    code = replay_file(repo / CASE / "trace.itf.json", "every_run_128_bits.py")
    out = capsys.readouterr().out
    assert "defines variant 'spec-every-run-128-bits', the trace was recorded on 'spec-detach-on-disconnect'" in out
    assert code == 1        # the baseline's ownership rule holds there: not reproduced


def test_replay_without_variant_refuses_an_authors_trace(repo, capsys):
    code = main(["replay", str(repo / CASE / "trace.itf.json")])
    err = capsys.readouterr().err.strip()
    assert code == EXIT_USAGE and len(err.splitlines()) == 1
    assert "'spec-detach-on-disconnect' is not built in" in err and "--variant FILE" in err


def test_a_trace_never_imports_the_file_it_names(tmp_path, monkeypatch, capsys):
    """A trace whose variant is a path to a planted file is refused; the file is never run."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "imported"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    trace = json.loads((SPEC / CASE / "trace.itf.json").read_text(encoding="utf-8"))
    for variant in ("evil.py", "./evil.py", str(tmp_path / "evil.py")):
        trace["#meta"]["variant"] = variant
        (tmp_path / "t.itf.json").write_text(json.dumps(trace), encoding="utf-8")
        assert main(["replay", str(tmp_path / "t.itf.json")]) == EXIT_USAGE
        assert "--variant FILE" in capsys.readouterr().err
    assert not marker.exists()


def test_a_builtin_trace_still_replays_by_name(capsys):
    trace = ROOT / "counterexamples" / "detach-on-disconnect" / "owner-cancel-cancels-run" / "trace.itf.json"
    assert replay_file(trace) == EXIT_OK
    assert capsys.readouterr().out.startswith("replayed 2 steps of detach-on-disconnect")


def _pytest(folder: Path, cwd: Path):
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                           "--rootdir", str(folder), str(folder)], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_reproducer_finds_its_amendment_from_any_folder(repo, tmp_path):
    r = _pytest(repo / "counterexamples", cwd=tmp_path)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr
    moved = tmp_path / "moved"
    shutil.copytree(repo, moved)        # the whole checkout elsewhere: relative paths still hold
    r = _pytest(moved / "counterexamples", cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_reproducer_fails_when_the_amendment_changed(repo, tmp_path):
    with open(repo / "detach_on_disconnect.py", "a", encoding="utf-8") as f:
        f.write("# edited\n")
    r = _pytest(repo / CASE, cwd=tmp_path)
    assert r.returncode == 1 and "record the counterexample again" in r.stdout, r.stdout
