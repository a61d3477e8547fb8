"""Exhaustive-engine figures: the baseline at each scope, and every built-in variant's first
counterexample beside the random engine's (scenario stories off) and the manifest's length.

    .venv/bin/python benchmarks/exhaustive.py                 # both tables
    .venv/bin/python benchmarks/exhaustive.py --scopes host-small composed-small --skip-variants
    .venv/bin/python benchmarks/exhaustive.py --only detach-on-disconnect --random-budget 60
    .venv/bin/python benchmarks/exhaustive.py --quick          # host-small alone (every check, then
                                                               # guarded), and 2 workers over 1
    .venv/bin/python benchmarks/exhaustive.py --por            # states with and without the
                                                               # partial-order reduction, per scope
    .venv/bin/python benchmarks/exhaustive.py --where host-small   # where one search's time goes

Figures are of this machine; compare the rows of one run, not runs on other days. Every run first
measures SPIN's search rate on its peer model (`benchmarks/peers/`, CPU time, Debian's `spin` and
gcc) and prints our states per CPU second beside it, as the multiple of ours SPIN's rate is.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.variants import builtins  # noqa: E402
from properties.base import load_catalogue  # noqa: E402
from benchmarks.peers import spin  # noqa: E402
from verifier.engines.bfs import search as bfs
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for

ROOT = Path(__file__).resolve().parent.parent


def _props(sc):
    host, harness = bfs.split_catalogue(list(load_catalogue().values()))
    return harness if sc.composed else host


def baseline_table(names, budget, guards=("on",), peer=None):
    """Per scope, one process: states per second of wall time and of this process's CPU time (on a
    shared machine the second is the steadier figure), and SPIN's rate on its peer over ours (`peer`,
    states per CPU second). One row per guard mode (`bfs.Checker`): "on" skips the properties a step
    does not concern, "off" checks every property at every step (the same search: compare the two rows
    of one run)."""
    print(f"{'scope':16s} {'guards':>6s} {'distinct':>9s} {'generated':>10s} {'depth':>5s} {'states/s':>9s} "
          f"{'wall s':>7s} {'cpu s':>6s} {'per cpu s':>9s} {'SPIN x':>7s}  complete")
    for name in names:
        sc = scopes.parse(name)
        for g in guards:
            t, cpu = time.monotonic(), time.process_time()
            s = bfs.search(make_world_for(None, sc), _props(sc), sc, deadline=time.monotonic() + budget,
                           max_depth=sc.depth, guards=g)
            wall, cpu = time.monotonic() - t, time.process_time() - cpu
            done = "yes" if s.complete else (f"to depth {s.depth}" if s.bounded else f"no ({s.capped})")
            times = f"{peer / (s.distinct / cpu):7.0f}" if peer else f"{'-':>7s}"
            print(f"{name:16s} {g:>6s} {s.distinct:9d} {s.generated:10d} {s.depth:5d} {s.distinct / wall:9.0f} "
                  f"{wall:7.1f} {cpu:6.1f} {s.distinct / cpu:9.0f} {times}  {done}", flush=True)


def peer_rate() -> float | None:
    """SPIN's states per CPU second on its peer model, measured now and printed (None: no SPIN here)."""
    got = spin.rate()
    if isinstance(got, str):
        print(f"SPIN peer: not measured: {got}")
        return None
    small, timed = got
    print(f"{small.describe()} (host-small's dimensions)\n{timed.describe()}: {timed.rate:,.0f} states per CPU "
          f"second, SPIN's rate below")
    return timed.rate


POR_SCOPES = ("host-small", "host-small,stdio=True", "host-clock", "host-two-runs", "host-ttl", "host-two-clients")

# Where a search's time goes: the functions each part of the work runs under (cumulative time).
PARTS = {"property checks": ("search.py", "check"), "move enumeration": ("search.py", "enabled_moves"),
         "steps": ("world.py", "apply"), "clones": ("snapshot.py", "clone"),
         "fingerprints": ("snapshot.py", "fingerprint"), "liveness graph": ("fair.py", "state_info")}


