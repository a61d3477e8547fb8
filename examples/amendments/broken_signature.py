"""A broken amendment, kept for the error tests: the rule it overrides lost a parameter.

`taskmodel check --variant examples/amendments/broken_signature.py` answers, on one line and with
exit code 3: `taskmodel: broken_signature.py:15: rule 'on_request_cancelled' takes (self, world, q,
cause), not (self, world, q)`.
"""
from model.amend import Amendment


class BrokenSignature(Amendment):
    name = "broken-signature"
    changes = "a disconnect cancels nothing (but the rule's signature is wrong)"
    expect = {"OWN-2": "refuted"}

    def on_request_cancelled(self, world, q):
        return None
