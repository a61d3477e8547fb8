from ..amend import Amendment


class TasksListServed(Amendment):
    """Planted mutant of ext-tasks §Supported Methods (SEP-2663): `tasks/list` and `tasks/result`
    no longer exist in revision 2026-07-28 and get `-32601`. This host still answers `tasks/list`
    (the 2025-11-25 method) with the caller's tasks."""
    name = "tasks-list-served"
    kind = "mutant"
    source = "ext-tasks §Supported Methods; SEP-2663"
    changes = "`tasks/list` answered"
    expect = {"WIRE-3": "refuted"}

    def method_supported(self, world, method):
        return method != "tasks/result"
