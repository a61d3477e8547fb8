from ..amend import Amendment


class DetachOnDisconnect(Amendment):
    """RFC 0198 alternative 2, rejected: detach on disconnect.

    "The run continues and the result is dropped. Rejected. No handle exists, the client MUST
    re-issue with a new id, and a second run duplicates every external effect." The run of a
    cancelled owner then never reads `cancelled` (LIV-1).
    """
    name = "detach-on-disconnect"
    kind = "rejected-alternative"
    source = "RFC 0198 Alternatives considered, 2"
    changes = "a disconnect before the answer cancels nothing; the result is dropped"
    expect = {"OWN-2": "refuted", "LIV-1": "refuted"}

    def on_request_cancelled(self, world, q, cause):
        return None
