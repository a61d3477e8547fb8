"""HTTP, status of an error: a host that answers another tenant's task with the not-found -32602
but sends it with HTTP 403.

The JSON-RPC answer is exactly a nonexistent id's, so a check of the message alone passes; the HTTP
status says the id exists and is someone else's. An unreadable task's -32602 must carry exactly the
status of a nonexistent one's (WIRE-5; ISO-1: never 403). Only seen where mallory's client is in the
scope (C4 is mallory only as the fourth client).
"""
from model import identity, wire
from model.amend import Amendment


class ForeignTaskHttp403(Amendment):
    name = "quality-foreign-task-http-403"
    kind = "mutant"
    changes = "a -32602 for another tenant's existing task is sent with HTTP 403"
    expect = {"WIRE-5": "refuted"}

    def http_status(self, world, q, message):
        err = message.get("error") or {}
        raw = identity.unproject(q.task_ref) if q.task_ref else None
        run = world.runs.get(raw) if raw else None
        if err.get("code") == wire.INVALID_PARAMS and run is not None \
                and run.tenant != world.params.subject(q.subject).tenant:
            return 403
        return super().http_status(world, q, message)
