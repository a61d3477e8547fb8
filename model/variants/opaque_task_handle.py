from ..amend import Amendment


class OpaqueTaskHandle(Amendment):
    """RFC 0198 alternative 4, rejected: an opaque task handle mapped to runId.

    "It adds a second id namespace that needs its own tenant binding, when runId is already
    tenant-bound." Here the handle is `h-` and the run's opaque segment, and the handle table has no
    tenant binding: any caller holding `runs:read` in any tenant resolves it. A handle names no
    runId, so the run behind a CreateTaskResult (CRT-3), a run addressed by its projected runId
    (TASK-1) and a listen acknowledgement (ISO-2) no longer line up with the runs a caller can read.
    """
    name = "opaque-task-handle"
    kind = "rejected-alternative"
    source = "RFC 0198 Alternatives considered, 4; §C.5-6"
    changes = "task ids from their own space (`h-<opaque>`), not tenant-bound"
    expect = {"ID-1": "refuted", "ISO-1": "refuted", "CRT-3": "refuted", "TASK-1": "refuted", "ISO-2": "refuted"}

    def task_id(self, world, run):
        return "h-" + run.id.split("/", 1)[1]

    def lookup_task(self, world, q, ref):
        run = next((r for r in world.runs.values() if self.task_id(world, r) == ref), None)
        if run is None or run.server != q.server or run.purged or not run.durable:
            return None
        return run if "runs:read" in world.params.subject(q.subject).scopes else None
