from ..amend import Amendment


class TtlBelowRetention(Amendment):
    """Map sabotage of RFC 0198 §F.11 and the map's `ttlMs` row: "ttlMs is null, or not shorter
    than the host's retention for the run."

    This host advertises a fixed TTL one tick shorter than its retention, from creation on.
    """
    name = "ttl-below-retention"
    kind = "map-sabotage"
    source = "RFC 0198 §F.11; map mcp.tasks ttlMs row"
    changes = "`ttlMs` shorter than retention"
    expect = {"TTL-1": "refuted"}

    def ttl_ms(self, world, run):
        return max(0, world.params.retention - 1) * world.params.tick_ms
