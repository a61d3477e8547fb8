"""The command line under fuzzing: malformed traces, broken and hostile amendments, odd flags.

Whatever it is given, `taskmodel` answers with an exit code of 0..4 and never a traceback; garbage
input is refused (3) or, when it runs and fails, reported as a fault (4), in one line naming the
input; nothing is written outside the output folder; and a refused run leaves earlier results as
they were. The default run is a few hundred cases; `--slow` runs thousands.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from verifier.cli import main

CODES = {0, 1, 2, 3, 4}
FAST = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), database=None)
SLOW = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
RUN = ["--budget", "0.3", "--steps", "4", "--step-timeout", "0.5", "--no-counterexamples"]


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A working folder (the cwd of every run, whose only output is out/), a folder of inputs, and
    the result of one good check written before the fuzzing starts."""
    root = tmp_path_factory.mktemp("fuzz")
    work, inputs = root / "work", root / "in"
    work.mkdir()
    inputs.mkdir()
    old = os.getcwd()
    os.chdir(work)
    try:
        code, _, _ = call("check", "--variant", "detach-on-disconnect", *RUN)
        assert code == 1
        yield work, inputs, (work / "out/latest-check.json").read_bytes()
    finally:
        os.chdir(old)


def call(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def judged(place, argv, garbage: str | None = None):
    """Run `argv` and check the contract; `garbage` names an input that must be refused (3) or
    reported as a fault (4) in one line naming it."""
    work, inputs, _ = place
    before = {p: p.read_bytes() for p in inputs.iterdir()}
    latest = work / "out/latest-check.json"
    result = latest.read_bytes()
    code, out, err = call(*argv)
    assert code in CODES, (argv, code, err)
    assert "Traceback" not in out + err, (argv, err)
    if garbage is not None:
        assert code in (3, 4), (argv, code, out, err)
        lines = err.strip().splitlines() if code == 3 else [ln for ln in (out + err).splitlines() if "fault at" in ln]
        assert len(lines) >= 1 and garbage in lines[0], (argv, out, err)
        if code == 3:
            assert len(err.strip().splitlines()) == 1, err
    assert {p.name for p in work.iterdir()} <= {"out"}, sorted(p.name for p in work.iterdir())
    assert {p: p.read_bytes() for p in inputs.iterdir()} == before
    if code == 3:
        assert latest.read_bytes() == result, argv       # a refused run leaves the last result alone
    return code, out, err


# ---- traces ---------------------------------------------------------------------------------------
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                      max_size=4), max_leaves=12)


def _state(meta):
    return {"#meta": meta}


itf_like = st.fixed_dictionaries({
    "#meta": st.fixed_dictionaries({}, optional={
        "variant": st.one_of(st.sampled_from(["baseline", "detach-on-disconnect", "no-such"]), json_values),
        "property": st.one_of(st.sampled_from(["owner-cancel-cancels-run", "OWN-2", "nope"]), json_values),
        "ids": json_values, "format": st.just("ITF")}),
    "vars": st.lists(st.text(max_size=6), max_size=3),
    "states": st.lists(st.builds(_state, st.fixed_dictionaries({}, optional={
        "action": st.one_of(st.sampled_from(["call_tool", "disconnect", "run_start", "bogus"]), json_values),
        "args": st.one_of(st.dictionaries(st.sampled_from(["client", "server", "request", "run"]),
                                          st.text(max_size=6), max_size=3), json_values),
        "index": st.integers(0, 3)})), max_size=5),
}, optional={"loop": json_values})

