"""HTTP, status of an error: a host that sends an existing but unreadable task's -32602 with HTTP 404,
and an unknown id's with 200.

The JSON-RPC answers are the same not-found, but the HTTP status tells a task that exists from one
that does not. ISO-1 says the whole answer, HTTP status included, is a nonexistent id's; it compared
only the JSON-RPC message, so this host refuted WIRE-5 alone.
"""
from model import identity, wire
from model.amend import Amendment


class UnreadableTask404(Amendment):
    name = "quality-unreadable-task-404"
    kind = "mutant"
    changes = "a -32602 for a task id naming an existing run is sent with HTTP 404"
    expect = {"ISO-1": "refuted", "WIRE-5": "refuted"}

    def http_status(self, world, q, message):
        raw = identity.unproject(q.task_ref) if q.task_ref else None
        if (message.get("error") or {}).get("code") == wire.INVALID_PARAMS and raw in world.runs:
            return 404
        return super().http_status(world, q, message)
