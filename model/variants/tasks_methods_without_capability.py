from ..amend import Amendment


class TasksMethodsWithoutCapability(Amendment):
    """Planted mutant of ext-tasks §Error Handling (RFC 0198 §A.2).

    A `tasks/get` from a request that did not declare the extension must get `-32021`; this host
    serves it to anyone, because it serves Tasks.
    """
    name = "tasks-methods-without-capability"
    kind = "mutant"
    source = "ext-tasks §Error Handling; RFC 0198 §A.2"
    changes = "`tasks/get` served to a non-declaring request"
    expect = {"NEG-2": "refuted"}

    def tasks_capability_ok(self, world, q):
        if q.method == "tasks/get":
            return self.serves_tasks(world, q.server)
        return super().tasks_capability_ok(world, q)
