from .. import wire
from ..amend import Amendment


class AckCarriesStatus(Amendment):
    """Planted mutant of ext-tasks §Task Cancellation and RFC 0198 §F.10: the cancel acknowledgement
    is an empty result. This host returns the task's new status in it."""
    name = "ack-carries-status"
    kind = "mutant"
    source = "ext-tasks §Task Cancellation; RFC 0198 §F.10"
    changes = "the cancel ack carries a status"
    expect = {"WIRE-2": "refuted", "CNL-1": "refuted"}

    def tasks_cancel(self, world, q, run):
        super().tasks_cancel(world, q, run)
        status, _ = self.project_status(world, run)
        return wire.result_response(q.id, {**wire.empty_ack(), "status": status})
