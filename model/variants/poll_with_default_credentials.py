from ..amend import Amendment
from ..harness import HarnessRules

# The credentials a harness process holds of its own: a read-only service principal.
PROCESS_DEFAULT = "carol"


class _DefaultCredentials(HarnessRules):
    def binding_credentials(self, world, client, te):
        if world.harness.clients[client].proc.epoch > 1:        # a process started after a crash
            return te.binding.server, PROCESS_DEFAULT
        return super().binding_credentials(world, client, te)


class PollWithDefaultCredentials(Amendment):
    """Client mutant of the harness article's durable wait (HNS-6): a binding persists the server
    identity and the auth binding, and every later request for it uses them. After a restart this
    harness polls, answers and cancels with the new process's own default credentials (a read-only
    service principal, which the host lets read the task), not with the persisted auth binding."""
    name = "poll-with-default-credentials"
    kind = "client-mutant"
    source = "harness article §durable wait"
    changes = "after a restart the harness polls with the process's own credentials"
    expect = {"HNS-6": "refuted"}
    harness_rules = _DefaultCredentials
