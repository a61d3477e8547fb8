from ..amend import Amendment


class McpNameUnchecked(Amendment):
    """Planted mutant of ext-tasks §Routing Headers: on streamable HTTP a `tasks/*` request whose
    `Mcp-Name` header differs from `params.taskId` is refused `-32020`. This host routes on the body
    and never compares the header."""
    name = "mcp-name-unchecked"
    kind = "mutant"
    source = "ext-tasks §Routing Headers"
    changes = "a mismatched `Mcp-Name` is served"
    expect = {"WIRE-4": "refuted"}

    def header_ok(self, world, q):
        return True
