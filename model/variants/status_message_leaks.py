from ..amend import Amendment


class StatusMessageLeaks(Amendment):
    """Map sabotage of RFC 0198 §Security and the map's `statusMessage` row: "statusMessage is
    content-free". This host shows the tool's own output text as the task's status message."""
    name = "status-message-leaks"
    kind = "map-sabotage"
    source = "RFC 0198 §Security; map mcp.tasks statusMessage row"
    changes = "`statusMessage` quotes tool output"
    expect = {"SEC-1": "refuted"}

    def status_message(self, world, run):
        return self.tool_result(world, run)["content"][0]["text"]
