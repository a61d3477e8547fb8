"""A result read back (`verifier.runtime.reuse`) is the result the same work gives when done again,
says that it was read back, and is kept only where a run asks for it and the work is deterministic."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.runtime import reuse

ROOT = Path(__file__).resolve().parent.parent
TASKMODEL = Path(sys.executable).parent / "taskmodel"


def check(tmp_path, name, *argv, cache=True, hashseed="0"):
    """`taskmodel check` of the baseline's exploration in a process of its own: (exit code, its result, stderr)."""
    env = {k: v for k, v in os.environ.items() if k not in (reuse.ENV, "PYTHONHASHSEED")}
    if cache:
        env[reuse.ENV] = str(tmp_path / "results")
    if hashseed is not None:
        env["PYTHONHASHSEED"] = hashseed
    out = tmp_path / name
    got = subprocess.run([str(TASKMODEL), "check", "--examples", "50", "--out", str(out), "--no-counterexamples",
                          *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert got.returncode in (0, 2), got.stderr[-2000:]
    (result,) = json.loads((out / "check-baseline.json").read_text())["results"]
    return got.returncode, result, got.stderr


def _work(result) -> dict:
    """What the exploration found and did, its seconds and the words on reuse aside."""
    budget = {k: v for k, v in result["budget"].items() if k not in ("elapsed", "steps_per_second", "reused")}
    return {**result, "budget": budget}


def test_a_result_read_back_is_the_one_the_work_gives_again(tmp_path):
    code, first, _ = check(tmp_path, "first")
    assert first["budget"]["reused"] is None and len(list((tmp_path / "results").iterdir())) == 1
    again_code, again, _ = check(tmp_path, "again")
    assert again["budget"]["reused"].startswith("read back: the same exploration")
    fresh_code, fresh, _ = check(tmp_path, "fresh", cache=False)     # done once more, in another process
    assert fresh["budget"]["reused"] is None
    assert code == again_code == fresh_code and _work(first) == _work(again) == _work(fresh)


def test_other_settings_or_a_cap_are_other_work(tmp_path):
    check(tmp_path, "first")
    _, seeded, _ = check(tmp_path, "seeded", "--seed", "1")
    assert seeded["budget"]["reused"] is None
    assert len(list((tmp_path / "results").iterdir())) == 2
    _, capped, _ = check(tmp_path, "capped", "--budget", "600")     # a cap may cut the work: never kept
    assert capped["budget"]["reused"] is None and len(list((tmp_path / "results").iterdir())) == 2


def test_nothing_is_kept_unasked_or_where_hashing_is_random(tmp_path):
    _, unasked, _ = check(tmp_path, "unasked", cache=False)
    _, random_hash, _ = check(tmp_path, "random", hashseed=None)
    assert unasked["budget"]["reused"] is None and random_hash["budget"]["reused"] is None
    assert not (tmp_path / "results").exists()


def test_a_torn_entry_is_done_again_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv(reuse.ENV, str(tmp_path))
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    calls = []

    def work():
        calls.append(1)
        return {"answer": len(calls)}
    assert reuse.recalled("sum", (1, 2), work) == ({"answer": 1}, None)
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(entry.read_bytes()[:10])
    assert reuse.recalled("sum", (1, 2), work) == ({"answer": 2}, None)
    got, said = reuse.recalled("sum", (1, 2), work)
    assert got == {"answer": 2} and said.startswith("read back: the same sum") and len(calls) == 2
    assert reuse.recalled("sum", (1, 3), work) == ({"answer": 3}, None)      # other settings: other work


def test_an_unwritable_folder_keeps_nothing_and_says_so(tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(reuse.ENV, str(tmp_path / "file" / "results"))
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    assert reuse.recalled("sum", (1,), lambda: 5) == (5, None)
    assert "nothing kept" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["model", "properties", "verifier"])
def test_the_key_follows_the_code(tmp_path, where):
    for top in reuse.CODE:
        (tmp_path / top).mkdir()
        (tmp_path / top / "a.py").write_text("x = 1\n")
    before = reuse.code_digest(tmp_path)
    (tmp_path / where / "a.py").write_text("x = 2\n")
    edited = reuse.code_digest(tmp_path)
    shutil.copy(tmp_path / where / "a.py", tmp_path / where / "b.py")
    added = reuse.code_digest(tmp_path)
    assert len({before, edited, added}) == 3
    (tmp_path / where / "notes.txt").write_text("not code")
    assert reuse.code_digest(tmp_path) == added


def test_the_gate_reads_the_baselines_exploration_back(tmp_path, monkeypatch):
    from verifier.cli.gate import DEFAULTS
    from verifier.cli.gate_jobs import explore_one
    monkeypatch.setenv(reuse.ENV, str(tmp_path))
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    settings = {**DEFAULTS, "chunks": 2}
    first, again = explore_one("baseline", settings), explore_one("baseline", settings)
    assert "reused" not in first and again["reused"].startswith("read back")
    assert {k: v for k, v in first.items() if k != "elapsed"} == \
        {k: v for k, v in again.items() if k not in ("elapsed", "reused")}
    variant = explore_one("detach-on-disconnect", settings)     # a variant's exploration is its own
    assert "reused" not in variant and len(list(tmp_path.iterdir())) == 1
