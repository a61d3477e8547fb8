"""Tenant-bound ids and their wire projection (identity.md §5, RFC §C.5).

An id is `tenant/opaque`. On the wire every byte outside `[A-Za-z0-9._-]` is written `~XX`
(uppercase hex), applied exactly once. A host accepts the projected and the `%2F` forms.
"""
from __future__ import annotations

import re
from functools import lru_cache

UNPROJECTED = re.compile(r"^(anon:)?[A-Za-z0-9._~-]{1,128}/[A-Za-z0-9._-]{16,128}$")
SAFE = re.compile(r"[A-Za-z0-9._-]")
PROJECTED = re.compile(r"^(?:[A-Za-z0-9._-]|~[0-9A-F]{2})+$")
MIN_OPAQUE_128_BITS = 22  # 128 bits in a 64-symbol alphabet needs 22 characters

# A fixed alphabet stream stands in for a CSPRNG (P-MINT): the model treats minted segments as
# unique tokens that a third party can only learn by being told.
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def mint(tenant: str, serial: int, length: int, prefix: str = "") -> str:
    """A deterministic, unique, well-formed id; `serial` makes it unique within an exploration."""
    body, n = [], serial * 7919 + 12345
    while len(body) < length - len(prefix):
        body.append(_ALPHABET[n % 64])
        n = n // 64 + serial * 31 + len(body) * 17
    return f"{tenant}/{prefix}{''.join(body)}"


@lru_cache(maxsize=4096)
def project(raw: str) -> str:
    return "".join(ch if SAFE.fullmatch(ch) else "".join(f"~{b:02X}" for b in ch.encode()) for ch in raw)


@lru_cache(maxsize=4096)
def unproject(wire: str) -> str | None:
    """Decode a projected or `%2F` form; None when it is not a well-formed projected id."""
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


def opaque(raw: str) -> str:
    return raw.split("/", 1)[1]


def tenant_of(raw: str) -> str:
    return raw.split("/", 1)[0]


def is_projected_once(wire: str) -> bool:
    """ID-1: the wire form decodes to a grammatical id and re-projects to itself."""
    raw = unproject(wire)
    return raw is not None and "%" not in wire and project(raw) == wire and "~" not in opaque(raw)
