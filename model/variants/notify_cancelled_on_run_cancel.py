from .. import wire
from ..amend import Amendment


class NotifyCancelledOnRunCancel(Amendment):
    """RFC 0198 negative example 6 (§G.14); the corpus's legacy table.

    "A notifications/cancelled on a tools/call response stream when an operator cancels the run
    violates §G.14." The host reports a run's cancellation to every `tools/call` still open on it,
    as the v1 text did ("as run state changes").
    """
    name = "notify-cancelled-on-run-cancel"
    kind = "negative-example"
    source = "RFC 0198 Examples, Negative 6; §G.14; Motivation (legacy table)"
    changes = "`notifications/cancelled` on a `tools/call` stream when a run is cancelled"
    expect = {"NTF-1": "refuted"}

    def server_cancelled_on(self, world, q, reason):
        return q.method in ("subscriptions/listen", "tools/call")

    def cancel_run(self, world, run, reason, cause):
        accepted = super().cancel_run(world, run, reason, cause)
        if accepted:
            for q in world.requests.values():
                if q.method == "tools/call" and q.run == run.id and q.phase in ("received", "streaming") \
                        and self.server_cancelled_on(world, q, reason):
                    world.emit(q.id, wire.server_cancelled_notification(q.id, f"run {reason}"))
        return accepted
