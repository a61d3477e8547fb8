from ..amend import Amendment


class ElicitWithoutCapability(Amendment):
    """Planted mutant of core RequestMetaObject and the map's `mcp.mrtr` row (PRJ-4): a client receives
    an input request only when its request declared `elicitation` with the mode the request uses. This
    host sends every input request (form mode included) whatever the client declared, so carol's client,
    which declares no elicitation, is asked through a channel it never offered."""
    name = "elicit-without-capability"
    kind = "mutant"
    source = "core RequestMetaObject; map mcp.mrtr"
    changes = "a form-mode input request to a caller that declared no elicitation"
    expect = {"PRJ-4": "refuted"}

    def missing_elicitation(self, world, run, q):
        return ()
