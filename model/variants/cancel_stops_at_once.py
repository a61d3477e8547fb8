from ..amend import Amendment


class CancelStopsAtOnce(Amendment):
    """Strengthening that closes gap G3 of RFC 0198 §Security: "§G.12 bounds the orphan-effect
    window to 'before the host answered'. A candidate invariant, mcp-request-bound-run-no-orphan, is
    recorded as gap G3." Here an accepted cancel stops the run at once: no compensation and no
    in-flight attempt acts after it."""
    name = "cancel-stops-at-once"
    kind = "strengthening"
    source = "RFC 0198 §Security (gap G3)"
    changes = "strengthening: no compensation or in-flight effect after acceptance"
    expect = {"OWN-G3": "holds"}

    def effects_while_cancelling(self, world, run):
        return False
