from ..amend import Amendment


class OwnershipEndsAtFirstEvent(Amendment):
    """Planted mutant of RFC 0198 §G.12: the run belongs to the request "until the host has sent its
    whole response", not an earlier SSE event.

    This host releases ownership at the first SSE event of the response stream, so a disconnect
    after it cancels nothing: the run of the dropped request completes (OWN-2, LIV-1).
    """
    name = "ownership-ends-at-first-event"
    kind = "mutant"
    source = "RFC 0198 §G.12"
    changes = "ownership released at the first SSE event"
    expect = {"OWN-1": "refuted", "OWN-2": "refuted", "LIV-1": "refuted"}

    def releases_ownership(self, world, q, event):
        return event == "stream_event" or super().releases_ownership(world, q, event)
