from ..amend import Amendment
from ..lifecycle import WAITING


class RestAndUpdateBothResolve(Amendment):
    """Planted mutant of RFC 0198 §E.7: "An interrupt is resolved at most once, however many times
    it is answered" (interrupt.md: of two concurrent resolves exactly one succeeds).

    This host keeps the at-most-once guard per surface: REST `resolveInterruptByRun` checks only
    whether REST already resolved the interrupt, not whether `tasks/update` or an MRTR retry did.
    """
    name = "rest-and-update-both-resolve"
    kind = "mutant"
    source = "RFC 0198 §E.7; interrupt.md"
    changes = "no at-most-once guard between REST and `tasks/update`"
    expect = {"UPD-1": "refuted", "UPD-2": "refuted"}

    def resolve(self, world, interrupt, subject, action, via, content=None):
        if via == "rest" and interrupt.via != "rest" and not interrupt.open \
                and world.runs[interrupt.run].status not in ("completed", "failed", "cancelled", "cancelling") \
                and self.eligible_approver(world, subject, interrupt):
            self.do_resolve(world, interrupt, subject, action, via)
            return True
        return super().resolve(world, interrupt, subject, action, via, content)
