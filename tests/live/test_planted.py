"""The planted corpus (tests/live/planted/): each bug recorded on a live host, its log validated, and the
requirement named at the event the bug shows at; the clients that reach them conform against the
faithful host."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.live.conftest import MAPPING, SUITE_MAPPING
from tests.live.planted import PLANTED, Ctx

pytestmark = pytest.mark.live
MODEL_LABEL = re.compile(r"(r|run|i)\d+( \(.*\))?")      # the model's labels, followed by the log's names


def _mapping(tmp_path, suite: bool = False, **extra) -> Path:
    m = tmp_path / "mapping.json"
    m.write_text(json.dumps({**json.loads((SUITE_MAPPING if suite else MAPPING).read_text()), **extra}))
    return m


def test_the_corpus_is_at_least_twenty_six_bugs_beyond_the_switches():
    from examples.host.bugs import Bugs
    assert len(PLANTED) >= 26 and not set(PLANTED) & set(Bugs.names())
    assert all(p.ids for p in PLANTED.values())
    assert sum(p.at is not None for p in PLANTED.values()) >= 12


@pytest.mark.parametrize("name", list(PLANTED))
def test_planted_bug_is_named(start_host, validate, tmp_path, monkeypatch, name):
    from examples.host.clients.legs import Clients
    bug = PLANTED[name]
    mapping = _mapping(tmp_path, bug.suite, **({"host": bug.host} if bug.host else {}))
    if bug.stdio:
        monkeypatch.setenv("PLANTED", name)
        log = tmp_path / f"{name}.jsonl"
        bug.drive(Ctx(None, log, name))
        mapping = _mapping(tmp_path, stdio="alice")
    else:
        host = start_host(name=name, retention_s=bug.retention_s, suite_fixtures=bug.suite)
        bug.plant(host.host)
        bug.drive(Ctx(Clients(host.base), host.log, name))
        log = host.log
    out = validate(log, mapping=mapping)
    if bug.unjudged:
        (rid,) = bug.ids
        assert out["result"] == "conforms-partially" and out["exit_code"] == 2, validate.explain(out)
        assert next(r for r in out["requirements"] if r["id"] == rid)["verdict"] == "unjudged"
        assert all(rid in u["why"] for u in out["unjudged"]), out["unjudged"]
        return
    assert out["result"] == "diverges", validate.explain(out)
    d = out["divergence"]
    assert d["requirement"] in bug.ids, validate.explain(out)
    assert out["exit_code"] == 1 and out["matched"] == d["index"]
    if bug.at is not None:
        events = [json.loads(line) for line in Path(log).read_text().splitlines()[1:]]
        assert bug.at(events, d["index"]), f"named at event {d['index']}: {json.dumps(d['event'])[:300]}"
    # what the reason quotes is the host's (its words, its ids), never the model's own
    text = Path(log).read_text()
    quoted = [q for q in re.findall(r"(?<!\w)'([^']+)'(?!\w)", d["reason"]) if not MODEL_LABEL.fullmatch(q)]
    assert all(q in text or json.dumps(q)[1:-1] in text for q in quoted), (quoted, d["reason"])


@pytest.mark.parametrize("scenario", ["answer_again_while_working", "retry_dropped_while_working"])
def test_reaching_clients_conform_on_the_faithful_host(start_host, validate, scenario):
    from examples.host.clients import reach
    from examples.host.clients.legs import Clients
    host = start_host(name=scenario)
    getattr(reach, scenario)(Clients(host.base))
    out = validate(host.log)
    assert out["result"] == "conforms", validate.explain(out)


def _corners():
    try:
        from examples.host.clients.corners import CORNERS
    except ImportError:          # httpx missing: the live tests are skipped (conftest)
        return ["(httpx not installed)"]
    return list(CORNERS)


@pytest.mark.parametrize("scenario", _corners())
def test_corner_clients_conform_on_the_faithful_host(start_host, validate, tmp_path, scenario):
    """Every exchange judged, the log a behaviour of the model (a foreign read alone has nothing to
    compare its answer with: ISO-1 unjudged, the result partial)."""
    from examples.host.clients.corners import CORNERS
    from examples.host.clients.legs import Clients
    host = start_host(name=scenario, suite_fixtures=True)
    CORNERS[scenario](Clients(host.base))
    out = validate(host.log, mapping=_mapping(tmp_path, suite=True))
    if scenario == "foreign_read_alone":
        assert out["result"] == "conforms-partially" and [u["method"] for u in out["unjudged"]] == ["tasks/get"]
    else:
        assert out["result"] == "conforms", validate.explain(out)
    assert not any(r["verdict"] == "broken" for r in out["requirements"])


def test_stdio_eof_while_a_task_runs_conforms(tmp_path, validate):
    from examples.host.clients.reach import stdio_eof_while_task_runs
    log = tmp_path / "eof.jsonl"
    stdio_eof_while_task_runs(log)
    out = validate(log, mapping=_mapping(tmp_path, stdio="alice"))
    assert out["result"] == "conforms", validate.explain(out)
