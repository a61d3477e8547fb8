from ..amend import Amendment


class NotificationDiffersFromGet(Amendment):
    """Planted mutant of ext-tasks §Task Status Notifications and the map's listen row: each
    `notifications/tasks` carries "what tasks/get would return at that moment".

    This host builds the notification from its change feed, which still holds the previous status:
    the `statusMessage` is stale.
    """
    name = "notification-differs-from-get"
    kind = "mutant"
    source = "ext-tasks §Task Status Notifications; map mcp.tasks listen row"
    changes = "`notifications/tasks` stale or different from `tasks/get`"
    expect = {"NTF-3": "refuted"}

    def notification(self, world, q, run):
        msg = super().notification(world, q, run)
        before = world.step.pre_status.get(run.id) if world.step is not None else None
        if before is None or before == run.status:
            return msg
        return {**msg, "params": {**msg["params"], "statusMessage": f"run is {before}"}}
