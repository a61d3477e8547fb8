from ..amend import Amendment


class DropEveryRequest(Amendment):
    """The liveness mutant of requirements.md (LIV-1: "A host that drops every request must fail
    this"), against RFC 0198 §G: every request that starts or continues a run is eventually answered
    or cancelled.

    This host takes every `tools/call` (and MRTR retry), starts its run, and never answers it. A
    declaring call left open at an approval, and a call whose run was cancelled, are then also never
    answered (CRT-4, NTF-2). With no answer ever sent, no task is handed out (CRT-2, E2E-3 unreached)
    and no answer can be lost in flight (the gap E2E-1 cannot show).
    """
    name = "drop-every-request"
    kind = "mutant"
    source = "requirements.md LIV-1; RFC 0198 §G"
    changes = "the host never answers a `tools/call`"
    expect = {"LIV-1": "refuted", "CRT-4": "refuted", "NTF-2": "refuted", "CRT-2": "unreached", "E2E-3": "unreached",
              "E2E-1": "holds"}

    def answer_tools_call(self, world, q):
        return None
