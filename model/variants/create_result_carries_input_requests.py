from ..amend import Amendment


class CreateResultCarriesInputRequests(Amendment):
    """Planted mutant of ext-tasks §Task Creation and RFC 0198 §D (the positive example creates a
    task already `input_required`): `CreateTaskResult` is flat and never carries `inputRequests`,
    whatever its status; the client reads them with `tasks/get`.

    This host puts the run's input requests into the `CreateTaskResult` itself.
    """
    name = "create-result-carries-input-requests"
    kind = "mutant"
    source = "ext-tasks §Task Creation; RFC 0198 §D, Examples (positive)"
    changes = "`CreateTaskResult` with `inputRequests`"
    expect = {"PRJ-2": "refuted", "WIRE-2": "refuted"}

    def create_task_result(self, world, run, q):
        res = super().create_task_result(world, run, q)
        return {**res, "inputRequests": self.input_requests(world, run, q)}
