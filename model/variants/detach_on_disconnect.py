from ..amend import Amendment


class DetachOnDisconnect(Amendment):
    """RFC alternative 2, rejected: the run continues and the result is dropped."""
    name = "detach-on-disconnect"
    kind = "rejected-alternative"
    source = "RFC 0198 Alternatives considered, 2"
    changes = "a disconnect before the answer cancels nothing; the result is dropped"
    expect = {"OWN-2": "refuted"}

    def on_request_cancelled(self, world, q, cause):
        return None
