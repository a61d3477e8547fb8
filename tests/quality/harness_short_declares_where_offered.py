"""The harness: once a server's server/discover advertised Tasks, it declares them on every call to
it, short exchanges too, turning a quick confirmation into a task to poll.

The old model started no short exchange on the baseline (`Params.harness_short_ops` False), so HNS-7's
short half was never judged and HNS-7 held; now short exchanges are generated, and HNS-7 is refuted.
"""
from model.amend import Amendment
from model.harness import HarnessRules


class _DeclaresWhereOffered(HarnessRules):
    def declares_tasks(self, world, client, te):
        if te.short:
            return self.tasks_offered(world, client, te.server) is True
        return super().declares_tasks(world, client, te)


class ShortDeclaresWhereOffered(Amendment):
    name = "quality-harness-short-declares-where-offered"
    kind = "client-mutant"
    changes = "a short exchange declares Tasks to a server seen offering them"
    expect = {"HNS-7": "refuted"}
    harness_rules = _DeclaresWhereOffered
