"""The command line under fuzzing: malformed traces, logs, mappings, manifests, amendments, flags
and outputs; huge traces; interrupts; a closed stdout; killed writes; the progress a long wait shows.

Whatever it is given, `taskmodel` answers with an exit code of the contract and never a traceback.
A malformed input is refused (3) in one line naming the file, never passed (0) nor reported as a
fault (4: that is an amendment's rule misbehaving, not its input); a flag no engine of the check
reads is refused too; a trace whose recorded states were altered does not replay (1); an output
that cannot be written (an empty path, a device, a folder where a file goes) is refused before the
work, and one that can is written whole; an interrupt ends the run with 130 and no traceback text,
wherever it lands; a closed stdout ends it quietly with 0; what a killed write staged is cleared by
the next command. Nothing is written outside the output folder, and a refused run leaves earlier
results as they were. The default run takes a couple of minutes; `--slow` runs more than two
thousand cases.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from verifier.cli import main
from verifier.writers.itf import VARS
from verifier.writers.traffic import MAPPING, walk

ROOT = Path(__file__).resolve().parent.parent
TASKMODEL = Path(sys.executable).parent / "taskmodel"
CODES = {0, 1, 2, 3, 4}
COMMANDS = {"list", "check", "replay", "gate", "swarm", "validate", "rules", "diagrams", "report"}


def cases(n: int):
    return settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)


RUN = ["--budget", "0.3", "--steps", "4", "--step-timeout", "0.5", "--no-counterexamples"]


class Place(SimpleNamespace):
    def __repr__(self):             # shown in every failing case: not the traces and logs it holds
        return f"Place({self.work})"


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A working folder (the cwd of every run, whose only output is out/), a folder of inputs, the
    result of one good check written before the fuzzing starts, the traces it wrote, and two logs
    of the model's own behaviour with their mapping."""
    root = tmp_path_factory.mktemp("fuzz")
    work, inputs = root / "work", root / "in"
    work.mkdir()
    inputs.mkdir()
    old = os.getcwd()
    os.chdir(work)
    try:
        code, _, _ = call("check", "--variant", "detach-on-disconnect", *RUN[:-1])
        assert code == 1
        traces = [p.read_text(encoding="utf-8") for p in sorted((work / "out").glob("**/trace.itf.json"))]
        assert traces
        logs = []
        for seed in (1, 2):
            world, rec = walk(seed, 8)
            logs.append(rec.lines(world, rename=True))
        yield Place(work=work, inputs=inputs, traces=traces, logs=logs, latest=work / "out/latest-check.json")
    finally:
        os.chdir(old)


def call(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def judged(place, argv, want=None, names: str | None = None, fault: str | None = None, within=None):
    """Run `argv` and check the contract: an exit code of `want` (any of 0..4 when None); exit 3 is
    one line on stderr, naming `names` when given; exit 4 a "fault at" line naming `fault`; at most
    `within` seconds; nothing written outside out/, no input changed, and a refused run leaves the
    last result as it was."""
    before = {p: p.read_bytes() for p in place.inputs.iterdir() if p.is_file()}
    result = place.latest.read_bytes()
    started = time.monotonic()
    code, out, err = call(*argv)
    elapsed = time.monotonic() - started
    assert code in CODES, (argv, code, err)
    assert "Traceback" not in out + err, (argv, err)
    if want is not None:
        assert code in want, (argv, code, out[-2000:], err)
    if code == 3:
        lines = err.strip().splitlines()
        assert len(lines) == 1 or (err.startswith("usage: taskmodel") and not set(map(str, argv)) & COMMANDS), \
            (argv, err)     # one line, unless no command was given: then the help
        assert names is None or names in lines[0], (argv, err)
        assert place.latest.read_bytes() == result, argv
    if code == 4 and fault is not None:
        lines = [ln for ln in (out + err).splitlines() if "fault at" in ln]
        assert lines and fault in lines[0], (argv, out, err)
    if within is not None:
        assert elapsed < within, (argv, elapsed)
    assert {p.name for p in place.work.iterdir()} <= {"out"}, sorted(p.name for p in place.work.iterdir())
    assert {p: p.read_bytes() for p in place.inputs.iterdir() if p.is_file()} == before
    return code, out, err


@contextlib.contextmanager
def written(place, name: str, text: str):
    f = place.inputs / name
    f.write_text(text, encoding="utf-8")
    try:
        yield f
    finally:
        f.unlink()


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                      max_size=4), max_leaves=12)


# ---- traces: garbage ---------------------------------------------------------------------------------
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
    st.sampled_from(["[]", '"x"', "5", "null", '{"states": {}}', '{"states": "x"}', nested(100_000),
                     '{"states": ' + nested(5_000) + "}"]),
)


def _replay(place, text, want, names="t.itf.json"):
    with written(place, "t.itf.json", text) as f:
        return judged(place, ["replay", f], want=want, names=names)


@cases(40)
@given(text=trace_texts)
def test_replay_of_garbage_is_refused(place, text):
    _replay(place, text, {3})


@pytest.mark.slow
@cases(300)
@given(text=trace_texts)
def test_replay_of_garbage_is_refused_long(place, text):
    _replay(place, text, {3})


# ---- traces: a real trace, changed ----------------------------------------------------------------------
BAD_VALUES = [{"#bigint": 5}, {"#bigint": "x"}, {"#bigint": "1.5"}, {"#tup": "s"}, {"#set": {}}, {"#map": [[1]]},
              {"#map": "x"}, {"#unserializable": "x"}, 1.5, None, {"#bigint": "1", "#tup": []}, {"#foo": 1}]
