"""The gate's refutations that BMC reproduces (issue 5: every variant refuted by Hypothesis on a safety
id is refuted by BMC, with a trace no longer than Hypothesis's shrunk one).

The default run checks which (variant, id) pairs are encoded against the record below, so that a
change of the encoding or of the gate shows here; `--slow` runs BMC on every encoded pair.
"""
from __future__ import annotations

import time

import pytest

from model.variants import builtins
from verifier.engines.z3 import encoding_for
from verifier.engines.z3.bmc import bmc
from verifier.engines.z3.coverage import pairs
from verifier.engines.z3.properties import PROPS

# The gate's pairs the Z3 engine does not judge, each for a stated reason: the id has no formula
# (the encoding keeps no elicitation modes, HTTP statuses, credentials, short operations or emitted
# ttlMs), or the variant overrides a rule no z3_flags entry describes. Any other gap fails the record.
UNENCODED = {
    ("elicit-without-capability", "PRJ-4"), ("create-result-carries-input-requests", "PRJ-4"),
    ("missing-capability-http-200", "WIRE-5"),
    ("poll-with-default-credentials", "HNS-6"), ("task-for-every-call", "HNS-7"),
    ("ttl-beyond-retention", "TTL-4"),
    ("capability-error-on-plain-mount", "NEG-4"), ("ttl-pauses-run", "TTL-1"), ("ttl-pauses-run", "TTL-2"),
    ("listen-notifies-first-change-only", "NTF-4"),
}


def test_encoded_pairs_match_the_record():
    """Every (variant, safety id) pair the gate refutes is encoded (the host's ids on the host
    encoding, the harness's on the composed one) but the stated gaps, each with its reason."""
    ps = pairs()
    assert len(ps) > 60
    missing = {(p.variant, p.id) for p in ps if not p.encoded}
    assert missing == UNENCODED
    assert all(p.reason for p in ps if not p.encoded)
    assert {p.id for p in ps} >= {"HNS-1", "HNS-2", "HNS-3", "HNS-4", "HNS-5"}


def test_a_planted_unencoded_variant_shows(monkeypatch):
    """The record can fail: a variant the gate refutes but the encoding cannot describe (here
    short-task-id with its rule-flag row taken away) is reported."""
    from verifier.engines.z3 import variants
    monkeypatch.delitem(variants.Z3_RULE_TABLE, "short-task-id")
    ps = pairs()
    names = {p.variant for p in ps if not p.encoded and "does not describe" in (p.reason or "")
             and (p.variant, p.id) not in UNENCODED}
    assert names == {"short-task-id"}
    monkeypatch.delitem(variants.HARNESS_RULE_TABLE, "mirror-remote-status")
    missing = {(p.variant, p.id) for p in pairs() if not p.encoded and "does not describe" in (p.reason or "")}
    assert ("mirror-remote-status", "HNS-5") in missing


@pytest.mark.slow
@pytest.mark.parametrize("pair", [p for p in pairs() if p.encoded], ids=lambda p: f"{p.variant}:{p.id}")
def test_bmc_reproduces_the_gate(pair):
    e = encoding_for(builtins()[pair.variant], None, PROPS[pair.id].composed)
    limit = pair.hypothesis_length or 8
    found = bmc(e, [pair.id], limit, time.time() + 300, pair.variant)[pair.id]
    assert found.verdict == "refuted", f"{pair.variant} {pair.id}: {found.verdict} {found.message}"
    assert found.depth <= limit
