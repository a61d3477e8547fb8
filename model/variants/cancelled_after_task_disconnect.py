from ..amend import Amendment
from ..lifecycle import TERMINAL
from ..rules import MCP_REQUEST_CANCELLED


class CancelledAfterTaskDisconnect(Amendment):
    """RFC 0198 negative example 5 (§G.13).

    "A run cancelled because the client disconnected after receiving CreateTaskResult violates
    §G.13." The host keeps treating the connection of the creating `tools/call` as the run's lifeline
    after it answered it with a task. A handle lost in flight then takes its run with it, at the
    price of §G.13. It does not close the gap E2E-1: a lost MRTR `InputRequiredResult` (not a task)
    still leaves its run waiting with no one holding it.
    """
    name = "cancelled-after-task-disconnect"
    kind = "negative-example"
    source = "RFC 0198 Examples, Negative 5; §G.13"
    changes = "a disconnect after `CreateTaskResult` cancels the run"
    expect = {"OWN-3": "refuted", "E2E-3": "unreached"}

    def _drop(self, world, q):
        res = (q.response or {}).get("result") or {}
        if q.run is not None and res.get("resultType") == "task":
            run = world.runs[q.run]
            if run.status not in TERMINAL:
                self.cancel_run(world, run, MCP_REQUEST_CANCELLED, f"request:{q.id}:after-task")

    def on_response_lost(self, world, q):
        self._drop(world, q)
        super().on_response_lost(world, q)

    def on_disconnect_after_response(self, world, q):
        self._drop(world, q)