trace_texts = st.one_of(
    st.text(max_size=60),
    json_values.map(json.dumps),
    itf_like.map(json.dumps),
    itf_like.map(lambda d: json.dumps(d)[: len(json.dumps(d)) // 2]),    # cut off mid-way
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)


def _trace_case(place, text):
    _, inputs, _ = place
    f = inputs / "t.itf.json"
    f.write_text(text, encoding="utf-8")
    try:
        judged(place, ["replay", f])
    finally:
        f.unlink()


@FAST
@given(text=trace_texts)
def test_replay_of_malformed_traces(place, text):
    _trace_case(place, text)


@pytest.mark.slow
@SLOW
@given(text=trace_texts)
def test_replay_of_malformed_traces_long(place, text):
    _trace_case(place, text)


# ---- amendment files ------------------------------------------------------------------------------
TOKENS = ["from model.amend import Amendment\n", "class A(Amendment):\n", "    ", "name = 'a'\n", "def ", "(self",
          ", world", ", q", "):\n", "return ", "None", "super()", ".", "(", ")", ":", "\n", "import ", "sys", "1",
          "'", '"', "#", "pass\n", "lambda", "=", "[", "]", "{", "}", "yield", "raise", "\t", "é", "\x00"]
python_ish = st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)

HEAD = "import sys\nfrom model.amend import Amendment\n\n\nclass A(Amendment):\n"
names = st.one_of(st.sampled_from(["a", "", "baseline", "../x", "a/b", "detach-on-disconnect"]), st.text(max_size=12))
param_keys = st.one_of(st.sampled_from(["p_approver", "retention", "max_requests", "servers", "nope", "tenants"]),
                       st.text(max_size=8))
param_values = st.one_of(st.sampled_from(["error", "ack", -1, 0, 10 ** 9, None, "x", 2.5, (), [("S1", True)]]),
                         st.integers(-5, 50))
expects = st.dictionaries(st.one_of(st.sampled_from(["OWN-2", "CNL-1", "HNS-1", "E2E-1", "CRT-2", "XYZ-9"]),
                                    st.text(max_size=6)),
                          st.one_of(st.sampled_from(["refuted", "holds", "unreached", "reached", "broken"]),
                                    st.text(max_size=6)), max_size=3)
RULES = ["can_cancel(self, world, subject, run)", "task_id(self, world, run)", "status_message(self, world, run)",
         "on_request_cancelled(self, world, q, cause)", "after_step(self, world)", "serves_tasks(self, world, server)"]
BODIES = ["raise KeyError('k')", "sys.exit(0)", "sys.exit(3)", "return next(iter(()))", "return 1 / 0",
          "raise SystemExit", "return {'bogus': object()}", "return None", "return 'not-a-bool'",
          "raise RecursionError()", "while True:\n            pass", "import os\n        os.getcwd()"]
# Mostly well-formed, so that most cases run: a rule that raises, exits or hangs, among odd declarations.
declarations = st.fixed_dictionaries({
    "name": st.one_of(st.just("a"), names), "params": st.one_of(st.just({}), st.dictionaries(param_keys, param_values,
                                                                                            max_size=2)),
    "expect": st.one_of(st.just({}), expects), "rule": st.sampled_from(RULES), "body": st.sampled_from(BODIES),
    "with_rule": st.booleans()})


def _amendment_text(d) -> str:
    text = HEAD + f"    name = {d['name']!r}\n    params = {d['params']!r}\n    expect = {d['expect']!r}\n"
    if d["with_rule"]:
        text += f"\n    def {d['rule']}:\n        {d['body']}\n"
    return text


def _amendment_case(place, text, garbage: bool):
    _, inputs, _ = place
    f = inputs / "amend.py"
    f.write_text(text, encoding="utf-8")
    try:
        code, out, err = judged(place, ["check", "--variant", f, *RUN], garbage="amend.py" if garbage else None)
        if code == 3:
            assert "amend.py" in err
    finally:
        f.unlink()


@FAST
@given(text=python_ish)
def test_python_ish_amendment_files(place, text):
    # Mostly not an amendment at all: refused (3), naming the file. A text that happens to define
    # one is judged like any other input.
    defines = "class A(Amendment):" in text and "from model.amend import Amendment" in text
    _amendment_case(place, text, garbage=not defines)


@FAST
@given(d=declarations)
def test_declared_amendments_with_odd_names_params_expectations_and_rules(place, d):
    _amendment_case(place, _amendment_text(d), garbage=False)


@pytest.mark.slow
@SLOW
@given(d=declarations)
def test_declared_amendments_long(place, d):
    _amendment_case(place, _amendment_text(d), garbage=False)


def test_a_rule_calling_sys_exit_never_passes(place):
    _, inputs, _ = place
    f = inputs / "amend.py"
    f.write_text(HEAD + "    name = 'exits'\n\n    def can_read(self, world, subject, run):\n        sys.exit(0)\n")
    try:
        code, out, err = judged(place, ["check", "--variant", f, *RUN], garbage="amend.py")
        assert code == 4
    finally:
        f.unlink()


def test_a_rule_hanging_while_moves_are_enumerated_is_a_fault(place):
    """`status_message` is asked when the host's answers are enumerated (a CreateTaskResult carries
    it), not only when a step is taken: the watchdog bounds that enumeration too."""
    _, inputs, _ = place
    f = inputs / "amend.py"
    f.write_text(HEAD + "    name = 'hangs'\n\n    def status_message(self, world, run):\n        while True:\n"
                 "            pass\n")
    try:
        code, out, err = judged(place, ["check", "--variant", f, *RUN], garbage="amend.py")
        assert code == 4
    finally:
        f.unlink()


# ---- flags and values -----------------------------------------------------------------------------
NUMBERS = ["0", "-1", "nan", "inf", "-inf", "1e9", "x", "", "0.2", "3", "1e-9", "86401"]
FLAGS = {"--budget": NUMBERS, "--steps": NUMBERS, "--depth": NUMBERS, "--seed": NUMBERS + ["7"],
         "--step-timeout": NUMBERS, "--jobs": NUMBERS, "--engine": ["hypothesis", "bfs", "z4", ""],
         "--variant": ["no-such", "", "detach-on-disconnect", "x.py", "x.py:Y", ":"], "--scope": ["tiny", ""],
         "--expect": None, "--json": None, "--no-symmetry": None, "--bogus": None, "-": None}
flag_lists = st.lists(st.sampled_from(sorted(FLAGS)).flatmap(
    lambda f: st.just([f]) if FLAGS[f] is None else st.sampled_from(FLAGS[f]).map(lambda v: [f, v])),
    max_size=4).map(lambda xs: [x for pair in xs for x in pair])
commands = st.sampled_from(["check", "list", "rules", "replay", "bogus", "", "--version", "-h"])


def _flags_case(place, command, flags):
    argv = [command, *flags] if command else flags
    if command == "check":
        # bounded: at most a short exploration, and never the Z3 engine's long default
        argv = [*argv, "--budget", "0.3", "--steps", "4", "--no-counterexamples"] \
            if "--budget" not in flags else argv
        budget = flags[flags.index("--budget") + 1] if "--budget" in flags and flags.index("--budget") + 1 < len(flags) else None
        if budget not in (None, "0.2", "1e-9") and _is_sane(budget):
            return                              # a valid long budget: too slow for a fuzz case
        if "--steps" in flags:
            steps = flags[flags.index("--steps") + 1] if flags.index("--steps") + 1 < len(flags) else None
            if steps not in (None,) and _is_sane(steps) and float(steps) > 4:
                return
    judged(place, argv)


def _is_sane(value) -> bool:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return False
    return v == v and 0 < v <= 86400


@FAST
@given(command=commands, flags=flag_lists)
def test_flags_and_values(place, command, flags):
    _flags_case(place, command, flags)


@pytest.mark.slow
@SLOW
@given(command=commands, flags=flag_lists)
def test_flags_and_values_long(place, command, flags):
    _flags_case(place, command, flags)


def test_earlier_results_are_unchanged_by_refused_runs(place):
    work, _, _ = place
    first = (work / "out/latest-check.json").read_bytes()
    for argv in (["check", "--budget", "nan"], ["check", "--depth", "0"], ["check", "--variant", "no-such"]):
        code, _, _ = call(*argv)
        assert code == 3
    assert (work / "out/latest-check.json").read_bytes() == first
    assert Path(work / "out").is_dir()
