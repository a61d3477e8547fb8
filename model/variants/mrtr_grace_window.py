from ..amend import Amendment
from ..lifecycle import TERMINAL
from ..rules import MCP_REQUEST_CANCELLED


class MrtrGraceWindow(Amendment):
    """RFC 0198 unresolved question 1: a grace window for an MRTR retry's disconnect.

    "Is §G.12 too harsh for an MRTR retry? ... A grace window was considered and rejected, because
    it re-creates the orphan window." When the retry that owns a run is cancelled, the run is
    cancelled only once `GRACE` ticks have passed; until then it runs on with no owner (OWN-2). (The
    late cancel also has none of the causes §G.13 allows, OWN-3; random exploration seldom takes the
    long path to it, so it is not among the expectations the gate checks.)
    """
    name = "mrtr-grace-window"
    kind = "open-question"
    source = "RFC 0198 Unresolved questions, 1; §G.12"
    changes = "an MRTR retry's disconnect cancels only after a grace period"
    expect = {"OWN-2": "refuted"}
    GRACE = 1

    def on_request_cancelled(self, world, q, cause):
        if q.retry_of is not None and q.owns is not None:
            run = world.runs[q.owns]
            if run.status not in TERMINAL and run.grace_until is None:
                run.grace_until = world.clock + self.GRACE
            return None
        return super().on_request_cancelled(world, q, cause)

    def after_step(self, world):
        # The host's sweeper acts with the host's next step once the grace period is over (never on
        # the clock's own tick, which must not cancel anything: TTL-2).
        sweep = world.step is None or world.step.action != "clock_tick"
        for run in world.runs.values() if sweep else ():
            if run.grace_until is not None and run.grace_until <= world.clock:
                run.grace_until = None
                if run.status not in TERMINAL:
                    self.cancel_run(world, run, MCP_REQUEST_CANCELLED, "grace-window-elapsed")
        super().after_step(world)
