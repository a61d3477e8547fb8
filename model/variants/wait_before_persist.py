from ..amend import Amendment
from ..harness import HarnessRules


class _WaitFirst(HarnessRules):
    def persists_binding_before_waiting(self, world, client, te):
        return False


class WaitBeforePersist(Amendment):
    """Client mutant of the harness article's durable wait (HNS-2): the binding (remote taskId,
    server identity, auth binding) is persisted before the tool execution enters WAITING_EXTERNAL.
    This harness enters WAITING_EXTERNAL as soon as it reads the handle and persists later."""
    name = "wait-before-persist"
    kind = "client-mutant"
    source = "harness article §durable wait"
    changes = "WAITING_EXTERNAL entered before the binding is persisted"
    expect = {"HNS-2": "refuted"}
    harness_rules = _WaitFirst
