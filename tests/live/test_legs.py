"""The 13 legs of v2-mcp-tasks against the faithful reference host, then its recorded log validated."""
from __future__ import annotations

import importlib.util

import pytest

# One xdist worker takes the module (Makefile: --dist loadfile): its tests share one host, in file order.
pytestmark = pytest.mark.live


def _legs():
    if importlib.util.find_spec("httpx") is None:
        return ["(httpx not installed)"]
    from examples.host.clients.legs import LEGS
    return list(LEGS)


@pytest.mark.parametrize("leg", _legs())
def test_leg_holds_on_the_wire(faithful, leg):
    from examples.host.clients.legs import LEGS, Clients
    LEGS[leg](Clients(faithful.base))


def test_probes_hold_on_the_wire(faithful):
    from examples.host.clients.legs import Clients
    from examples.host.clients.probes import PROBES
    for probe in PROBES.values():
        probe(Clients(faithful.base))


def test_faithful_log_conforms(start_host, validate, check_schema):
    """Every leg and probe on one host of its own (so it holds however the tests are spread over
    workers): the whole recorded session is a model behaviour."""
    from examples.host.clients.legs import LEGS, Clients
    from examples.host.clients.probes import PROBES
    host = start_host(name="all-legs")
    for leg in LEGS.values():
        leg(Clients(host.base))
    for probe in PROBES.values():
        probe(Clients(host.base))
    check_schema(host.log)
    events = host.events()
    assert sum(e["event"] == "message" for e in events) > 20, "the legs recorded nothing to validate"
    out = validate(host.log, cli=True)
    assert out["result"] == "conforms", validate.explain(out)
    assert out["matched"] == out["events"]
    verdicts = {p["id"]: p["verdict"] for p in out["properties"]}
    assert "refuted" not in verdicts.values()
    # the legs reach the premises of the clauses they check: each judged, and held, in some case of it
    # (a case the legs never show, such as an answer while the run is paused, is unjudged, not held)
    judged = {r["id"]: r for r in out["requirements"]}
    for rid in ("CRT-1", "ID-1", "ISO-1", "ISO-2", "UPD-1", "GET-1", "CNL-1", "OWN-2", "OWN-3", "NTF-1", "NTF-2"):
        r = judged[rid]
        assert r["verdict"] != "broken" and (r["verdict"] == "held" or
                                            any(c["verdict"] == "held" for c in r["cases"])), (rid, r)
    assert any(c["verdict"] == "unjudged" for c in judged["CRT-1"]["cases"])     # no paused run answered


@pytest.mark.slow
@pytest.mark.parametrize("leg", _legs())
def test_each_leg_log_conforms(start_host, validate, check_schema, leg):
    """Each leg on a host of its own: its log alone is a behaviour of the model."""
    from examples.host.clients.legs import LEGS, Clients
    host = start_host(name=leg)
    LEGS[leg](Clients(host.base))
    check_schema(host.log)
    out = validate(host.log)
    assert out["result"] == "conforms", validate.explain(out)


def _reaching():
    if importlib.util.find_spec("httpx") is None:
        return {}
    from examples.host.clients import reach
    return {"answer-again-while-working": reach.answer_again_while_working,
            "retry-dropped-while-working": reach.retry_dropped_while_working}


def test_legs_probes_and_reaching_clients_hold_in_any_order(start_host):
    """Backwards, on one host: each client reads only what it made, whatever the others left (a run
    still waiting for an approval in the same tenant among them)."""
    from examples.host.clients.legs import LEGS, Clients
    from examples.host.clients.probes import PROBES
    host = start_host(name="backwards")
    c = Clients(host.base)
    c.bob.call("conformance-approval", {"ms": 10})      # left waiting for its approval throughout
    for client in reversed([*LEGS.values(), *PROBES.values(), *_reaching().values()]):
        client(Clients(host.base))
