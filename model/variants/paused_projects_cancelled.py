from ..amend import Amendment
from ..projection import STATUS_PROJECTION


class PausedProjectsCancelled(Amendment):
    """Map sabotage of RFC 0198 §D and ext-tasks §Task Status: `paused` projected `cancelled`.

    A paused run "is left only by resume or cancel", and resume takes it back to `running`
    (`working`): the task would leave a terminal status, which the ext-tasks diagram forbids.
    """
    name = "paused-projects-cancelled"
    kind = "map-sabotage"
    source = "RFC 0198 §D; ext-tasks §Task Status"
    changes = "paused projected `cancelled` (resume then leaves a terminal status)"
    expect = {"PRJ-3": "refuted", "PRJ-1": "refuted"}

    def project_status(self, world, run):
        if run.status == "paused":
            return ("cancelled", None)
        return STATUS_PROJECTION[run.status]
