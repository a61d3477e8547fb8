from ..amend import Amendment
from ..lifecycle import TERMINAL


class ServerChoosesPerRequest(Amendment):
    """RFC 0198 alternative 5, rejected: leave the task-vs-block choice to the server per request.

    "§B.3 would then be unwitnessable, and a client that opted in could still be left blocking."
    This server answers a declaring call whose run waits for input with `InputRequiredResult`, and
    holds one whose run waits for an approval (no answer until the approval arrives).
    """
    name = "server-chooses-per-request"
    kind = "rejected-alternative"
    source = "RFC 0198 Alternatives considered, 5; §B.3"
    changes = "a declaring call may get `InputRequiredResult`, or be held at an approval"
    expect = {"CRT-1": "refuted", "CRT-4": "refuted"}

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if run.durable and q.declares_tasks and self.serves_tasks(world, q.server) and run.status not in TERMINAL:
            if run.status == "waiting-approval":
                return None                                  # held at the approval
            if run.status == "waiting-input":
                return self.input_required(world, run, q)    # answered as if it had not opted in
        return super().answer_tools_call(world, q)
