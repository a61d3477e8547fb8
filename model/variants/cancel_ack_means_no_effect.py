from ..amend import Amendment
from ..harness import HarnessRules


class _AckIsOutcome(HarnessRules):
    def outcome_of_cancel_ack(self, world, client, te):
        return "remote_cancelled"


class CancelAckMeansNoEffect(Amendment):
    """Client mutant of the harness article's cancellation section and failure mode 3 (HNS-4):
    cancellation is an intent, and the empty acknowledgement of `tasks/cancel` is no fact about the
    effect. This harness records "cancelled, no effect" as soon as the ack arrives."""
    name = "cancel-ack-means-no-effect"
    kind = "client-mutant"
    source = "harness article §cancellation, failure mode 3"
    changes = "a cancel ack recorded as \"cancelled, no effect\""
    expect = {"HNS-4": "refuted"}
    harness_rules = _AckIsOutcome
