from ..amend import Amendment


class AlwaysTask(Amendment):
    """RFC 0198 §B.4 (and unresolved question 1's "a host that wants grace can answer every call
    with a task"), taken as a rule: every declaring call is answered with a task, even when its run
    has already finished. Legal, but the plain-result path of §B.4 becomes unreachable; and a call
    whose run was cancelled before the answer gets a task reading `cancelled` rather than the
    `CallToolResult {isError: true}` that NTF-2 requires of every call on a cancelled run.
    """
    name = "always-task"
    kind = "mutant"
    source = "RFC 0198 §B.4; Unresolved questions, 1"
    changes = "every declaring call answered with a task, even when finished"
    expect = {"CRT-2": "unreached", "NTF-2": "refuted"}

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if run.durable and q.declares_tasks and self.serves_tasks(world, q.server):
            if run.purged:                   # no task left to hand out: the purged-task answer
                return self.not_found(world, q, "purged")
            return self.create_task_result(world, run, q)
        return super().answer_tools_call(world, q)
