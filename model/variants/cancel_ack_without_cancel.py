from .. import wire
from ..amend import Amendment


class CancelAckWithoutCancel(Amendment):
    """Planted mutant of RFC 0198 §F.10: "tasks/cancel is acknowledged with an empty result and
    cancels the run as cancelRun does." This host acknowledges and leaves the run running."""
    name = "cancel-ack-without-cancel"
    kind = "mutant"
    source = "RFC 0198 §F.10"
    changes = "`tasks/cancel` acknowledged, run left running"
    expect = {"CNL-1": "refuted"}

    def tasks_cancel(self, world, q, run):
        return wire.result_response(q.id, wire.empty_ack())
