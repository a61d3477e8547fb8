"""The §D status projection (map `mcp.tasks.status`): a run status seen as a task status."""
from __future__ import annotations

# runStatus -> (taskStatus, isError of the result where completed). Must equal the interop map's rows.
STATUS_PROJECTION = {
    "pending": ("working", None),
    "running": ("working", None),
    "paused": ("working", None),
    "cancelling": ("working", None),
    "waiting-external": ("working", None),
    "waiting-approval": ("input_required", None),
    "waiting-input": ("input_required", None),
    "completed": ("completed", False),
    "failed": ("completed", True),
    "cancelled": ("cancelled", None),
}

TASK_TERMINAL = frozenset({"completed", "failed", "cancelled"})
# The ext-tasks status diagram: working <-> input_required, either -> a terminal status.
TASK_EDGES = frozenset({
    ("working", "input_required"), ("input_required", "working"),
    *((s, t) for s in ("working", "input_required") for t in TASK_TERMINAL),
})