BAD_ACTIONS = ["bogus", "", 5, None, [], {}, True, "run_start" + "x" * 100]
BAD_ARGS = [5, "x", [], None, {"client": [1]}, {"client": 1.5}, {"client": None}, {"client": {}}]
BAD_META = [("property", "nope"), ("property", ""), ("property", 5), ("property", None), ("property", "OWN-99"),
            ("variant", 5), ("variant", None), ("variant", []), ("variant", "no-such-variant"), ("variant", "evil.py"),
            ("ids", 5), ("ids", [1]), ("ids", "x"), ("scope", 5), ("scope", "nope"), ("scope", "host-small,tenants=()"),
            ("scope", "host-small,max_runs=-1"), ("scope", "host-small,x"), ("amendment", 5),
            ("amendment", {"sha256": 5})]


def _path_into(value, draw):
    """A random container inside `value` and a key of it, or None (the value itself)."""
    where = None
    while isinstance(value, (dict, list)) and value and draw(st.booleans()):
        key = draw(st.sampled_from(list(value) if isinstance(value, dict) else range(len(value))))
        where, value = (value, key), value[key]
    return where


def _structure(data, draw):
    states = data["states"]
    i = draw(st.integers(0, len(states) - 1))
    kind = draw(st.sampled_from(["top", "states", "state", "no-var", "extra-var", "vars", "params", "loop",
                                 "extra-key", "no-member", "state-meta", "index"]))
    if kind == "top":
        return draw(st.sampled_from([[], "x", 5, None, [data]]))
    if kind == "states":
        data["states"] = draw(st.sampled_from([{}, "x", 5, [], None]))
    elif kind == "state":
        states[i] = draw(st.sampled_from([[], "x", 5, None]))
    elif kind == "no-var":
        del states[i][draw(st.sampled_from(VARS))]
    elif kind == "extra-var":
        states[i]["extra"] = []
    elif kind == "vars":
        data["vars"] = draw(st.sampled_from([[], "x", VARS[:-1], [*VARS, "x"], [1, "x"]]))
    elif kind == "params":
        data["params"] = draw(st.sampled_from([["p"], 5, "x"]))
    elif kind == "loop":
        data["loop"] = draw(st.sampled_from([-1, len(states), "1", 1.5, True, None, [0]]))
    elif kind == "extra-key":
        data["extra"] = 1
    elif kind == "no-member":
        del data[draw(st.sampled_from(["#meta", "vars", "states"]))]
    elif kind == "state-meta":
        states[i]["#meta"] = draw(st.sampled_from([5, "x", [], None]))
    else:
        states[i]["#meta"]["index"] = draw(st.sampled_from([i + 1, -1, "0", None]))
    return data


def _altered(state, draw):
    """A change to `state` that leaves it well-formed ITF but surely different."""
    kind = draw(st.sampled_from(["clock", "effects", "add", "drop", "field"]))
    tables = [t for t in ("runs", "requests", "interrupts") if state[t]["#map"]]
    if kind in ("clock", "effects") or (kind in ("drop", "field") and not tables):
        var = "clock" if kind != "effects" else "effects"
        state[var] = {"#bigint": str(int(state[var]["#bigint"]) + draw(st.integers(1, 9)))}
    elif kind == "add":
        state[draw(st.sampled_from(["runs", "requests", "interrupts"]))]["#map"].append(["zz", {"label": "zz"}])
    else:
        rows = state[draw(st.sampled_from(tables))]["#map"]
        row = draw(st.sampled_from(rows))
        if kind == "drop":
            rows.remove(row)
        else:
            field = draw(st.sampled_from(sorted(k for k, v in row[1].items() if isinstance(v, str))))
            row[1][field] += "-altered"


@st.composite
def changed_traces(draw, texts):
    """(text, the exit codes it may get) of a real trace changed one way."""
    text = draw(st.sampled_from(texts))
    data = json.loads(text)
    states = data["states"]
    i = draw(st.integers(0, len(states) - 1))
    step = draw(st.integers(1, len(states) - 1)) if len(states) > 1 else None
    kind = draw(st.sampled_from(["same", "bad-value", "bad-value", "altered", "altered", "action", "args", "meta",
                                 "structure", "structure", "deep", "json"]))
    if kind == "same":            # as written, or its members in another order and spacing
        if draw(st.booleans()):
            data = dict(reversed(list(data.items())))
        return json.dumps(data, indent=draw(st.sampled_from([None, 0, 2]))), {0}
    if kind == "bad-value":
        var = draw(st.sampled_from(VARS))
        where = _path_into(states[i][var], draw)
        bad = draw(st.sampled_from(BAD_VALUES))
        if where is None:
            states[i][var] = bad
        else:
            where[0][where[1]] = bad
        return json.dumps(data), {3}
    if kind == "altered":
        _altered(states[i], draw)
        return json.dumps(data), {1}
    if kind == "action" and step is not None:
        states[step]["#meta"]["action"] = draw(st.sampled_from(BAD_ACTIONS))
        return json.dumps(data), {3}
    if kind == "args" and step is not None:
        states[step]["#meta"]["args"] = draw(st.sampled_from(BAD_ARGS))
        return json.dumps(data), {3}
    if kind == "meta":
        key, value = draw(st.sampled_from(BAD_META))
        data["#meta"][key] = value
        return json.dumps(data), {3}
    if kind == "deep":
        var = draw(st.sampled_from(VARS))
        states[i][var] = "@DEEP@"
        return json.dumps(data).replace('"@DEEP@"', nested(draw(st.sampled_from([101, 2_000, 100_000])))), {3}
    if kind == "json":
        plain = json.dumps(data)
        how = draw(st.sampled_from(["nan", "cut", "more", "twice"]))
        if how == "nan":
            return plain.replace('{"#bigint": "0"}', draw(st.sampled_from(["NaN", "Infinity", "1e999", "1" * 5000])),
                                 1), {3}
        if how == "cut":
            return plain[:draw(st.integers(0, len(plain) - 1))], {3}
        if how == "more":
            return plain + draw(st.sampled_from(["x", "{}", ",", "]"])), {3}
        return plain[:-1] + ', "#meta": {}}', {3}
    return json.dumps(_structure(data, draw)), {3}


