from ..amend import Amendment
from ..harness import HarnessRules


class _TaskForEveryCall(HarnessRules):
    def declares_tasks(self, world, client, te):
        return self.tasks_offered(world, client, te.server) is not False


class TaskForEveryCall(Amendment):
    """Client mutant of the harness article's "MRTR versus Tasks" (HNS-7): "do not create a long-lived
    task for a one-off missing parameter". This harness declares the Tasks extension on every call,
    short exchanges too, so a quick confirmation becomes a task to poll instead of an MRTR round trip."""
    name = "task-for-every-call"
    kind = "client-mutant"
    source = "harness article §MRTR versus Tasks"
    changes = "the harness declares Tasks on every call, short ones too"
    expect = {"HNS-7": "refuted"}
    harness_rules = _TaskForEveryCall
