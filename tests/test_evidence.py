"""No positive verdict without evidence: a proof needs every case its requirement enumerates reached,
the plan judges every property at every scope it searches, and a proof another engine's trace
contradicts is flagged."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from model import identity, wire
from model.amend import Amendment
from properties.base import find, load_catalogue
from verifier.engines.bfs import merge
from verifier.engines.bfs.search import _judged, plan
from verifier.runtime.contradictions import contradictions, told
from verifier.runtime.results import CheckResult

ROOT = Path(__file__).resolve().parents[1]
load_catalogue()
TWO_TENANTS = "host-small,clients=('C1','C4')"


class TellsForeignTasksApart(Amendment):
    """Another tenant's task id gets its own not-found message: a cross-tenant leak (ISO-1)."""
    name = "tells-foreign-tasks-apart"
    changes = "a task of another tenant is answered 'task belongs to another tenant'"
    expect = {"ISO-1": "refuted"}

    def not_found(self, world, q, reason):
        run = world.runs.get(identity.unproject(q.task_ref or "") or "")
        if run is not None and run.tenant != world.params.subject(q.subject).tenant:
            return wire.error_response(q.id, wire.INVALID_PARAMS, "task belongs to another tenant", None)
        return super().not_found(world, q, reason)


def _plan_at(props, names, variant=None):
    """The plan's searches of `props` at the scopes named, merged as a check merges them."""
    got = [_judged(variant, sc, ps, True, 600, None, None, None, variant is not None)
           for sc, ps in plan(None, props) if sc.name in names]
    assert len(got) == len(names), [sc.name for sc, _ in plan(None, props)]
    return [v for _, vs, _ in merge.joined(got) for v in vs]


def test_a_proof_of_iso1_needs_another_tenant_and_the_plan_has_one_that_refutes_the_leak():
    iso = find("ISO-1")
    assert "another tenant, by tasks/get" in iso.cases and len(iso.cases) == 12
    # Without a scope holding a second tenant the leak is not seen, and ISO-1 is not proved either.
    (alone,) = _plan_at([iso], ["host-small", "host-clock"], TellsForeignTasksApart)
    assert alone.verdict == "vacuous" and "another tenant, by tasks/get" in alone.unreached_cases, alone.message
    # The plan's two-tenant scope judges ISO-1 too: mallory reads acme's task, and the answer differs.
    (judged,) = _plan_at([iso], ["host-small", TWO_TENANTS, "host-clock"], TellsForeignTasksApart)
    assert judged.verdict == "refuted" and judged.scope == TWO_TENANTS, judged.message
    assert "another tenant" in judged.message and len(judged.trace) <= 4
    assert judged.judged_at[0] == "host-small" and TWO_TENANTS in judged.judged_at
    # The baseline: the same scopes together reach every case, and prove it.
    (base,) = _plan_at([iso], ["host-small", TWO_TENANTS, "host-clock"])
    assert base.verdict == "proved" and not base.unreached_cases, base.message


def test_a_premise_naming_a_case_it_does_not_declare_is_a_fault_of_the_property():
    iso = find("ISO-1")
    assert iso.reached(("malformed, by tasks/get",)) == (iso.name, f"{iso.name} / malformed, by tasks/get")
    assert iso.reached(()) == ()
    for wrong in (("malformed",), True):
        with pytest.raises(ValueError):
            iso.reached(wrong)


def test_a_proof_contradicted_by_another_engines_trace_is_flagged_with_the_traces_case():
    iso = find("ISO-1")
    _, (refuted,), _ = _judged(TellsForeignTasksApart, plan(TWO_TENANTS, [iso])[0][0], [iso], True, 600, None,
                               None, None)
    assert refuted.verdict == "refuted"
    proof = CheckResult("v", "bfs", 0, 60, 1, {}, 1, 1, {})
    proof.verdicts = [type(refuted)(iso.name, iso.ids, iso.kind, iso.clause, iso.sentence, "proved", "at host-small")]
    other = CheckResult("v", "hypothesis", 0, 60, 1, {}, 1, 1, {})
    other.verdicts = [refuted]
    (found,) = contradictions(TellsForeignTasksApart, [proof, other])
    assert found["proved_by"] == "bfs" and found["refuted_by"] == "hypothesis"
    assert found["cases"] == ["another tenant, by tasks/get"], found
    assert "bfs's proof is contradicted by hypothesis's" in told(found)
    assert contradictions(TellsForeignTasksApart, [proof, proof]) == []


@pytest.mark.slow
def test_the_leaking_amendment_checked_by_the_exhaustive_engine_exits_non_zero(tmp_path):
    src = tmp_path / "leak.py"
    src.write_text(
        "from model import identity, wire\nfrom model.amend import Amendment\n\n\n"
        "class Leak(Amendment):\n    name = 'leak'\n    changes = 'another tenant is told apart'\n\n"
        "    def not_found(self, world, q, reason):\n"
        "        run = world.runs.get(identity.unproject(q.task_ref or '') or '')\n"
        "        if run is not None and run.tenant != world.params.subject(q.subject).tenant:\n"
        "            return wire.error_response(q.id, wire.INVALID_PARAMS, 'task belongs to another tenant', None)\n"
        "        return super().not_found(world, q, reason)\n")
    out = subprocess.run([str(Path(sys.executable).parent / "taskmodel"), "check", "--variant", str(src),
                          "--engine", "bfs", "--json", "--out", str(tmp_path / "out"), "--no-counterexamples"],
                         cwd=ROOT, capture_output=True, text=True, timeout=3600)
    assert out.returncode == 1, out.stderr[-2000:]
    (iso,) = [p for p in json.loads(out.stdout)["results"][0]["properties"] if "ISO-1" in p["ids"]]
    assert iso["verdict"] == "refuted" and TWO_TENANTS in iso["judged_at"], iso


@pytest.mark.slow
def test_every_case_of_every_property_is_reached_at_some_scope_of_the_plan():
    catalogue = list(load_catalogue().values())
    reached: dict = {}
    for sc, props in plan(None, catalogue):
        s, verdicts, _ = _judged(None, sc, props, True, 3600, None, None, None)
        assert s.complete or s.bounded or s.settled, sc.name
        for v in verdicts:
            for case, n in v.cases.items():
                reached[(v.name, case)] = reached.get((v.name, case), 0) + n
    never = [f"{p.name}: {c}" for p in catalogue for c in p.cases if not reached.get((p.name, c))]
    assert never == [], never
