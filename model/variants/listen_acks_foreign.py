from ..amend import Amendment


class ListenAcksForeign(Amendment):
    """Planted mutant of RFC 0198 §C.6 and the map's listen row: "A subscriptions/listen request
    for such a task id leaves it out of the acknowledgement in the same way."

    This host acknowledges every requested task id that exists, whoever owns it (it still sends
    notifications only for readable tasks).
    """
    name = "listen-acks-foreign"
    kind = "mutant"
    source = "RFC 0198 §C.6; map mcp.tasks listen row"
    changes = "the listen acknowledgement lists another tenant's task"
    expect = {"ISO-2": "refuted"}

    def listen_ack(self, world, q, refs):
        out = []
        for ref in refs:
            raw = self.decode_task_ref(world, ref)
            run = world.runs.get(raw) if raw else None
            if run is not None and run.server == q.server and not run.purged:
                out.append(run.id)
        return out
