"""Scaling figures on a Ray cluster: the speedup of the gate (a subset of variants) and of the
partitioned exhaustive search with 1 and 2 workers, and the states per second at a larger scope.

    .venv/bin/python benchmarks/scale.py                          # a local cluster per worker count
    .venv/bin/python benchmarks/scale.py --cluster HOST:PORT      # an existing cluster (its CPUs)
    .venv/bin/python benchmarks/scale.py --variants 4 --skip-search

Each worker count gets its own local Ray cluster (`--cluster auto` with that many CPUs); the time
to start it is printed apart from the work's. Target: at least 1.7x with 2 workers on 2 idle cores.
Figures are wall-clock on this machine; compare the rows of one run, not runs on other days.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PYTHONHASHSEED", "0")        # as the gate runs: results independent of hashing

from verifier.engines.cluster import RayPool
from verifier.cli.gate_cluster import explore_all


def gate_work(count: int):
    """The gate's first `count` variants (longest first), at the manifest's settings without the
    exhaustive search: (order, specs, per-variant settings)."""
    from model.variants import builtins
    settings = json.loads((ROOT / "counterexamples" / "manifest.json").read_text())["settings"]
    names = ["baseline", *sorted(builtins())][:count]
    mine = {n: {**settings, **settings.get("per_variant", {}).get(n, {}), "bfs": False} for n in names}
    order = sorted(names, key=lambda n: -mine[n]["chunks"] * mine[n]["steps"])
    return order, {n: n for n in names}, mine


def timed(cluster: str, workers: int, work):
    t = time.monotonic()
    with RayPool(cluster, workers) as pool:
        started = time.monotonic() - t
        t = time.monotonic()
        got = work(pool)
        return started, time.monotonic() - t, got


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cluster", default="auto", help="auto (a local cluster per worker count) or HOST:PORT")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--variants", type=int, default=6, help="how many of the gate's variants (default 6)")
    ap.add_argument("--scope", default="host-small", help="the exhaustive search's scope for the speedup")
    ap.add_argument("--large-scope", default="host-small,max_requests=2,retry_reserve=0",
                    help="the larger scope whose states per second are printed")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds per exhaustive search (default 300)")
    ap.add_argument("--large-budget", type=float, default=60.0, help="seconds at the larger scope (default 60)")
    ap.add_argument("--skip-gate", action="store_true")
    ap.add_argument("--skip-search", action="store_true")
    args = ap.parse_args(argv)

    # Other work on the machine takes cores from the workers: the figures are meaningful when idle.
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    if not args.skip_gate:
        order, specs, settings = gate_work(args.variants)
        print(f"gate: {len(order)} variants ({', '.join(order)})")
        print(f"{'workers':>7s} {'start s':>8s} {'wall s':>8s} {'speedup':>8s}")
        base, first = None, None
        for w in args.workers:
            start, wall, done = timed(args.cluster, w, lambda pool: explore_all(pool, order, specs, settings))
            got = {n: {k: v for k, v in r.items() if k != "elapsed"} for n, r in done.items()}
            base = base or wall
            same = "" if first is None or got == first else "  (verdicts differ!)"
            first = first or got
            print(f"{w:7d} {start:8.1f} {wall:8.1f} {base / wall:7.2f}x{same}", flush=True)

    if not args.skip_search:
        try:
            from verifier.engines.bfs.partition import search_partitioned
        except ImportError:
            print("\nexhaustive search: the partitioned search (verifier.engines.bfs.partition) is not in this build")
            return 0
        from verifier.runtime import scopes
        print(f"\nexhaustive search at {args.scope}")
        print(f"{'workers':>7s} {'start s':>8s} {'wall s':>8s} {'distinct':>9s} {'states/s':>9s} {'speedup':>8s}")
        base = None
        for w in args.workers:
            scope = scopes.parse(args.scope)
            start, wall, s = timed(args.cluster, w, lambda pool: search_partitioned(None, scope, pool,
                                                                                    budget=args.budget))
            base = base or wall
            n = s.states["distinct"]
            print(f"{w:7d} {start:8.1f} {wall:8.1f} {n:9d} {n / wall:9.0f} {base / wall:7.2f}x"
                  + ("" if s.states["complete"] else "  (did not complete)"), flush=True)
        w = max(args.workers)
        scope = scopes.parse(args.large_scope)
        start, wall, s = timed(args.cluster, w, lambda pool: search_partitioned(None, scope, pool,
                                                                                budget=args.large_budget))
        n = s.states["distinct"]
        print(f"\nlarger scope {args.large_scope}: {n} distinct states in {wall:.1f} s on {w} workers, "
              f"{n / wall:.0f} states/s" + ("" if s.states["complete"] else f" (stopped at depth {s.states['depth']})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
