from .. import wire
from ..amend import Amendment


class BlockingCancelWithoutError(Amendment):
    """Planted mutant of RFC 0198 §G.14: "A cancelled blocking call is answered CallToolResult
    { isError: true }." This host answers an operator-cancelled blocking call as a success."""
    name = "blocking-cancel-without-error"
    kind = "mutant"
    source = "RFC 0198 §G.14"
    changes = "an operator-cancelled blocking call answered `isError: false`"
    expect = {"NTF-2": "refuted"}

    def blocking_cancel_result(self, world, run):
        return wire.call_tool_result(False, "run cancelled")
