"""Authorization, scopes: a host whose getRun check ignores the `runs:read` scope.

dave, in alice's tenant, may cancel and respond but not read: every task is unreadable to him and
must get exactly the not-found answer of a nonexistent id (ISO-1). This host serves him alice's
task. While every Subject of the model held `runs:read`, it passed.
"""
from model.amend import Amendment


class ReadIgnoresScope(Amendment):
    name = "quality-read-ignores-scope"
    kind = "mutant"
    changes = "can_read checks the tenant, durability and purge, not the runs:read scope"
    expect = {"ISO-1": "refuted"}

    def can_read(self, world, subject, run):
        s = world.params.subject(subject)
        return s.tenant == run.tenant and run.durable and not run.purged
