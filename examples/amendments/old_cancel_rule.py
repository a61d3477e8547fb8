from model.amend import Amendment
from model.lifecycle import TERMINAL


class OldCancelRule(Amendment):
    """Keep the 2025-11-25 rule: tasks/cancel on a task that already ended is an error."""
    name = "my-old-cancel-rule"
    kind = "amendment"
    source = "ext-tasks 2025-11-25 §Task Cancellation; RFC 0198 §F.10"
    changes = "tasks/cancel on a terminal run is answered -32602, as the 2025-11-25 revision said"
    expect = {"CNL-1": "refuted"}   # what the author expects the tool to find

    def tasks_cancel(self, world, q, run):
        if run.status in TERMINAL:
            return self.not_found(world, q, "terminal")     # the not-found answer, -32602
        return super().tasks_cancel(world, q, run)         # otherwise exactly the baseline
