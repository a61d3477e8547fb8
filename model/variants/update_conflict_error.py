from .. import wire
from ..amend import Amendment


class UpdateConflictError(Amendment):
    """Planted mutant of ext-tasks §Task Update Requests and RFC 0198 §E.7: a `tasks/update` is
    acknowledged with the empty result whatever it resolved (keys that are not outstanding are
    ignored).

    This host surfaces a lost resolve race (the key was already answered) as a JSON-RPC error.
    """
    name = "update-conflict-error"
    kind = "mutant"
    source = "ext-tasks §Task Update Requests; RFC 0198 §E.7"
    changes = "a lost resolve race surfaced as a JSON-RPC error"
    expect = {"UPD-3": "refuted"}

    def update_response(self, world, q, resolved, authorized):
        if authorized and not resolved:
            return wire.error_response(q.id, wire.INTERNAL_ERROR, "interrupt_already_resolved",
                                       {"httpStatus": 409})
        return super().update_response(world, q, resolved, authorized)
