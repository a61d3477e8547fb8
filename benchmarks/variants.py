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
from verifier.engines.random.explore import play_scenarios
from verifier.runtime.worlds import world_factory
from verifier.engines.random.machine import STEPS_PER_DRAW, make_machine
from verifier.runtime.checking import Observations, Violation
from verifier.runtime.replay import shrink


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
    small, _ = shrink(make_world, [(s.action, s.args) for s in hist], [s.created for s in hist], catalogue, prop)
    return (elapsed, prop, len(hist), len(small), t_all)


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
    args = ap.parse_args()
    names = sorted(builtins()) if not args.only else args.only
    try:
        manifest = json.loads(Path(args.manifest).read_text(encoding="utf-8")).get("variants", {})
    except FileNotFoundError:
        manifest = {}
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
