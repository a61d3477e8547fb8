"""Runs, a finite ttlMs on a live run: a host whose retention sweeper purges by age from creation,
while its tasks advertise a longer ttlMs.

A `ttlMs` advertised while the run is live is a promise: the task stays readable until
`createdAt + ttlMs` (TTL-4, the official check `TasksNoEarlyTtlExpiry`). This host advertises
`ttl_live_ticks` on every live task, but its sweeper purges every run once the retention has passed
since creation, so a reader's tasks/get after the purge and before the advertised expiry is not
found. Invisible while every live run's `ttlMs` was null (the model's default): nothing was promised
before the purge time was known.
"""
from model.amend import Amendment
from model.lifecycle import TERMINAL


class PurgeBeforeLiveTtl(Amendment):
    name = "quality-purge-before-live-ttl"
    kind = "mutant"
    changes = "live tasks advertise ttl_live_ticks, but runs are purged once the retention has passed since creation"
    expect = {"TTL-4": "refuted"}
    params = {"ttl_live_ticks": 2}

    def ttl_ms(self, world, run):
        if run.status not in TERMINAL:
            return world.params.ttl_live_ticks * world.params.tick_ms
        return super().ttl_ms(world, run)

    def purge_time(self, world, run):
        return run.created_at + world.params.retention
