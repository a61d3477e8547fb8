from ..amend import Amendment


class ReadOnlyCallerCancels(Amendment):
    """Planted mutant of RFC 0198 §C.6: "tasks/cancel [is authorized as] cancelRun" (runs:cancel).

    This host checks only that the caller can read the task before cancelling its run.
    """
    name = "read-only-caller-cancels"
    kind = "mutant"
    source = "RFC 0198 §C.6; runs.md (cancelRun needs runs:cancel)"
    changes = "`tasks/cancel` checks only read rights"
    expect = {"AUTH-1": "refuted"}

    def can_cancel(self, world, subject, run):
        return self.can_read(world, subject, run)
