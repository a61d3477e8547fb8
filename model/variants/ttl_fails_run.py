from ..amend import Amendment
from ..lifecycle import TERMINAL


class TtlFailsRun(Amendment):
    """Planted mutant of RFC 0198 §F.11: "A host MUST NOT fail or cancel a run because a task's TTL
    elapsed: the TTL describes the handle, not the work." (Upstream lets a server mark an expired
    task failed.)

    This host gives every task a finite TTL equal to its retention, counted from creation (P-RETENTION
    "from-creation", so the TTL itself is honest), and fails the run when the TTL elapses.
    """
    name = "ttl-fails-run"
    kind = "mutant"
    source = "RFC 0198 §F.11; ext-tasks §Task Polling (TTL)"
    changes = "the run is failed when the TTL elapses"
    expect = {"TTL-2": "refuted"}
    params = {"p_retention": "from-creation"}
    lifecycle_extra = ({"trigger": "fail", "source": ["pending", "paused", "waiting-approval", "waiting-input",
                                                      "waiting-external"], "dest": "failed"},)

    def ttl_ms(self, world, run):
        return world.params.retention * world.params.tick_ms

    def on_ttl_elapsed(self, world, run):
        if run.status not in TERMINAL and run.status != "cancelling":
            world.set_status(run, "fail")
            world.append(run, {"type": "run.failed", "reason": "task-ttl-elapsed"})
