"""`taskmodel validate` on logs generated from the model itself (`verifier.writers.traffic`): any
behaviour of the model is a valid log, so the baseline's walks conform, a refuting variant's walks
that break its requirement diverge with that id, and hand-mutated logs diverge where they were
changed."""
from __future__ import annotations

import json
import random
import re
import time

import pytest

from model.host import answer_pending
from model.variants import resolve
from verifier.cli import main
from verifier.runtime.worlds import unbounded_world
from verifier.validate import host_properties, validate_log
from verifier.writers.traffic import MAPPING, walk

STEPS = 40
# The walks a variant's tests try, shortest first: tasks/* moves outnumber the rest, so a variant
# whose flaw needs a call, a disconnect and a run step may need the longer ones.
WALKS = [(seed, STEPS) for seed in range(12)] + [(seed, 60) for seed in range(16)]


def _lines(seed, run_events=True, variant=None, rename=True, steps=STEPS):
    world, rec = walk(seed, steps, variant, run_events)
    return world, rec.lines(world, rename=rename)


def _broken(variant, world) -> set[str]:
    """The requirement ids the walk itself breaks, replayed in the variant with the catalogue."""
    props = [p for p in host_properties() if p.asserted]
    w = unbounded_world(variant)
    out = set()
    for s in world.history:
        step = w.apply(s.action, s.args, check=False)
        for p in props:
            if p.check(w, step):
                out.update(p.ids)
    return out


# ---- the baseline's own behaviours conform ---------------------------------------------------------
@pytest.mark.parametrize("run_events", [True, False], ids=["run-events", "client-side"])
def test_baseline_walks_conform_with_ids_renamed(run_events):
    """Every request of a walk is a model client's, so every exchange is judged but a not-found answer
    with no answer to an id never created to compare it with (ISO-1): such a walk conforms partially."""
    results = set()
    for seed in range(12):
        _, lines = _lines(seed, run_events)
        r = validate_log(lines, MAPPING, budget=30)
        results.add(r.result)
        assert r.result == ("conforms-partially" if r.unjudged else "conforms"), (seed, r.to_json())
        assert all("to be compared with (ISO-1)" in u["why"] for u in r.unjudged), r.unjudged
        assert r.matched == r.events and r.exit_code == (2 if r.unjudged else 0)
        assert r.exchanges["judged"] + r.exchanges["unjudged"] == r.exchanges["total"] > 0
        assert {q["verdict"] for q in r.requirements} <= {"held", "unjudged"}
    assert "conforms" in results


def test_model_ids_and_renamed_ids_give_one_answer():
    for seed in (3, 5):
        plain = validate_log(_lines(seed, rename=False)[1], MAPPING).to_json()
        renamed = validate_log(_lines(seed, rename=True)[1], MAPPING).to_json()
        assert plain["result"] == renamed["result"] != "diverges"
        assert plain["requirements"] == renamed["requirements"] and plain["exchanges"] == renamed["exchanges"]


def test_premises_reached_are_held_and_the_rest_unjudged():
    r = validate_log(_lines(8)[1], MAPPING)
    verdicts = {q["id"]: q["verdict"] for q in r.requirements}
    assert "held" in verdicts.values() and "unjudged" in verdicts.values()
    assert all(q["why"] for q in r.requirements if q["verdict"] == "unjudged")
    premises = {p["id"]: p["verdict"] for p in r.properties}
    assert all(premises[i] == "vacuous" for i, v in verdicts.items() if v == "unjudged" and i not in
               ("ISO-1", "TTL-3", "ID-1", "SEC-1"))
    empty = ['{"event":"header","t":0,"format":"mcp-traffic/1"}',
             '{"event":"open","t":0.1,"conn":"a","transport":"http"}']
    nothing = validate_log(empty, MAPPING)
    assert nothing.result == "undetermined" and nothing.exit_code == 2


# ---- a refuting variant's behaviours diverge with its id ---------------------------------------------
VARIANTS = ["foreign-task-403", "get-appends-read-event", "detach-on-disconnect", "notify-cancelled-on-run-cancel"]


@pytest.mark.parametrize("name", VARIANTS)
def test_variant_walks_that_break_its_requirement_diverge_with_it(name):
    v = resolve(name)
    want = {rid for rid, verdict in v.expect.items() if verdict == "refuted"}
    seen = 0
    for seed, steps in WALKS:
        world, lines = _lines(seed, True, v, steps=steps)
        if not _broken(v, world) & want:
            continue
        seen += 1
        r = validate_log(lines, MAPPING, budget=30)
        assert r.result == "diverges" and r.exit_code == 1, (seed, r.to_json())
        assert r.divergence.requirement in want, (seed, r.divergence.to_json())
        assert r.matched == r.divergence.index
        # a request the reason names is one the log showed by the diverging event
        assert all(int(n) <= r.divergence.line for n in re.findall(r"\(line (\d+)\)", r.divergence.reason))
        assert validate_log(lines, MAPPING, variant=name, budget=30).result in ("conforms", "conforms-partially"), seed
    assert seen, f"no walk of {name} broke {sorted(want)}: the test exercised nothing"


# The variants whose overrides write beyond the footprint of the move calling them (a log appended at a
# read, a cancel or a clock tick; an approver set grown by an answer), and two that write within it.
SHARING = ["get-appends-read-event", "cancel-terminal-appends", "ttl-fails-run", "response-content-grants-approval",
           "detach-on-disconnect", "notify-cancelled-on-run-cancel"]


