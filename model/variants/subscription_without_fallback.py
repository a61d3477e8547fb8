from ..amend import Amendment
from ..harness import HarnessRules


class _NoFallback(HarnessRules):
    def falls_back_to_polling(self, world, client, te):
        return False


class SubscriptionWithoutFallback(Amendment):
    """Client mutant of the harness article's durable wait (LIV-2): a harness waiting by subscription
    must not depend on the stream, which the host may end and a connection may lose. Waiting by
    `subscriptions/listen` (a choice the baseline harness makes too), this harness keeps waiting on the
    stream when it ends: the remote task finishes and the tool execution never learns it."""
    name = "subscription-without-fallback"
    kind = "client-mutant"
    source = "harness article §durable wait"
    changes = "when the listen stream ends, the harness waits on it forever"
    expect = {"LIV-2": "refuted"}
    harness_rules = _NoFallback
