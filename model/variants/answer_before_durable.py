from ..amend import Amendment
from ..lifecycle import TERMINAL


class AnswerBeforeDurable(Amendment):
    """Planted mutant of ext-tasks §Task Creation, which RFC 0198's Motivation cites.

    A server "MUST NOT return CreateTaskResult until the task is durably created — that is, until a
    tasks/get for the returned taskId would resolve". This host writes runs to its store
    asynchronously and answers with the handle before the write lands.
    """
    name = "answer-before-durable"
    kind = "mutant"
    source = "ext-tasks §Task Creation; RFC 0198 Motivation"
    changes = "`CreateTaskResult` sent before the run is readable"
    expect = {"CRT-3": "refuted"}

    def durable_on_create(self, world, run):
        return False

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if not run.durable and q.declares_tasks and self.serves_tasks(world, q.server) and run.status not in TERMINAL:
            return self.create_task_result(world, run, q)
        return super().answer_tools_call(world, q)
