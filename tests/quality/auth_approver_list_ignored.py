"""Authorization, approvers: a host that lets any same-tenant Subject holding `approvals:respond`
answer an approval, whatever its approver list.

An approval interrupt names its approvers (bob); alice, who owns the run and holds
`approvals:respond`, is not one of them, so her answer resolves nothing (UPD-2: a resolver who is
not an eligible approver resolves nothing). This host reads the tenant and the scope and skips the
list.
"""
from model.amend import Amendment


class ApproverListIgnored(Amendment):
    name = "quality-approver-list-ignored"
    kind = "mutant"
    changes = "an interrupt's approver list is not checked: tenant and approvals:respond suffice"
    expect = {"UPD-2": "refuted"}

    def eligible_approver(self, world, subject, interrupt):
        s = world.params.subject(subject)
        return s.tenant == world.runs[interrupt.run].tenant and "approvals:respond" in s.scopes
