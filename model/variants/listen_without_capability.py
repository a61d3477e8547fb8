from ..amend import Amendment


class ListenWithoutCapability(Amendment):
    """Planted mutant of ext-tasks §Task Status Notifications.

    "A non-declaring client asking for task notifications gets -32021": this host acknowledges a
    `subscriptions/listen` for `taskIds` whether or not the request declared the extension.
    """
    name = "listen-without-capability"
    kind = "mutant"
    source = "ext-tasks §Task Status Notifications"
    changes = "task notifications offered without the extension"
    expect = {"NEG-3": "refuted"}

    def tasks_capability_ok(self, world, q):
        if q.method == "subscriptions/listen":
            return self.serves_tasks(world, q.server)
        return super().tasks_capability_ok(world, q)