@pytest.fixture(scope="module")
def changed(place):
    return changed_traces(place.traces)


def _changed_case(place, case):
    text, want = case
    _, out, _ = _replay(place, text, want)
    if want == {1}:
        assert "differs from the one recorded" in out, out


@cases(60)
@given(data=st.data())
def test_a_changed_trace_is_refused_or_does_not_replay(place, changed, data):
    _changed_case(place, data.draw(changed))


@pytest.mark.slow
@cases(500)
@given(data=st.data())
def test_a_changed_trace_is_refused_or_does_not_replay_long(place, changed, data):
    _changed_case(place, data.draw(changed))


def test_a_huge_trace_is_read_as_a_stream_and_stops_at_its_divergence(place, tmp_path):
    """About 30 MB repeating one step: the replay reads one state at a time and stops at step 2."""
    data = json.loads(place.traces[0])
    first, repeated = data["states"][0], data["states"][1]
    n = 30 * 2 ** 20 // len(json.dumps(repeated))
    with open(tmp_path / "huge.itf.json", "w", encoding="utf-8") as f:
        f.write(json.dumps({k: v for k, v in data.items() if k != "states"})[:-1] + ', "states": [')
        f.write(json.dumps(first))
        for i in range(1, n + 1):
            f.write(", " + json.dumps({**repeated, "#meta": {**repeated["#meta"], "index": i}}))
        f.write("]}")
    # The child's peak memory, measured from a process whose only child it is.
    probe = ("import resource, subprocess, sys, time; t = time.monotonic(); "
             "r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "print(r.returncode, time.monotonic() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
             "print(r.stdout + r.stderr)")
    got = subprocess.run([sys.executable, "-c", probe, str(TASKMODEL), "replay", str(tmp_path / "huge.itf.json")],
                         capture_output=True, text=True, timeout=600)
    head, text = got.stdout.split("\n", 1)
    code, seconds, kilobytes = head.split()
    assert int(code) == 1 and "diverges at step 2" in text, got.stdout
    assert float(seconds) < 60 and int(kilobytes) < 300 * 1024, head


def test_a_trace_above_the_size_limit_is_refused(place, monkeypatch):
    from verifier.writers import itf_read
    monkeypatch.setattr(itf_read, "MAX_BYTES", 1000)
    _replay(place, place.traces[0], {3}, names="a trace file may hold")


# ---- traffic logs and mappings -------------------------------------------------------------------------
BAD_FIELDS = [("t", '"1"'), ("t", "null"), ("t", "true"), ("t", "[]"), ("t", "-1"), ("t", "NaN"), ("t", "Infinity"),
              ("t", "-Infinity"), ("t", "1e999"), ("t", "1" * 5000), ("event", "5"), ("event", '"nope"'), ("conn", "5"), ("conn", '""'),
              ("seq", "-1"), ("seq", "1.5"), ("seq", '"x"'), ("dir", '"up"'), ("transport", '"ftp"'), ("how", '"x"'),
              ("http", '{"status": 99}'), ("http", '{"status": "200"}'), ("message", "[]"),
              ("message", '{"jsonrpc": "1.0"}'), ("zzz", "1"), ("data", '{"x": ' + nested(150) + "}")]
BAD_MAPPINGS = ["[]", '"x"', "5", "null", "{", '{"tokens": []}', '{"tokens": {"t": "eve"}}', '{"tokens": {"t": 5}}',
                '{"tokens": {}, "server": "S3"}', '{"tokens": {}, "server": NaN}', '{"tokens": {}, "extra": 1}',
                '{"tokens": {}, "mounts": []}', '{"tokens": {}, "ignore": "ping"}', '{"tokens": ' + nested(150) + "}",
                '{"tokens": {"a": ' + nested(100_000) + "}}", "{}", '{"tokens": {}}', '{"tokens": {}, "server": "S1"}']


def _with_field(line: str, key: str, raw: str) -> str:
    """The JSON object `line` with member `key` set to the JSON text `raw` (NaN and the rest kept as written)."""
    data = json.loads(line)
    data[key] = "@RAW@"
    return json.dumps(data).replace('"@RAW@"', raw)


@st.composite
def logs_and_mappings(draw, logs):
    """(log lines, mapping text, the file a refusal names or None for a well-formed pair)."""
    lines = list(draw(st.sampled_from(logs)))
    mapping = json.dumps(MAPPING)
    kind = draw(st.sampled_from(["same", "field", "field", "field", "backwards", "server", "deep", "garbage",
                                 "header", "mapping", "mapping"]))
    k = draw(st.integers(1, len(lines) - 1))
    if kind == "same":
        return lines, mapping, None
    if kind == "field":
        key, raw = draw(st.sampled_from(BAD_FIELDS))
        lines[k] = _with_field(lines[k], key, raw)
    elif kind == "backwards":
        later = [j for j in range(2, len(lines)) if json.loads(lines[j - 1])["t"] > 0]
        j = draw(st.sampled_from(later))
        lines[j] = _with_field(lines[j], "t", str(json.loads(lines[j - 1])["t"] / 2))
    elif kind == "server":
        lines[0] = _with_field(lines[0], "server", draw(st.sampled_from(['"S9"', '"/nope"', '""', '"s1"'])))
    elif kind == "deep":
        lines[k] = draw(st.sampled_from([nested(150), nested(100_000), '{"event": "run", "t": 1, "data": '
                                         + '{"a": ' * 120 + "1" + "}" * 121]))
    elif kind == "garbage":
        lines.insert(k, draw(st.text(min_size=1, max_size=30).filter(lambda s: s.strip() and "\n" not in s
                                                                    and "\r" not in s)))
    elif kind == "header":
        lines.insert(k, lines[0])
    else:
        return lines, draw(st.sampled_from(BAD_MAPPINGS)), "map.json"
    return lines, mapping, "log.jsonl"


@pytest.fixture(scope="module")
def log_cases(place):
    return logs_and_mappings(place.logs)


def _log_case(place, case):
    lines, mapping, refused = case
    text = "\n".join(lines) + "\n"
    if refused is None:
        want = {0, 1, 2}
    else:
        want = {3}
        assert not all(s.isspace() for s in text)
    with written(place, "log.jsonl", text) as log, written(place, "map.json", mapping) as m:
        judged(place, ["validate", log, "--map", m], want=want, names=refused)


@cases(40)
@given(data=st.data())
def test_validate_refuses_malformed_logs_and_mappings(place, log_cases, data):
    _log_case(place, data.draw(log_cases))


@pytest.mark.slow
@cases(300)
@given(data=st.data())
def test_validate_refuses_malformed_logs_and_mappings_long(place, log_cases, data):
    _log_case(place, data.draw(log_cases))


# ---- gate manifests ---------------------------------------------------------------------------------
BAD_MANIFESTS = [
    [], "x", 5, None, {"settings": []}, {"settings": {"chunks": "x"}}, {"settings": {"chunks": 0}},
    {"settings": {"steps": 5000}}, {"settings": {"budget_cap": -1}}, {"settings": {"bfs": "yes"}},
    {"settings": {"seed": 1.5}}, {"settings": {"per_variant": []}}, {"settings": {"per_variant": {"x": 5}}},
    {"settings": {"per_variant": {"x": {"bfs_scopes": {"host-small": "NTF-2"}}}}}, {"settings": {"nope": 1}},
    {"variants": []}, {"variants": {"baseline": {}}}, {"variants": {"baseline": {"verdicts": {"x": 5}}}},
    {"variants": {"baseline": {"verdicts": {}, "lengths": {"x": -1}}}},
    {"variants": {"baseline": {"verdicts": {}, "coverage": {"premises": []}}}},
    {"variants": {"baseline": {"verdicts": {}, "bfs": {"host-small": {"verdicts": {}, "depth": "x"}}}}},
    {"variants": {"baseline": {"verdicts": {}, "bfs": []}}}, {"extra": 1},
    {}, {"variants": {}}, {"settings": {}}, {"settings": {"seed": -1}, "variants": {}},
    {"settings": {}, "variants": {"no-such-variant": {"verdicts": {}}}},
    {"settings": {}, "variants": {"baseline": {"verdicts": {"no-such-property": "holds"}}}},
    {"settings": {}, "variants": {"baseline": {"verdicts": {}, "lengths": {"no-such-property": 3}}}},
    {"settings": {}, "variants": {"baseline": {"verdicts": {}, "bfs": {"host-small": {"verdicts": {"x": "proved"}}}}}},
    {"settings": {"per_variant": {"no-such-variant": {"chunks": 2}}}, "variants": {}},
]
manifest_texts = st.one_of(
    st.sampled_from(BAD_MANIFESTS).map(lambda m: (json.dumps(m), "m.json")),
    st.sampled_from(['{"settings": {"budget_cap": NaN}}', '{"settings": {"chunks": 1e999}}', '{"settings": ',
                     '{"settings": {"seed": ' + "1" * 5000 + "}}",
                     '{"variants": ' + nested(200) + "}", nested(100_000)]).map(lambda t: (t, "m.json")),
    json_values.map(lambda v: (json.dumps(v), None)),     # may happen to be a manifest: then --only is refused
)


def _manifest_case(place, case):
    text, refused = case
    with written(place, "m.json", text) as m:
        judged(place, ["gate", "--manifest", m, "--only", "no-such-variant", "--jobs", "1"], want={3}, names=refused,
               within=30)


@cases(40)
@given(case=manifest_texts)
def test_gate_refuses_malformed_manifests(place, case):
    _manifest_case(place, case)


@pytest.mark.slow
@cases(200)
@given(case=manifest_texts)
def test_gate_refuses_malformed_manifests_long(place, case):
    _manifest_case(place, case)


def test_gate_names_the_manifest_of_a_scope_it_cannot_search(place):
    text = json.dumps({"settings": {"bfs": True, "per_variant": {
        "detach-on-disconnect": {"bfs_scopes": {"nope": ["OWN-2"]}}}}})
    with written(place, "m.json", text) as m:
        judged(place, ["gate", "--manifest", m, "--only", "detach-on-disconnect"], want={3}, names="m.json", within=30)


@pytest.mark.parametrize("flags, words", [
    (["--jobs", "0"], "--jobs"), (["--jobs", "-4"], "--jobs"), (["--jobs", "257"], "--jobs"),
    (["--budget", "-1"], "--budget"), (["--budget", "0"], "--budget"), (["--budget", "nan"], "--budget"),
    (["--budget", "inf"], "--budget"), (["--budget", "86401"], "--budget"), (["--only"], "--only"),
    (["--only", "--jobs", "1"], "--only"), (["--record", "--manifest", "/dev/null/m.json"], "--manifest"),
    (["--cluster", ""], "--cluster"), (["--cluster", "abc"], "--cluster"), (["--cluster", "h:99999"], "--cluster"),
    (["--manifest", ""], "--manifest"),
])
def test_gate_flags_are_refused_at_once(place, flags, words):
    judged(place, ["gate", *flags], want={3}, names=words, within=10)


@pytest.mark.parametrize("flags, words", [
    (["--searches", "0"], "--searches"), (["--examples", "-1"], "--examples"), (["--states", "0"], "--states"),
    (["--searches", "x"], "--searches"), (["--budget", "nan"], "--budget"),
    (["--redis", "abc"], "--redis"), (["--redis", ""], "--redis"), (["--redis", "redis://h:99999"], "--redis"),
    (["--cluster", ""], "--cluster"), (["--out", ""], "--out"), (["--counterexamples", ""], "--counterexamples"),
])

def test_swarm_flags_are_refused_at_once(place, flags, words):
    judged(place, ["swarm", *flags], want={3}, names=words, within=10)

@pytest.mark.parametrize("argv, words", [
    (["check", "--engine", "hypothesis", "--cluster", "abc"], "--cluster"),
    (["check", "--cluster", "auto"], "--cluster"),                 # the baseline's check runs hypothesis alone
    (["check", "--engine", "z3", "--scope", "host-small"], "--scope"),
    (["check", "--engine", "bfs", "--examples", "10"], "--examples"),
    (["check", "--depth", "3"], "--depth"), (["check", "--max-states", "10"], "--max-states"),
    (["check", "--engine", "bfs", "--rlimit", "10"], "--rlimit"), (["check", "--timeout", "5"], "--timeout"),
    (["check", "--no-symmetry"], "--no-symmetry"), (["check", "--engine", "z3", "--no-por"], "--no-por"),
    (["check", "--engine", "bfs", "--cluster", ""], "--cluster"),
    (["check", "--engine", "bfs", "--scope", "host-small,"], "--scope"),
    (["check", "--engine", "bfs", "--scope", "host-small,,max_runs=2"], "--scope"),
    (["check", "--engine", "bfs", "--scope", "host-small,max_runs=" + "1" * 31], "--scope"),
    (["check", "--engine", "bfs", "--scope", "host-small,max_runs=10**30"], "--scope"),
    (["check", "--out", ""], "--out"), (["check", "--counterexamples", ""], "--counterexamples"),
    (["check", "--budget", ""], "--budget"),
])
def test_check_flags_no_engine_reads_or_malformed_are_refused_at_once(place, argv, words):
    judged(place, argv, want={3}, names=words, within=10)


# ---- outputs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, flag", [
    (["check", "--counterexamples", "/dev/null/x", "--budget", "60"], "--counterexamples"),
    (["check", "--out", "/dev/null/x", "--budget", "60"], "--out"),
    (["check", "--out", "IN/afile", "--budget", "60"], "--out"),
    (["check", "--out", "IN/afile/sub", "--budget", "60"], "--out"),
    (["check", "--out", "a\x00b", "--budget", "60"], "--out"),
    (["check", "--out", "/proc/x", "--budget", "60"], "--out"),     # a folder whose bits allow root, not mkdir
    (["check", "--engine", "bfs", "--counterexamples", "IN/afile", "--budget", "60"], "--counterexamples"),
    (["swarm", "--out", "/dev/null/x", "--budget", "60"], "--out"),
    (["report", "--out", "/dev/null/x"], "--out"),
    (["report", "--out", "IN"], "--out"),
    (["diagrams", "--out", "/dev/null/x"], "--out"),
    (["diagrams", "--out", ""], "--out"),
    (["report", "--out", ""], "--out"),
    (["report", "--out", "/dev/full"], "--out"),          # a device where a file goes: the work would be lost
    (["report", "--out", "/dev/null"], "--out"),
    (["diagrams", "--tutorial", "--tutorial-file", "/proc/x.json"], "--tutorial-file"),
    (["diagrams", "--tutorial", "--tutorial-file", "IN"], "--tutorial-file"),
    (["diagrams", "--tutorial", "--tutorial-file", "/dev/full"], "--tutorial-file"),
    (["check", "--out", "/dev/full", "--budget", "60"], "--out"),
])
def test_unwritable_outputs_are_refused_before_the_work(place, argv, flag):
    with written(place, "afile", "x"):
        argv = [a.replace("IN", str(place.inputs)) for a in argv]
        judged(place, argv, want={3}, names=flag, within=10)


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
# Rules that never answer as a rule must (a coroutine, a generator) or take other parameters.
BAD_RULES = ["async def can_read(self, world, subject, run):\n        return True",
             "def can_read(self, world, subject, run):\n        yield True",
             "async def can_read(self, world, subject, run):\n        yield True",
             "def can_read(self, world, subject, *run):\n        return True",
             "def can_read(self, world, subject, run, **kw):\n        return True",
             "def can_read(self, world, run):\n        return True",
             "def can_read(self, world, subject, run, extra):\n        return True",
             "async def task_id(self, world, run):\n        return 'x'",
             "def after_step(self, world):\n        yield from ()"]
