"""Who calls, and the ids the host mints: tenants, bearer tokens, Subjects, runIds (identity.md §5).

The instance mirrors the model's (model/params.py): tenants acme and beta, and four Subjects,
each told apart by its bearer token. `mapping.json` ties these tokens to the model's Subjects.
The id grammar is written again here from identity.md, not imported from model/identity.py: the
host is what the model checks, so it must not share the model's code.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

READ, CANCEL, RESPOND = "runs:read", "runs:cancel", "approvals:respond"


@dataclass(frozen=True)
class Subject:
    name: str
    tenant: str
    scopes: frozenset[str]


SUBJECTS = {
    "tok-alice-3f9c2a": Subject("alice", "acme", frozenset({READ, CANCEL, RESPOND})),
    "tok-bob-8d41e7": Subject("bob", "acme", frozenset({READ, RESPOND})),      # the approver
    "tok-carol-5b20c9": Subject("carol", "acme", frozenset({READ})),
    "tok-mallory-e17a64": Subject("mallory", "beta", frozenset({READ, CANCEL, RESPOND})),
}
APPROVERS = ("bob",)   # every approval interrupt names bob, as the model's do
TOKENS = {s.name: tok for tok, s in SUBJECTS.items()}


def subject_for(authorization: str | None) -> Subject | None:
    """The Subject a `Bearer <token>` credential names, or None."""
    if not authorization or not authorization.startswith("Bearer "):
        return None
    return SUBJECTS.get(authorization[len("Bearer "):].strip())


# ---- ids -----------------------------------------------------------------------------------------
UNPROJECTED = re.compile(r"^(anon:)?[A-Za-z0-9._~-]{1,128}/[A-Za-z0-9._-]{16,128}$")
PROJECTED = re.compile(r"^(?:[A-Za-z0-9._-]|~[0-9A-F]{2})+$")
SAFE = re.compile(r"[A-Za-z0-9._-]")


def mint(tenant: str, prefix: str = "r-") -> str:
    """tenant/opaque with 128 bits of entropy: 16 random bytes are 22 URL-safe characters, never '~'."""
    return f"{tenant}/{prefix}{secrets.token_urlsafe(16)}"


def project(raw: str) -> str:
    """The wire form: every byte outside [A-Za-z0-9._-] as ~XX, applied once (`/` -> `~2F`)."""
    return "".join(ch if SAFE.fullmatch(ch) else "".join(f"~{b:02X}" for b in ch.encode()) for ch in raw)


def unproject(wire: str) -> str | None:
    """The raw id a projected (or `%2F`) form names; None when it is not a well-formed id."""
    text = wire.replace("%2F", "~2F").replace("%2f", "~2F")
    if not PROJECTED.fullmatch(text):
        return None
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] == "~":
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out.extend(text[i].encode())
            i += 1
    try:
        raw = out.decode()
    except UnicodeDecodeError:
        return None
    return raw if UNPROJECTED.fullmatch(raw) else None
