"""The planted corpus (tests/live/planted/): each bug recorded on a live host, its log validated, and the
requirement named; the clients that reach the run-still-working bugs conform against the faithful host."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.live.planted import PLANTED, Ctx

MAPPING = Path(__file__).resolve().parents[2] / "examples" / "host" / "mapping.json"
pytestmark = pytest.mark.live


def _stdio_mapping(tmp_path) -> Path:
    m = tmp_path / "mapping.json"
    m.write_text(json.dumps({**json.loads(MAPPING.read_text()), "stdio": "alice"}))
    return m


def test_the_corpus_is_at_least_twelve_bugs_beyond_the_switches():
    from examples.host.bugs import Bugs
    assert len(PLANTED) >= 12 and not set(PLANTED) & set(Bugs.names())
    assert all(p.ids for p in PLANTED.values())


@pytest.mark.parametrize("name", list(PLANTED))
def test_planted_bug_is_named(start_host, validate, tmp_path, monkeypatch, name):
    from examples.host.clients.legs import Clients
    bug = PLANTED[name]
    mapping = MAPPING
    if bug.stdio:
        monkeypatch.setenv("PLANTED", name)
        log = tmp_path / f"{name}.jsonl"
        bug.drive(Ctx(None, log, name))
        mapping = _stdio_mapping(tmp_path)
    else:
        host = start_host(name=name, retention_s=bug.retention_s)
        bug.plant(host.host)
        bug.drive(Ctx(Clients(host.base), host.log, name))
        log = host.log
    out = validate(log, mapping=mapping)
    assert out["result"] == "diverges", validate.explain(out)
    assert out["divergence"]["requirement"] in bug.ids, validate.explain(out)
    assert out["exit_code"] == 1


@pytest.mark.parametrize("scenario", ["answer_again_while_working", "retry_dropped_while_working"])
def test_reaching_clients_conform_on_the_faithful_host(start_host, validate, scenario):
    from examples.host.clients import reach
    from examples.host.clients.legs import Clients
    host = start_host(name=scenario)
    getattr(reach, scenario)(Clients(host.base))
    out = validate(host.log)
    assert out["result"] == "conforms", validate.explain(out)


def test_stdio_eof_while_a_task_runs_conforms(tmp_path, validate):
    from examples.host.clients.reach import stdio_eof_while_task_runs
    log = tmp_path / "eof.jsonl"
    stdio_eof_while_task_runs(log)
    out = validate(log, mapping=_stdio_mapping(tmp_path))
    assert out["result"] == "conforms", validate.explain(out)
