from ..amend import Amendment


class TtlPausesRun(Amendment):
    """Planted mutant of RFC 0198 §F.11: "the TTL describes the handle, not the work". The RFC names
    failing and cancelling; its reason covers every status change (TTL-2 as widened).

    This host gives every task a finite TTL equal to its retention, counted from creation (P-RETENTION
    "from-creation"), and pauses a pending or running run when the TTL elapses: a change no
    fail-or-cancel check would see. A run that outlives its TTL finishes after it, so the advertised
    TTL also ends before the purge (TTL-1): a finite TTL that elapses on a live run cannot cover it.
    """
    name = "ttl-pauses-run"
    kind = "mutant"
    source = "RFC 0198 §F.11"
    changes = "a live run is paused when its task's TTL elapses"
    expect = {"TTL-2": "refuted", "TTL-1": "refuted"}
    params = {"p_retention": "from-creation"}
    lifecycle_extra = ({"trigger": "pause", "source": ["pending"], "dest": "paused"},)

    def ttl_ms(self, world, run):
        return world.params.retention * world.params.tick_ms

    def on_ttl_elapsed(self, world, run):
        if run.status in ("pending", "running"):
            world.set_status(run, "pause")
            world.append(run, {"type": "run.paused", "reason": "task-ttl-elapsed"})
