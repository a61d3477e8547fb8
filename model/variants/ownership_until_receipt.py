from ..amend import Amendment


class OwnershipUntilReceipt(Amendment):
    """Strengthening of RFC 0198 §G.12-13 that closes the known gap E2E-1: the RFC cuts ownership
    when the host has *sent* the whole response, so a response lost in flight (or received and not
    persisted before the client crashed) leaves a task no one holds.

    Here a request keeps its run until the client's receipt is known (the harness's durable
    checkpoint of the answer); a disconnect before that, even after the response was sent, cancels
    the run as §G.12 does. By design this departs from the RFC's cut: OWN-1 and OWN-3, which state
    that cut, are refuted.
    """
    name = "ownership-until-receipt"
    kind = "strengthening"
    source = "RFC 0198 §G.12-13 (the cut at sent); requirements.md E2E-1"
    changes = "strengthening: ownership ends when the client's receipt is known"
    expect = {"E2E-1": "holds", "OWN-1": "refuted", "OWN-3": "refuted"}

    def releases_ownership(self, world, q, event):
        return event in ("receipt", "cancelled")

    def on_disconnect_after_response(self, world, q):
        if q.owns is not None:
            self.on_request_cancelled(world, q, "disconnect-before-receipt")
