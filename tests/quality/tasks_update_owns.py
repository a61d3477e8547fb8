"""No atomic answers: a host whose `tasks/update` takes ownership of the run it names.

§G.12: only a creating `tools/call` and a verified MRTR retry own a run; `tasks/*` own nothing. While
the host answered every `tasks/*` in the step that received it, an owning `tasks/update` held its run
for no observable instant, and this host passed. A `tasks/update` is now received in one step and
answered by the host's `respond` in a later one: in between it owns the run (OWN-1), and a disconnect
there cancels the run as the owner's cancellation would.
"""
from model.amend import Amendment


class TasksUpdateOwns(Amendment):
    name = "quality-tasks-update-owns"
    kind = "mutant"
    changes = "a tasks/update owns the run it names from receipt until its answer"
    expect = {"OWN-1": "refuted"}

    def owns_on_receipt(self, world, q):
        return q.method == "tasks/update" or super().owns_on_receipt(world, q)
