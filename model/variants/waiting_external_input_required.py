from ..amend import Amendment
from ..projection import STATUS_PROJECTION


class WaitingExternalInputRequired(Amendment):
    """Map sabotage of RFC 0198 §D: "waiting-external maps to working because no client input is
    outstanding. An input_required task with no inputRequests would violate ext-tasks §Task Polling
    item 2."

    This host projects every waiting status as `input_required`, so a run waiting on an external
    event is shown as needing input, with an empty `inputRequests`.
    """
    name = "waiting-external-input-required"
    kind = "map-sabotage"
    source = "RFC 0198 §D; ext-tasks §Task Polling"
    changes = "waiting-external projected `input_required` with empty `inputRequests`"
    expect = {"PRJ-1": "refuted", "PRJ-2": "refuted"}

    def project_status(self, world, run):
        if run.status == "waiting-external":
            return ("input_required", None)
        return STATUS_PROJECTION[run.status]
