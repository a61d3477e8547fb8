"""Connection events: a host that ignores every cancellation (HTTP disconnect, stdio
notifications/cancelled, stdio EOF).

Its requests stay open and its runs keep running. OWN-2 learnt of a cancellation from the host's own
record of what it cancelled, so this host only made it vacuous; it now reads the cancellation from
the connection event itself, and refutes it.
"""
from model.amend import Amendment


class IgnoresCancellation(Amendment):
    name = "quality-ignores-cancellation"
    kind = "mutant"
    changes = "no cancellation of a request reaches the host"
    expect = {"OWN-2": "refuted"}

    def cancellation_applies(self, world, q, cause):
        return False
