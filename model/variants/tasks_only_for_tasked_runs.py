from ..amend import Amendment


class TasksOnlyForTaskedRuns(Amendment):
    """Planted mutant of RFC 0198 "Why UQ4 is reopened" and the map rows (TASK-1).

    "An MCP task and an A2A task for the same run are two projections of one run with one id": this
    host keeps a task table of its own, filled only by tasked calls, so a run started by a blocking
    call, over REST or as a child is not addressable as a task: its readers get the not-found answer
    to tasks/get (TTL-3), tasks/update (UPD-3) and every task method (AUTH-1). As a side effect the
    runs minted with fewer than 128 bits (REST, children) can no longer be reached as tasks: gap G4
    is closed.
    """
    name = "tasks-only-for-tasked-runs"
    kind = "mutant"
    source = "RFC 0198 Motivation (Why UQ4 is reopened); map mcp.tasks rows"
    changes = "a run started by a blocking call or REST is not addressable as a task"
    expect = {"TASK-1": "refuted", "AUTH-1": "refuted", "UPD-3": "refuted", "TTL-3": "refuted", "ID-G4": "holds"}

    def lookup_task(self, world, q, ref):
        run = super().lookup_task(world, q, ref)
        return run if run is not None and run.started_by == "tasked-call" else None
