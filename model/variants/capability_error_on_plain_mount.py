from ..amend import Amendment


class CapabilityErrorOnPlainMount(Amendment):
    """Planted mutant of core §Errors and ext-tasks §Capability Negotiation (NEG-4): a mount that does
    not serve the extension has no `tasks/*` methods, so it answers them `-32601` whatever the
    request declared. This mount routes them to the capability check instead and answers `-32021`, as
    if the client could fix it by declaring what the mount will never serve."""
    name = "capability-error-on-plain-mount"
    kind = "mutant"
    source = "core §Errors; ext-tasks §Capability Negotiation"
    changes = "a mount that serves no Tasks answers `tasks/*` with `-32021`"
    expect = {"NEG-4": "refuted"}

    def tasks_methods_served(self, world, server):
        return True
