from ..amend import Amendment
from ..wire import MISSING_CAPABILITY


class MissingCapabilityHttp200(Amendment):
    """Planted mutant of core §Streamable HTTP (WIRE-5): a `-32021` answer is sent with HTTP 400. This
    host sends it with 200, the status of a success, so an HTTP intermediary sees nothing refused."""
    name = "missing-capability-http-200"
    kind = "mutant"
    source = "core §Streamable HTTP, §Errors"
    changes = "`-32021` sent with HTTP 200"
    expect = {"WIRE-5": "refuted"}

    def http_status(self, world, q, message):
        if (message.get("error") or {}).get("code") == MISSING_CAPABILITY:
            return 200
        return super().http_status(world, q, message)
