"""Requests, MRTR retries: a host that accepts a requestState already spent.

A retry that leaves its key unanswered spends its requestState and resolves nothing; the host asks
again with a fresh state. A second retry echoing the first, spent, state must own nothing (OWN-1:
only a retry whose requestState verifies, unused, owns the run). The old model never sent a retry
that resolved nothing, and OWN-1 took "verified" from the host's own flag.
"""
from model.amend import Amendment


class SpentRequestState(Amendment):
    name = "quality-spent-request-state"
    kind = "mutant"
    changes = "an MRTR retry's requestState verifies however often it was used"
    expect = {"OWN-1": "refuted"}

    def request_state_verifies(self, world, q, rs):
        return rs is not None and rs.principal == q.subject and world.interrupts[rs.interrupt].open
