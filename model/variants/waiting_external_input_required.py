from ..amend import Amendment
from ..projection import STATUS_PROJECTION


class WaitingExternalInputRequired(Amendment):
    """Map sabotage of RFC 0198 §D: "waiting-external maps to working because no client input is
    outstanding. An input_required task with no inputRequests would violate ext-tasks §Task Polling
    item 2."

    This host treats every waiting status as waiting for client input: a run waiting on an external
    event is shown `input_required` with an empty `inputRequests`, and a blocking call on it is
    answered `InputRequiredResult` with no input request in it.
    """
    name = "waiting-external-input-required"
    kind = "map-sabotage"
    source = "RFC 0198 §D; ext-tasks §Task Polling"
    changes = "waiting-external projected `input_required` with empty `inputRequests`"
    expect = {"PRJ-1": "refuted", "PRJ-2": "refuted"}

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if run.durable and run.status == "waiting-external" \
                and not (q.declares_tasks and self.serves_tasks(world, q.server)):
            return self.input_required(world, run, q)
        return super().answer_tools_call(world, q)

    def project_status(self, world, run):
        if run.status == "waiting-external":
            return ("input_required", None)
        return STATUS_PROJECTION[run.status]