def where_table(name, budget):
    """One search of a scope's host properties under cProfile: the share of its time in each part of
    the work (`PARTS`; the parts do not nest), and the rest (the queue, the frontier, the verdicts)."""
    import cProfile
    import pstats
    sc = scopes.parse(name)
    prof = cProfile.Profile()
    prof.enable()
    s = bfs.search(make_world_for(None, sc), _props(sc), sc, deadline=time.monotonic() + budget, max_depth=sc.depth)
    prof.disable()
    stats = pstats.Stats(prof).stats
    total = next(ct for (f, _, fn), (_, _, _, ct, _) in stats.items() if fn == "search" and f.endswith("bfs/search.py"))
    print(f"\nwhere the time goes at {name} ({s.distinct} states, {total:.1f} s under the profiler)")
    spent = 0.0
    for part, (file, fn) in PARTS.items():
        t = sum(ct for (f, _, n), (_, _, _, ct, _) in stats.items() if n == fn and f.endswith(file))
        spent += t
        print(f"  {part:18s} {t:7.2f} s  {t / total:5.1%}")
    print(f"  {'the rest':18s} {total - spent:7.2f} s  {(total - spent) / total:5.1%}")


def por_table(names, budget, max_states, peer=None):
    """Per scope, searched whole (a scope's depth bound dropped: a bounded search is not reduced), with
    the properties that read no record beyond their transition (`visibility.local`), then with every
    one that declares what it reads (a search checking another is not reduced): the distinct states and
    time without and with the reduction, and SPIN's states per CPU second on its peer over ours (`peer`)."""
    from properties import visibility
    catalogue = list(load_catalogue().values())
    groups = {"local": [p for p in catalogue if visibility.local(p.name)],
              "declared": [p for p in catalogue if visibility.declared(p.name)]}
    for group, props in groups.items():
        print(f"\npartial-order reduction, the {len(props)} {group} properties")
        print(f"{'scope':30s} {'por':>3s} {'distinct':>9s} {'generated':>10s} {'depth':>5s} {'wall s':>7s} "
              f"{'cpu s':>6s} {'reduced':>8s} {'per cpu s':>9s} {'SPIN x':>7s}  complete")
        for name in names:
            base = scopes.parse(name)
            sc = scopes.Scope(base.name, base.doc, base.sizes, base.composed, None)
            full = None
            for por in ("off", "on"):
                t, cpu = time.monotonic(), time.process_time()
                s = bfs.search(make_world_for(None, sc), props, sc, deadline=time.monotonic() + budget,
                               max_states=max_states, want_graph=False, por=por)
                wall, cpu = time.monotonic() - t, time.process_time() - cpu
                done = "yes" if s.complete else f"no ({s.capped} by depth {s.depth})"
                full = full or s.distinct
                times = f"{peer / (s.distinct / cpu):7.0f}" if peer else f"{'-':>7s}"
                print(f"{name:30s} {por:>3s} {s.distinct:9d} {s.generated:10d} {s.depth:5d} {wall:7.1f} {cpu:6.1f} "
                      f"{s.reduced:8d} {s.distinct / cpu:9.0f} {times}  {done}"
                      + (f"  ({s.distinct / full:.2f} of the full search's states)" if por == "on" and s.complete
                         else ""), flush=True)


def partition_table(name, budget, workers=(1, 2)):
    """The partitioned search of one scope with 1 and 2 worker processes: wall time, the workers'
    CPU time, and the speedup of each over the first."""
    import resource

    from verifier.engines.bfs import partition
    sc = scopes.parse(name)
    print(f"\npartitioned at {name}: {'workers':>7s} {'distinct':>9s} {'wall s':>7s} {'states/s':>9s} "
          f"{'worker cpu s':>12s} {'speedup':>7s}")
    first = None
    for n in workers:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.monotonic()
        with partition.LocalPool(n) as pool:
            s, _, _ = partition.judge(None, sc, _props(sc), pool, True, budget, None, sc.depth, None)
        wall = time.monotonic() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        first = first or wall
        print(f"{'':{len(name) + 16}s} {n:7d} {s.distinct:9d} {wall:7.1f} {s.distinct / wall:9.0f} {cpu:12.1f} "
              f"{first / wall:6.2f}x", flush=True)


def _expected(v, catalogue):
    """The properties a variant expects refuted (the ones its flaw should show at some scope)."""
    ids = {rid for rid, want in v.expect.items() if want == "refuted"}
    return [p for p in catalogue if set(p.ids) & ids]


