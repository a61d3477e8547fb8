from ..amend import Amendment


class ReplayReprompts(Amendment):
    """Planted mutant of RFC 0198 §E.8 and replay.md: "Replay and fork treat it as recorded
    history. They MUST NOT re-issue it or re-prompt."

    This host's fork copies the log but raises every recorded interrupt again as a new prompt.
    """
    name = "replay-reprompts"
    kind = "mutant"
    source = "RFC 0198 §E.8; replay.md"
    changes = "replay re-emits `interrupt.requested` (a new prompt for a recorded interrupt)"
    expect = {"RPL-1": "refuted"}

    def fork_log(self, world, source, fork):
        out = []
        for e in super().fork_log(world, source, fork):
            out.append(e)
            if e.get("type") == "interrupt.requested":
                out.append({k: v for k, v in e.items() if k != "replayed"})
        return out
