from ..amend import Amendment
from ..harness import HarnessRules


class _Reissue(HarnessRules):
    def resumes_by_polling(self, world, client, te):
        return False


class ReissueAfterRestart(Amendment):
    """Client mutant of the harness article's durable wait (HNS-3): after a crash a new process
    resumes polling every persisted binding and never re-issues the call. This harness drops the
    binding on restart and calls the tool again."""
    name = "reissue-after-restart"
    kind = "client-mutant"
    source = "harness article §durable wait"
    changes = "after a restart the harness re-issues the call"
    expect = {"HNS-3": "refuted"}
    harness_rules = _Reissue