HARNESS = ("from model.harness import HarnessRules\n\n\nclass H(HarnessRules):\n    {rule}\n\n\n"
           "class A(Amendment):\n    name = 'a'\n    harness_rules = H\n")
BAD_HARNESS_RULES = ["async def tasks_offered(self, world, client, server):\n        return True",
                     "def tasks_offered(self, world, client, server):\n        yield True",
                     "def tasks_offered(self, world, server):\n        return True"]
bad_rule_files = st.one_of(
    st.sampled_from(BAD_RULES).map(lambda r: HEAD + "    name = 'a'\n\n    " + r + "\n"),
    st.sampled_from(BAD_HARNESS_RULES).map(lambda r: "from model.amend import Amendment\n" + HARNESS.format(rule=r)))


def _amendment_text(d) -> str:
    text = HEAD + f"    name = {d['name']!r}\n    params = {d['params']!r}\n    expect = {d['expect']!r}\n"
    if d["with_rule"]:
        text += f"\n    def {d['rule']}:\n        {d['body']}\n"
    return text


def _amendment_case(place, text, want=None, garbage: bool = False):
    with written(place, "amend.py", text) as f:
        code, _, err = judged(place, ["check", "--variant", f, *RUN], want=want or ({3, 4} if garbage else None),
                              names="amend.py", fault="amend.py" if garbage else None)
        if code == 3:
            assert "amend.py" in err


