from ..amend import Amendment


class ListenNotifiesFirstChangeOnly(Amendment):
    """Planted mutant of ext-tasks §Task Status Notifications: the acknowledgement lists "the task IDs
    it has agreed to send task status notifications for", and that agreement covers every later change.

    This host sends a listen stream the first change of each task it acknowledged and nothing after:
    once one notification went out for a task on a stream, the task reads as unchanged there.
    """
    name = "listen-notifies-first-change-only"
    kind = "mutant"
    source = "ext-tasks §Task Status Notifications"
    changes = "a listen stream is sent the first change of each task and nothing after"
    expect = {"NTF-4": "refuted"}

    def after_step(self, world):
        for qid, rid in world.last_sent:
            q, run = world.requests[qid], world.runs[rid]
            if q.phase == "streaming" and self.can_read(world, q.subject, run):
                world.notified[(qid, rid)] = self.detailed_task(world, run, q)   # told once: reads as unchanged
        super().after_step(world)
