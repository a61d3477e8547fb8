"""Which of the gate's refutations the Z3 engine can reproduce.

The regression gate (`counterexamples/manifest.json`) records, for every built-in variant, the
properties random exploration refuted and the length of the shrunk trace. Issue 5 asks that every
variant refuted on a safety id (kind S or T of the catalogue) is also refuted by BMC, with a trace
no longer than Hypothesis's. `pairs()` lists those (variant, id) pairs, each either encoded (the
variant is described by its rule flags and the id has a formula: a host id on `Encoding`, a harness id
on `ComposedEncoding`) or with the reason it is not.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from verifier.engines.z3.encoding import UnsupportedVariant
from verifier.engines.z3.properties import PROPS, why_not_encoded

MANIFEST = Path(__file__).resolve().parents[3] / "counterexamples" / "manifest.json"


@dataclass(frozen=True)
class Pair:
    variant: str
    id: str
    hypothesis_length: int | None     # the shrunk trace the gate recorded for the property
    reason: str | None                # None: encoded, BMC can refute it

    @property
    def encoded(self) -> bool:
        return self.reason is None


def safety(rid: str) -> bool:
    from properties.requirements import REQUIREMENTS
    return REQUIREMENTS.get(rid, ("", ""))[0] in ("S", "T")


def pairs(manifest: Path = MANIFEST) -> list[Pair]:
    from model.variants import builtins
    from properties.base import CATALOGUE, load_catalogue
    from verifier.engines.z3 import encoding_for
    load_catalogue()
    built = builtins()
    out = []
    for variant, entry in sorted(json.loads(manifest.read_text())["variants"].items()):
        if variant not in built:
            continue
        unsupported = {}
        for composed in (False, True):
            try:
                encoding_for(built[variant], None, composed)
                unsupported[composed] = None
            except UnsupportedVariant as e:
                unsupported[composed] = f"the encoding does not describe the variant: {e}"
        for name, verdict in sorted(entry["verdicts"].items()):
            if verdict != "refuted":
                continue
            for rid in CATALOGUE[name].ids:
                if not safety(rid):
                    continue
                if rid not in PROPS:
                    reason = f"{rid} is not encoded: {why_not_encoded(rid)}"
                else:
                    reason = unsupported[PROPS[rid].composed]
                out.append(Pair(variant, rid, entry.get("lengths", {}).get(name), reason))
    return out