@cases(40)
@given(text=python_ish)
def test_python_ish_amendment_files(place, text):
    # Mostly not an amendment at all: refused (3), naming the file. A text that happens to define
    # one is judged like any other input.
    defines = "class A(Amendment):" in text and "from model.amend import Amendment" in text
    _amendment_case(place, text, garbage=not defines)


@pytest.mark.slow
@cases(300)
@given(text=python_ish)
def test_python_ish_amendment_files_long(place, text):
    defines = "class A(Amendment):" in text and "from model.amend import Amendment" in text
    _amendment_case(place, text, garbage=not defines)


@cases(10)
@given(d=declarations)
def test_declared_amendments_with_odd_names_params_expectations_and_rules(place, d):
    _amendment_case(place, _amendment_text(d))


@pytest.mark.slow
@cases(150)
@given(d=declarations)
def test_declared_amendments_long(place, d):
    _amendment_case(place, _amendment_text(d))


@cases(12)
@given(text=bad_rule_files)
def test_async_generator_and_misshapen_rules_are_refused(place, text):
    _amendment_case(place, text, want={3})


@pytest.mark.slow
@cases(100)
@given(text=bad_rule_files)
def test_async_generator_and_misshapen_rules_are_refused_long(place, text):
    _amendment_case(place, text, want={3})


