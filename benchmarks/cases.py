"""Where each premise case of the catalogue is reached: per property with cases, per case, the plan's
scopes whose complete search on the baseline reached it, and how often the random engine's default
work reached it. A case no scope reaches leaves its property vacuous on every check (exit 2).

    .venv/bin/python benchmarks/cases.py                 # every property with cases, every plan scope
    .venv/bin/python benchmarks/cases.py --only ISO-1 --only UPD-4 --scopes "host-small;host-clock"
    .venv/bin/python benchmarks/cases.py --random 2000   # also the random engine, 2,000 examples
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from properties.base import find, load_catalogue  # noqa: E402
from verifier.engines.bfs.search import _judged, plan  # noqa: E402
from verifier.runtime import scopes  # noqa: E402


def reached_by_scope(props, only_scopes=None) -> dict:
    """{scope name: {property name: {case: count}}} of the plan's searches of the baseline."""
    out = {}
    for sc, ps in plan(None, props):
        if only_scopes and sc.name not in only_scopes:
            continue
        t = time.process_time()
        s, verdicts, _ = _judged(None, sc, ps, True, 10 ** 6, None, None, None)
        out[sc.name] = {v.name: dict(v.cases) for v in verdicts}
        print(f"  {sc.name}: {s.distinct} states, {'complete' if s.complete or s.bounded else 'INCOMPLETE'}, "
              f"{time.process_time() - t:.1f} CPU-s", file=sys.stderr)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], help="a requirement id or property name (repeatable)")
    ap.add_argument("--scopes", default="", help="scope names of the plan, separated by ';' (default: all)")
    ap.add_argument("--random", type=int, default=0, help="also the random engine, this many examples")
    args = ap.parse_args(argv)
    catalogue = list(load_catalogue().values())
    props = [find(x) for x in args.only] if args.only else [p for p in catalogue if p.cases]
    props = [p for p in props if p.cases]
    names = [scopes.parse(x.strip()).name for x in args.scopes.split(";") if x.strip()] if args.scopes else None
    by_scope = reached_by_scope(props, names)
    random_counts = {}
    if args.random:
        from verifier.engines.random.explore import explore
        from verifier.runtime.budgets import EXAMPLES_PER_CHUNK, chunks_for
        r = explore(None, budget=10 ** 6, seed=0, chunks=chunks_for(args.random), examples_per_chunk=EXAMPLES_PER_CHUNK,
                    props=catalogue)
        random_counts = {v.name: v.cases for v in r.verdicts}
    missing = 0
    for p in props:
        print(f"{p.name} ({', '.join(p.ids)})")
        for c in p.cases:
            where = [sc for sc, got in by_scope.items() if got.get(p.name, {}).get(c)]
            rnd = f"; random {random_counts.get(p.name, {}).get(c, 0)}" if args.random else ""
            missing += not where
            print(f"  {'ok ' if where else 'NO '} {c}: {', '.join(where) or 'no scope'}{rnd}")
    print(f"{missing} case(s) no scope searched reached")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
