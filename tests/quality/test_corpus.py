"""The planted-mutant corpus: one small amendment per dimension of the environment, each a host or
harness bug the model once reported as holding because it never generated the behaviour behind it.
Each must be refuted, with the right requirement id, by the exhaustive search at a small scope
(deterministic: the same model always gives the same verdict)."""
from __future__ import annotations

from pathlib import Path

import pytest

from model.amend import Amendment, load_file
from properties.base import load_catalogue
from verifier.engines.bfs.run import run_bfs
from verifier.runtime.shadow import unexercised

HERE = Path(__file__).parent

# (amendment file, scope it is searched at, the requirement id it must refute)
CORPUS = [
    ("opaque_lookup.py", "host-small", "ISO-1"),
    ("spent_request_state.py", "host-small,retry_reserve=2", "OWN-1"),     # two retries: one spends the state
    ("refuses_valid_retry.py", "host-small", "OWN-1"),
    ("ignores_cancellation.py", "host-small", "OWN-2"),
    ("projected_key.py", "host-small", "UPD-2"),
    ("tasks_update_owns.py", "host-small", "OWN-1"),                     # seen in the receipt-answer window
    # Runs: a failed run's task status, a credential suspension, a finite ttlMs on a live run.
    ("runs_failed_task_status.py", "host-small", "PRJ-1"),
    ("runs_credential_input_as_form.py", "host-small", "PRJ-2"),
    ("runs_ttl_cancels_live_run.py", "host-clock", "TTL-2"),
    ("runs_purge_before_live_ttl.py", "host-ttl", "TTL-4"),       # a call, a read after the purge
    ("runs_write_doors_ignore_ttl.py", "host-ttl", "TTL-4"),      # a call, a cancel after the retention
    ("runs_one_answer_resolves_all.py", 'host-small,max_interrupts=2,clients=("C2",)', "UPD-2"),   # parallel nodes
    # Authorization: an owner not on the approver list, a same-tenant reader without approvals:respond,
    # another tenant, a Subject without runs:read (Cn speaks for the n-th Subject: C3 carol, C4 mallory, C5 dave).
    ("auth_approver_list_ignored.py", "host-small", "UPD-2"),
    ("auth_approval_scope_ignored.py", 'host-small,clients=("C1","C2","C3")', "UPD-2"),
    ("auth_read_ignores_tenant.py", 'host-small,clients=("C1","C2","C3","C4")', "ISO-1"),
    ("auth_read_ignores_scope.py", 'host-small,clients=("C1","C5")', "ISO-1"),
    # HTTP: the status an unreadable task's -32602 is sent with.
    ("http_purged_task_gone.py", "host-clock,retention=0,max_time=0", "WIRE-5"),
    ("http_foreign_task_403.py", 'host-small,clients=("C1","C2","C3","C4")', "WIRE-5"),
    ("http_unreadable_task_404.py", 'host-small,clients=("C1","C4")', "ISO-1"),
    # Connection events: an answered request's disconnect cancelling the run its MRTR retry owns.
    ("disconnect_after_answer_cancels_retrys_run.py", "host-small", "OWN-4"),
    # Capabilities: a bare `elicitation: {}` (mallory's client) read as no elicitation.
    ("elicit_bare_declaration_as_none.py", 'host-small,clients=("C4",)', "PRJ-4"),
    # The harness: a stream dropped (not torn down) never falls back; a short exchange declaring Tasks.
    ("harness_teardown_only_fallback.py", "composed-small,harness_max_crashes=0,harness_short_ops=False", "LIV-2"),
    ("harness_short_declares_where_offered.py", "composed-small", "HNS-7"),
]


def _same_host_without_the_bug(variant):
    """The baseline rules under the variant's parameters (a finite ttlMs is a host's choice, not the bug)."""
    return type("Unplanted", (Amendment,), {"name": "quality-unplanted", "params": dict(variant.params or {})})


@pytest.mark.parametrize("file, scope, rid", CORPUS, ids=[c[0] for c in CORPUS])
def test_planted_mutant_refuted_with_its_id(file, scope, rid):
    variant = load_file(str(HERE / file))
    assert variant.expect.get(rid) == "refuted", f"{file} should declare what it breaks"
    props = [p for p in load_catalogue().values() if rid in p.ids]
    assert props, rid
    r = run_bfs(variant, scope=scope, props=props, budget=120, shadow=True)
    verdicts = {v.name: v for v in r.verdicts}
    refuted = [v for v in verdicts.values() if v.verdict == "refuted"]
    assert refuted, f"{file}: {rid} not refuted at {scope}: {[(v.name, v.verdict, v.message) for v in verdicts.values()]}"
    assert all(rid in v.ids for v in refuted), [v.ids for v in refuted]
    assert all(v.trace for v in refuted), "a refutation carries its replayed trace"
    assert not r.faults, [f.line() for f in r.faults]
    # Not vacuous: every overridden rule fired and answered otherwise than the baseline's ...
    assert not unexercised(r.overrides), f"{file}: overrides never exercised: {unexercised(r.overrides)}"
    # ... and the same host without the bug keeps the id over every behaviour as long as the refutation
    # (a liveness id is never refuted there; a bounded search cannot prove it).
    depth = max(len(v.trace) for v in refuted)
    base = run_bfs(_same_host_without_the_bug(variant), scope=scope, props=props, budget=120, max_depth=depth)
    kept = ("proved", "proved-bounded") + (("undetermined",) if all(p.kind == "liveness" for p in props) else ())
    # one scope reaches only some of a property's premise cases (the plan's others reach the rest), and
    # where the bug itself makes the premise (a cancellation that the baseline never sends) none: a
    # search of the whole bounded space that refutes nothing keeps it
    assert all(v.verdict in kept + ("vacuous",) for v in base.verdicts), \
        f"{file}: without the bug {rid} is {[(v.verdict, v.message) for v in base.verdicts]} at {scope}"


def test_every_dimension_has_an_entry():
    """Runs, authorization and HTTP each keep at least one planted mutant (named by its file's prefix)."""
    for prefix in ("runs_", "auth_", "http_"):
        assert any(c[0].startswith(prefix) for c in CORPUS), prefix


def test_corpus_covers_every_file():
    """Every amendment file of the corpus is in the table (none is silently left out)."""
    files = {p.name for p in HERE.glob("*.py") if not p.name.startswith(("test_", "__"))}
    assert files == {c[0] for c in CORPUS}
