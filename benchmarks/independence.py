"""What a partial-order reduction could take from the declared footprints (issue 30), per scope.

    .venv/bin/python benchmarks/independence.py                         # host-pair, 3 levels
    .venv/bin/python benchmarks/independence.py --scope host-pair,client_requests=1   # a budget per client
    .venv/bin/python benchmarks/independence.py --scope host-clock --depth 0     # the whole graph

Breadth-first over the baseline's graph at a scope (`--depth` levels; 0: all of it), with
`verifier.engines.bfs.diamonds`: at each state, every two enabled moves the declarations call
independent (`model.footprint.conflict`: neither writes what the other reads, writes or is enabled
by; two sends' mints commute where the fingerprint renames request ids) are taken both ways round,
and must commute. A reduction expands one move, or one owner's moves (a client's sends, a request's or
a run's steps: `diamonds.owner`), alone only where they are independent of every other enabled move
(and then only if no later move depends on them either: this counts the first condition, so it bounds
from above what any ample set built from these declarations could save).

Printed: per level, the distinct states; then the states with an independent pair, with a move
independent of every other, and with an owner's moves independent of every other; the pairs taken
both ways round and those that did not commute (a false declaration); and the pairs of actions most
often dependent with the key kind that made them so (the declaration to make finer first).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verifier.engines.bfs.diamonds import walk  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scope", default="host-pair")
    ap.add_argument("--depth", type=int, default=3, help="levels whose states are measured (default 3; 0: all)")
    ap.add_argument("--top", type=int, default=12, help="dependent pairs listed (default 12)")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    w = walk(args.scope, args.depth or None)
    for level, n in enumerate(w.levels, 1):
        print(f"level {level}: {n} distinct states")
    print(f"{args.scope}: {w.states} states measured in {time.perf_counter() - t:.1f} s; {w.with_pair} with two "
          f"independent moves, {w.with_alone} with a move and {w.with_owner} with one owner's moves independent "
          f"of every other enabled move")
    print(f"independent pairs taken both ways round: {w.pairs}; not commuting: {len(w.broken)}")
    for _, t_, u, why in w.broken[:5]:
        print(f"  {t_[0]}({t_[1]}) and {u[0]}({u[1]}): {why}")
    print(f"{'action':24s} {'dependent on':24s} {'by key':20s} {'pairs':>10s}")
    for (a, b, kind), n in sorted(w.dependent_by.items(), key=lambda kv: (-kv[1], kv[0]))[:args.top]:
        print(f"{a:24s} {b:24s} {kind:20s} {n:10d}")
    return 1 if w.broken else 0


if __name__ == "__main__":
    sys.exit(main())
