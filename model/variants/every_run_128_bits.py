from ..amend import Amendment


class EveryRun128Bits(Amendment):
    """Strengthening that answers RFC 0198 unresolved question 2 (gap G4) yes: "Should every v2
    runId carry 128 bits of entropy (an identity.md §5 rule), rather than only runs projected as
    tasks?" Every run, however started (REST, child, fork), is minted with a 22-character opaque
    segment."""
    name = "every-run-128-bits"
    kind = "strengthening"
    source = "RFC 0198 Unresolved questions, 2 (gap G4); §C.5"
    changes = "strengthening: every runId minted with 128 bits"
    expect = {"ID-G4": "holds"}
    params = {"mint_other_len": 22}
