from ..amend import Amendment


class KeepUq4(Amendment):
    """RFC 0198 alternative 1, rejected: keep RFC 0153 UQ4's "none first-class" (do nothing).

    No host serves the Tasks extension, and the corpus says nothing about what a disconnect does to
    the run behind a blocking call: the run keeps going with nobody holding a handle (the
    undefined outcome the RFC's Motivation describes), and it never reads `cancelled` (LIV-1). With
    no task ever created, the task witnesses (CRT-2, E2E-3) cannot be reached.
    """
    name = "keep-uq4"
    kind = "rejected-alternative"
    source = "RFC 0198 Alternatives considered, 1 (keep UQ4); Motivation"
    changes = "no Tasks served; a blocking call whose connection drops leaves its run running"
    expect = {"OWN-2": "refuted", "LIV-1": "refuted", "CRT-2": "unreached", "E2E-3": "unreached"}
    params = {"servers": (("S1", False), ("S2", False))}

    def on_request_cancelled(self, world, q, cause):
        return None
