"""ITF traces a Quint or Apalache reader can type: records, uniform maps, `loop` only on a lasso."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from itf_py import trace_from_json, trace_to_json

from verifier.writers import counterexamples, itf
from verifier.writers.diagrams import trace as itf_trace
from verifier.runtime.worlds import world_factory
from verifier.writers.reproduce import variant_class
from verifier.engines.bfs.run import run_bfs


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- a small ITF type checker: the types Quint infers, `None` for an empty collection's element ----
def type_of(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, str):
        return "str"
    assert not isinstance(v, (int, float)) and v is not None, f"{v!r}: ITF has no plain number or null"
    if isinstance(v, list):
        return ("seq", unify_all(type_of(x) for x in v))
    assert isinstance(v, dict), v
    if "#bigint" in v:
        int(v["#bigint"])
        return "int"
    if "#tup" in v:
        return ("tup", tuple(type_of(x) for x in v["#tup"]))
    if "#set" in v:
        return ("set", unify_all(type_of(x) for x in v["#set"]))
    if "#map" in v:
        pairs = v["#map"]
        return ("map", unify_all(type_of(k) for k, _ in pairs), unify_all(type_of(x) for _, x in pairs))
    assert not any(k.startswith("#") for k in v), f"{sorted(v)}: not a record"
    return ("rec", tuple(sorted((k, type_of(x)) for k, x in v.items())))


def unify(a, b):
    if a is None or a == b:
        return b
    if b is None:
        return a
    assert a[0] == b[0] and len(a) == len(b), f"{a} is not {b}"
    if a[0] in ("rec", "tup"):
        names_a = [k for k, _ in a[1]] if a[0] == "rec" else list(range(len(a[1])))
        names_b = [k for k, _ in b[1]] if a[0] == "rec" else list(range(len(b[1])))
        assert names_a == names_b, f"{a} is not {b}"
        if a[0] == "rec":
            return ("rec", tuple((k, unify(x, y)) for (k, x), (_, y) in zip(a[1], b[1])))
        return ("tup", tuple(unify(x, y) for x, y in zip(a[1], b[1])))
    return (a[0], *(unify(x, y) for x, y in zip(a[1:], b[1:])))


def unify_all(types):
    out = None
    for t in types:
        out = unify(out, t)
    return out


def assert_typed(data: dict) -> dict:
    """Every variable has one type across the trace; the types, by variable."""
    out = {}
    for var in data["vars"]:
        out[var] = unify_all(type_of(s[var]) for s in data["states"])
    return out


# ---- the tests ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lost(tmp_path_factory):
    folder = _module("recorded_trace").record(tmp_path_factory.mktemp("cx"), *_module("recorded_trace").LOST)
    return folder, json.loads((folder / "trace.itf.json").read_text(encoding="utf-8"))


def test_states_are_typed_records_and_uniform_maps(lost):
    _, data = lost
    types = assert_typed(data)
    assert types["clock"] == "int" and types["effects"] == "int"
    kind, key, run = types["runs"]
    assert (kind, key, run[0]) == ("map", "str", "rec")
    fields = dict(run[1])
    assert fields["status"] == "str" and fields["log"] == ("seq", "str") and fields["purged"] == "bool"
    assert fields["parent"] == ("set", None)                  # never set: an empty set in every state
    request = dict(types["requests"][2][1])
    assert request["owns"] == ("set", "str") and request["response"] == ("set", "str")
    execution = dict(types["executions"][2][1])            # the harness's record of op1
    assert execution["status"] == "str" and execution["attempts"] == "int" and execution["persisted"] == "bool"
    assert execution["taskId"] == ("set", None)              # the CreateTaskResult was lost: no handle
    assert "loop" not in data and None not in data["#meta"].values()


def test_the_older_untyped_format_fails_the_checker():
    """The checker can fail: a trace of mixed-type `#map` records (what was written before) is refused."""
    with pytest.raises(AssertionError):
        assert_typed(_module("synthetic_trace").trace())


def test_a_trace_round_trips_through_load_and_itf_py(lost):
    folder, data = lost
    text = (folder / "trace.itf.json").read_text(encoding="utf-8")
    meta, steps = itf.load(text)
    assert meta["property"] == "e2e-orphan-task" and [a for a, _ in steps] == ["harness_start", "answer", "disconnect"]
    assert steps[0][1] == {"client": "H1", "server": "S1", "long": False}
    assert trace_from_json(data).loop is None and len(trace_from_json(data).states) == 4
    # The plain values read back are the model's snapshots, step by step.
    world = world_factory(None)()
    read = itf_trace.parse(data)
    for step, (action, args) in zip(read.steps[1:], steps):
        world.apply(action, args, check=False)
        snap = itf.snapshot(world)
        assert _dropped_nones(step.state) == json.loads(json.dumps(snap)), step.index


def _dropped_nones(state: dict) -> dict:
    return {k: {key: {f: v for f, v in rec.items() if v is not None} for key, rec in v.items()}
            if isinstance(v, dict) else v for k, v in state.items()}


def test_load_reads_the_older_format_too():
    meta, steps = itf.load(json.dumps(_module("synthetic_trace").trace()))
    assert meta["property"] == "OWN-2" and [a for a, _ in steps] == ["call_tool", "run_start", "disconnect",
                                                                     "run_complete"]


def test_a_lasso_records_its_loop(tmp_path):
    """drop-every-request never answers: LIV-1 fails as a lasso stuttering at its last state."""
    cls = variant_class("drop-every-request")
    v = run_bfs(cls, scope="host-small", budget=120).by_name()["every-call-answered-or-cancelled"]
    assert v.verdict == "refuted" and v.loop is not None
    folder = counterexamples.write(tmp_path, cls, v, world_factory(cls), 0)
    data = json.loads((folder / "trace.itf.json").read_text(encoding="utf-8"))
    assert data["loop"] == v.loop and 0 <= data["loop"] < len(data["states"])
    assert_typed(data)
    assert trace_from_json(data).loop == v.loop
    md = (folder / "trace.md").read_text(encoding="utf-8")
    assert f"- **Loops**: the behaviour stays at step {v.loop} for ever" in md
    # The tutorial's chapter on reading a lasso tells this very trace.
    chapter = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8").split("## 10. Reading a lasso")[1]
    assert f'`"loop": {v.loop}`' in chapter and f"with {v.length} steps" in chapter
    with pytest.raises(ValueError):
        itf.build(world_factory(cls), v.trace, {"property": "x"}, loop=len(v.trace) + 1)


# ---- every committed trace: the ITF format of Apalache ADR-015, typed, and through itf-py and back ------
ROOT = Path(__file__).resolve().parent.parent
COMMITTED = sorted((ROOT / "counterexamples").glob("**/*.itf.json"), key=lambda p: p.as_posix())
TOP = {"#meta", "params", "vars", "states", "loop"}


def adr015_value(v, where: str) -> None:
    """An ITF expression (ADR-015): a boolean, a string, an integer (`#bigint`; a plain JSON integer
    is allowed but none is written), a list, a `#tup`, a `#set`, a `#map` of pairs, `#unserializable`,
    or a record (an object with no `#` key)."""
    if isinstance(v, (bool, str)) or (isinstance(v, int) and abs(v) < 2 ** 53):
        return
    assert not isinstance(v, float) and v is not None, f"{where}: {v!r} is no ITF value"
    if isinstance(v, list):
        for i, x in enumerate(v):
            adr015_value(x, f"{where}[{i}]")
        return
    assert isinstance(v, dict), f"{where}: {v!r}"
    tags = [k for k in v if k.startswith("#")]
    if not tags:
        for k, x in v.items():
            adr015_value(x, f"{where}.{k}")
        return
    assert len(v) == 1 and tags[0] in ("#bigint", "#tup", "#set", "#map", "#unserializable"), f"{where}: {sorted(v)}"
    body = v[tags[0]]
    if tags[0] == "#bigint":
        assert isinstance(body, str) and re.fullmatch(r"-?[0-9]+", body), f"{where}: #bigint {body!r}"
    elif tags[0] == "#map":
        assert isinstance(body, list) and all(isinstance(p, list) and len(p) == 2 for p in body), f"{where}: #map"
        for i, (k, x) in enumerate(body):
            adr015_value(k, f"{where}#key{i}")
            adr015_value(x, f"{where}[{k!r}]")
    elif tags[0] != "#unserializable":
        assert isinstance(body, list), f"{where}: {tags[0]} holds {type(body).__name__}"
        for i, x in enumerate(body):
            adr015_value(x, f"{where}{tags[0]}[{i}]")


def adr015_trace(data) -> None:
    assert isinstance(data, dict) and set(data) <= TOP and {"vars", "states"} <= set(data), sorted(data)
    assert isinstance(data.get("#meta", {}), dict)
    assert all(isinstance(p, str) for p in data.get("params", [])) and all(isinstance(x, str) for x in data["vars"])
    assert data["states"], "a trace has at least its initial state"
    for i, state in enumerate(data["states"]):
        assert set(state) - {"#meta"} == set(data["vars"]) | set(data.get("params", [])), f"state {i}: {sorted(state)}"
        for var in data["vars"]:
            adr015_value(state[var], f"state {i}: {var}")
    if "loop" in data:
        assert isinstance(data["loop"], int) and not isinstance(data["loop"], bool), "loop is an index, or absent"
        assert 0 <= data["loop"] < len(data["states"])


def canonical(v):
    """A JSON value with every set's elements in one order (itf-py reads a set as a frozenset)."""
    if isinstance(v, list):
        return [canonical(x) for x in v]
    if isinstance(v, dict):
        if set(v) == {"#set"}:
            return {"#set": sorted((canonical(x) for x in v["#set"]), key=lambda x: json.dumps(x, sort_keys=True))}
        return {k: canonical(x) for k, x in v.items()}
    return v


