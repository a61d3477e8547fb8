"""The planted-mutant corpus: one small amendment per dimension of the environment, each a host or
harness bug the model once reported as holding because it never generated the behaviour behind it.
Each must be refuted, with the right requirement id, by the exhaustive search at a small scope
(deterministic: the same model always gives the same verdict)."""
from __future__ import annotations

from pathlib import Path

import pytest

from model.amend import load_file
from properties.base import load_catalogue
from verifier.engines.bfs import run_bfs

HERE = Path(__file__).parent

# (amendment file, scope it is searched at, the requirement id it must refute)
CORPUS = [
    ("opaque_lookup.py", "host-small", "ISO-1"),
    ("spent_request_state.py", "host-small,retry_reserve=2", "OWN-1"),     # two retries: one spends the state
    ("refuses_valid_retry.py", "host-small", "OWN-1"),
    ("ignores_cancellation.py", "host-small", "OWN-2"),
    ("projected_key.py", "host-small", "UPD-2"),
]


@pytest.mark.parametrize("file, scope, rid", CORPUS, ids=[c[0] for c in CORPUS])
def test_planted_mutant_refuted_with_its_id(file, scope, rid):
    variant = load_file(str(HERE / file))
    assert variant.expect.get(rid) == "refuted", f"{file} should declare what it breaks"
    props = [p for p in load_catalogue().values() if rid in p.ids]
    assert props, rid
    r = run_bfs(variant, scope=scope, props=props, budget=120)
    verdicts = {v.name: v for v in r.verdicts}
    refuted = [v for v in verdicts.values() if v.verdict == "refuted"]
    assert refuted, f"{file}: {rid} not refuted at {scope}: {[(v.name, v.verdict, v.message) for v in verdicts.values()]}"
    assert all(v.trace for v in refuted), "a refutation carries its replayed trace"
    assert not r.faults, [f.line() for f in r.faults]


def test_corpus_covers_every_file():
    """Every amendment file of the corpus is in the table (none is silently left out)."""
    files = {p.name for p in HERE.glob("*.py") if not p.name.startswith(("test_", "__"))}
    assert files == {c[0] for c in CORPUS}
