"""Switches that plant real bugs, each named after the model variant (model/variants/) it plays."""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Bugs:
    detach_on_disconnect: bool = False          # a drop before the response cancels nothing (OWN-2)
    foreign_task_403: bool = False              # another tenant's task: -32603 with HTTP 403 (ISO-1)
    get_appends_read_event: bool = False        # tasks/get appends task.read to the run log (GET-1)
    update_skips_approver_check: bool = False   # tasks/update resolves for anyone (UPD-2, AUTH-1)
    cancel_terminal_appends: bool = False       # tasks/cancel on a terminal run appends run.cancelled (CNL-1)
    notify_cancelled_on_run_cancel: bool = False  # notifications/cancelled on a tools/call stream (NTF-1)

    @staticmethod
    def names() -> list[str]:
        """The variant names, as flags take them (`--bug detach-on-disconnect`)."""
        return [f.name.replace("_", "-") for f in fields(Bugs)]

    @classmethod
    def from_names(cls, names) -> "Bugs":
        unknown = set(names) - set(cls.names())
        if unknown:
            raise ValueError(f"unknown bug {sorted(unknown)[0]!r}; known: {', '.join(cls.names())}")
        return cls(**{n.replace("-", "_"): True for n in names})

    def on(self) -> list[str]:
        return [f.name.replace("_", "-") for f in fields(self) if getattr(self, f.name)]