def test_the_adr015_checker_refuses_what_is_not_itf():
    good = {"vars": ["x"], "states": [{"x": {"#bigint": "1"}}]}
    adr015_trace(good)
    for bad in ({"vars": ["x"], "states": [{"x": None}]}, {"vars": ["x"], "states": [{"x": 1.5}]},
                {"vars": ["x"], "states": [{"y": True}]}, {"vars": ["x"], "states": [{"x": {"#bigint": 3}}]},
                {"vars": ["x"], "states": [{"x": {"#map": [["k"]]}}]}, dict(good, loop=None), dict(good, loop=1),
                dict(good, extra=1)):
        with pytest.raises(AssertionError):
            adr015_trace(bad)


@pytest.mark.skipif(not COMMITTED, reason="no committed counterexamples/**/*.itf.json")
@pytest.mark.parametrize("path", COMMITTED, ids=[p.relative_to(ROOT).as_posix() for p in COMMITTED])
def test_every_committed_trace_is_typed_itf_and_round_trips_through_itf_py(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    adr015_trace(data)
    assert_typed(data)
    again = trace_to_json(trace_from_json(data))
    if again.get("loop") is None and "loop" not in data:
        again.pop("loop")
    if not again.get("params") and "params" not in data:
        again.pop("params")
    assert canonical(again) == canonical(data)


# ---- reading a trace back: strictly, as a stream, compared state by state ----------------------------
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_the_stream_reader_reads_what_json_reads_whatever_the_chunk(lost, monkeypatch, chunk):
    from verifier.writers import itf_read
    folder, data = lost
    monkeypatch.setattr(itf_read, "CHUNK", chunk)
    trace = itf_read.TraceFile(folder / "trace.itf.json")
    head = trace.check()
    assert head.steps == len(data["states"]) - 1 and head.meta["property"] == "e2e-orphan-task"
    assert list(trace.states()) == data["states"]


@pytest.mark.parametrize("change, place", [
    (lambda d: d["states"][2].update(clock={"#bigint": 3}), "states[2].clock: #bigint holds an integer"),
    (lambda d: d["states"][1].update(effects={"#unserializable": "x"}), "states[1].effects: #unserializable is not"),
    (lambda d: d["states"][3]["runs"]["#map"][0][1].update(log={"#tup": "x"}), "states[3].runs[\"acme/"),
    (lambda d: d["states"][1]["#meta"].update(action="teleport"), "states[1].#meta.action: 'teleport' is not an action"),
    (lambda d: d["#meta"].update(property="no-such-property"), "#meta.property: 'no-such-property' names no property"),
    (lambda d: d.update(states={}), "states: must be an array, not an object"),
    (lambda d: d.update(loop=None), "loop: must be the index of one of the 4 states, not null"),
])
def test_a_malformed_trace_names_the_place(lost, tmp_path, change, place):
    from verifier.writers import itf_read
    _, data = lost
    data = json.loads(json.dumps(data))
    change(data)
    (tmp_path / "t.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(itf_read.TraceError) as e:
        itf_read.TraceFile(tmp_path / "t.json").check()
    assert str(e.value).startswith(place), str(e.value)


def test_a_state_that_differs_from_the_one_recorded_is_named_at_its_first_difference(lost):
    _, data = lost
    world = world_factory(None)()
    for step in data["states"][1:3]:
        world.apply(step["#meta"]["action"], step["#meta"]["args"], check=False)
    recorded = json.loads(json.dumps(data["states"][2]))
    assert itf.difference(recorded, world) is None
    recorded["runs"]["#map"][0][1]["status"] = "cancelled"
    key = recorded["runs"]["#map"][0][0]
    assert itf.difference(recorded, world) == f'runs["{key}"].status: recorded "cancelled", reached "pending"'
    recorded["clock"] = {"#bigint": "7"}
    assert itf.difference(recorded, world) == "clock: recorded 7, reached 0"
