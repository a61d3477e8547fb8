from ..amend import Amendment


class ShortTaskId(Amendment):
    """RFC 0198 negative example 2 (§C.5).

    "A taskId of t-42 violates §C.5 (the grammar and the entropy requirement)." The host numbers its
    tasks `t-42`, `t-43`, ... in the order their runs were created. A counter names no runId, so the
    run behind a CreateTaskResult (CRT-3), a run addressed by its projected runId (TASK-1), and which
    tasks a caller may read (ISO-1, ISO-2) no longer line up.
    """
    name = "short-task-id"
    kind = "negative-example"
    source = "RFC 0198 Examples, Negative 2; §C.5"
    changes = "`taskId` `t-42` (a counter, not the projected runId)"
    expect = {"ID-1": "refuted", "CRT-3": "refuted", "TASK-1": "refuted", "ISO-1": "refuted", "ISO-2": "refuted"}

    def task_id(self, world, run):
        return f"t-{41 + list(world.runs).index(run.id) + 1}"

    def decode_task_ref(self, world, ref):
        for rid in world.runs:
            if self.task_id(world, world.runs[rid]) == ref:
                return rid
        return None