def test_a_variants_moves_share_what_their_footprint_leaves_alone(monkeypatch):
    """Validated against a variant, a move calling an overridden rule (which may write any record) is
    taken sharing every record its declared footprint leaves alone, sealed: a write beyond it raises,
    and the move is taken again on a copy of every record. The answers are those of copying every
    record at every such move, and both ways are taken."""
    import verifier.validate.search as vs
    real_send, real_tried, real_declared = vs.send, vs._tried, vs.declared_writes
    taken = {"tried": 0, "taken again": 0}

    def send(world, name, args, sent=None, writes=None):
        taken["taken again"] += writes is None
        return real_send(world, name, args, sent, writes)

    def tried(world, name, args, sent, guess):
        taken["tried"] += 1
        monkeypatch.setattr(vs, "send", send)
        try:
            return real_tried(world, name, args, sent, guess)
        finally:
            monkeypatch.setattr(vs, "send", real_send)
    for name in SHARING:
        v = resolve(name)
        for seed, steps in WALKS[:4]:
            _, lines = _lines(seed, True, v, steps=steps)
            monkeypatch.setattr(vs, "_tried", tried)
            shared = validate_log(lines, MAPPING, variant=name, budget=60).to_json()
            monkeypatch.setattr(vs, "_tried", real_tried)
            monkeypatch.setattr(vs, "declared_writes", lambda *a: None)
            whole = validate_log(lines, MAPPING, variant=name, budget=60).to_json()
            monkeypatch.setattr(vs, "declared_writes", real_declared)
            assert shared == whole, (name, seed)
    assert taken["tried"] > taken["taken again"] > 0, taken


