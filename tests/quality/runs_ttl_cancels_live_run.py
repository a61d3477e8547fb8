"""Runs, a finite ttlMs on a live run: a host that cancels a run whose task's TTL elapsed.

A host may advertise a finite `ttlMs` while the run is live (`ttl_live_ticks`); the TTL describes
the handle, not the work, so no run changes status because it elapsed (TTL-2). This host cancels a
live run when its TTL elapses. Invisible while every live run's `ttlMs` was null (the model's
default): a TTL that is never finite never elapses on a running run. (A finite TTL short enough to
elapse on a live run is also below the run's earliest purge time, so TTL-1 falls as well, with or
without the bug; TTL-2 falls only with it.)
"""
from model.amend import Amendment
from model.lifecycle import TERMINAL


class TtlCancelsLiveRun(Amendment):
    name = "quality-ttl-cancels-live-run"
    kind = "mutant"
    changes = "a live run whose advertised finite ttlMs elapsed is cancelled"
    expect = {"TTL-2": "refuted"}
    params = {"ttl_live_ticks": 1}

    def on_ttl_elapsed(self, world, run):
        if run.status not in TERMINAL:
            self.cancel_run(world, run, "task-ttl-elapsed", "ttl")