def test_a_rule_calling_sys_exit_never_passes(place):
    with written(place, "amend.py", HEAD + "    name = 'exits'\n\n    def can_read(self, world, subject, run):\n"
                                          "        sys.exit(0)\n") as f:
        judged(place, ["check", "--variant", f, *RUN], want={4}, fault="amend.py")


def test_a_rule_hanging_while_moves_are_enumerated_is_a_fault(place):
    """`status_message` is asked when the host's answers are enumerated (a CreateTaskResult carries
    it), not only when a step is taken: the watchdog bounds that enumeration too (under a cap the
    step timeout comes first: a cap that came first would make it undetermined, time cap), in the
    random engine and in the partitioned search of one scope, which stops there with the fault
    located in the amendment (not in the search's graph of a state never expanded). One scope from
    scratch: the default plan's every scope, each stored graph built first on a fresh clone, may
    take longer than the cap."""
    with written(place, "amend.py", HEAD + "    name = 'hangs'\n\n    def status_message(self, world, run):\n"
                                          "        while True:\n            pass\n") as f:
        for engine in (["--engine", "hypothesis"], ["--engine", "bfs", "--scope", "host-small", "--no-incremental",
                                                     "--jobs", "2"]):
            judged(place, ["check", "--variant", f, *RUN, "--budget", "30", *engine], want={4}, fault="amend.py")


UNPRINTABLE = "class E(Exception):\n    def __str__(self):\n        raise RuntimeError('no text')\n\n\n"


def test_an_exception_whose_text_raises_is_told_in_one_line(place):
    """Raised at import, it is the file's doing (3); raised by a rule, a fault (4): either way in one
    line naming the file, the exception's own `__str__` raising too."""
    with written(place, "amend.py", UNPRINTABLE + "raise E()\n") as f:
        _, _, err = judged(place, ["check", "--variant", f, *RUN], want={3}, names="amend.py")
        assert "E: (its message could not be made: RuntimeError)" in err, err
    with written(place, "amend.py", HEAD.replace("class A(", UNPRINTABLE + "class A(") +
                 "    name = 'unprintable'\n\n    def can_read(self, world, subject, run):\n        raise E()\n") as f:
        judged(place, ["check", "--variant", f, *RUN], want={4}, fault="amend.py")


# ---- flags and values -----------------------------------------------------------------------------
NUMBERS = ["0", "-1", "-4", "nan", "inf", "-inf", "1e9", "x", "", "0.2", "3", "1e-9", "86401"]
FLAGS = {"--budget": NUMBERS, "--steps": NUMBERS, "--depth": NUMBERS, "--seed": NUMBERS + ["7"],
         "--step-timeout": NUMBERS, "--jobs": NUMBERS, "--engine": ["hypothesis", "bfs", "z4", ""],
         "--variant": ["no-such", "", "detach-on-disconnect", "x.py", "x.py:Y", ":"], "--scope": ["tiny", ""],
         "--map": ["MAP", "IN/nope.json", "IN"], "--only": None, "--manifest": ["IN/nope.json", "IN"],
         "--expect": None, "--json": None, "--no-symmetry": None, "--no-por": None, "--record": None, "--bogus": None, "-": None}
flag_lists = st.lists(st.sampled_from(sorted(FLAGS)).flatmap(
    lambda f: st.just([f]) if FLAGS[f] is None else st.sampled_from(FLAGS[f]).map(lambda v: [f, v])),
    max_size=4).map(lambda xs: [x for pair in xs for x in pair])
commands = st.sampled_from(["check", "list", "rules", "replay", "validate", "gate", "bogus", "", "--version", "-h"])


def _flags_case(place, command, flags):
    with written(place, "map.json", json.dumps(MAPPING)) as m, \
            written(place, "log.jsonl", "\n".join(place.logs[0]) + "\n") as log, \
            written(place, "t.itf.json", place.traces[0]) as trace:
        flags = [str(m) if f == "MAP" else f.replace("IN", str(place.inputs)) for f in flags]
        argv = [command, *flags] if command else flags
        if command == "replay":
            argv = [command, trace, *flags]
        elif command == "validate":
            argv = [command, log, *flags]
        elif command == "gate" and "--only" not in flags:
            argv = [*argv, "--only", "no-such-variant"]     # whatever else it is given, never a whole gate
        elif command == "check":
            # bounded: at most a short exploration, and never the Z3 engine's long default
            budget = _last(flags, "--budget")
            if budget is None:
                argv = [*argv, "--budget", "0.3", "--steps", "4", "--no-counterexamples"]
            elif budget not in ("0.2", "1e-9") and _is_sane(budget):
                return                              # a valid long budget: too slow for a fuzz case
            steps = _last(flags, "--steps")
            if _is_sane(steps) and float(steps) > 4:
                return
        judged(place, argv)


