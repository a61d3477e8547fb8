"""Runs, statuses: a host that projects a failed run as the task status `failed`.

The map's §D row sends `failed` to `completed` with `isError: true`; a task is `failed` only for a
JSON-RPC error the host itself raised (PRJ-1). This host reads the run's status across as the task's.
Refuted on PRJ-1 once a run fails and its task is read (a REST run failing, then tasks/get). It was a
fault before, not a verdict: the model built a `failed` task without the `error` the schema requires.
"""
from model.amend import Amendment


class FailedTaskStatus(Amendment):
    name = "quality-failed-task-status"
    kind = "mutant"
    changes = "a failed run reads as the task status failed, not completed with isError true"
    expect = {"PRJ-1": "refuted"}

    def project_status(self, world, run):
        if run.status == "failed":
            return "failed", None
        return super().project_status(world, run)
