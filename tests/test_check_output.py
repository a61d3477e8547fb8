"""What a person (or CI) reads from `taskmodel check`: one JSON object of a documented shape, the
refuted properties' steps, the expectations, the counterexamples' paths, the help and the version."""
import io
import json
from pathlib import Path

import jsonschema
import pytest

from verifier.cli import main

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "schemas/check-result.schema.json").read_text())


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_one_object_of_the_documented_shape(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check", "--variant", "detach-on-disconnect", "--examples", "50", "--json")
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert code == data["exit_code"] == 1
    (result,) = data["results"]
    own2 = next(p for p in result["properties"] if "OWN-2" in p["ids"])
    assert own2["verdict"] == "refuted" and own2["steps"] and Path(own2["trace"]).is_file()
    assert Path(own2["trace"]).resolve().is_relative_to(tmp_path / "out" / "counterexamples")
    assert result["overrides"]["on_request_cancelled"]["differed"] > 0
    assert {"id": "OWN-2", "want": "refuted", "got": ["refuted"], "met": True} in data["expectations"]
    assert json.loads((tmp_path / "out/latest-check.json").read_text()) == data


def test_z3_result_has_the_same_shape(capsys, tmp_path):
    code, out, _ = run(capsys, "check", "--engine", "z3", "--timeout", "0.01", "--json", "--out", str(tmp_path))
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert code == data["exit_code"] == 2 and data["results"][0]["engine"] == "z3"


def test_table_tells_the_refuted_steps_and_the_expectations(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check", "--variant", "detach-on-disconnect", "--examples", "50")
    assert code == 1
    assert "owner-cancel-cancels-run (OWN-2) refuted in" in out
    assert "   1. " in out and "the connection of r1 drops" in out        # numbered protocol steps
    assert "expect OWN-2 refuted: as expected" in out
    assert "trace: out/counterexamples/detach-on-disconnect/owner-cancel-cancels-run/trace.itf.json" in out


@pytest.mark.parametrize("body, want", [
    ('expect = {"OWN-2": "refuted"}', 0),      # met
    ('expect = {"CNL-1": "refuted"}', 1),      # not met: this variant breaks OWN-2, not CNL-1
])
def test_expect_decides_the_exit_code(capsys, tmp_path, monkeypatch, body, want):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "detach.py").write_text(
        "from model.amend import Amendment\n\n\nclass Detach(Amendment):\n    name = 'my-detach'\n"
        f"    {body}\n\n    def on_request_cancelled(self, world, q, cause):\n        return None\n")
    code, out, _ = run(capsys, "check", "--variant", "detach.py", "--engine", "hypothesis", "--examples", "50", "--expect")
    assert code == want, out
    assert ("as expected" if want == 0 else "unexpected") in out


def test_expect_without_expectations_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "check", "--budget", "1", "--expect")
    assert code == 3 and "expect" in err and len(err.strip().splitlines()) == 1


def test_property_column_never_folds_mid_word_at_80_columns():
    from rich.console import Console

    from verifier.cli.commands import print_result
    from verifier.engines.random.explore import explore
    from properties.base import load_catalogue
    props = list(load_catalogue().values())[:6]
    result = explore(None, budget=2, props=props, chunks=1)
    buf = io.StringIO()
    print_result(result, Console(file=buf, width=80, force_terminal=False))
    text = buf.getvalue()
    for p in props:
        assert p.name in text, p.name


def test_version_and_help(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("taskmodel ")
    code, out, err = run(capsys)
    assert code == 3 and "usage: taskmodel" in err and "exit codes" in err
    code, out, _ = run(capsys, "check", "--help")
    assert code == 0 and "exit codes" in out and "4  a fault" in out


def test_every_option_has_help():
    from verifier.cli import build_parser
    parser = build_parser()
    subs = next(a for a in parser._actions if a.dest == "command").choices
    for name, sub in subs.items():
        for action in sub._actions:
            assert action.help, (name, action.dest)


def test_heartbeat_on_a_log(capsys):
    from verifier.cli.progress import Heartbeat
    beat = Heartbeat(every=0)
    beat.beat("exploring baseline")
    assert capsys.readouterr().err == "taskmodel: exploring baseline\n"


@pytest.mark.parametrize("flag, value", [
    ("--budget", "0"), ("--budget", "-1"), ("--budget", "nan"), ("--budget", "inf"), ("--budget", "1e9"),
    ("--depth", "0"), ("--depth", "-3"), ("--steps", "0"), ("--timeout", "nan"), ("--step-timeout", "-1"),
    ("--jobs", "0"),
])
def test_meaningless_bounds_are_refused(capsys, tmp_path, monkeypatch, flag, value):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "check", flag, value)
    assert code == 3, err
    assert len(err.strip().splitlines()) == 1 and flag in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_bfs_engine_absent_is_usage(capsys, tmp_path, monkeypatch):
    import sys
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "verifier.engines.bfs.run", None)  # as in a build without it
    code, _, err = run(capsys, "check", "--engine", "bfs", "--budget", "1")
    assert code == 3 and "bfs engine is not available" in err


def test_the_search_stops_early_and_says_so_when_nothing_can_change(capsys):
    from properties.base import Property
    from verifier.cli.commands import print_result
    from verifier.engines.random.explore import explore

    def no_call(world, step):
        return "a call was made" if world.requests else None

    p = Property("never-called", ("TEST-1",), "invariant", "test", "planted", no_call)
    r = explore(None, budget=30, props=[p])
    assert r.by_name()["never-called"].verdict == "refuted"
    assert r.stopped == "every asserted property is refuted" and r.elapsed_s < 15
    from rich.console import Console
    buf = io.StringIO()
    print_result(r, Console(file=buf, width=120))
    assert "stopped early: every asserted property is refuted" in buf.getvalue()


def test_the_budget_bounds_the_whole_check(capsys, tmp_path, monkeypatch):
    import time
    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    code, out, _ = run(capsys, "check", "--variant", "completes-after-disconnect", "--budget", "2", "--json",
                       "--no-counterexamples")
    data = json.loads(out)
    assert code == 1 and data["results"][0]["budget"]["elapsed"] <= 2.5
    assert time.monotonic() - started < 10
