"""MRTR retries: a host that refuses every retry, valid or not, with -32602.

OWN-1 took "verified" from the host's own flag, so a host that verified nothing passed. It now
judges a retry from the wire (its requestState was issued to it, is unspent, and its interrupt was
open when it arrived): a valid retry refused is refuted.
"""
from model.amend import Amendment


class RefusesValidRetry(Amendment):
    name = "quality-refuses-valid-retry"
    kind = "mutant"
    changes = "every MRTR retry is answered -32602, its requestState never verifies"
    expect = {"OWN-1": "refuted"}

    def request_state_verifies(self, world, q, rs):
        return False
