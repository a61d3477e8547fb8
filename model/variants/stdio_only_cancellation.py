from ..amend import Amendment


class StdioOnlyCancellation(Amendment):
    """RFC 0198 alternative 6, rejected: cancel on stdio `notifications/cancelled` only.

    "Cancel on stdio notifications/cancelled only, and ignore HTTP disconnect. This violates the
    upstream MUST" (streamable HTTP: "the server MUST treat a client disconnect as cancellation").
    The request is gone with its connection, but its run is not cancelled (OWN-2) and never reads
    `cancelled` (LIV-1).
    """
    name = "stdio-only-cancellation"
    kind = "rejected-alternative"
    source = "RFC 0198 Alternatives considered, 6; core §Cancellation"
    changes = "an HTTP disconnect is ignored"
    expect = {"OWN-2": "refuted", "LIV-1": "refuted"}

    def on_request_cancelled(self, world, q, cause):
        if cause == "http-disconnect":
            return None
        return super().on_request_cancelled(world, q, cause)
