from ..amend import Amendment
from ..lifecycle import WAITING


class UpdateSkipsApproverCheck(Amendment):
    """RFC 0198 §E.7 and its acceptance criteria: the map sabotage "tasks/update → resolveInterrupt".

    §E.7 requires "the eligible-approver check interrupt.md requires"; mapped to the run-less
    `resolveInterrupt`, a resolution is taken from anyone who can reach the interrupt (and an
    ineligible answer carrying content resolves it: SEC-2).
    """
    name = "update-skips-approver-check"
    kind = "map-sabotage"
    source = "RFC 0198 §E.7; Acceptance criteria (the two mcp.tasks sabotages)"
    changes = "resolution without the eligibility check"
    expect = {"UPD-2": "refuted", "AUTH-1": "refuted", "SEC-2": "refuted"}

    def resolve(self, world, interrupt, subject, action, via, content=None):
        if not interrupt.open or world.runs[interrupt.run].status not in WAITING:
            return False
        self.do_resolve(world, interrupt, subject, action, via)
        return True
