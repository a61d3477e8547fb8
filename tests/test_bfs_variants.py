"""Every built-in variant's flaw is shown by the exhaustive search the gate records.

For each id a built-in variant expects refuted, the committed manifest (`counterexamples/manifest.json`)
must hold a bfs record, at a default scope or at one of the variant's own `bfs_scopes` (its
`settings.per_variant.<name>.bfs_scopes`), that refutes one of the id's properties with a trace no
longer than the random engine's recorded one; or the pair is in BEYOND with the reason its flaw lies
outside every scope the gate searches. Reads the manifest only: no search runs here.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.variants import builtins
from properties.base import load_catalogue
from verifier.runtime import scopes

MANIFEST = Path(__file__).resolve().parent.parent / "counterexamples" / "manifest.json"

# (variant, requirement id) -> why no scope the gate searches holds the flaw. Keep it short: a flaw
# the default scopes miss gets its own scope in the manifest's settings instead.
BEYOND: dict[tuple[str, str], str] = {}      # none now: every expected refutation is shown at some bfs scope


def _manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def _pairs():
    for name, v in sorted(builtins().items()):
        for rid, want in sorted(v.expect.items()):
            if want == "refuted":
                yield name, rid


def _shown(record: dict, props: list) -> list[str]:
    """The (scope, property, bfs length, random length) of each bfs refutation in `record` no longer
    than the random engine's recorded length (any length when it recorded none)."""
    out = []
    for scope, got in record.get("bfs", {}).items():
        for p in props:
            n, best = got.get("lengths", {}).get(p), record.get("lengths", {}).get(p)
            if got.get("verdicts", {}).get(p) == "refuted" and n is not None and (best is None or n <= best):
                out.append(f"{scope}: {p} in {n} (random {best})")
    return out


@pytest.mark.parametrize("name,rid", list(_pairs()), ids=lambda x: x)
def test_expected_refutation_shown_by_bfs(name, rid):
    manifest = _manifest()
    record = manifest["variants"].get(name)
    assert record is not None, f"{name} is not in the manifest"
    props = [p.name for p in load_catalogue().values() if rid in p.ids]
    assert props, f"{name} expects {rid} refuted, but no property checks {rid}"
    shown = _shown(record, props)
    if (name, rid) in BEYOND:
        assert not shown, f"{name} {rid} is listed as beyond every scope, yet bfs shows it: {shown}"
        return
    own = manifest["settings"].get("per_variant", {}).get(name, {}).get("bfs_scopes", {})
    searched = sorted(record.get("bfs", {}))
    assert shown, (f"{name} expects {rid} refuted ({', '.join(props)}), but no bfs record refutes it in at most the "
                   f"random engine's {[record.get('lengths', {}).get(p) for p in props]} steps (searched at "
                   f"{searched}; own scopes {own}): give it a scope in settings.per_variant.{name}.bfs_scopes, "
                   f"or list it in BEYOND with the reason")


def test_own_scopes_are_well_formed_and_recorded():
    manifest = _manifest()
    variants = builtins()
    for name, settings in manifest["settings"].get("per_variant", {}).items():
        own = settings.get("bfs_scopes")
        if own is None:
            continue
        assert name in variants, f"per_variant.{name}: not a built-in variant"
        assert isinstance(own, dict) and own, f"per_variant.{name}.bfs_scopes: a mapping of scope spec to ids"
        refuted = {rid for rid, want in variants[name].expect.items() if want == "refuted"}
        for spec, ids in own.items():
            sc = scopes.parse(spec)          # raises on a scope or override that does not exist
            assert sc.name == spec, f"per_variant.{name}.bfs_scopes: write {spec!r} without spaces ({sc.name!r})"
            assert ids and set(ids) <= refuted, f"per_variant.{name}.bfs_scopes[{spec!r}]: {ids} not all refuted ids"
            got = manifest["variants"].get(name, {}).get("bfs", {}).get(spec)
            assert got is not None, f"{name}: bfs at {spec} is not recorded (re-record the gate)"
            assert got["complete"] or got.get("settled") or got.get("bounded"), f"{name}: bfs at {spec} did not finish"


def test_beyond_names_real_pairs():
    pairs = set(_pairs())
    assert set(BEYOND) <= pairs, f"BEYOND lists pairs no variant expects refuted: {sorted(set(BEYOND) - pairs)}"


def test_gate_searches_the_own_scopes():
    """The gate's plan for each variant is the default scopes, then its own with the ids' properties."""
    from verifier.cli import gate, gate_jobs
    manifest = _manifest()
    settings = {**gate.DEFAULTS, **manifest["settings"]}
    catalogue = load_catalogue()
    for name, mine in settings.get("per_variant", {}).items():
        own = mine.get("bfs_scopes")
        if not own:
            continue
        plan = gate_jobs.search_plan(builtins()[name], {**settings, **mine})
        assert [sc.name for sc, _ in plan[-len(own):]] == list(own)
        for (sc, props), ids in zip(plan[-len(own):], own.values()):
            assert {p.name for p in props} == {p.name for p in catalogue.values() if set(p.ids) & set(ids)}


def test_a_settled_own_search_is_finished_and_compared_exactly():
    from verifier.cli.gate import compare_bfs
    rec = {"host-rest": {"distinct": 10, "generated": 20, "depth": 4, "complete": False, "settled": True,
                         "verdicts": {"p": "refuted"}, "lengths": {"p": 4}}}
    assert compare_bfs("v", rec, rec) == []
    now = {"host-rest": {**rec["host-rest"], "settled": False}}
    assert any("did not complete" in d for d in compare_bfs("v", rec, now))
    assert any("settled" in d for d in compare_bfs("v", rec, now))
