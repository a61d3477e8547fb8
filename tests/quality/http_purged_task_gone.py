"""HTTP, status of an error: a host that sends a purged task's -32602 with HTTP 410 Gone and a
never-issued id's with 200.

The JSON-RPC answers are the same not-found, but the HTTP status tells a purged task from an id that
never existed: an unreadable task's -32602 must carry exactly the status of a nonexistent one's
(WIRE-5; ISO-1 says the same of the whole answer). Invisible while every -32602 was sent with one
status and no response's HTTP status was recorded.
"""
from model import identity, wire
from model.amend import Amendment


class PurgedTaskGone(Amendment):
    name = "quality-purged-task-gone"
    kind = "mutant"
    changes = "a -32602 for a task id naming a purged run is sent with HTTP 410"
    expect = {"WIRE-5": "refuted"}

    def http_status(self, world, q, message):
        err = message.get("error") or {}
        raw = identity.unproject(q.task_ref) if q.task_ref else None
        if err.get("code") == wire.INVALID_PARAMS and raw in world.runs and world.runs[raw].purged:
            return 410
        return super().http_status(world, q, message)