def _last(flags: list[str], flag: str) -> str | None:
    """The value argparse takes for `flag`: the one after its last occurrence."""
    at = [i for i, f in enumerate(flags[:-1]) if f == flag]
    return flags[at[-1] + 1] if at else None


def _is_sane(value) -> bool:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return False
    return v == v and 0 < v <= 86400


@cases(30)
@given(command=commands, flags=flag_lists)
def test_flags_and_values(place, command, flags):
    _flags_case(place, command, flags)


@pytest.mark.slow
@cases(300)
@given(command=commands, flags=flag_lists)
def test_flags_and_values_long(place, command, flags):
    _flags_case(place, command, flags)


def test_earlier_results_are_unchanged_by_refused_runs(place):
    first = place.latest.read_bytes()
    for argv in (["check", "--budget", "nan"], ["check", "--depth", "0"], ["check", "--variant", "no-such"],
                 ["check", "--out", "/dev/null/x"]):
        code, _, _ = call(*argv)
        assert code == 3
    assert place.latest.read_bytes() == first


# ---- interrupts ------------------------------------------------------------------------------------
# Sent once the command's handler is installed: straight from a loop, or from inside a garbage-
# collection callback, where Python ignores the KeyboardInterrupt the handler raises.
INTERRUPTER = """
import gc, os, signal, sys, threading, time
from verifier.cli import main
how, after = sys.argv[1], float(sys.argv[2])
state = {"installed": None, "sent": None}
def due():
    if state["sent"] or signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        return False
    state["installed"] = state["installed"] or time.monotonic()
    return time.monotonic() - state["installed"] > after
def send():
    state["sent"] = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)
def in_gc(phase, info):
    if phase == "start" and due():
        send()
        for _ in range(1000):           # the handler runs here, inside the callback...
            pass
        state["survived"] = True        # ...so this line is never reached
def from_outside():
    while not state["sent"]:
        if due():
            send()
        time.sleep(0.01)
if how == "gc":
    gc.callbacks.append(in_gc)
else:
    threading.Thread(target=from_outside, daemon=True).start()
code = main(sys.argv[3:])
landed = "in-gc" if state["sent"] and not state.get("survived") else "elsewhere"
print(f"@@ {time.monotonic() - (state['sent'] or time.monotonic()):.2f} {landed}", file=sys.stderr)
sys.exit(code)
"""


def _interrupted(tmp_path, how: str, after: float, engine=("--variant", "detach-on-disconnect")):
    """Interrupt a check `after` seconds into its command (from outside, or inside a garbage-collection
    callback): it ends within a second or two with 130, and what it wrote is whole."""
    argv = ["check", *engine, "--budget", "40", "--out", str(tmp_path / "out")]
    # an empty graph cache: a bfs check builds its graphs, so it is still at work when interrupted
    # (with every graph stored it may be done within the seconds the interrupt waits)
    got = subprocess.run([sys.executable, "-c", INTERRUPTER, how, str(after), *argv], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "TASKMODEL_GRAPH_CACHE": str(tmp_path / "graphs")},
                         capture_output=True, text=True, timeout=120)
    lines = got.stderr.strip().splitlines()
    assert got.returncode == 130 and lines[-2] == "taskmodel: interrupted", got.stderr[-2000:]
    if how == "gc":
        assert lines[-1].split()[2] == "in-gc", lines[-1]       # it did land where Python ignores it...
    assert "Exception ignored" not in got.stderr and "Traceback" not in got.stderr, got.stderr[-2000:]  # ...unsaid
    assert float(lines[-1].split()[1]) < 2.0, lines[-1]
    for f in (tmp_path / "out").glob("**/*"):       # no half-written file left behind
        assert not f.name.startswith("."), f
        if f.suffix == ".json":
            json.loads(f.read_text(encoding="utf-8"))
    for f in (tmp_path / "out").glob("**/*"):     # what was written is whole: no half-written file
        assert not f.name.startswith("."), f
        if f.suffix == ".json":
            json.loads(f.read_text(encoding="utf-8"))


@pytest.mark.parametrize("how", ["signal", "gc"])
def test_an_interrupt_ends_the_check_with_130(tmp_path, how):
    _interrupted(tmp_path, how, 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["signal", "gc"])
@pytest.mark.parametrize("after", [0.0, 0.3, 2.0, 4.0, 6.0])
def test_an_interrupt_at_any_moment_ends_the_check_with_130(tmp_path, how, after):
    _interrupted(tmp_path, how, after)


@pytest.mark.slow
@pytest.mark.parametrize("engine", [("--engine", "bfs", "--jobs", "2"), ("--engine", "bfs", "--scope", "host-small",
                                    "--jobs", "2"), ("--engine", "z3")], ids=["bfs", "bfs-partitioned", "z3"])
def test_an_interrupt_ends_every_engine_with_130(tmp_path, engine):
    """A SIGINT to the command alone: it passes it on to its workers; Z3, which takes the signal for
    itself while it solves, gives it back."""
    _interrupted(tmp_path, "signal", 3.0, engine)


