from ..amend import Amendment
from ..harness import HarnessRules


class _AssumeTasks(HarnessRules):
    def tasks_offered(self, world, client, server):
        return True


class AssumeTasksEverywhere(Amendment):
    """Client mutant of the harness article's negotiation section and failure mode 1 (HNS-1):
    "never depend on Tasks support you have not observed". This harness assumes every server offers
    the extension, never asks `server/discover`, and sends long work to a server that will only
    answer with a plain result or keep the call open."""
    name = "assume-tasks-everywhere"
    kind = "client-mutant"
    source = "harness article §negotiation, failure mode 1"
    changes = "the harness waits for a handle the server never offers"
    expect = {"HNS-1": "refuted"}
    harness_rules = _AssumeTasks