@pytest.mark.parametrize("how", ["replace", "move"])
def test_a_variant_writing_a_table_is_taken_again_on_copies(how):
    """A rule may write a table rather than a record's fields: put a changed copy of a request in its
    place, or take one out and put it back (now last). No seal stops that, and the step's record of
    the phases before it would read the shared table as it is now: `_tried` tells it (`kept_shared`)
    and takes the move again on a copy of every record, so that the phases before the step are
    those a whole copy records."""
    import dataclasses

    from model.amend import Amendment
    from model.footprint import declared_writes
    from model.snapshot import successor
    from model.world import World, action_table
    from verifier.validate.search import _tried, send

    class WritesTheTable(Amendment):
        name = "writes-the-table"

        def can_read(self, world, subject, run):
            for k, q in list(world.requests.items()):
                if q.method == "tools/call" and q.phase == "received":
                    if how == "replace":
                        world.requests[k] = dataclasses.replace(q, phase="cancelled")
                    else:
                        world.requests[k] = world.requests.pop(k)
            return super().can_read(world, subject, run)

    world = World(rules=WritesTheTable())
    for name, args in [("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
                       ("answer", dict(request="r1")), ("deliver", dict(request="r1")),
                       ("call_tool", dict(client="C1", server="S1", transport="http", declare=False, tool="flow"))]:
        world.apply(name, args)
    ref = world.requests["r1"].response["result"]["taskId"]
    world.apply("tasks_get", dict(client="C1", server="S1", ref=ref, transport="http", declare=True, header_ok=True))
    args = dict(request="r3")
    guess = declared_writes(world, action_table()["respond"], args)
    assert ("request", "r2") not in guess           # the rule writes beyond the declared footprint
    got, step = _tried(world, "respond", args, None, guess)
    whole = send(successor(world, None), "respond", args)
    # in the table's order before the step, as a whole copy records them
    assert list(step.pre_phase.items()) == list(whole.pre_phase.items()) == [
        ("r1", "delivered"), ("r2", "received"), ("r3", "received")]
    assert list(got.requests) == (["r1", "r2", "r3"] if how == "replace" else ["r1", "r3", "r2"])


# ---- hand-mutated logs diverge where they were changed -----------------------------------------------
def _events(lines):
    return [json.loads(x) for x in lines]


def _dump(events):
    return [json.dumps(e) for e in events]


def _first(events, pred):
    return next(i for i, e in enumerate(events) if pred(e))


def test_a_changed_response_diverges_at_it():
    _, lines = _lines(8)
    events = _events(lines)
    i = _first(events, lambda e: e.get("dir") == "s2c" and "error" in e["message"]
               and e["message"]["error"]["code"] == -32602)
    events[i]["message"]["error"]["code"] = -32603
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.line == i + 1, r.to_json()
    assert any("-32602" in a for a in r.divergence.allowed)


def test_a_dropped_response_diverges_at_the_close():
    lines = _session([("alice", "tools/call"), ("alice", "close")])
    assert validate_log(lines, MAPPING).result == "conforms"
    events = _events(lines)
    i = _first(events, lambda e: e.get("dir") == "s2c" and "result" in e["message"])
    close = _first(events, lambda e: e.get("event") == "close")
    del events[i]
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.line == close, r.to_json()     # one line earlier now
    assert "has no response" in r.divergence.reason


def test_a_foreign_403_breaks_iso_1():
    """mallory reads alice's task: the host must answer as for a task that does not exist."""
    lines = _session([("alice", "tools/call"), ("mallory", "tasks/get")])
    assert validate_log(lines, MAPPING).result == "conforms-partially"      # nothing to compare the answer with
    events = _events(lines)
    i = _first(events, lambda e: e.get("dir") == "s2c" and "error" in e.get("message", {}))
    events[i]["message"]["error"] = {"code": -32603, "message": "Forbidden", "data": {"httpStatus": 403}}
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.line == i + 1
    assert r.divergence.requirement == "ISO-1", r.divergence.to_json()


def test_an_unreadable_task_told_apart_by_its_message_breaks_iso_1():
    """Two not-found answers the model gives alike: the host's code, message, data and status must agree."""
    lines = _session([("alice", "tools/call"), ("mallory", "tasks/get"), ("mallory", "tasks/get")])
    assert validate_log(lines, MAPPING).result == "conforms-partially"
    events = _events(lines)
    errors = [i for i, e in enumerate(events) if e.get("dir") == "s2c" and "error" in e.get("message", {})]
    assert len(errors) == 2
    events[errors[1]]["message"]["error"]["message"] = "Task belongs to another tenant"
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.line == errors[1] + 1, r.to_json()
    assert r.divergence.requirement == "ISO-1" and "another tenant" in r.divergence.reason, r.divergence.to_json()


def test_a_run_id_under_22_characters_breaks_id_1():
    lines = _session([("alice", "tools/call"), ("alice", "tasks/get")])
    run = next(e["runId"] for e in _events(lines) if e.get("event") == "run")
    opaque = run.split("/", 1)[1]
    short = [line.replace(opaque, opaque[:18]) for line in lines]
    r = validate_log(short, MAPPING)
    assert r.result == "diverges" and r.divergence.requirement == "ID-1", r.to_json()
    assert "18 characters" in r.divergence.reason


def test_entropy_reads_the_varying_part_of_the_ids_seen():
    from verifier.validate.answers import entropy
    padded = [f"r-000000000000{h}" for h in ("a3f1c2d4e5b60718", "5b2e9d0c7a614f38")]
    assert entropy(padded)[0] == 16 * 4                   # 64 bits in 30 characters
    assert entropy(["r-" + "Ab9_" * 5 + "xy", "r-" + "Zq-3" * 5 + "k0"])[0] >= 128


def test_a_get_that_appends_breaks_get_1():
    lines = _session([("alice", "tools/call"), ("alice", "tasks/get")])
    events = _events(lines)
    i = _first(events, lambda e: e.get("dir") == "c2s" and e["message"].get("method") == "tasks/get")
    run = next(e["runId"] for e in events if e.get("event") == "run")
    events.insert(i + 1, {"event": "run", "t": events[i]["t"], "runId": run, "kind": "task.read", "status": "pending"})
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.index == i, r.to_json()    # the header is not an event
    assert r.divergence.requirement == "GET-1", r.divergence.to_json()


def test_a_request_no_model_client_sends_is_unmodelled_not_blamed():
    """A tool the mapping does not name: the call is unmodelled; it created a run after all (the
    assumption fails), so that run is set outside the model and nothing of it is judged."""
    lines = _session([("alice", "tools/call"), ("alice", "tasks/get")])
    events = _events(lines)
    i = _first(events, lambda e: e.get("dir") == "c2s")
    events[i]["message"]["params"]["name"] = "unmapped"
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "conforms-partially" and r.exit_code == 2, r.to_json()
    call, get = r.unjudged
    assert call["index"] == i - 1 and "'unmapped'" in call["why"]     # the header is no event
    assert call["assumption"] == "a tool outside the model: answered, no run created, state unchanged"
    assert call["check"].startswith("broken: run event run.created") and len(call["runs"]) == 1
    assert get["method"] == "tasks/get" and "set outside the model" in get["why"]
    assert r.exchanges == {"total": 2, "judged": 0, "unjudged": 2, "ignored": 0}
    assert str(call["index"]) in r.reason and "'unmapped'" in r.reason
    allowed = validate_log(_dump(events), MAPPING, allow_unmodelled=True).to_json()
    assert allowed["result"] == "conforms" and allowed["exit_code"] == 0 and "reason" not in allowed
    assert allowed["unjudged"] == r.to_json()["unjudged"]       # still listed


def _session(script):
    """A short scripted session (Subject, method) on S1 with run events: a declaring tools/call of
    flow answered with its CreateTaskResult, then requests naming that task ("close": the call's
    connection closes after its response)."""
    world = unbounded_world(None)
    from verifier.writers.traffic import Recorder
    rec = Recorder(True)
    clients = {world.params.client_subject(c).name: c for c in world.params.clients}
    ref = qid = None
    for subject, method in script:
        c = clients[subject]
        if method == "close":       # the call's client has the whole response, then closes the connection
            rec.record(world, world.apply("deliver", dict(request=qid), check=False))
            rec.record(world, world.apply("disconnect", dict(request=qid), check=False))
        elif method == "tools/call":
            rec.record(world, world.apply("call_tool", dict(client=c, server="S1", transport="http", declare=True,
                                                             tool="flow"), check=False))
            qid = f"r{len(world.requests)}"
            rec.record(world, world.apply("answer", dict(request=qid), check=False))
            ref = world.requests[qid].response["result"]["taskId"]
        else:
            name = method.replace("/", "_")
            step = world.apply(name, dict(client=c, server="S1", ref=ref, transport="http", declare=True,
                                          header_ok=True), check=False)
            rec.record(world, step)
            for answered in answer_pending(world, step, check=False):
                rec.record(world, answered)
    return rec.lines(world, rename=True)



def test_a_request_is_answered_on_its_own_connection():
    """What the host answers a request with at receipt is looked for on the request's own connection:
    alice's tasked call, then her call with arguments the tool's schema refuses (answered -32602 at
    once) on another connection, then the first call's CreateTaskResult, then the refusal. The
    CreateTaskResult, the next server message after the second call, is not its answer."""
    from verifier.writers.traffic import Recorder
    world, rec = unbounded_world(None), Recorder(True)
    for name, args in [("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
                       ("call_tool_bad_args", dict(client="C1", server="S1", declare=True)),
                       ("answer", dict(request="r1"))]:
        rec.record(world, world.apply(name, args, check=False))
    events = _events(rec.lines(world, rename=True))
    messages = [i for i, e in enumerate(events) if e.get("event") == "message"]
    refusal, created = messages[2], messages[3]          # the refusal, sent at receipt, arrives last
    events[refusal], events[created] = events[created], events[refusal]
    events[refusal]["t"], events[created]["t"] = events[created]["t"], events[refusal]["t"]
    assert [(events[i]["dir"], events[i]["conn"]) for i in messages] == \
        [("c2s", "h-r1"), ("c2s", "h-r2"), ("s2c", "h-r1"), ("s2c", "h-r2")]
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "conforms" and r.exchanges["judged"] == 2, r.to_json()


# ---- bad input: one line naming the line, exit 3 -----------------------------------------------------
def test_malformed_lines_name_their_line(tmp_path, capsys):
    _, lines = _lines(1)
    for bad, words in [("{not json", "not JSON"), ('{"event":"message","t":1}', "message event"),
                       ('{"event":"nope","t":1}', "unknown event"), ("[1, 2]", "JSON object")]:
        log = tmp_path / "log.jsonl"
        log.write_text("\n".join(lines[:5] + [bad] + lines[5:]) + "\n")
        assert main(["validate", str(log)]) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{log}:6:" in err[0] and words in err[0], err


def test_what_the_schema_says_beyond_its_types_is_refused(tmp_path, capsys):
    """Times that are not numbers or run backwards, a header naming a server the mapping lacks, and
    lines nested past the stated depth: one line naming the log's line, exit 3."""
    _, lines = _lines(1)

    def at(i, key, raw):
        data = dict(json.loads(lines[i]), **{key: "@"})
        return lines[:i] + [json.dumps(data).replace('"@"', raw)] + lines[i + 1:]
    for bad, line, words in [
        (at(4, "t", "NaN"), 5, "NaN is not a JSON number"), (at(4, "t", "Infinity"), 5, "Infinity is not"),
        (at(4, "t", "1e999"), 5, "beyond the range"),
        (at(4, "t", str(json.loads(lines[3])["t"] / 2)), 5, "runs backwards"),
        (at(0, "server", '"S9"'), 1, "the header names server 'S9', which the mapping does not have"),
        (lines[:4] + ["[" * 150 + "]" * 150] + lines[4:], 5, "nested deeper than 100 levels"),
        (lines[:4] + ["[" * 100_000 + "]" * 100_000] + lines[4:], 5, "nested deeper than 100 levels"),
    ]:
        log, m = tmp_path / "log.jsonl", tmp_path / "map.json"
        log.write_text("\n".join(bad) + "\n")
        m.write_text(json.dumps(MAPPING))
        assert main(["validate", str(log), "--map", str(m)]) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{log}:{line}: " in err[0] and words in err[0], (words, err)


def test_bad_mapping_and_flags_are_usage_errors(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_lines(1)[1]) + "\n")
    for mapping in ['{"tokens": {"t": "eve"}}', "{", '{"tokens": {}, "extra": 1}', "[" * 100_000 + "]" * 100_000,
                    '{"tokens": {}, "server": NaN}', "[]"]:
        m = tmp_path / "map.json"
        m.write_text(mapping)
        assert main(["validate", str(log), "--map", str(m)]) == 3
    for flags in (["--budget", "0"], ["--budget", "nan"], ["--variant", "no-such-variant"], ["--frob"]):
        assert main(["validate", str(log), *flags]) == 3
    assert len(capsys.readouterr().err.strip().splitlines()) == 10


def test_the_command_prints_one_json_object(tmp_path, capsys):
    """One object, as schemas/validate-result.schema.json says, for a conforming, a partial and a
    diverging log."""
    import jsonschema
    from pathlib import Path
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "validate-result.schema.json").read_text())
    log, m = tmp_path / "log.jsonl", tmp_path / "map.json"
    m.write_text(json.dumps(MAPPING))
    foreign = _events(_session([("alice", "tools/call"), ("mallory", "tasks/get")]))
    foreign[-1]["message"]["error"] = {"code": -32603, "message": "Forbidden"}
    for lines, code in ((_dump(_open_world_log()), 2), (_dump(foreign), 1)):
        log.write_text("\n".join(lines) + "\n")
        assert main(["validate", str(log), "--map", str(m), "--json"]) == code
        jsonschema.validate(json.loads(capsys.readouterr().out), schema)
    log.write_text("\n".join(_lines(2)[1]) + "\n")
    assert main(["validate", str(log), "--map", str(m), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    jsonschema.validate(out, schema)
    assert out["command"] == "validate" and out["result"] == "conforms" and out["exit_code"] == 0
    assert out["divergence"] is None and out["events"] == out["matched"] > 0
    assert all(set(p) >= {"id", "verdict"} for p in out["properties"])


def test_fuzzed_input_never_tracebacks(tmp_path, capsys):
    """Random bytes, truncations and shuffles of a real log: an answer or a one-line error."""
    rnd = random.Random(7)
    _, lines = _lines(4)
    text = "\n".join(lines)
    log = tmp_path / "log.jsonl"
    for k in range(40):
        kind = k % 4
        if kind == 0:
            body = text[:rnd.randrange(len(text))]
        elif kind == 1:
            chars = list(text)
            for _ in range(5):
                chars[rnd.randrange(len(chars))] = rnd.choice('{}[]":,0a\\')
            body = "".join(chars)
        elif kind == 2:
            shuffled = lines[:]
            rnd.shuffle(shuffled)
            body = "\n".join(shuffled)
        else:
            body = bytes(rnd.randrange(256) for _ in range(200)).decode("latin-1")
        log.write_text(body)
        code = main(["validate", str(log), "--map", str(_map(tmp_path)), "--budget", "10"])
        captured = capsys.readouterr()
        assert code in (0, 1, 2, 3), (k, code, captured.err)
        assert "Traceback" not in captured.err and len(captured.err.strip().splitlines()) <= 1, captured.err


def _map(tmp_path):
    m = tmp_path / "map.json"
    m.write_text(json.dumps(MAPPING))
    return m


@pytest.mark.slow
def test_long_walks_conform():
    for seed in range(12, 24):
        for run_events in (True, False):
            _, lines = _lines(seed, run_events, steps=100)
            r = validate_log(lines, MAPPING, budget=60)
            assert r.result == ("conforms-partially" if r.unjudged else "conforms"), (seed, run_events, r.to_json())
            assert all("to be compared with" in u["why"] for u in r.unjudged), r.unjudged


def test_a_variant_file_is_validated_against(tmp_path):
    """An amendment file, as `--variant FILE`: a detaching host's log is a behaviour of it."""
    amendment = tmp_path / "detach.py"
    amendment.write_text("from model.amend import Amendment\n\n\nclass Detach(Amendment):\n"
                         "    name = 'my-detach'\n    changes = 'a disconnect cancels nothing'\n"
                         "    expect = {'OWN-2': 'refuted'}\n\n"
                         "    def on_request_cancelled(self, world, q, cause):\n        return None\n")
    v = resolve("detach-on-disconnect")
    lines = next(lines for seed, steps in WALKS for world, lines in [_lines(seed, True, v, steps=steps)]
                 if _broken(v, world))
    assert validate_log(lines, MAPPING).result == "diverges"
    log, m = tmp_path / "log.jsonl", _map(tmp_path)
    log.write_text("\n".join(lines) + "\n")
    assert main(["validate", str(log), "--map", str(m), "--variant", str(amendment)]) == 0


# ---- an open world: exchanges no model client sends are unmodelled, never blamed on the host ----------
def _exchange(events, conn, message, answer, headers=None, run_events=()):
    """Append one HTTP exchange (open, request, run events, answer, close) to a hand-made log."""
    t = events[-1]["t"] if events else 0
    h = {"content-type": "application/json", **(headers or {})}
    events.append({"t": t + 0.001, "event": "open", "conn": conn, "transport": "http",
                   "http": {"method": "POST", "path": "/s1", "headers": h}})
    events.append({"t": t + 0.002, "event": "message", "conn": conn, "dir": "c2s", "message": message})
    for e in run_events:
        events.append({"t": t + 0.003, "event": "run", **e})
    events.append({"t": t + 0.004, "event": "message", "conn": conn, "dir": "s2c", "message": answer,
                   "http": {"status": 200, "headers": {"content-type": "application/json"}}})
    events.append({"t": t + 0.005, "event": "close", "conn": conn, "how": "closed", "by": "server"})


def _request(rid, method, params, elicitation=None):
    caps = {"extensions": {"io.modelcontextprotocol/tasks": {}},
            "elicitation": {"form": {}, "url": {}} if elicitation is None else elicitation}
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {
        **params, "_meta": {"io.modelcontextprotocol/clientCapabilities": caps,
                            "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}


ALICE = {"authorization": "Bearer tok-alice"}
NOT_FOUND = {"code": -32602, "message": "Task not found"}


def _open_world_log():
    """A modelled call and read, then one exchange of each kind outside the model's vocabulary."""
    events = _events(_session([("alice", "tools/call"), ("alice", "tasks/get")]))
    task = next(e for e in events if e.get("dir") == "s2c")["message"]["result"]["taskId"]
    ext = lambda rid, method, params, **kw: _request(rid, method, params, **kw)   # noqa: E731
    _exchange(events, "x1", ext(1, "tools/call", {"name": "flow", "arguments": {}}),       # no credential
              {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown credential"}})
    _exchange(events, "x2", ext(2, "tools/call", {"name": "greet", "arguments": {}}),      # a tool unmapped
              {"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": True}}, ALICE)
    _exchange(events, "x3", ext(3, "tasks/get", {"taskId": task}),                        # an unmapped Subject
              {"jsonrpc": "2.0", "id": 3, "error": NOT_FOUND}, {"authorization": "Bearer tok-zed", "mcp-name": task})
    _exchange(events, "x4", ext(4, "tasks/update", {"taskId": task, "inputResponses": {    # two keys
        "acme/i-neverissuedneverissued": {"action": "accept"}, "other": {"action": "accept"}}}),
              {"jsonrpc": "2.0", "id": 4, "result": {"resultType": "complete"}}, {**ALICE, "mcp-name": task})
    _exchange(events, "x5", ext(5, "tasks/get", {"taskId": task}, elicitation={}),          # a bare elicitation
              {"jsonrpc": "2.0", "id": 5, "result": next(e for e in reversed(events) if e.get("dir") == "s2c"
                                                         and e["conn"] == "h-r2")["message"]["result"]},
              {**ALICE, "mcp-name": task})
    _exchange(events, "x6", {**ext(6, "tasks/get", {"taskId": task, "extra": {"x": 1}}), "extra": 1},  # extra fields
              {"jsonrpc": "2.0", "id": 6, "result": next(e for e in reversed(events) if e.get("dir") == "s2c"
                                                         and e["conn"] == "h-r2")["message"]["result"]},
              {**ALICE, "mcp-name": task})
    return events


def test_unmodelled_exchanges_are_listed_with_their_assumption_and_checked():
    events = _open_world_log()
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "conforms-partially" and r.matched == r.events, r.to_json()
    got = {u["conn"]: u for u in r.unjudged}
    # two keys and a bare elicitation are forms the model's clients send; the extra fields are read as its get
    assert set(got) == {"x1", "x2", "x3"}, got
    assert "without a bearer token" in got["x1"]["why"] and "'greet'" in got["x2"]["why"]
    assert "mapping does not name" in got["x3"]["why"]
    assert got["x1"]["assumption"] == "answered with an error, no run created: state unchanged"
    assert got["x2"]["assumption"] == "a tool outside the model: answered, no run created, state unchanged"
    assert all(u["check"] == "holds" and u["runs"] == [] for u in r.unjudged), r.unjudged
    assert r.exchanges == {"total": 8, "judged": 5, "unjudged": 3, "ignored": 0}
    assert r.to_json()["unjudged"] == r.unjudged and r.to_json()["exchanges"]["judged_fraction"] == 5 / 8


def test_a_tokenless_request_speaks_for_the_mappings_principal():
    """`tokenless` names the Subject of a request without a bearer token: x1 is then alice's declaring
    call, judged, and the host's refusal of it breaks CRT-1."""
    events = _open_world_log()
    r = validate_log(_dump(events), {**MAPPING, "tokenless": "alice"})
    assert r.result == "diverges" and r.divergence.requirement == "CRT-1", r.to_json()
    assert events[r.divergence.index + 1]["conn"] == "x1" and not r.unjudged


def test_a_host_bug_after_unmodelled_exchanges_still_diverges():
    """Unmodelled exchanges judge nothing, and hide nothing: a read that appends still breaks GET-1."""
    events = _open_world_log()
    i = _first(events, lambda e: e.get("dir") == "c2s" and e["message"].get("method") == "tasks/get")
    run = next(e["runId"] for e in events if e.get("event") == "run")
    events.insert(i + 1, {"event": "run", "t": events[i]["t"], "runId": run, "kind": "task.read", "status": "pending"})
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.requirement == "GET-1", r.to_json()


def test_a_run_event_no_open_exchange_explains_is_still_a_divergence():
    """Even after an unmodelled request whose connection closed unanswered: it explains nothing later."""
    events = _open_world_log()
    events.extend([{"t": events[-1]["t"] + 0.1, "event": "open", "conn": "x7", "transport": "http",
                    "http": {"method": "POST", "path": "/s1", "headers": {}}},
                   {"t": events[-1]["t"] + 0.2, "event": "message", "conn": "x7", "dir": "c2s",
                    "message": _request(7, "tools/call", {"name": "flow", "arguments": {}})},
                   {"t": events[-1]["t"] + 0.3, "event": "close", "conn": "x7", "how": "dropped", "by": "client"}])
    run = next(e["runId"] for e in events if e.get("event") == "run")
    events.append({"event": "run", "t": events[-1]["t"] + 1, "runId": run, "kind": "task.read", "status": "pending"})
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.unjudged[-1]["check"] == "unanswered in the log", r.to_json()


def test_the_text_output_lists_the_unjudged_exchanges(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_dump(_open_world_log())) + "\n")
    assert main(["validate", str(log), "--map", str(_map(tmp_path))]) == 2
    out = capsys.readouterr().out
    assert out.startswith("conforms-partially: ") and "exchanges: 5 of 8 judged (62%)" in out, out
    assert "not judged: 3 exchange(s)" in out and out.count("assumed ") == 3 and "check: holds" in out
    assert "held (" in out and "unjudged (" in out
    assert main(["validate", str(log), "--map", str(_map(tmp_path)), "--allow-unmodelled"]) == 0
    assert capsys.readouterr().out.startswith("conforms: ")


def test_odd_requests_and_answers_never_traceback():
    """Requests and answers of every odd shape, in and outside the vocabulary: an answer, never an
    exception."""
    from verifier.validate import LogError
    rnd = random.Random(11)
    odd = [None, 5, "x", [], [1, "a"], {}, {"k": [None]}, True, {"a": 5}, {"a": {"action": 1}}]
    for _ in range(80):
        events = _open_world_log()
        for e in events:
            if e.get("event") != "message" or rnd.random() > 0.4:
                continue
            m = e["message"]
            if isinstance(m.get("params"), dict):
                key = rnd.choice(["taskId", "notifications", "_meta", "inputResponses", "name", "requestState"])
                m["params"][key] = rnd.choice(odd + [{"taskIds": rnd.choice(odd)}])
            elif isinstance(m.get("result"), dict):
                key = rnd.choice(["taskId", "status", "inputRequests", "result", "ttlMs", "error"])
                m["result"][key] = rnd.choice(odd)
        try:
            r = validate_log(_dump(events), MAPPING, budget=10)
        except LogError:
            continue
        assert r.result in ("conforms", "conforms-partially", "diverges", "undetermined")


def test_a_diagnosis_is_the_same_on_a_slow_machine(monkeypatch):
    """The diagnosis is bounded by model steps, not seconds: with every model step made slower (a
    loaded machine), the same variant and requirement are named, word for word."""
    from verifier.validate.search import Matcher
    v = resolve("detach-on-disconnect")
    want = {rid for rid, verdict in v.expect.items() if verdict == "refuted"}
    lines = next(lines for seed, steps in WALKS for world, lines in [_lines(seed, True, v, steps=steps)]
                 if _broken(v, world) & want)
    quick = validate_log(lines, MAPPING, budget=120).to_json()
    step = Matcher._step

    def slow(self, *args, **kw):
        time.sleep(0.002)
        return step(self, *args, **kw)

    monkeypatch.setattr(Matcher, "_step", slow)
    assert validate_log(lines, MAPPING, budget=120).to_json() == quick
    assert quick["result"] == "diverges" and quick["divergence"]["requirement"] in want


def _alice_suspended(kind: str, ended: bool):
    """The world where alice's run suspends on an interrupt of `kind` and she reads it, then cancels it or not."""
    w = unbounded_world(None)
    w.apply("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow"), check=False)
    run = w.requests["r1"].run
    w.apply("run_start", dict(run=run), check=False)
    w.apply("run_interrupt", dict(run=run, kind=kind, form=True), check=False)
    ref = w.rules.task_id(w, w.runs[run])
    w.apply("tasks_get", dict(client="C1", server="S1", ref=ref, transport="http", declare=True, header_ok=True),
            check=False)
    w.apply("respond", dict(request="r2"), check=False)        # says the kind: "approval needed"
    if ended:                   # alice cancels it: the run ends with the interrupt
        w.apply("tasks_cancel", dict(client="C1", server="S1", ref=ref, transport="http", declare=True,
                                     header_ok=True), check=False)
        w.apply("respond", dict(request="r3"), check=False)
        w.apply("run_finish_cancel", dict(run=run), check=False)
        assert w.runs[run].status == "cancelled"
    return w


def test_candidates_that_differ_only_in_a_closed_interrupts_kind_are_one():
    """What no later step reads (a closed interrupt's kind, the free text naming it) is masked; an
    open interrupt's kind is not."""
    from verifier.validate.ids import Bindings
    from verifier.validate.search import Cand, Texts, _future
    texts = Texts()

    def future(kind, ended):
        return _future(Cand(_alice_suspended(kind, ended), Bindings(), {}, {}, None, frozenset(), None), texts)
    assert future("approval", True) == future("clarification", True)
    assert future("approval", False) != future("clarification", False)


def test_a_search_keeps_each_state_once_as_its_fingerprint_tells():
    """The search's set of states reached (`_Seen`) fingerprints only states alike in a few fields: on
    every state two internal moves from alice's suspended run, it keeps exactly those a set of
    fingerprints keeps."""
    from model.actions import load_all
    from model.snapshot import clone, fingerprint
    from verifier.validate.ids import Bindings
    from verifier.validate.search import INTERNAL_ACTORS, Cand, _Seen
    table = load_all()
    internal = [n for n, a in table.items() if a.actor in INTERNAL_ACTORS]

    def children(w):
        for name in internal:
            for args in table[name].moves(w):
                child = clone(w)
                child.apply(name, args, check=False)
                yield child
    seen, prints, kept = _Seen(), set(), 0
    for w in [_alice_suspended("approval", False), _alice_suspended("clarification", True)]:
        for child in children(w):
            for grandchild in [child, *children(child)]:
                f = fingerprint(grandchild, rename=False)
                new = f not in prints
                prints.add(f)
                assert seen.add(Cand(grandchild, Bindings(), {}, {}, None, frozenset(), None)) == new
                kept += new
    assert kept > 20


# ---- what real clients send, judged (issue 52) --------------------------------------------------------
def _recorded(play):
    """The log of `play(apply)`, a script of model steps (`apply(action, **args)` returns the step; a
    request other than tools/call is answered at once, as the reference host does)."""
    from verifier.writers.traffic import Recorder
    world, rec = unbounded_world(None), Recorder(True)

    def apply(action, **args):
        step = world.apply(action, args, check=False)
        rec.record(world, step)
        for answered in answer_pending(world, step, check=False):
            rec.record(world, answered)
        return step
    play(world, apply)
    return rec.lines(world, rename=True)


def _two_open(world, apply, update=True):
    """alice's run waits on two clarifications at once, which she answers in one tasks/update."""
    apply("call_tool", client="C1", server="S1", transport="http", declare=True, tool="flow")
    run = world.requests["r1"].run
    apply("answer", request="r1")
    apply("run_start", run=run)
    for _ in range(2):
        apply("run_interrupt", run=run, kind="clarification", form=True)
    ref = world.rules.task_id(world, world.runs[run])
    apply("tasks_get", client="C1", server="S1", ref=ref, transport="http", declare=True, header_ok=True)
    if update:
        first, second = world.runs[run].interrupts
        apply("tasks_update_two", client="C1", server="S1", ref=ref, key=first, also=second, response="accept")
    return run, ref


def test_two_open_interrupts_answered_in_one_update_are_judged():
    r = validate_log(_recorded(_two_open), MAPPING)
    assert r.result == "conforms" and r.exchanges["unjudged"] == 0, r.to_json()
    assert next(q for q in r.requirements if q["id"] == "UPD-4")["verdict"] == "held"


def test_an_update_resolving_one_of_its_two_keys_breaks_upd_4_at_its_answer():
    events = _events(_recorded(_two_open))
    resolved = [i for i, e in enumerate(events) if e.get("kind") == "interrupt.resolved"]
    assert len(resolved) == 2
    del events[resolved[1]]
    answer = resolved[1]             # the update's answer moved up into the removed event's place
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.requirement == "UPD-4", r.to_json()
    assert r.divergence.line == answer + 1 and r.matched == r.divergence.index
    assert "(line " in r.divergence.reason          # the model's request named by its line in the log


def _listening(world, apply):
    """alice listens to her task, which asks twice; one answer changes only its input requests."""
    run, ref = _two_open(world, apply, update=False)
    apply("listen", client="C1", server="S1", declare=True)
    first = world.runs[run].interrupts[0]
    apply("tasks_update", client="C1", server="S1", ref=ref, transport="http", declare=True, header_ok=True,
          key=first, response="accept")
    apply("tasks_cancel", client="C1", server="S1", ref=ref, transport="http", declare=True, header_ok=True)


def test_a_change_never_notified_to_a_listen_stream_breaks_ntf_4():
    lines = _recorded(_listening)
    assert validate_log(lines, MAPPING).result == "conforms"
    events = _events(lines)
    notes = [i for i, e in enumerate(events) if e.get("message", {}).get("method") == "notifications/tasks"]
    assert len(notes) >= 2
    skipped = events[notes[0]]["message"]["params"]
    assert skipped["status"] == "input_required" and len(skipped["inputRequests"]) == 1    # the input-requests change
    del events[notes[0]]
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.requirement == "NTF-4", r.to_json()
    assert r.divergence.line == notes[1], r.divergence.to_json()        # the later notification, one line up
    assert "withheld" in r.divergence.reason and "2026" not in r.divergence.reason     # no host time compared
    late = _events(lines)[:notes[0]] + [dict(e, t=e["t"] + 5) for e in _events(lines)[notes[0] + 1:]]
    late = _dump([e for e in late if e.get("message", {}).get("method") != "notifications/tasks"])
    r = validate_log(late, MAPPING)
    assert r.result == "diverges" and r.divergence.requirement == "NTF-4" and "never notified" in r.divergence.reason
    assert "within 1 s, assumed" in r.divergence.reason         # the sources name no bound: said so
    # A host that declares it notifies within 10 s may still send the notification owed for 5 s: no
    # divergence at the log's end; one that declares 2 s breaks NTF-4 there, by its own bound.
    patient = validate_log(late, {**MAPPING, "host": {"notify_within_s": 10}})
    assert patient.divergence is None or patient.divergence.requirement != "NTF-4", patient.to_json()
    assert any("within the host's bound of 10 s: whether it was sent is not judged" in a for a in patient.assumptions)
    assert not any("not judged" in a for a in validate_log(lines, MAPPING).assumptions)     # nothing owed at the end
    hasty = validate_log(late, {**MAPPING, "host": {"notify_within_s": 2}})
    assert hasty.divergence.requirement == "NTF-4" and "within 2 s, declared" in hasty.divergence.reason


def test_a_status_message_quoting_the_calls_arguments_breaks_sec_1():
    lines = _session([("alice", "tools/call"), ("alice", "tasks/get")])
    events = _events(lines)
    call = _first(events, lambda e: e.get("dir") == "c2s")
    got = _first(events, lambda e: e.get("dir") == "s2c" and "taskId" in e["message"].get("result", {})
                 and e["message"]["result"].get("resultType") == "complete")
    arguments = events[call]["message"]["params"]["arguments"]
    events[got]["message"]["result"]["statusMessage"] = f"working on {json.dumps(arguments)}"
    r = validate_log(_dump(events), MAPPING)
    assert r.result == "diverges" and r.divergence.requirement == "SEC-1" and r.divergence.line == got + 1, r.to_json()
    sec1 = next(q for q in validate_log(lines, MAPPING).requirements if q["id"] == "SEC-1")
    assert sec1["verdict"] == "held"              # read against the call's arguments, and quoting none


def _terminal_cancel(world, apply):
    """alice's run fails; she cancels its task without reading it first."""
    apply("call_tool", client="C1", server="S1", transport="http", declare=True, tool="flow")
    run = world.requests["r1"].run
    apply("answer", request="r1")
    apply("run_start", run=run)
    apply("run_fail", run=run)
    apply("tasks_cancel", client="C1", server="S1", ref=world.rules.task_id(world, world.runs[run]), transport="http",
          declare=True, header_ok=True)


def test_a_purge_the_declared_host_cannot_have_done_explains_nothing():
    """A tasks/cancel of a finished task answered -32602 seconds after its end: on a host that keeps runs
    300 s it breaks CNL-1; undeclared, it is read as a purge, and the result says it assumed one."""
    events = _events(_recorded(_terminal_cancel))
    i = _first(events, lambda e: e.get("dir") == "s2c" and "taskId" not in e["message"].get("result", {"taskId": 0})
               and e["message"]["result"].get("resultType") == "complete")
    events[i]["message"] = {"jsonrpc": "2.0", "id": events[i]["message"]["id"],
                            "error": {"code": -32602, "message": "Task not found"}}
    declared = validate_log(_dump(events), {**MAPPING, "host": {"retention_s": 300}})
    assert declared.result == "diverges" and declared.divergence.requirement == "CNL-1", declared.to_json()
    assert declared.divergence.line == i + 1 and not declared.assumptions
    assumed = validate_log(_dump(events), MAPPING)
    assert assumed.result != "diverges" and any("purged" in a and f"line {i + 1}" in a for a in assumed.assumptions)


def test_the_hosts_declarations_are_checked_as_input(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_lines(1)[1]) + "\n")
    for host in ({"retention_s": 0}, {"parameters": {"P-APPROVER": "maybe"}}, {"http_error_status": 99},
                 {"ttl_ms_live": 0}, {"notify_within_s": 0}, {"color": 1}):
        m = tmp_path / "map.json"
        m.write_text(json.dumps({**MAPPING, "host": host}))
        assert main(["validate", str(log), "--map", str(m)]) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "mapping at host" in err[0], err


def test_a_declared_p_approver_error_is_the_hosts_choice():
    """An ineligible approver answered -32602: a divergence on a host that acks (P-APPROVER ack, the
    default), a behaviour of one that declares P-APPROVER error."""
    def play(world, apply):
        apply("call_tool", client="C1", server="S1", transport="http", declare=True, tool="flow")
        run = world.requests["r1"].run
        apply("answer", request="r1")
        apply("run_start", run=run)
        apply("run_interrupt", run=run, kind="approval", form=True)
        apply("tasks_update", client="C1", server="S1", ref=world.rules.task_id(world, world.runs[run]),
              transport="http", declare=True, header_ok=True, key=world.runs[run].interrupts[0], response="accept")
    events = _events(_recorded(play))
    i = len(events) - 1
    while "result" not in events[i].get("message", {}):
        i -= 1
    events[i]["message"] = {"jsonrpc": "2.0", "id": events[i]["message"]["id"],
                            "error": {"code": -32602, "message": "Task not found"}}
    acks = validate_log(_dump(events), {**MAPPING, "host": {"retention_s": 300}})
    assert acks.result == "diverges" and acks.divergence.requirement in ("AUTH-1", "UPD-3"), acks.to_json()
    errs = validate_log(_dump(events), {**MAPPING, "host": {"retention_s": 300, "parameters": {"P-APPROVER": "error"}}})
    assert errs.result != "diverges", errs.to_json()
