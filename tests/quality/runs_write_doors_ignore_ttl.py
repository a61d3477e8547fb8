"""Runs, a finite ttlMs: a host whose tasks/cancel and tasks/update look a task up by the retention
alone, while tasks/get honours the advertised TTL.

A `ttlMs` is a promise for every door that reads the task: until `createdAt + ttlMs` tasks/get
resolves it and tasks/update, tasks/cancel and a listen acknowledgement find it (TTL-4). This host
advertises `ttl_live_ticks` and keeps the run for tasks/get, but its write paths treat a terminal run
past its retention as gone and answer them not-found. TTL-4 judged tasks/get alone, so this held.
"""
from model.amend import Amendment


class WriteDoorsIgnoreTtl(Amendment):
    name = "quality-write-doors-ignore-ttl"
    kind = "mutant"
    changes = "tasks/cancel and tasks/update answer not-found once a terminal run's retention has passed"
    expect = {"TTL-4": "refuted"}
    params = {"ttl_live_ticks": 2}

    def lookup_task(self, world, q, ref):
        run = super().lookup_task(world, q, ref)
        if run is not None and q.method in ("tasks/cancel", "tasks/update") and run.terminal_at is not None \
                and world.clock >= run.terminal_at + world.params.retention:
            return None
        return run
