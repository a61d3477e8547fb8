"""Each planted bug of the reference host: the leg that checks its clause fails on the wire, and the
recorded log is rejected by `taskmodel validate` with the requirement the bug breaks."""
from __future__ import annotations

import pytest

# One xdist worker takes the module (Makefile: --dist loadfile): its tests share one host, in file order.
pytestmark = pytest.mark.live

# bug (named after its model variant) -> (the leg that sees it on the wire, the ids validate may name)
BUGS = {
    "detach-on-disconnect": ("disconnect-before-response-cancels", {"OWN-2"}),
    "foreign-task-403": ("unreadable-is-not-found", {"ISO-1"}),
    "get-appends-read-event": ("get-appends-nothing", {"GET-1"}),
    "update-skips-approver-check": ("update-resolves-once", {"UPD-2", "AUTH-1", "SEC-2"}),
    "cancel-terminal-appends": ("cancel-then-cancel-terminal", {"CNL-1"}),
    "notify-cancelled-on-run-cancel": ("no-notifications-cancelled", {"NTF-1"}),
}


def test_every_switch_is_a_model_variant():
    from examples.host.bugs import Bugs
    from model.variants import resolve
    assert set(Bugs.names()) == set(BUGS)
    for name in Bugs.names():
        assert resolve(name).name == name


@pytest.mark.parametrize("bug", list(BUGS))
def test_planted_bug_is_seen_and_rejected(start_host, validate, bug):
    from examples.host.clients.legs import LEGS, Clients, LegFailed
    leg, ids = BUGS[bug]
    host = start_host(bug, name=bug)
    with pytest.raises(LegFailed):
        LEGS[leg](Clients(host.base))
    out = validate(host.log)
    assert out["result"] == "diverges", validate.explain(out)
    assert out["divergence"]["requirement"] in ids, validate.explain(out)
    assert out["exit_code"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("bug", list(BUGS))
def test_planted_bug_is_its_variant(start_host, validate, bug):
    """The buggy host's log is a behaviour of the model variant the bug is named after."""
    from examples.host.clients.legs import LEGS, Clients, LegFailed
    leg, _ = BUGS[bug]
    host = start_host(bug, name=bug)
    with pytest.raises(LegFailed):
        LEGS[leg](Clients(host.base))
    out = validate(host.log, "--variant", bug)
    assert out["result"] == "conforms", validate.explain(out)
