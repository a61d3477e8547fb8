"""Random sessions (seeded): every Subject calls, reads, answers, cancels and drops at random against
the faithful host; the recorded log must be a behaviour of the model."""
from __future__ import annotations

import pytest

# One xdist worker takes the module (Makefile: --dist loadfile): its tests share one host, in file order.
pytestmark = pytest.mark.live


def _session(start_host, validate, check_schema, seed: int, steps: int) -> None:
    from examples.host.clients.random_session import session
    host = start_host(name=f"random-{seed}")
    counts = session(host.base, steps, seed)
    assert counts.get("call", 0) > 0 and counts.get("drop", 0) > 0, counts
    check_schema(host.log)
    out = validate(host.log, budget=200)
    assert out["result"] == "conforms", validate.explain(out)


def test_random_session_conforms(start_host, validate, check_schema):
    _session(start_host, validate, check_schema, seed=2, steps=30)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 3, 4, 5, 6])
def test_longer_random_sessions_conform(start_host, validate, check_schema, seed):
    _session(start_host, validate, check_schema, seed=seed, steps=50)
