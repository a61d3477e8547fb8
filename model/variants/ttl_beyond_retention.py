from ..amend import Amendment


class TtlBeyondRetention(Amendment):
    """Open question on RFC 0198 §F.11, a finding for the RFC authors: "ttlMs is null, or not shorter
    than the host's retention for the run" permits a `ttlMs` *longer* than the retention. The official
    conformance check `TasksNoEarlyTtlExpiry` (ext-tasks §Task TTL) refuses such a host: a task must
    stay readable until `createdAt + ttlMs`.

    This host advertises a finite TTL from creation on, long enough to cover any purge time (TTL-1
    holds: it is compliant with the RFC's text), and purges at its retention as before, so a reader's
    `tasks/get` after the purge and before the advertised TTL gets the not-found answer.
    """
    name = "ttl-beyond-retention"
    kind = "open-question"
    source = "RFC 0198 §F.11; ext-tasks §Task TTL (TasksNoEarlyTtlExpiry)"
    changes = ("RFC-permitted: `ttlMs` longer than the retention, so the task is purged before its TTL "
               "(the RFC's text allows it, the upstream check refuses it)")
    expect = {"TTL-4": "refuted"}
    params = {"ttl_live_ticks": 8}      # max_time + retention: never earlier than any purge time

    def ttl_ms(self, world, run):
        return world.params.ttl_live_ticks * world.params.tick_ms

    def purge_time(self, world, run):
        """The retention alone: the advertised TTL is not honoured."""
        if run.terminal_at is None:
            return None
        start = run.terminal_at if world.params.p_retention == "from-terminal" else run.created_at
        return max(run.terminal_at, start + world.params.retention)
