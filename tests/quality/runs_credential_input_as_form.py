"""Runs, suspensions: a host that asks for a credential through a form.

A run suspends on an approval or a clarification, each either in form mode or as a credential
(a URL the user visits: a secret never goes through the client). The MRTR row of the map projects a
credential interrupt as a URL input request, never in form mode (PRJ-2). This host sends every input
request as a form, so a run suspended on a credential asks the client for the secret itself.
"""
from model import wire
from model.amend import Amendment


class CredentialInputAsForm(Amendment):
    name = "quality-credential-input-as-form"
    kind = "mutant"
    changes = "every input request is sent in form mode, credential interrupts too"
    expect = {"PRJ-2": "refuted"}

    def input_requests(self, world, run, q):
        return {i.id: wire.elicitation_input_request(f"{i.kind} needed", {"type": "object", "properties": {
                    "approved": {"type": "boolean"}}})
                for i in run.open_interrupts(world) if i.kind != "external-event"}
