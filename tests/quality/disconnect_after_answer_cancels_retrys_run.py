"""Connection events: a host that still treats the connection of an answered request as its run's
lifeline, after an MRTR retry took the run over.

A request's cancellation, by whatever signal and in whatever phase, cancels only the run it owns and
that run's cascade (OWN-4). Once the InputRequiredResult was delivered, the first request owns
nothing: the verified retry owns the run. This host cancels the run when the first request's
connection drops, so one request's cancellation cancels another request's run. OWN-4 looked only at
requests still owing their response, and its premise counted only a request that owned a run.
"""
from model.amend import Amendment
from model.lifecycle import TERMINAL
from model.rules import MCP_REQUEST_CANCELLED


class DisconnectAfterAnswerCancelsRetrysRun(Amendment):
    name = "quality-disconnect-after-answer-cancels-retrys-run"
    kind = "mutant"
    changes = "a disconnect after a delivered answer cancels the run a later request (an MRTR retry) owns"
    expect = {"OWN-4": "refuted", "OWN-3": "refuted"}

    def on_disconnect_after_response(self, world, q):
        run = world.runs.get(q.run) if q.run else None
        if run is not None and run.status not in TERMINAL \
                and any(o.owns == run.id for o in world.requests.values() if o is not q):
            self.cancel_run(world, run, MCP_REQUEST_CANCELLED, f"request:{q.id}:after-response")
