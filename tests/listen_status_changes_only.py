"""An outsider's amendment (issue 52): a host that publishes a listen stream's task only when its status
changes. A waiting run whose second node asks for input too changes its input requests, not its status,
and the stream is told nothing: NTF-4 is broken, while every notification sent still equals tasks/get
(NTF-3). The random engine refutes it in 6 steps; host-small (one interrupt) cannot tell it apart."""
from model.amend import Amendment


class ListenStatusChangesOnly(Amendment):
    name = "listen-notifies-status-changes-only"
    kind = "amendment"
    changes = "a listen stream is sent a task's change only when its status changes"
    expect = {"NTF-4": "refuted"}

    def after_step(self, world):
        for (qid, rid), told in list(world.notified.items()):
            q, run = world.requests[qid], world.runs[rid]
            if q.phase == "streaming" and self.can_read(world, q.subject, run):
                now = self.detailed_task(world, run, q)
                if now["status"] == told["status"]:
                    world.notified[(qid, rid)] = now      # the same status: reads as unchanged, nothing sent
        super().after_step(world)
