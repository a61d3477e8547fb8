from .. import wire
from ..amend import Amendment


class PurgedTaskExpiredMessage(Amendment):
    """Planted mutant of RFC 0198 §F.11 and §C.6: "After purge, tasks/get returns -32602", the same
    response a nonexistent task gets.

    This host tells a purged task from a missing one by its message ("Task expired").
    """
    name = "purged-task-expired-message"
    kind = "mutant"
    source = "RFC 0198 §F.11, §C.6"
    changes = "a purged id answered with a different message"
    expect = {"TTL-3": "refuted", "ISO-1": "refuted"}

    def not_found(self, world, q, reason):
        raw = self.decode_task_ref(world, q.task_ref) if q.task_ref else None
        run = world.runs.get(raw) if raw else None
        if run is not None and run.purged:
            return wire.error_response(q.id, wire.INVALID_PARAMS, "Task expired", None)
        return super().not_found(world, q, reason)
