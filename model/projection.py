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
