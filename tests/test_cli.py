"""The command line: exit codes, one-line errors for bad input, results written atomically."""
import json

import pytest

from verifier.cli import EXIT_USAGE, main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", [
    ["bogus"], ["check", "--budget", "x"], ["check", "--budget", "0"], ["check", "--variant", "no-such-variant"],
    ["replay", "missing.itf.json"], ["gate", "--manifest", "missing/manifest.json"],
])
def test_bad_usage_is_one_line_and_exit_3(capsys, argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == EXIT_USAGE
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_malformed_trace_file(capsys, tmp_path):
    bad = tmp_path / "t.itf.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "replay", str(bad))
    assert code == EXIT_USAGE and str(bad) in err


@pytest.mark.parametrize("body, fragment", [
    ("from model.amend import Amendment\nclass A(Amendment):\n    name = 'a'\n    def on_request_cancelled(self, world, q):\n        pass\n", "takes"),
    ("from model.amend import Amendment\nclass A(Amendment):\n    name = 'a'\n    def no_such_rule(self, world):\n        pass\n", "not a rule"),
    ("from model.amend import Amendment\nclass A(Amendment)\n    name = 'a'\n", "syntax error"),
    ("from model.amend import Amendment\nclass A(Amendment):\n    name = 'a'\n    params = {'p_nope': 1}\n", "not a model parameter"),
])
def test_broken_amendment_names_file_and_line(capsys, tmp_path, body, fragment):
    f = tmp_path / "amend.py"
    f.write_text(body)
    code, _, err = run(capsys, "check", "--variant", str(f), "--budget", "1")
    assert code == EXIT_USAGE, err
    assert "amend.py:" in err and fragment in err and len(err.strip().splitlines()) == 1


def test_list_json_names_every_requirement_id(capsys):
    from properties.requirements import REQUIREMENTS
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    data = json.loads(out)
    named = {i for p in data["properties"] for i in p["ids"]}
    assert set(REQUIREMENTS) <= named, set(REQUIREMENTS) - named


def test_requirement_copy_matches_the_shared_catalogue(shared_dir):
    import re

    from properties.requirements import REQUIREMENTS
    text = (shared_dir / "docs/requirements.md").read_text()
    rows = dict(re.findall(r"^\| ([A-Z0-9]+-[A-Z0-9]+) \| ([STLWG]) \|", text, re.M))
    assert rows == {k: v[0] for k, v in REQUIREMENTS.items()}


def test_z3_out_of_time_is_undetermined_never_holding(capsys, tmp_path):
    """A Z3 check whose wall clock runs out reports every id it did not settle undetermined, exits 2,
    and says which kind of formula each id has."""
    code, out, _ = run(capsys, "check", "--engine", "z3", "--timeout", "0.01", "--json", "--out", str(tmp_path))
    assert code == 2
    rows = json.loads(out)["results"][0]["properties"]
    assert rows and {r["verdict"] for r in rows} == {"undetermined"}
    assert {"step", "invariant"} <= {r["kind"] for r in rows} <= {"step", "invariant", "not encoded"}


def test_the_command_exits_with_its_code_its_output_whole_and_its_exit_functions_run(tmp_path):
    """`taskmodel` (`console`) leaves without freeing its objects one by one, after running what was
    registered to run at exit and writing out what it buffered: through a pipe, stdout is block
    buffered, and a lost tail would be an unreadable result."""
    import os
    import subprocess
    import sys
    probe = ("import atexit, sys; atexit.register(lambda: print('exit functions ran')); "
             "sys.argv = ['taskmodel', *sys.argv[1:]]; from verifier.cli import console; console()")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}     # buffered, as most run it
    got = subprocess.run([sys.executable, "-c", probe, "list", "--json"], capture_output=True, text=True, timeout=120,
                         env=env)
    assert got.returncode == 0
    listing, _, tail = got.stdout.rpartition("}")
    assert json.loads(listing + "}")["properties"] and tail.strip() == "exit functions ran"
    bad = subprocess.run([sys.executable, "-c", probe, "check", "--budget", "x"], capture_output=True, text=True,
                         timeout=120, env=env)
    assert bad.returncode == EXIT_USAGE and len(bad.stderr.strip().splitlines()) == 1
