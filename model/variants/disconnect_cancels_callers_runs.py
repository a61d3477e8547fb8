from ..amend import Amendment
from ..lifecycle import TERMINAL
from ..rules import MCP_REQUEST_CANCELLED


class DisconnectCancelsCallersRuns(Amendment):
    """Planted mutant of RFC 0198's title and §G: "a disconnect cancels only the run it owns".

    This host treats a disconnect as the caller leaving, and cancels every run of that caller.
    """
    name = "disconnect-cancels-callers-runs"
    kind = "mutant"
    source = "RFC 0198 title, §G.12"
    changes = "a disconnect cancels every run of that caller"
    expect = {"OWN-4": "refuted", "OWN-3": "refuted"}

    def on_request_cancelled(self, world, q, cause):
        super().on_request_cancelled(world, q, cause)
        for run in list(world.runs.values()):
            if run.owner == q.subject and run.server == q.server and run.status not in TERMINAL:
                self.cancel_run(world, run, MCP_REQUEST_CANCELLED, f"request:{q.id}:{cause}:caller")
