from ..amend import Amendment
from ..lifecycle import TERMINAL


class TaskToNonDeclaring(Amendment):
    """Planted mutant of ext-tasks §Capability Negotiation (RFC 0198 §A.2).

    A server "must not infer a capability from earlier requests": this host answers a tools/call
    that did not declare the extension with a task whenever it serves Tasks.
    """
    name = "task-to-non-declaring"
    kind = "mutant"
    source = "ext-tasks §Capability Negotiation; RFC 0198 §A.2"
    changes = "a task created for a request that did not declare"
    expect = {"NEG-1": "refuted"}

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if run.durable and not q.declares_tasks and self.serves_tasks(world, q.server) and run.status not in TERMINAL:
            return self.create_task_result(world, run, q)
        return super().answer_tools_call(world, q)
