"""benchmarks/mutation.py: its mutants are stable and loaded without touching the working tree."""
from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Loaded by path: putting benchmarks/ on sys.path would let benchmarks/z3.py shadow the z3 package.
_spec = importlib.util.spec_from_file_location("mutation", ROOT / "benchmarks" / "mutation.py")
mutation = importlib.util.module_from_spec(_spec)
sys.modules["mutation"] = mutation
_spec.loader.exec_module(mutation)


def test_the_same_source_gives_the_same_mutants_of_every_kind():
    first, again = mutation.mutants("model/host.py"), mutation.mutants("model/host.py")
    assert first == again
    kinds = {what.split(" ")[0] for _, what in first}
    assert {"negated", "deleted", "Eq", "And", "True"} <= kinds, kinds
    assert any("world.append" in what for _, what in first), "event appends are among the deletions"


def test_narration_is_not_mutated():
    for _, what in mutation.mutants("model/harness.py"):
        assert "said" not in what and "told.append" not in what, what


def test_a_mutant_is_loaded_by_the_import_hook_and_the_file_is_left_as_it_was():
    path = ROOT / "model/projection.py"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    line, what = mutation.mutants("model/projection.py")[0]
    assert what == "'completed' -> 'failed'" and line == 13
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import mutation; "
            "sys.meta_path.insert(0, mutation._Hook('model.projection', mutation.mutated_code('model/projection.py', 0))); "
            "from model.projection import STATUS_PROJECTION as P; print('completed' in P)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"        # the first mutant renames the key of the completed row
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_outcomes_are_read_against_the_unmutated_model():
    base = {"host-small": {"verdicts": {"a": "proved", "b": "proved", "w": "reached"}, "faults": [],
                           "generated": ["answer", "method: tasks/get"]}}
    same = {"host-small": {**base["host-small"]}}
    assert mutation.classify(base, same)[0] == "survived"
    assert mutation.classify(base, {"host-small": {**same["host-small"], "verdicts": {"a": "refuted"}}})[0] == "killed"
    assert mutation.classify(base, {"host-small": {**same["host-small"], "verdicts": {"b": "vacuous"}}})[0] == "vacuous"
    assert mutation.classify(base, {"host-small": {**same["host-small"], "generated": ["answer"]}}) == (
        "vacuous", "host-small: never generates method: tasks/get")
    assert mutation.classify(base, {"host-small": {**same["host-small"], "faults": ["x.py:1: KeyError"]}})[0] == "crashed"
    assert mutation.classify(base, {"crashed": "exit 1"})[0] == "crashed"
    grown = {"host-small": {**same["host-small"], "verdicts": {"b": "undetermined"}, "state_cap": True}}
    assert mutation.classify(base, grown) == ("undetermined", "host-small: state cap")
    capped_alike = {"host-small": {**base["host-small"], "state_cap": True}}
    assert mutation.classify(capped_alike, capped_alike)[0] == "survived"   # both cut at the same work


def test_a_count_fallen_past_the_gates_factor_is_a_vacuity():
    """The gate's drift rule (`coverage_factor` 4): a premise reached a quarter as often or less, or
    an action fired so, is a vacuity; a smaller drop is not."""
    cov = {"premises": {"a": 45}, "actions": {"answer": 100}}
    base = {"hypothesis": {"verdicts": {"a": "holds"}, "faults": [], "generated": [], "coverage": cov}}
    with_counts = lambda premises, actions: {"hypothesis": {**base["hypothesis"], "coverage": {  # noqa: E731
        "premises": {"a": premises}, "actions": {"answer": actions}}}}
    assert mutation.classify(base, with_counts(12, 100))[0] == "survived"
    assert mutation.classify(base, with_counts(10, 100)) == (
        "vacuous", "hypothesis: premise of a exercised 10 times, was 45 (a drop of more than 4x)")
    assert mutation.classify(base, with_counts(45, 20))[0] == "vacuous"


def test_footprint_declarations_are_not_mutated():
    """A footprint is held to the truth by its verify mode (tests/test_footprints.py), never by a
    property: a mutant of one would survive every check, so none is made. Code that acts is still."""
    import ast
    for file, helper in (("model/host.py", "_answer_footprint"), ("model/network.py", "_dropped")):
        tree = ast.parse((ROOT / file).read_text())
        declared = {n.name: n for n in mutation._footprints(tree) if isinstance(n, ast.FunctionDef)}
        assert helper in declared
        lines = set(range(declared[helper].lineno, declared[helper].end_lineno + 1))
        assert not lines & {line for line, _ in mutation.mutants(file)}
    assert "disconnect" not in declared and any("network.py" in f for f in mutation.FILES)
    assert any(what.startswith("deleted `world.cancel") or "negated" in what for _, what in mutation.mutants("model/network.py"))
