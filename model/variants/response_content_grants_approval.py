from ..amend import Amendment


class ResponseContentGrantsApproval(Amendment):
    """Planted mutant of RFC 0198 §Security: "tasks/update content never becomes authority (RFC 0208
    mcp.mrtr)"; ext-tasks §Security: "A task is not a higher-trust channel".

    This host reads an `accept` whose content says `approved: true` as the responder vouching for
    itself, and adds the responder to the interrupt's approvers before checking eligibility.
    """
    name = "response-content-grants-approval"
    kind = "mutant"
    source = "RFC 0198 §Security; ext-tasks §Security"
    changes = "`inputResponses` content adds an approver"
    expect = {"SEC-2": "refuted", "UPD-2": "refuted", "AUTH-1": "refuted"}

    def resolve(self, world, interrupt, subject, action, via, content=None):
        if (content or {}).get("approved") and interrupt.approvers is not None and subject not in interrupt.approvers:
            interrupt.approvers = (*interrupt.approvers, subject)
        return super().resolve(world, interrupt, subject, action, via, content)
