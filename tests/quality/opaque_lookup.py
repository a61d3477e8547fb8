"""Requests, task references: a host that looks a task up by its opaque segment alone.

The tenant segment of a runId is part of the name (identity.md §5): `beta~2F<opaque of an acme run>`
names no run. This host drops it, so alice's own run answers to it. Refuted on ISO-1 (an id naming
no run gets the answer of a run) once clients send a reference with the tenant segment swapped.
"""
from model import identity
from model.amend import Amendment


class OpaqueLookup(Amendment):
    name = "quality-opaque-lookup"
    kind = "mutant"
    changes = "tasks are looked up by the opaque segment, whatever the tenant segment says"
    expect = {"ISO-1": "refuted"}

    def lookup_task(self, world, q, ref):
        raw = self.decode_task_ref(world, ref)
        if raw is None:
            return None
        for run in world.runs.values():
            if identity.opaque(run.id) == identity.opaque(raw):
                if run.server == q.server and self.can_read(world, q.subject, run):
                    return run
        return None