def test_ctrl_c_reaches_the_workers_of_a_check_too(tmp_path):
    """A terminal's Ctrl-C signals the whole process group: the exhaustive search's worker
    processes stop as the command does, without a traceback each."""
    proc = subprocess.Popen([str(TASKMODEL), "check", "--engine", "bfs", "--jobs", "2", "--budget", "60", "--out",
                             str(tmp_path / "out")], cwd=tmp_path, start_new_session=True,
                            env={**os.environ, "TASKMODEL_GRAPH_CACHE": str(tmp_path / "graphs")},     # built: at work
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "taskmodel: interrupted", err
    assert "Traceback" not in err and time.monotonic() - sent < 3.0, err



# ---- a closed stdout ------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["list"], ["list", "--json"], ["rules"], ["rules", "--world"], ["--help"],
                                  ["check", "--help"], ["diagrams", "--help"], ["report", "--help"]])
def test_a_closed_stdout_ends_quietly_with_0(tmp_path, argv):
    """Its reader gone before a line was written (or, as `| head -1`, after the first): exit 0 and
    nothing on stderr, as a Unix tool ends."""
    for read_first in (False, True):
        proc = subprocess.Popen([str(TASKMODEL), *argv], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if read_first:
            proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0 and err == "", (argv, read_first, err)


# ---- outputs written whole or not at all ------------------------------------------------------------
def test_an_existing_report_is_replaced_whole(place, tmp_path):
    """Written beside it and renamed over it: a reader holding the old file reads the old report."""
    target = tmp_path / "index.html"
    target.write_text("old report", encoding="utf-8")
    target.chmod(0o644)
    with open(target, encoding="utf-8") as held:
        judged(place, ["report", "--out", target], want={0})
        assert held.read() == "old report"
    assert target.read_text(encoding="utf-8").rstrip().endswith("</html>") and target.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]


KILLED = """
import os, signal, sys
from verifier.runtime import files
def rename(src, dst, real=os.rename):
    real(src, dst)
    if ".old-" in str(dst):         # the old folder moved away, the new one not yet in place
        os.kill(os.getpid(), signal.SIGKILL)
files.os.rename = rename
files.write_folder(sys.argv[1], {"trace.md": "new"})
"""


def test_what_a_killed_write_left_is_cleared_at_the_next_start(place, tmp_path):
    """A gate --write killed between its two renames leaves the old folder moved aside: the next
    command writing there puts it back, and removes the staging of processes no longer running,
    never of one that is."""
    root = tmp_path / "cx"
    (root / "v" / "p").mkdir(parents=True)
    (root / "v" / "p" / "trace.md").write_text("old", encoding="utf-8")
    got = subprocess.run([sys.executable, "-c", KILLED, str(root / "v" / "p")], cwd=ROOT, timeout=60)
    assert got.returncode == -signal.SIGKILL
    gone = subprocess.Popen(["true"])
    gone.wait()                                                           # its pid: no process's now
    (root / "v" / f".q.new-{gone.pid}-abc").mkdir()                      # a dead process's half-built folder
    (root / f".latest.json.tmp-{gone.pid}-xyz").write_text("{", encoding="utf-8")
    live = root / "v" / f".r.new-{os.getpid()}-abc"
    live.mkdir()                                                          # a running writer's
    assert any(p.name.startswith(".p.old-") for p in (root / "v").iterdir())
    judged(place, ["check", "--variant", "detach-on-disconnect", *RUN[:-1], "--counterexamples", root])
    assert (root / "v" / "p" / "trace.md").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in (root / "v").iterdir() if p.name.startswith(".")) == [live.name]
    assert not [p for p in root.iterdir() if p.name.startswith(".")]


# ---- progress --------------------------------------------------------------------------------------
def _lines_over_time(argv, cwd, env, seconds):
    """(seconds since the start at which each stderr line came, the lines), reading for `seconds`
    (then interrupting), or until the command ends."""
    import selectors
    proc = subprocess.Popen([str(TASKMODEL), *argv], cwd=cwd, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    started, times, lines = time.monotonic(), [], []
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    while time.monotonic() - started < seconds and proc.poll() is None:
        if sel.select(timeout=0.5):
            line = proc.stderr.readline()
            if line:
                times.append(time.monotonic() - started)
                lines.append(line.rstrip())
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    return times, lines


def _gaps(times, until):
    points = [0.0, *times, until]
    return max(b - a for a, b in zip(points, points[1:]))


def test_a_graph_build_tells_its_progress_every_few_seconds(tmp_path):
    """TLC's way: states generated, distinct, queued, at least every 10 s, while the baseline's
    graphs are built for an amendment's first exhaustive check (an empty store)."""
    argv = ["check", "--variant", "detach-on-disconnect", "--engine", "bfs", "--out", str(tmp_path / "out")]
    times, lines = _lines_over_time(argv, tmp_path, {"TASKMODEL_GRAPH_CACHE": str(tmp_path / "g")}, 25)
    built = [ln for ln in lines if "building the baseline's stored graph" in ln]
    assert built and all("distinct" in ln and "queued" in ln for ln in built), lines
    assert _gaps([t for t, ln in zip(times, lines) if ln.startswith("taskmodel: bfs")], 25) <= 10, (times, lines)


def test_the_gate_tells_its_progress_every_few_seconds(tmp_path):
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"settings": {"chunks": 8, "examples_per_chunk": 100, "steps": 40}}),
                        encoding="utf-8")
    times, lines = _lines_over_time(["gate", "--manifest", str(manifest), "--record", "--jobs", "1", "--only",
                                     "baseline", "detach-on-disconnect"], tmp_path, {}, 120)
    told = [(t, ln) for t, ln in zip(times, lines) if ln.startswith("taskmodel: gate: ")]
    assert told and "of 2 variants done" in told[0][1] and "at work: " in told[0][1], lines
    assert _gaps([t for t, _ in told], told[-1][0]) <= 10, told
