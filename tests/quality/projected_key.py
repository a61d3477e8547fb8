"""Requests, tasks/update keys: a host that decodes a projected key although P-KEYFORM says raw.

Under P-KEYFORM "raw" a key is the raw interruptId; its projected form names no interrupt and must
resolve nothing (UPD-2). The old model never sent a key in that form, so this host held.
"""
from model import identity
from model.amend import Amendment


class ProjectedKey(Amendment):
    name = "quality-projected-key-under-raw"
    kind = "mutant"
    changes = "tasks/update keys are decoded from the projected form although P-KEYFORM is raw"
    expect = {"UPD-2": "refuted"}
    def update_key(self, world, run, key):
        i = world.interrupts.get(identity.unproject(key) or key)
        return i if i is not None and i.run == run.id else None
