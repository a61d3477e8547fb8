from .. import wire
from ..amend import Amendment
from ..lifecycle import TERMINAL


class CancelTerminalAppends(Amendment):
    """Planted mutant of RFC 0198 §F.10: "On a terminal run it is acknowledged and nothing is
    appended (RFC 0194 §A.2)." This host logs a `run.cancelled` for every cancel it acknowledges,
    even on a run that already ended."""
    name = "cancel-terminal-appends"
    kind = "mutant"
    source = "RFC 0198 §F.10; RFC 0194 §A.2"
    changes = "`run.cancelled` appended on a terminal run"
    expect = {"CNL-1": "refuted"}

    def tasks_cancel(self, world, q, run):
        if run.status in TERMINAL:
            world.append(run, {"type": "run.cancelled", "reason": "tasks-cancel"})
            return wire.result_response(q.id, wire.empty_ack())
        return super().tasks_cancel(world, q, run)
