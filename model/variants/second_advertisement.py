from ..amend import Amendment


class SecondAdvertisement(Amendment):
    """RFC 0198 alternative 3, rejected: a new OpenWOP field `mcp.tasks: true`.

    "server/discover is MCP's authoritative advertisement, and a second copy is card/runtime drift
    waiting to happen." The OpenWOP advertisement carries its own `mcp.tasks` flag, set once for the
    deployment and so wrong for a mount that does not serve the extension (§A.1: advertised nowhere
    else).
    """
    name = "second-advertisement"
    kind = "rejected-alternative"
    source = "RFC 0198 Alternatives considered, 3; §A.1"
    changes = "an extra `mcp.tasks` flag that can drift from `server/discover`"
    expect = {"ADV-1": "refuted"}

    def openwop_features(self, world, server):
        features = super().openwop_features(world, server)
        return {"mcp": {**features["mcp"], "tasks": True}}
