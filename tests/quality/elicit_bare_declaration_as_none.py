"""Capabilities: a host that reads a bare `elicitation: {}` as no elicitation at all.

The MCP schema reads `elicitation: {}` as "form mode only (implicit)" (PRJ-4, the Python SDK's
resolver too). This host reads only the modes named inside it, so mallory's client, which declares it
bare, is refused (-32021, elicitation required) the form input it can receive. Invisible while no
client sent the bare declaration and PRJ-4 judged only input sent, never input withheld.
"""
from model import wire
from model.amend import Amendment


class BareElicitationAsNone(Amendment):
    name = "quality-bare-elicitation-as-none"
    kind = "mutant"
    changes = "a request declaring `elicitation: {}` is read as declaring no elicitation mode"
    expect = {"PRJ-4": "refuted"}

    def elicitation_modes(self, world, run, q):
        creator = world.requests.get(run.creating_request) if run.creating_request else None
        asked = q if world.params.p_elicit == "each-get" or creator is None else creator
        caps = ((asked.message.get("params") or {}).get("_meta") or {}).get(wire.META_CLIENT_CAPABILITIES) or {}
        return tuple(m for m in wire.ELICITATION_MODES if m in (caps.get("elicitation") or {}))
