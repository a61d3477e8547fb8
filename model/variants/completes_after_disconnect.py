from ..amend import Amendment


class CompletesAfterDisconnect(Amendment):
    """RFC 0198 negative example 4 (§G.12).

    "A run behind a task-less tools/call that runs to completed after the client disconnected
    mid-call violates §G.12." The host cancels the run of a declaring (tasked) call whose owner is
    cancelled, but lets the run of a blocking call run on (and it never reads `cancelled`: LIV-1).
    """
    name = "completes-after-disconnect"
    kind = "negative-example"
    source = "RFC 0198 Examples, Negative 4; §G.12"
    changes = "a run completes after its owner dropped mid-call (task-less calls are not cancelled)"
    expect = {"OWN-2": "refuted", "LIV-1": "refuted"}

    def on_request_cancelled(self, world, q, cause):
        if not q.declares_tasks:
            return None
        return super().on_request_cancelled(world, q, cause)
