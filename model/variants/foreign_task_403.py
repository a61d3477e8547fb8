from .. import wire
from ..amend import Amendment


class ForeignTask403(Amendment):
    """RFC 0198 negative example 3 (§C.6).

    "tasks/get on another tenant's task answered -32603 or 403 violates §C.6." The host tells a
    foreign task from a missing one: it answers it as REST would (`403 id_tenant_mismatch`), carried
    as an internal error.
    """
    name = "foreign-task-403"
    kind = "negative-example"
    source = "RFC 0198 Examples, Negative 3; §C.6"
    changes = "`-32603` with HTTP `403` for another tenant's task"
    expect = {"ISO-1": "refuted"}

    def not_found(self, world, q, reason):
        raw = self.decode_task_ref(world, q.task_ref) if q.task_ref else None
        run = world.runs.get(raw) if raw else None
        if run is not None and run.tenant != world.params.subject(q.subject).tenant:
            return wire.error_response(q.id, wire.INTERNAL_ERROR, "Forbidden",
                                       {"httpStatus": 403, "error": "id_tenant_mismatch"})
        return super().not_found(world, q, reason)

    def http_status(self, world, q, message: dict) -> int:
        """The 403 the change describes travels as the HTTP status too, as a real host sends it."""
        if (message.get("error") or {}).get("data", {}).get("httpStatus") == 403:
            return 403
        return super().http_status(world, q, message)
