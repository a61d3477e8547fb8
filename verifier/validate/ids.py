"""The bijection between a real host's ids and the model's, built at first appearance.

A real host mints its own runIds, interruptIds and requestState tokens; the model mints its own
deterministically. Each real id is bound to one model id the first time both are seen in the
same place (a CreateTaskResult's taskId, an inputRequests key, a run event's runId), and never
rebound: a second binding of either side is a mismatch. Bindings belong to one candidate model
state (candidates may have minted differently) and are copied on write.

Ids on the wire come in forms: raw (`tenant/opaque`), projected (`tenant~2Fopaque`) and the `%2F`
form. A real id in any form translates to the model id in the same form.
"""
from __future__ import annotations

from model import identity

KINDS = ("run", "interrupt", "token")


class Bindings:
    __slots__ = ("real", "model", "tenants", "errors", "binding", "_mine")

    def __init__(self, tenants: dict[str, str] | None = None, binding=None):
        from verifier.validate.binding import PLAIN
        self.real = {k: {} for k in KINDS}     # kind -> real id -> model id
        self.model = {k: {} for k in KINDS}    # kind -> model id -> real id
        self.tenants = tenants or {}           # host tenant -> model tenant (the mapping file)
        self.errors = {}                       # the model's not-found answer -> the host's (answers.py)
        self.binding = binding or PLAIN        # how the host's ids are read (binding.py)
        self._mine = set(KINDS)                # the kinds whose maps are this copy's own to change

    def copy(self) -> "Bindings":
        """A copy sharing each kind's maps until either side binds an id of that kind (a long
        session binds hundreds of runs; candidates are copied at every step)."""
        new = object.__new__(Bindings)
        new.real, new.model = dict(self.real), dict(self.model)
        new.tenants = self.tenants
        new.errors = dict(self.errors)
        new.binding = self.binding
        new._mine = set()
        self._mine = set()
        return new

    def real_of(self, wire_id: str) -> str:
        """The real id a wire id stands for: its raw id, or (opaque ids) the whole id as sent."""
        return wire_id if self.binding.opaque else raw_of(wire_id)[0]

    def to_model(self, kind: str, real: str) -> str | None:
        return self.real[kind].get(real)

    def to_real(self, kind: str, model: str) -> str | None:
        return self.model[kind].get(model)

    def can_bind(self, kind: str, real: str, model: str) -> bool:
        """True when binding real <-> model keeps a bijection (or is already the binding), and a
        tenant-bound id's tenant maps to the model id's tenant."""
        got = self.real[kind].get(real)
        if got is not None:
            return got == model
        if model in self.model[kind]:
            return False
        if kind != "token" and "/" in real and "/" in model:
            host_tenant = identity.tenant_of(real)
            want = self.tenants.get(host_tenant, host_tenant)
            if want != identity.tenant_of(model):
                return False
        return True

    def bind(self, kind: str, real: str, model: str) -> None:
        if kind not in self._mine:
            self.real[kind], self.model[kind] = dict(self.real[kind]), dict(self.model[kind])
            self._mine.add(kind)
        self.real[kind][real] = model
        self.model[kind][model] = real


def raw_of(wire_id: str) -> tuple[str, str]:
    """(raw id, form) of an id as sent: form is raw, projected, pct (the `%2F` form) or literal
    (not a well-formed id in any form; its raw id is the text itself)."""
    if identity.UNPROJECTED.fullmatch(wire_id):
        return wire_id, "raw"
    raw = identity.unproject(wire_id)
    if raw is None:
        return wire_id, "literal"
    return raw, "pct" if "%2" in wire_id else "projected"


def in_form(raw: str, form: str) -> str:
    if form == "projected":
        return identity.project(raw)
    if form == "pct":
        return identity.project(raw).replace("~2F", "%2F")
    return raw
