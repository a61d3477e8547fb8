from ..amend import Amendment
from ..harness import HarnessRules

# The remote task status written as a local run status.
MIRROR = {"working": "running", "input_required": "waiting", "completed": "completed", "failed": "failed",
          "cancelled": "cancelled"}


class _Mirror(HarnessRules):
    def record_remote_status(self, world, client, te, status):
        super().record_remote_status(world, client, te, status)
        world.harness.clients[client].proc.runs[te.run].status = MIRROR.get(status, status)


class MirrorRemoteStatus(Amendment):
    """Client mutant of the harness article's two ids and failure mode 2 (HNS-5): the local run is
    the authority and the remote task status lives inside the tool-execution record. This harness
    writes the remote status over its local run."""
    name = "mirror-remote-status"
    kind = "client-mutant"
    source = "harness article §two ids, failure mode 2"
    changes = "the remote status written over the local run"
    expect = {"HNS-5": "refuted"}
    harness_rules = _Mirror
