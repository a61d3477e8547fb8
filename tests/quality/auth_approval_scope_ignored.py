"""Authorization, scopes: a host that lets a same-tenant reader answer an input request without
`approvals:respond`.

carol reads acme's runs (`runs:read`) but holds no `approvals:respond`: she is neither the owner nor
an approver, and her tasks/update resolves nothing (UPD-2). This host checks the tenant and the
approver list, not the scope. Only seen where carol's client is in the scope: clients are Subjects
by position (C3 is carol only as the third client).
"""
from model.amend import Amendment


class ApprovalScopeIgnored(Amendment):
    name = "quality-approval-scope-ignored"
    kind = "mutant"
    changes = "approvals:respond is not checked: any same-tenant Subject on the approver list (or any, without one) resolves"
    expect = {"UPD-2": "refuted"}

    def eligible_approver(self, world, subject, interrupt):
        s = world.params.subject(subject)
        if s.tenant != world.runs[interrupt.run].tenant:
            return False
        return interrupt.approvers is None or subject in interrupt.approvers
