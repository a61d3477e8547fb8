"""How fast each built-in variant is refuted: for every built-in, over several seeds, the time to the
first counterexample of an id it is expected to refute (with the exploration the gate and `taskmodel
check` use: the catalogue's scenario stories first, then seeded chunks of random examples), and the
length of that counterexample once shrunk by replay, beside the shortest length the manifest knows.

    .venv/bin/python benchmarks/variants.py [--seeds 5] [--cap 60] [--only NAME ...] [--jobs 2] [--no-stories]

`--no-stories` leaves the scenario stories out (random steps alone): what the random engine finds
by itself, as it would for an amendment whose flaw no story was written for.

Prints the medians per variant (and, in the `all` columns, the median time until every refutation
the variant expects was found, with how many seeds found them all), then the slowest variants. A strengthening (or a variant that only
makes a witness unreachable) has no counterexample to find: its row says so. Nothing here asserts a
time (machines are shared and noisy); the target is every variant refuted within 30 s.

    .venv/bin/python benchmarks/variants.py --lengths [--only NAME ...] [--jobs 2]

`--lengths` prints, per variant and refuted property, the length of the random engine's
counterexample as the gate's exploration shows it (the manifest's settings: seed, chunks, steps),
the shortest the exhaustive engine found (the manifest's bfs lengths, over every scope it
recorded), their ratio, and how many exceed the target: at most twice the bfs length.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, seed as hyp_seed, settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402

from model.variants import builtins  # noqa: E402
from properties.base import load_catalogue  # noqa: E402
from verifier.engines.random.explore import explore, play_scenarios
from verifier.engines.random.machine import STEPS_PER_DRAW, make_machine
from verifier.engines.random.shorten import shorten
from verifier.runtime.checking import Observations, Violation
from verifier.runtime.worlds import world_factory

TARGET = 2.0    # a random-engine counterexample at most this many times the bfs length


def first_counterexample(name: str, seed: int, cap: float, step_count: int = 40, per_chunk: int = 25,
                         stories: bool = True):
    """(seconds to the first expected refutation, property, raw length, shrunk length, seconds until
    every expected refutation was found or None), or Nones."""
    variant = builtins()[name]
    catalogue = list(load_catalogue().values())
    targets = {p.name for p in catalogue
               if any(variant.expect.get(rid) == "refuted" for rid in p.ids)}
    if not targets:
        return None
    make_world = world_factory(variant)
    started = time.monotonic()
    asserted = {p.name for p in catalogue if p.asserted}
    obs, refuted = Observations(), {}
    if stories:
        play_scenarios(make_world, catalogue, asserted, obs, refuted)
    chunk, t_first = 0, None
    while not targets <= set(refuted) and time.monotonic() - started < cap:
        if t_first is None and targets & set(refuted):
            t_first = time.monotonic() - started
        machine = make_machine(make_world, catalogue, asserted, obs)
        hyp_seed(seed * 100_003 + chunk)(machine)
        chunk += 1
        try:
            run_state_machine_as_test(machine, settings=settings(
                max_examples=per_chunk, stateful_step_count=max(1, step_count // STEPS_PER_DRAW), deadline=None,
                database=None, report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
                phases=[Phase.generate], print_blob=False))
        except Violation:
            v = obs.last_failure
            refuted[v.prop.name] = v
            asserted.discard(v.prop.name)
    t_all = time.monotonic() - started if targets <= set(refuted) else None
    found = sorted(targets & set(refuted), key=lambda n: len(refuted[n].history))
    if not found:
        return (None, None, None, None, None)
    elapsed = t_first if t_first is not None else t_all
    prop = found[0]
    hist = refuted[prop].history
    got = shorten(make_world, make_world, variant, None, catalogue, prop, hist)
    return (elapsed, prop, len(hist), len(got[1]) if got else len(hist), t_all)


def bfs_lengths(recorded: dict) -> dict:
    """{property: the shortest length the manifest's bfs records of a variant hold, over its scopes}."""
    out: dict = {}
    for scope in recorded.get("bfs", {}).values():
        for prop, n in (scope.get("lengths") or {}).items():
            out[prop] = min(n, out.get(prop, n))
    return out


def random_lengths(args):
    """(variant, {refuted property: (length, how it was shortened)}) under the gate's settings."""
    name, settings = args
    r = explore(builtins()[name], budget=settings.get("budget_cap", 1800), seed=settings["seed"],
                step_count=settings["steps"], examples_per_chunk=settings["examples_per_chunk"],
                chunks=settings["chunks"])
    return name, {v.name: (v.length, r.bounds["shortened"].get(v.name, "")) for v in r.verdicts
                  if v.verdict == "refuted"}


def print_lengths(names, manifest: dict, jobs: int) -> int:
    """The trace-length figure; returns how many counterexamples exceed the target."""
    settings = manifest.get("settings", {})
    mine = {n: {**settings, **settings.get("per_variant", {}).get(n, {})} for n in names}
    over, compared, started = 0, 0, time.monotonic()
    print(f"{'variant':40s} {'property':44s} {'random':>6s} {'bfs':>4s} {'ratio':>6s}")
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        for name, got in pool.map(random_lengths, [(n, mine[n]) for n in names]):
            known = bfs_lengths(manifest.get("variants", {}).get(name, {}))
            for prop, (n, how) in sorted(got.items()):
                b = known.get(prop)
                ratio = n / b if b else None
                compared += b is not None
                bad = ratio is not None and ratio > TARGET
                over += bad
                print(f"{name:40s} {prop:44s} {n:6d} {'' if b is None else b:>4} "
                      f"{'' if ratio is None else f'{ratio:.2f}':>6s}{'  OVER' if bad else ''}"
                      + (f"  ({how})" if bad else ""), flush=True)
    print(f"\n{compared} counterexamples with a bfs length, {over} longer than {TARGET:g}x it "
          f"({len(names)} variants in {time.monotonic() - started:.0f} s on {jobs} jobs)")
    return over


def _one(args):
    name, seeds, cap, stories = args
    runs = [first_counterexample(name, s, cap, stories=stories) for s in seeds]
    return name, runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per (variant, seed) before giving up")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--manifest", default=str(ROOT / "counterexamples" / "manifest.json"))
    ap.add_argument("--no-stories", action="store_true", help="random steps alone: no scenario story first")
    ap.add_argument("--lengths", action="store_true", help="the trace-length figure against the bfs lengths")
    args = ap.parse_args()
    names = sorted(builtins()) if not args.only else args.only
    try:
        recorded = json.loads(Path(args.manifest).read_text(encoding="utf-8"))
    except FileNotFoundError:
        recorded = {}
    if args.lengths:
        sys.exit(1 if print_lengths(names, recorded, args.jobs) else 0)
    manifest = recorded.get("variants", {})
    seeds = list(range(args.seeds))
    print(f"{'variant':40s} {'median s':>9s} {'max s':>7s} {'found':>6s} {'shrunk':>7s} {'known':>6s} "
          f"{'all s':>7s} {'all':>5s}  property")
    slow = []
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, runs in pool.map(_one, [(n, seeds, args.cap, not args.no_stories) for n in names]):
            if runs[0] is None:
                print(f"{name:40s} {'no counterexample expected (a strengthening or an unreached witness)':>40s}")
                continue
            hits = [r for r in runs if r[0] is not None]
            if not hits:
                print(f"{name:40s} {'none':>9s} {'':>7s} {0:>3d}/{len(runs)}  (no expected refutation within {args.cap:g} s)")
                slow.append((float("inf"), name))
                continue
            times = [r[0] for r in hits]
            shrunk = [r[3] for r in hits]
            prop = statistics.mode([r[1] for r in hits])
            known = manifest.get(name, {}).get("lengths", {}).get(prop)
            med = statistics.median(times)
            every = [r[4] for r in runs if r[4] is not None]
            med_all = statistics.median([r[4] if r[4] is not None else float("inf") for r in runs])
            slow.append((med_all, name))
            print(f"{name:40s} {med:9.2f} {max(times):7.2f} {len(hits):>3d}/{len(runs)} "
                  f"{statistics.median(shrunk):7.1f} {'' if known is None else known:>6} "
                  f"{med_all:7.2f} {len(every):>3d}/{len(runs)}  {prop}", flush=True)
    slow.sort(reverse=True)
    print(f"\n{len(names)} variants x {len(seeds)} seeds, stories {'off' if args.no_stories else 'on'}, in "
          f"{time.monotonic() - started:.0f} s on {args.jobs} jobs; "
          f"slowest to every expected refutation (median): " + ", ".join(f"{n} {t:.1f} s" for t, n in slow[:6]))


if __name__ == "__main__":
    main()