def variant_table(only, budget, random_budget):
    from verifier.engines.random.explore import explore
    catalogue = list(load_catalogue().values())
    recorded = json.loads((ROOT / "counterexamples" / "manifest.json").read_text())
    manifest, own = recorded["variants"], recorded["settings"].get("per_variant", {})
    print(f"\n{'variant':38s} {'property':38s} {'scope':15s} {'bfs s':>6s} {'len':>4s} "
          f"{'random s':>8s} {'len':>4s} {'manifest':>8s}")
    for name, v in sorted(builtins().items()):
        if only and name not in only:
            continue
        for p in _expected(v, catalogue):
            row = None
            mine = [spec for spec, ids in own.get(name, {}).get("bfs_scopes", {}).items() if set(ids) & set(p.ids)]
            for sc_name in ("host-small", *mine, "host-rest", "host-clock", "host-pair", "composed-small"):
                sc = scopes.parse(sc_name)
                if sc.composed != (p.area in bfs.HARNESS_AREAS) and sc_name not in mine:    # the gate's own scopes
                    continue
                s = bfs.search(make_world_for(v, sc), [p], sc, deadline=time.monotonic() + budget,
                               max_depth=sc.depth, want_graph=p.kind == "liveness")
                hit = s.found.get(p.name)
                if hit is not None:
                    row = (sc_name, f"{hit.seconds:6.1f}", f"{len(s.path(hit.parent)) + 1:4d}")
                    break
                if p.kind == "liveness" and s.liveness.get(p.name):
                    lasso = s.liveness[p.name]
                    row = (sc_name, f"{s.elapsed:6.1f}", f"{len(s.path(lasso.state)) + len(lasso.loop):4d}")
                    break
            row = row or ("not at scope", "     -", "   -")
            rand = ("       -", "   -")
            if random_budget:
                t = time.monotonic()
                r = explore(v, budget=random_budget, props=[p], stories=False)
                got = r.by_name()[p.name]
                rand = ((f"{time.monotonic() - t:8.1f}", f"{got.length:4d}") if got.verdict == "refuted"
                        else (f"  >{random_budget:5.0f}", "   -"))
            known = manifest.get(name, {}).get("lengths", {}).get(p.name)
            print(f"{name[:38]:38s} {p.name[:38]:38s} {row[0]:15s} {row[1]} {row[2]} {rand[0]} {rand[1]} "
                  f"{'-' if known is None else known:>8}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scopes", nargs="*", default=list(scopes.SCOPES))
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per search (default 120)")
    ap.add_argument("--only", nargs="*", default=None, help="variants to time")
    ap.add_argument("--random-budget", type=float, default=0.0,
                    help="seconds of random exploration (stories off) per expected property; 0 skips it")
    ap.add_argument("--skip-variants", action="store_true")
    ap.add_argument("--skip-baseline", action="store_true")
    ap.add_argument("--partition-scope", default=scopes.DEFAULT_HOST,
                    help="the scope the partitioned search is timed at with 1 and 2 workers ('' skips it)")
    ap.add_argument("--quick", action="store_true",
                    help="host-small alone (guards off, then on), its partitioned timing, no variants")
    ap.add_argument("--guards", nargs="*", choices=bfs.GUARDS, default=None,
                    help="the guard modes of the baseline table (default: on; with --quick: off on)")
    ap.add_argument("--por", action="store_true",
                    help="only the partial-order reduction's table (scopes: --scopes, default POR_SCOPES)")
    ap.add_argument("--max-states", type=int, default=1_500_000, help="the state cap of the --por searches")
    ap.add_argument("--where", metavar="SCOPE", help="only where one search's time goes, under cProfile")
    a = ap.parse_args(argv)
    peer = peer_rate()
    if a.where:
        where_table(a.where, a.budget)
        return
    if a.por:
        por_table(a.scopes if a.scopes != list(scopes.SCOPES) else POR_SCOPES, a.budget, a.max_states, peer)
        return
    if a.quick:
        a.scopes, a.skip_variants = [scopes.DEFAULT_HOST], True
    guards = a.guards or (["off", "on"] if a.quick else ["on"])
    if not a.skip_baseline:
        baseline_table(a.scopes, a.budget, guards, peer)
    if a.partition_scope:
        partition_table(a.partition_scope, a.budget)
    if not a.skip_variants:
        variant_table(a.only, a.budget, a.random_budget)


if __name__ == "__main__":
    main()
