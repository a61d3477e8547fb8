"""Profiles: which of the catalogue's requirement ids a kind of host is judged on.

The model is one: RFC 0198's host is the MCP Tasks extension (SEP-2663) plus OpenWOP's binding of it
(tenant-bound runIds, REST, runs and their logs, interrupts with approvers, a request owning its
run). A plain MCP Tasks server (any implementation of `io.modelcontextprotocol/tasks`) is judged by
the same rules on the ids that state the extension itself; the OpenWOP-only ids are out of its
scope, each with the reason. The profile is data and a binding (`verifier/validate/binding.py`: how
a stranger's ids, answers and failures are read), never a second copy of the rules.

Some ids mix an extension-level sentence with an RFC 0198 one; docs/third-party.md proposes their
split. Until the catalogue splits them, such an id sits on the side its sentence mostly states.
"""
from __future__ import annotations

from properties.requirements import REQUIREMENTS

OPENWOP = "RFC 0198 only"

# ext-tasks: id -> None (judged: the extension or core states it) or why it is out of the profile.
EXT_TASKS = {
    "ADV-1": f"{OPENWOP}: OpenWOP's mcp.features[] advertisement",
    "NEG-1": None, "NEG-2": None, "NEG-3": None, "NEG-4": None,
    "CRT-1": f"{OPENWOP}: SEP-2663 lets a server ask for input (MRTR) before it creates the task; RFC 0198 §B.3 "
             "does not",
    "CRT-2": f"{OPENWOP}: a witness of §B.4",
    "CRT-3": None,
    "CRT-4": f"{OPENWOP}: an interpretation of §B.3's rationale",
    "TASK-1": f"{OPENWOP}: runs started over REST or as children are addressable as tasks",
    "ID-1": f"{OPENWOP}: the runId grammar tenant/opaque and its projection (a plain server's taskIds are opaque; "
            "docs/third-party.md proposes the extension-level half)",
    "ID-2": None,
    "AUTH-1": f"{OPENWOP}: the scopes of getRun, resolveInterruptByRun and cancelRun (runs.md)",
    "ISO-1": None, "ISO-2": None,
    "PRJ-1": f"{OPENWOP}: the map's projection of ten run statuses (the binding reads SEP-2663's failed-with-error "
             "for a protocol error as the model's failed run)",
    "PRJ-2": None, "PRJ-3": None, "PRJ-4": None,
    "UPD-1": None, "UPD-2": None, "UPD-3": None,
    "UPD-4": f"{OPENWOP}: the map's mcp.mrtr row (what accept, decline and cancel do to an interrupt)",
    "RPL-1": f"{OPENWOP}: replay and fork of a run's log",
    "GET-1": None,
    "CNL-1": None,
    "CNL-2": f"{OPENWOP}: cancelRun's cancelling state (runs.md)",
    "TTL-1": f"{OPENWOP}: a ttlMs that covers the retention (§F.11); SEP-2663's ttlMs is how long the task is kept at "
             "least, and a server MAY keep it longer (TTL-4 is the extension's side)",
    "TTL-2": None, "TTL-3": None, "TTL-4": None,
    "OWN-1": f"{OPENWOP}: a request owning the run it starts (§G.12)",
    "OWN-2": f"{OPENWOP}: a disconnect before the response cancels the run (§G.12)",
    "OWN-3": None,
    "OWN-4": f"{OPENWOP}: what a cancelled request's ownership reaches (§G)",
    "NTF-1": None,
    "NTF-2": f"{OPENWOP}: a blocking call's run addressable as a task (§G.14)",
    "NTF-3": None, "NTF-4": None,
    "SEC-1": f"{OPENWOP}: the map's statusMessage rule (run internals)",
    "SEC-2": None,
    "WIRE-1": None, "WIRE-2": None, "WIRE-3": None, "WIRE-4": None, "WIRE-5": None,
    "LIV-1": "liveness: a finite log never judges it",
}
HARNESS = "the client harness (H) or the end-to-end composition: not a server's"
EXT_TASKS.update({rid: HARNESS for rid in REQUIREMENTS if rid not in EXT_TASKS})

PROFILES = {"ext-tasks": EXT_TASKS}
PROFILE_DOCS = {"ext-tasks": "a plain MCP Tasks server: the extension io.modelcontextprotocol/tasks as SEP-2663 "
                             "states it, with core"}


def judged(profile: str) -> tuple[str, ...]:
    """The ids a host of `profile` is judged on, in the catalogue's order."""
    return tuple(rid for rid in REQUIREMENTS if PROFILES[profile].get(rid) is None)


def out_of_scope(profile: str) -> dict[str, str]:
    """id -> why the profile leaves it out."""
    return {rid: why for rid, why in PROFILES[profile].items() if why is not None}
