"""A spec repository gates its own amendments (`gate --variants`), and nothing is lost: `--write`
never replaces the committed counterexamples with a run that disagrees with the manifest, a
counterexample folder is swapped in whole (a SIGKILL leaves the old one or the new one), a name
never writes outside the output folder, and an unwritable output path is one line, exit 3."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.writers import counterexamples
from verifier.runtime import files
from verifier.cli import main
from verifier.runtime.exitcodes import EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED, EXIT_USAGE, UsageError

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "fixtures" / "spec_repo"
CX = "counterexamples/spec-detach-on-disconnect/owner-cancel-cancels-run"


def _taskmodel(*args, cwd=ROOT):
    env = {**os.environ, "PYTHONHASHSEED": "0"}     # as `make gate`: verdicts never depend on string hashing
    return subprocess.run([sys.executable, "-c", "import sys; from verifier.cli import main; sys.exit(main())", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


SMALL = {"chunks": 2, "examples_per_chunk": 10, "steps": 20, "budget_cap": 60, "seed": 0}


def record_small(dest: Path) -> Path:
    """A copy of the sample spec repository recorded with the smallest settings: a gate of a second."""
    shutil.copytree(SPEC, dest)
    files.write_atomic(dest / "counterexamples" / "manifest.json", json.dumps({"settings": SMALL}))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(dest)
        assert main(["gate", "--variants", ".", "--record", "--jobs", "1"]) == EXIT_OK
    return dest


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_small(tmp_path_factory.mktemp("recorded") / "spec")


@pytest.fixture
def spec(recorded, tmp_path, monkeypatch):
    shutil.copytree(recorded, tmp_path / "spec")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "spec"


def _tree(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- gate --variants ------------------------------------------------------------------------------
def test_the_sample_spec_repository_gates_clean():
    """What a spec repository's CI runs (re-record with `taskmodel gate --variants tests/fixtures/spec_repo --record`
    when the catalogue changes)."""
    r = _taskmodel("gate", "--variants", "tests/fixtures/spec_repo")
    assert r.returncode == EXIT_OK, r.stdout + r.stderr
    assert "gate: 2 variants" in r.stdout and "0 drift, 0 undetermined" in r.stdout
    assert "spec-detach-on-disconnect" in r.stdout and "spec-every-run-128-bits" in r.stdout


def test_an_unmet_expectation_is_drift(spec, capsys):
    path = spec / "every_run_128_bits.py"
    path.write_text(path.read_text(encoding="utf-8").replace(
        'expect = {"ID-G4": "holds"}', 'expect = {"ID-G4": "holds", "OWN-2": "refuted"}'), encoding="utf-8")
    assert main(["gate", "--variants", str(spec), "--jobs", "1"]) == EXIT_REFUTED
    out = capsys.readouterr().out
    # OWN-2 holds where the small exploration met every case it names, and is vacuous where it did not
    assert re.search(r"DRIFT spec-every-run-128-bits: expected OWN-2 refuted, got (holds|vacuous)\n", out), out


def test_a_verdict_other_than_recorded_is_drift(spec, capsys):
    manifest = spec / "counterexamples" / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["variants"]["spec-detach-on-disconnect"]["verdicts"]["owner-cancel-cancels-run"] = "holds"
    manifest.write_text(json.dumps(data), encoding="utf-8")
    assert main(["gate", "--variants", str(spec), "--jobs", "1"]) == EXIT_REFUTED
    assert "DRIFT spec-detach-on-disconnect: owner-cancel-cancels-run was holds, now refuted" in capsys.readouterr().out


def test_a_premise_count_that_falls_is_drift(spec, capsys):
    """A recorded premise count the run no longer reaches (here: one the manifest says was 100 times
    higher) is drift, though every verdict is unchanged."""
    manifest = spec / "counterexamples" / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    premises = data["variants"]["spec-every-run-128-bits"]["coverage"]["premises"]
    name, count = sorted(premises.items())[0]
    premises[name] = count * 100
    manifest.write_text(json.dumps(data), encoding="utf-8")
    assert main(["gate", "--variants", str(spec), "--jobs", "1"]) == EXIT_REFUTED
    out = capsys.readouterr().out
    assert (f"DRIFT spec-every-run-128-bits: coverage: premise of {name} exercised {count} times, "
            f"was {count * 100}") in out
    assert out.count("DRIFT") == 1


def test_coverage_drops_reads_both_premises_and_actions():
    from verifier.cli.gate import coverage_drops
    was = {"premises": {"a": 40, "b": 10}, "actions": {"tasks_cancel": 75}}
    now = {"premises": {"a": 10, "b": 1}, "actions": {"tasks_cancel": 1}}
    got = coverage_drops(was, now, 4)
    assert got == ["premise of b exercised 1 times, was 10 (a drop of more than 4x)",
                   "action tasks_cancel exercised 1 times, was 75 (a drop of more than 4x)"]   # a: exactly 4x
    assert coverage_drops(was, {"premises": {}, "actions": {}}, 4)[0].startswith("premise of a exercised 0")
    assert coverage_drops(None, now, 4) == []


def test_files_and_an_explicit_manifest(spec, capsys):
    code = main(["gate", "--variants", str(spec / "detach_on_disconnect.py"), "--manifest",
                 str(spec / "counterexamples" / "manifest.json"), "--jobs", "1"])
    assert code == EXIT_OK and "gate: 1 variants" in capsys.readouterr().out


def test_record_a_new_spec_repository(tmp_path, monkeypatch, capsys):
    """No verdicts yet: `--record` writes DIR/counterexamples/manifest.json and the counterexamples,
    keeping the exploration settings a manifest of settings alone gives."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "amendments").mkdir()
    shutil.copy(SPEC / "detach_on_disconnect.py", tmp_path / "amendments")
    assert main(["gate", "--variants", "amendments"]) == EXIT_USAGE       # no manifest to gate against
    assert "amendments/counterexamples/manifest.json: no manifest" in capsys.readouterr().err
    files.write_atomic("amendments/counterexamples/manifest.json", json.dumps({"settings": SMALL}))
    assert main(["gate", "--variants", "amendments", "--record", "--jobs", "1"]) == EXIT_OK
    manifest = json.loads((tmp_path / "amendments/counterexamples/manifest.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in manifest["settings"].items() if k in SMALL} == SMALL
    assert manifest["settings"]["bfs"] is False       # the exhaustive search only where a manifest opts in
    assert manifest["variants"]["spec-detach-on-disconnect"]["verdicts"]["owner-cancel-cancels-run"] == "refuted"
    assert (tmp_path / "amendments" / CX / "test_reproduce.py").is_file()


@pytest.mark.parametrize("files_, fragment", [
    ({"a.py": "detach", "b.py": "detach"}, "variant name 'spec-detach-on-disconnect' is also a.py's"),
    ({"a.py": "from model.amend import Amendment\nclass A(Amendment):\n    name = 'keep-uq4'\n"},
     "a.py:3: name 'keep-uq4' is a built-in variant's"),
    ({"notes.txt": "x"}, "no amendment file in"),
])
def test_bad_variant_sets_are_one_line_and_exit_3(tmp_path, capsys, files_, fragment):
    for name, body in files_.items():
        text = (SPEC / "detach_on_disconnect.py").read_text(encoding="utf-8") if body == "detach" else body
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["gate", "--variants", str(tmp_path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and fragment in err, err


def test_a_missing_variants_path_is_exit_3(tmp_path, capsys):
    assert main(["gate", "--variants", str(tmp_path / "nowhere")]) == EXIT_USAGE
    assert "neither a folder nor an amendment file" in capsys.readouterr().err


# ---- nothing lost -----------------------------------------------------------------------------------
def test_write_refuses_on_drift_and_keeps_the_committed_counterexamples(spec, capsys):
    before = _tree(spec / "counterexamples")
    # A budget far below the manifest's: the planned chunks never run, so the run disagrees.
    code = main(["gate", "--variants", str(spec), "--write", "--budget", "0.001", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == EXIT_REFUTED and "DRIFT" in out
    assert err.strip().splitlines() == [err.strip()] and "gate --write:" in err and "nothing written" in err
    assert _tree(spec / "counterexamples") == before


def test_record_refuses_a_run_cut_by_its_budget(spec, capsys):
    before = _tree(spec / "counterexamples")
    code = main(["gate", "--variants", str(spec), "--record", "--budget", "0.001", "--jobs", "1"])
    assert code == EXIT_UNDETERMINED
    assert "undetermined" in capsys.readouterr().err and _tree(spec / "counterexamples") == before


def test_write_without_drift_rewrites_the_counterexamples(spec):
    (spec / CX / "trace.md").unlink()
    (spec / CX / "lifecycle.mmd").write_text("written by `taskmodel diagrams`\n", encoding="utf-8")
    assert main(["gate", "--variants", str(spec), "--write", "--jobs", "1"]) == EXIT_OK
    assert (spec / CX / "trace.md").is_file()
    assert (spec / CX / "lifecycle.mmd").read_text(encoding="utf-8").startswith("written by")   # kept
    assert not [p for p in (spec / CX).parent.iterdir() if p.name.startswith(".")]


KILLER = """
import os, signal, sys
from verifier.runtime import files
point, calls = sys.argv[2], {"rename": 0, "write": 0}
real_rename, real_open = os.rename, open
def rename(a, b):
    calls["rename"] += 1
    if point == f"rename{calls['rename']}":
        os.kill(os.getpid(), signal.SIGKILL)
    real_rename(a, b)
def fake_open(path, mode="r", **kw):
    if "w" in mode:
        calls["write"] += 1
        if point == f"write{calls['write']}":
            os.kill(os.getpid(), signal.SIGKILL)
    return real_open(path, mode, **kw)
def rmtree(path, **kw):
    if point == "remove":
        os.kill(os.getpid(), signal.SIGKILL)
    real_rmtree(path, **kw)
real_rmtree = files.shutil.rmtree
files.os.rename, files.open, files.shutil.rmtree = rename, fake_open, rmtree
files.write_folder(sys.argv[1], {"a": "new a", "b": "new b", "c": "new c"})
"""


@pytest.mark.parametrize("point", ["write1", "write3", "rename1", "rename2", "remove", "never"])
def test_a_sigkill_leaves_the_old_folder_or_the_new_one(tmp_path, point):
    dest = tmp_path / "cx" / "prop"
    files.write_folder(dest, {"a": "old a", "b": "old b"})
    r = subprocess.run([sys.executable, "-c", KILLER, str(dest), point], cwd=ROOT, capture_output=True, timeout=60)
    assert r.returncode == (0 if point == "never" else -signal.SIGKILL), r.stderr
    files.recover(dest)         # what the next write does first
    got = _tree(dest)
    old, new = {"a": b"old a", "b": b"old b"}, {"a": b"new a", "b": b"new b", "c": b"new c"}
    assert got in (old, new), got
    assert got == (new if point in ("remove", "never") else old)
    assert sorted(p.name for p in dest.parent.iterdir()) == ["prop"]


def test_an_escaping_name_never_writes_outside(tmp_path):
    from model.amend import Amendment
    from verifier.runtime.worlds import world_factory
    from verifier.runtime.replay import run_trace
    from properties.base import load_catalogue

    class Escape(Amendment):        # built past `validate`, as only a writer's caller could
        name = "../../outside"

        def on_request_cancelled(self, world, q, cause):
            return None
    steps = [("harness_start", {"client": "H1", "server": "S2", "long": False}), ("disconnect", {"request": "r1"})]
    make = world_factory(Escape)
    out = run_trace(make, steps, list(load_catalogue().values()), "owner-cancel-cancels-run")
    verdict = _Verdict(out.violation)
    root = tmp_path / "a" / "b" / "cx"
    with pytest.raises(UsageError, match="would be written outside"):
        counterexamples.write(root, Escape, verdict, make, 0)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


class _Verdict:
    def __init__(self, violation):
        p = violation.prop
        self.name, self.ids, self.kind, self.clause, self.sentence = p.name, p.ids, p.kind, p.clause, p.sentence
        self.verdict, self.message, self.trace = "refuted", violation.message, violation.history


@pytest.mark.parametrize("where", ["/dev/null/x", "/proc/taskmodel/x"])
def test_an_unwritable_output_is_one_line_and_exit_3(spec, capsys, where):
    with pytest.raises(UsageError, match=f"^taskmodel: {where}/f.json: cannot be written"):
        files.write_atomic(f"{where}/f.json", "{}")
    with pytest.raises(UsageError, match=f"^taskmodel: {where}/p: cannot be written"):
        files.write_folder(f"{where}/p", {"a": "x"})
    code = main(["check", "--variant", "detach-on-disconnect", "--budget", "1", "--out", where])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert code == EXIT_USAGE and "Traceback" not in err, err
    assert last.startswith("taskmodel: ") and where in last and "cannot be written" in last, err


def test_prune_never_reaches_outside(tmp_path):
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "f").write_text("x", encoding="utf-8")
    with pytest.raises(UsageError, match="would be written outside"):
        counterexamples.prune(tmp_path / "cx", "../keep", set())
    assert (tmp_path / "keep" / "f").is_file()
