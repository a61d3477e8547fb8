from ..amend import Amendment
from ..projection import STATUS_PROJECTION

# The map's mcp.tasks.status table with the waiting-external row deleted.
SABOTAGED = {k: v for k, v in STATUS_PROJECTION.items() if k != "waiting-external"}


class ProjectionMissingWaitingExternal(Amendment):
    """RFC 0198 §D and its acceptance criteria: the map sabotage "a deleted waiting-external row",
    which check-interop-map.mjs must refuse because `mcp.tasks.status` is no longer total.

    With the row gone, the host's projection falls through to its default branch for a status it
    has no row for, which reports the run as finished with an error (`completed`, `isError: true`).
    """
    name = "projection-missing-waiting-external"
    kind = "map-sabotage"
    source = "RFC 0198 §D; Acceptance criteria (the two mcp.tasks sabotages)"
    changes = "the `waiting-external` row deleted (the status falls to the default: completed with an error)"
    expect = {"PRJ-1": "refuted", "PRJ-3": "refuted"}

    def project_status(self, world, run):
        return SABOTAGED.get(run.status, ("completed", True))
