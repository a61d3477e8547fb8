"""Authorization, tenants: a host whose getRun check reads the caller's scope but not its tenant.

mallory (tenant beta) holds `runs:read`; alice's run is acme's. A task the caller cannot getRun gets
exactly the not-found answer of a nonexistent id (ISO-1); this host serves it. Only seen where
mallory's client is in the scope: clients are Subjects by position (C4 is mallory only as the fourth
client).
"""
from model.amend import Amendment


class ReadIgnoresTenant(Amendment):
    name = "quality-read-ignores-tenant"
    kind = "mutant"
    changes = "can_read checks runs:read, durability and purge, not the caller's tenant"
    expect = {"ISO-1": "refuted"}

    def can_read(self, world, subject, run):
        s = world.params.subject(subject)
        return "runs:read" in s.scopes and run.durable and not run.purged
