from ..amend import Amendment


class DeclineCancelsRun(Amendment):
    """Planted mutant of the map's `mcp.mrtr` row (RFC 0198 §E.7): accept resumes the interrupt,
    decline takes the decline path, cancel resolves the interrupt as cancelled; none cancels the run.

    This host reads a `decline` as "stop the whole run". That cancel has none of the causes §G.13
    allows (tasks/cancel, cancelRun, a parent's cascade, the owner's cancellation): OWN-3 breaks too.
    """
    name = "decline-cancels-run"
    kind = "mutant"
    source = "map mcp.mrtr; RFC 0198 §E.7"
    changes = "`decline` cancels the run"
    expect = {"UPD-4": "refuted", "OWN-3": "refuted"}

    def do_resolve(self, world, interrupt, subject, action, via):
        super().do_resolve(world, interrupt, subject, action, via)
        if action == "decline":
            self.cancel_run(world, world.runs[interrupt.run], "declined", f"decline:{interrupt.id}")
