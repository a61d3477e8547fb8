from ..amend import Amendment


class GetAppendsReadEvent(Amendment):
    """Planted mutant of RFC 0198 §F.9: "The host MUST NOT append anything to a run's log to answer
    tasks/get." This host audits every read in the run's log."""
    name = "get-appends-read-event"
    kind = "mutant"
    source = "RFC 0198 §F.9"
    changes = "`tasks/get` appends an audit event"
    expect = {"GET-1": "refuted"}

    def on_tasks_get(self, world, q, run):
        world.append(run, {"type": "task.read", "by": q.subject, "request": q.id})
