"""The author's reference (docs/amendments.md, `taskmodel rules --world`) cannot drift from the code:
the document quotes exactly what the command prints, every field of every record and every helper is
documented, and each of the document's Python examples runs and does what it says."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from model import harness, state, wire
from model.amend import Amendment
from model.state import Run
from model.stories import play
from properties.base import load_catalogue
from verifier.cli import main
from verifier.runtime.amendments import load_checked
from verifier.runtime.replay import run_trace
from verifier.runtime.worlds import world_factory
from verifier.writers import world_reference as ref

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "amendments.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```$", TEXT, re.DOTALL | re.MULTILINE)
CATALOGUE = list(load_catalogue().values())
BY_ID = {rid: p.name for p in CATALOGUE for rid in p.ids}
REFRESH = ("docs/amendments.md quotes a stale reference: replace it with `verifier.writers.world_reference.refresh` "
           "(or paste what `taskmodel rules --world` prints between the markers)")


# ---- the reference is the code's ----------------------------------------------------------------
def test_the_doc_quotes_the_reference():
    assert ref.section(TEXT) is not None, f"docs/amendments.md has no {ref.BEGIN} ... {ref.END} section"
    assert ref.section(TEXT) == ref.render(), REFRESH


def test_rules_world_prints_the_reference(capsys):
    assert main(["rules", "--world"]) == 0
    out = capsys.readouterr().out
    assert out == ref.render() == ref.section(TEXT)


def test_rules_world_takes_no_value(capsys):
    assert main(["rules", "--world=yes"]) == 3
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_every_field_of_every_record_is_documented():
    assert ref.undocumented() == [], "document these fields: a comment on the field in its source (or DOCS)"
    assert ref.redundant_docs() == [], "these DOCS entries name no field, or one its source documents"


def test_every_record_of_the_model_is_in_the_reference():
    listed = {cls for cls, _, _ in ref.RECORDS}
    for module in (state, harness):
        made_here = [v for v in vars(module).values()
                     if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__ == module.__name__]
        assert set(made_here) <= listed, set(made_here) - listed


def test_every_helper_and_builder_is_documented():
    table = ref.helpers() + ref.builders()
    assert [label for label, fn in table if not ref.helper_doc(label, fn)] == []
    undocumented = {label for label, fn in table if not fn.__doc__}
    assert set(ref.DOCS["helpers"]) <= undocumented, "a helper documented twice, or not a helper"
    wire_builders = {label for label, _ in ref.builders()}
    assert {"wire.result_response", "wire.error_response", "wire.empty_ack", "wire.get_task_result"} <= wire_builders


def test_every_world_method_is_a_helper_or_said_not_to_be():
    helpers = {label.split(".", 1)[1] for label, _ in ref.helpers() if label.count(".") == 1
               and label.startswith("world.")}
    assert set(ref.world_methods()) == helpers | set(ref.NOT_FOR_RULES)


def test_state_is_what_the_fingerprint_tells_apart():
    """The probe can say both words: a story name and the step record are bookkeeping, a status and
    the clock are state, the same as model.snapshot treats them."""
    kinds = {(cls.__name__, name): is_state for cls, _, where in ref.RECORDS
             for name, _, is_state, _ in ref.record_fields(cls, where)}
    assert kinds[("Run", "status")] and kinds[("World", "clock")] and kinds[("Request", "message")]
    assert not kinds[("Run", "label")] and not kinds[("World", "history")] and not kinds[("World", "step")]
    assert not any(is_state for (record, _), is_state in kinds.items() if record == "Step")


@dataclasses.dataclass(slots=True)
class PlantedRun(Run):
    planted: int = 0


def _planted_run(world):
    run = PlantedRun(**{f.name: getattr(world.runs["acme/run"], f.name) for f in dataclasses.fields(Run)})
    world.runs[run.id] = run
    return run


def test_a_planted_undocumented_field_fails(monkeypatch):
    """The check can fail: a record with a field nothing documents, and a world with a new attribute."""
    records = tuple((PlantedRun, reach, _planted_run) if cls is Run else (cls, reach, where)
                    for cls, reach, where in ref.RECORDS)
    assert ref.undocumented(records) == ["PlantedRun.planted"]
    monkeypatch.setattr(ref, "RECORDS", records)
    with pytest.raises(AssertionError, match="document these fields"):
        test_every_field_of_every_record_is_documented()
    monkeypatch.undo()

    sample = ref._sample_world

    def with_attribute():
        world = sample()
        world.planted = 0
        return world
    monkeypatch.setattr(ref, "_sample_world", with_attribute)
    assert ref.undocumented() == ["World.planted"]


# ---- the examples run and do what they say ---------------------------------------------------------
def _task(w):
    return w.rules.task_id(w, w.runs[w.requests["r1"].run])


def _run1(w):
    return next(iter(w.runs))


def _interrupt1(w):
    return next(iter(w.interrupts))


CALL = ("call_tool", {"client": "C1", "server": "S1", "transport": "http", "declare": True, "tool": "flow"})
CANCEL = ("tasks_cancel", {"client": "C1", "server": "S1", "ref": _task, "transport": "http", "declare": True,
                           "header_ok": True})
HARNESS_CANCEL = [("harness_start", {"client": "H1", "server": "S1", "long": False}), ("answer", {"request": "r1"}),
                  ("harness_receive", {"request": "r1"}), ("harness_persist", {"client": "H1", "op": "op1"}),
                  ("harness_cancel", {"client": "H1", "run": "L1"}), ("harness_send_cancel", {"client": "H1", "op": "op1"}),
                  ("harness_receive", {"request": "r2"})]

# Each amendment of the document, by name: a story, and what its last step shows on the variant's
# world (the story must also break every id the amendment `expect`s refuted, and not on the baseline).
SCENARIOS = {
    "my-old-cancel-rule": (
        [CALL, ("answer", {"request": "r1"}), ("run_start", {"run": _run1}), ("run_complete", {"run": _run1}), CANCEL],
        lambda w: _error_code(w, "r2") == -32602),
    "my-trust-the-ack": (
        HARNESS_CANCEL,
        lambda w: w.harness.execution("H1", "op1").status == "cancelled" and w.runs[_run1(w)].status == "cancelling"),
    "my-owner-may-approve": (
        [CALL, ("run_start", {"run": _run1}), ("run_interrupt", {"run": _run1, "kind": "approval", "form": True}),
         ("answer", {"request": "r1"}),
         ("tasks_update", {"client": "C1", "server": "S1", "ref": _task, "transport": "http", "declare": True,
                           "header_ok": True, "key": _interrupt1, "response": "accept"})],
        lambda w: w.interrupts[_interrupt1(w)].resolved_by == "alice" and w.interrupts[_interrupt1(w)].approvers == ("bob",)),
    "my-one-cancel-per-run": (
        [CALL, ("answer", {"request": "r1"}), CANCEL, CANCEL],
        lambda w: w.requests["r2"].response["result"] == wire.empty_ack() and _error_code(w, "r3") == -32602
        and getattr(w, "my_cancelled", None) == {_run1(w)}),
}


def _defines_an_amendment(block: str) -> bool:
    return re.search(r"^class \w+\(Amendment\):", block, re.MULTILINE) is not None


def _moves(make_world, story):
    return [(action, args) for action, args, _, _ in play(make_world(), story, strict=False)]


def test_every_example_is_checked():
    names = []
    for block in BLOCKS:
        if _defines_an_amendment(block):
            names += re.findall(r'^    name = "([^"]+)"', block, re.MULTILINE)
        else:
            assert "\nassert " in block, f"a script example checks nothing:\n{block}"
    assert sorted(names) == sorted(SCENARIOS), "each amendment of docs/amendments.md needs its scenario here"


@pytest.mark.parametrize("block", [b for b in BLOCKS if _defines_an_amendment(b)],
                         ids=lambda b: re.search(r'name = "([^"]+)"', b).group(1))
def test_amendment_example_does_what_it_says(block, tmp_path):
    path = tmp_path / "my_amendment.py"
    path.write_text(block, encoding="utf-8")
    cls = load_checked(str(path))             # what `taskmodel check --variant` loads
    assert issubclass(cls, Amendment)
    story, shows = SCENARIOS[cls.name]
    assert shows(_world_of(cls, story)), f"{cls.name} does not do what its example says"
    assert not shows(_world_of(None, story)), "the baseline does it too: the example shows nothing"
    for rid, verdict in cls.expect.items():
        assert verdict == "refuted"
        variant, baseline = world_factory(cls), world_factory(None)
        assert run_trace(variant, _moves(variant, story), CATALOGUE, BY_ID[rid]).violation is not None, rid
        assert run_trace(baseline, _moves(baseline, story), CATALOGUE, BY_ID[rid]).violation is None, rid


def _world_of(cls, story):
    world = world_factory(cls)()
    for _ in play(world, story):
        pass
    return world


def _error_code(world, request):
    return (world.requests[request].response.get("error") or {}).get("code")


@pytest.mark.parametrize("block", [b for b in BLOCKS if not _defines_an_amendment(b)])
def test_script_example_runs(block, capsys):
    exec(compile(block, "docs/amendments.md", "exec"), {"__name__": "example"})    # noqa: S102 -- the doc's own example
