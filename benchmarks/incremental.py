"""Incremental search from the baseline's stored graph against the search from scratch, per variant.

    .venv/bin/python benchmarks/incremental.py                        # host-small, every built-in
    .venv/bin/python benchmarks/incremental.py --scopes host-small composed-small --only always-task
    .venv/bin/python benchmarks/incremental.py --no-scratch           # the incremental times alone
    .venv/bin/python benchmarks/incremental.py --scopes all --no-scratch   # every scope and home of the plan
    .venv/bin/python benchmarks/incremental.py --as-author [--only NAME ...] [--folder DIR]

For each scope of the default plan asked for: the time to build the stored graph and its size on
disk; then per variant the scratch and incremental wall times, the fraction of transitions executed,
and whether the two searches agree (states, verdicts, traces, premise counts). Last, each variant's
incremental time summed over the scopes asked, and the median of those sums against issue 27's
target (10 s, once the graphs exist). Figures are wall-clock on this machine; compare the rows of one
run, not runs on other days.

`--as-author` times what an author waits for instead: per variant, written as an amendment file,
`taskmodel check --variant FILE.py` in a process of its own (start-up, every scope of the plan
searched from the stored graphs with the shadow comparison on, then the random pass sized to fit,
the verdicts written), once a check of the baseline has stored every graph (its time is printed
apart): the check's CPU seconds against issue 54's targets (median at most 15, slowest at most 60).
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
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
    """Each built-in written as an amendment file, checked as an author checks one (`taskmodel check
    --variant FILE.py`: bfs at every scope of the plan from the stored graphs, then the random pass
    sized to fit) in a process of its own, once the baseline's check has stored every graph (its time
    is printed apart): the check's CPU seconds (the target's measure) and wall time, and of the wall
    time, the bfs searches."""
    root = Path(__file__).resolve().parent.parent
    tm = [str(Path(sys.executable).parent / "taskmodel")]      # the console script beside this interpreter
    env = dict(os.environ, **({"TASKMODEL_GRAPH_CACHE": str(folder)} if folder else {}))
    table = builtins()
    with tempfile.TemporaryDirectory() as out:
        def check(*extra) -> tuple[float, float, int]:
            before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
            code = subprocess.run([*tm, "check", "--out", out, "--no-counterexamples", *extra],
                                  cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            return cpu, time.monotonic() - t, code
        cpu, wall, code = check("--engine", "bfs", "--jobs", "2")
        print(f"the baseline's bfs check (every graph stored, or built): {cpu:.1f} CPU s, {wall:.1f} s, exit {code}")
        print(f"{'variant':44} {'cpu s':>7} {'wall s':>7} {'bfs s':>7} exit")
        times = {}
        for name in names:
            spec = _as_file(table[name], Path(out))
            times[name], wall, code = check("--variant", spec)
            searched = sum(_searches(Path(out) / f"check-{name}{AS_FILE}.json").values())
            print(f"{name:44} {times[name]:7.2f} {wall:7.2f} {searched:7.2f} {code:4}", flush=True)
    ranked = sorted(times.values())
    print(f"as an author, an amendment file's check: median {statistics.median(ranked):.2f} CPU s (target: at most "
          f"15), slowest {ranked[-1]:.2f} CPU s ({max(times, key=times.get)}; target: at most 60), "
          f"{sum(x <= 15 for x in ranked)} of {len(ranked)} within 15")


AS_FILE = "-as-file"


def _as_file(variant, folder: Path) -> str:
    """A built-in variant written as an author's amendment file (its module, imports made absolute, its
    name suffixed): `FILE.py:Class`."""
    source = Path(inspect.getsourcefile(variant)).read_text()
    for relative, absolute in (("from .. import", "from model import"), ("from ..", "from model."),
                               ("from . import", "from model.variants import"), ("from .", "from model.variants.")):
        source = source.replace(relative, absolute)
    # a file may not take a built-in's name
    source = source.replace(f'name = "{variant.name}"', f'name = "{variant.name}{AS_FILE}"', 1)
    path = folder / f"{variant.__module__.rsplit('.', 1)[-1]}.py"
    path.write_text(source)
    return f"{path}:{variant.__qualname__}"


def _searches(path: Path) -> dict:
    """{scope: seconds} of the bfs searches a check's result records."""
    result = json.loads(path.read_text())["results"][0]
    return {sc: x["seconds"] for sc, x in result["states"]["scopes"].items()}


if __name__ == "__main__":
    main()
