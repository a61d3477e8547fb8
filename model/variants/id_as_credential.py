from ..amend import Amendment


class IdAsCredential(Amendment):
    """Planted mutant of RFC 0198 §C.5-6: upstream's "A server MAY use task IDs as bearer tokens"
    read as waiving per-request authorization (the reading the 2026-09-23 rewording removed).

    Possessing a taskId is enough to read the task, in any tenant (and to be told about it on a
    subscriptions/listen stream: ISO-2).
    """
    name = "id-as-credential"
    kind = "mutant"
    source = "RFC 0198 §C.5 (the reworded bearer-token sentence), §C.6"
    changes = "possessing a taskId grants read across tenants"
    expect = {"ID-2": "refuted", "ISO-1": "refuted", "ISO-2": "refuted"}

    def lookup_task(self, world, q, ref):
        raw = self.decode_task_ref(world, ref)
        run = world.runs.get(raw) if raw else None
        if run is None or run.server != q.server or run.purged or not run.durable:
            return None
        return run
