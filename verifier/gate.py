"""The regression gate: every built-in variant re-explored against the recorded manifest.

The manifest records, per variant, the verdict of every property and the shortest known
counterexample length. Exploration runs a fixed number of seeded chunks, so the same code gives
the same verdicts; any difference is drift: a property newly refuted, an expected refutation no
longer found, a counterexample longer than recorded, or a variant's own expectation unmet.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .exitcodes import EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED, UsageError
from .files import write_atomic

DEFAULTS = {"seed": 0, "chunks": 6, "examples_per_chunk": 25, "steps": 40, "budget_cap": 120}


def _explore_one(name: str, settings: dict) -> dict:
    from .explore import explore
    from .reproduce import variant_class
    v = variant_class(name)
    r = explore(v, budget=settings["budget_cap"], seed=settings["seed"], step_count=settings["steps"],
                examples_per_chunk=settings["examples_per_chunk"], chunks=settings["chunks"])
    return {"variant": name, "elapsed": round(r.elapsed_s, 2), "steps": r.steps,
            "verdicts": {x.name: x.verdict for x in r.verdicts},
            "lengths": {x.name: x.length for x in r.verdicts if x.length is not None},
            "traces": {x.name: [(s.action, s.args) for s in x.trace] for x in r.verdicts if x.trace is not None},
            "messages": {x.name: x.message for x in r.verdicts if x.message}}


def expectation_problems(name: str, verdicts: dict) -> list[str]:
    """A variant's own `expect`: refuted ids refuted, unreached witnesses unreached, closed gaps holding."""
    from properties.base import load_catalogue

    from .reproduce import variant_class
    v = variant_class(name)
    if v is None:
        expect = {}
    else:
        expect = dict(v.expect)
    problems = []
    props = load_catalogue()
    for rid, want in expect.items():
        named = [p for p in props.values() if rid in p.ids]
        got = {verdicts.get(p.name) for p in named}
        ok = {"refuted": "refuted" in got, "unreached": "unreached" in got,
              "holds": bool(got) and got <= {"holds"}, "reached": "reached" in got}[want]
        if not ok:
            problems.append(f"{name}: expected {rid} {want}, got {', '.join(sorted(g for g in got if g)) or 'no property'}")
    return problems


def compare(name: str, recorded: dict | None, got: dict) -> list[str]:
    if recorded is None:
        return [f"{name}: not in the manifest (record it with `taskmodel gate --record`)"]
    out = []
    for prop, verdict in got["verdicts"].items():
        was = recorded["verdicts"].get(prop)
        if was != verdict:
            out.append(f"{name}: {prop} was {was or 'absent'}, now {verdict}")
        length, best = got["lengths"].get(prop), recorded.get("lengths", {}).get(prop)
        if length is not None and best is not None and length > best:
            out.append(f"{name}: {prop} counterexample grew from {best} to {length} steps")
    for prop in recorded["verdicts"]:
        if prop not in got["verdicts"]:
            out.append(f"{name}: {prop} is no longer in the catalogue")
    return out


def run_gate(args) -> int:
    from model.variants import builtins
    manifest_path = Path(args.manifest)
    manifest = {"settings": dict(DEFAULTS), "variants": {}}
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            manifest["settings"] = {**DEFAULTS, **manifest.get("settings", {})}
        except (ValueError, AttributeError) as e:
            raise UsageError(f"taskmodel: {manifest_path}: not a gate manifest ({e})") from None
    elif not args.record:
        raise UsageError(f"taskmodel: {manifest_path}: no manifest (record one with `taskmodel gate --record`)")
    settings = manifest["settings"]
    if args.budget:
        settings["budget_cap"] = args.budget
    names = ["baseline", *sorted(builtins())]
    if args.only:
        unknown = [n for n in args.only if n not in names]
        if unknown:
            raise UsageError(f"taskmodel: unknown variant {unknown[0]!r}")
        names = [n for n in names if n in args.only]
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # A variant whose expected refutation needs a longer search gets its own settings
        # (`settings["per_variant"][name]`, e.g. more chunks); the longest start first.
        own = {n: {**settings, **settings.get("per_variant", {}).get(n, {})} for n in names}
        order = sorted(names, key=lambda n: -own[n]["chunks"] * own[n]["steps"])
        done = dict(zip(order, pool.map(_explore_one, order, [own[n] for n in order])))
        results = [done[n] for n in names]
    problems, undetermined = [], []
    for got in results:
        name = got["variant"]
        problems += expectation_problems(name, got["verdicts"])
        if not args.record:
            problems += compare(name, manifest["variants"].get(name), got)
        undetermined += [f"{name}: {p} {v}" for p, v in got["verdicts"].items()
                         if v == "undetermined" or (name == "baseline" and v in ("vacuous", "unreached"))]
        print(f"{name:42s} {got['elapsed']:7.1f} s  {got['steps']:6d} steps  "
              f"{sum(v == 'refuted' for v in got['verdicts'].values())} refuted")
    elapsed = time.monotonic() - started
    if args.record or args.write:
        _record(manifest_path, manifest, results, update_manifest=args.record)
    for p in problems:
        print(f"DRIFT {p}")
    for u in undetermined:
        print(f"UNDETERMINED {u}")
    print(f"gate: {len(results)} variants in {elapsed:.0f} s on {args.jobs} jobs; "
          f"{len(problems)} drift, {len(undetermined)} undetermined")
    if problems:
        return EXIT_REFUTED
    return EXIT_UNDETERMINED if undetermined else EXIT_OK


def _record(manifest_path: Path, manifest: dict, results: list[dict], update_manifest: bool = True) -> None:
    from properties.base import load_catalogue

    from . import counterexamples
    from .explore import world_factory
    from .replay import run_trace
    from .reproduce import variant_class
    catalogue = list(load_catalogue().values())
    root = manifest_path.parent
    for got in results:
        name = got["variant"]
        if update_manifest:
            manifest["variants"][name] = {"verdicts": got["verdicts"], "lengths": got["lengths"]}
        variant = variant_class(name)
        make = world_factory(variant)
        keep = set()
        for prop, verdict in got["verdicts"].items():
            # Refutations of every variant; known gaps once, on the baseline (a variant that does not
            # touch a gap shows the same story again).
            if not (verdict == "refuted" or (verdict == "known-gap" and name == "baseline")):
                continue
            out = run_trace(make, got["traces"][prop], catalogue, prop)
            if out.violation is None:
                raise RuntimeError(f"{name}/{prop}: the recorded trace does not replay ({out.reason})")
            from .explore import PropertyVerdict
            p = next(x for x in catalogue if x.name == prop)
            pv = PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict, out.violation.message,
                                 out.violation.history)
            counterexamples.write(root, variant, pv, make, manifest["settings"]["seed"])
            keep.add(prop)
        counterexamples.prune(root, name, keep)
    if update_manifest:
        manifest["variants"] = dict(sorted(manifest["variants"].items()))
        write_atomic(manifest_path, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
