from ..amend import Amendment


class CancelRaceCompletes(Amendment):
    """Planted mutant of runs.md as RFC 0198 §F.10 uses it: "A cancel and a completion race only up
    to acceptance: once a cancel is accepted the run goes cancelling → cancelled." (Upstream lets a
    cancelled task end otherwise; OpenWOP's cancelRun does not.)

    This host lets a run that is already `cancelling` still complete. A run whose owning request was
    cancelled then completes as well (OWN-2) and never reads `cancelled` (LIV-1).
    """
    name = "cancel-race-completes"
    kind = "mutant"
    source = "runs.md; RFC 0198 §F.10; ext-tasks §Task Cancellation"
    changes = "`cancelling` may end `completed`"
    expect = {"CNL-2": "refuted", "OWN-2": "refuted", "LIV-1": "refuted"}
    lifecycle_extra = ({"trigger": "complete", "source": ["cancelling"], "dest": "completed"},)
