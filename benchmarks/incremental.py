"""Incremental search from the baseline's stored graph against the search from scratch, per variant.

    .venv/bin/python benchmarks/incremental.py                        # host-small, every built-in
    .venv/bin/python benchmarks/incremental.py --scopes host-small composed-small --only always-task
    .venv/bin/python benchmarks/incremental.py --no-scratch           # the incremental times alone
    .venv/bin/python benchmarks/incremental.py --scopes all --no-scratch   # every scope and home of the plan
    .venv/bin/python benchmarks/incremental.py --as-author [--only NAME ...]

For each scope of the default plan asked for: the time to build the stored graph and its size on
disk; then per variant the scratch and incremental wall times, the fraction of transitions executed,
and whether the two searches agree (states, verdicts, traces, premise counts). Last, each variant's
incremental time summed over the scopes asked, and the median of those sums against issue 27's
target (10 s, once the graphs exist). Figures are wall-clock on this machine; compare the rows of one
run, not runs on other days.

`--as-author` times what an author waits for instead: per variant, `taskmodel check --variant NAME
--engine bfs --jobs 1` in a process of its own (start-up, the stored graphs' loads, every default
scope and home searched with the shadow comparison on, the coverage scopes where an override was left
unexercised, the verdicts written), once a check of the baseline has stored every graph (its time is
printed apart); and of that, the searches at every default scope and home, and at the coverage scopes.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.variants import builtins
from properties.base import load_catalogue
from verifier.engines.bfs import incremental
from verifier.engines.bfs.search import _judged, plan
from verifier.runtime import scopes


def _key(result):
    s, verdicts, _ = result
    return (s.distinct, s.generated, s.depth, s.complete, dict(s.premise),
            [(v.name, v.verdict, v.premise, v.loop, v.trace and [(x.action, x.args) if hasattr(x, "action") else x
                                                                  for x in v.trace]) for v in verdicts])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scopes", nargs="*", default=["host-small"],
                    help="scopes of the default plan (spec), or all: every scope and home of the plan")
    ap.add_argument("--only", nargs="*", default=None, help="variants to time")
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per search (default 600)")
    ap.add_argument("--folder", default=None, help="where the stored graphs are kept (default: the cache)")
    ap.add_argument("--no-scratch", action="store_true", help="skip the searches from scratch")
    ap.add_argument("--as-author", action="store_true",
                    help="time each variant's `taskmodel check --engine bfs --jobs 1` in a process of its own")
    args = ap.parse_args(argv)
    table = builtins()
    names = args.only or sorted(table)
    if args.as_author:
        return as_author(names, args.folder)
    groups = {sc.name: (sc, ps) for sc, ps in plan(None, list(load_catalogue().values()))}
    totals = {name: 0.0 for name in names}
    for spec in (list(groups) if args.scopes == ["all"] else args.scopes):
        sc, ps = groups[spec]
        started = time.monotonic()
        st = incremental.stored(sc, ps, True, args.folder)
        path = (Path(args.folder) if args.folder else incremental.cache_dir()) / f"{st.key}.pickle"
        print(f"{spec}: {len(ps)} properties; stored graph {len(st.fps)} states, {st.transitions()} transitions, "
              f"{path.stat().st_size / 1e6:.1f} MB; built in {st.seconds:.1f} s, ready in "
              f"{time.monotonic() - started:.1f} s")
        inc_times, scratch_times, fractions = [], [], []
        print(f"{'variant':44} {'scratch s':>9} {'incr s':>7} {'executed':>17}  agree  how")
        for name in names:
            v = table[name]
            scratch, t_scratch = None, None
            if not args.no_scratch:
                t = time.monotonic()
                scratch = _judged(v, sc, ps, True, args.budget, None, None, None, True)
                t_scratch = time.monotonic() - t
                scratch_times.append(t_scratch)
            t = time.monotonic()
            got = incremental.judged(v, sc, ps, True, args.budget, None, None, None, True, folder=args.folder)
            t_inc = time.monotonic() - t
            inc_times.append(t_inc)
            totals[name] += t_inc
            s = got[0]
            work = s.work
            executed = f"{work.executed}/{s.generated}" if work is not None else "-"
            if work is not None and s.generated:
                fractions.append(work.executed / s.generated)
            agree = "-" if scratch is None else ("yes" if _key(scratch) == _key(got) else "NO")
            print(f"{name:44} {'' if t_scratch is None else f'{t_scratch:9.2f}':>9} {t_inc:7.2f} {executed:>17}  "
                  f"{agree:5}  {s.how[:60]}", flush=True)
        print(f"{spec}: median incremental {statistics.median(inc_times):.2f} s"
              + (f", median scratch {statistics.median(scratch_times):.2f} s" if scratch_times else "")
              + (f", median fraction executed {statistics.median(fractions):.3f}" if fractions else ""))
    ranked = sorted(totals.values())
    print(f"every scope asked: median amendment {statistics.median(ranked):.2f} s (target: at most 10 s), "
          f"slowest {ranked[-1]:.2f} s ({max(totals, key=totals.get)})")


def as_author(names, folder) -> None:
    """Each variant's bfs check as an author runs it, after the baseline's check stored the graphs: its
    wall time, and of that the searches at the plan's scopes (every default scope and home: what
    issue 27's target names) and at the coverage scopes (searched when an override is left
    unexercised), as the check's result records each search's seconds."""
    root = Path(__file__).resolve().parent.parent
    tm = [str(Path(sys.executable).parent / "taskmodel")]      # the console script beside this interpreter
    env = dict(os.environ, **({"TASKMODEL_GRAPH_CACHE": str(folder)} if folder else {}))
    coverage = {sc.name for sc in map(scopes.parse, [*scopes.COVERAGE, *scopes.HARNESS_COVERAGE])}
    with tempfile.TemporaryDirectory() as out:
        def check(*extra) -> tuple[float, int]:
            t = time.monotonic()
            code = subprocess.run([*tm, "check", "--engine", "bfs", "--out", out, "--no-counterexamples", *extra],
                                  cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            return time.monotonic() - t, code
        seconds, code = check("--jobs", "2")
        print(f"the baseline's bfs check (every graph stored, or built): {seconds:.1f} s, exit {code}")
        print(f"{'variant':44} {'wall s':>7} {'plan s':>7} {'cover s':>7} exit")
        times, plans = {}, {}
        for name in names:
            times[name], code = check("--variant", name, "--jobs", "1")
            searched = _searches(Path(out) / f"check-{name}.json")
            plans[name] = sum(t for sc, t in searched.items() if sc not in coverage)
            cover = sum(t for sc, t in searched.items() if sc in coverage)
            print(f"{name:44} {times[name]:7.2f} {plans[name]:7.2f} {cover:7.2f} {code:4}", flush=True)
    for what, got in (("the whole check (start-up, loads, coverage scopes and all)", times),
                      ("every default scope and home (issue 27's target)", plans)):
        ranked = sorted(got.values())
        within = sum(x <= 10 for x in ranked)
        print(f"as an author, {what}: median variant {statistics.median(ranked):.2f} s (target: at most 10 s), "
              f"{within} of {len(ranked)} within 10 s, slowest {ranked[-1]:.2f} s ({max(got, key=got.get)})")


def _searches(path: Path) -> dict:
    """{scope: seconds} of the bfs searches a check's result records."""
    result = json.loads(path.read_text())["results"][0]
    return {sc: x["seconds"] for sc, x in result["states"]["scopes"].items()}


if __name__ == "__main__":
    main()
