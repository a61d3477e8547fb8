"""What a partial-order reduction could take from the declared footprints (issue 30), per scope.

    .venv/bin/python benchmarks/independence.py                         # host-pair to depth 3
    .venv/bin/python benchmarks/independence.py --scope host-clock --depth 6

Breadth-first over the baseline's graph at a scope (to `--depth` levels). At each state, each
enabled move's footprint is its action's declaration (`model.footprint`) joined with the
epilogue's (`Rules.after_step`, which `World.apply` runs after every move), both evaluated where
they run. Two moves are dependent when one writes a key the other reads or writes. A reduction
expands one move alone only where it is independent of every other enabled move (and then only
if no later move depends on it either: this counts the first condition, so it bounds from above
what any ample set built from these declarations could save).

Printed: per level, the distinct states; then the states with at least one such move, and the
pairs of actions most often dependent with the key kind that made them so (the declaration to
make finer first).
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model import footprint as fp  # noqa: E402
from model.snapshot import clone, fingerprint  # noqa: E402
from model.world import action_table  # noqa: E402
from verifier.runtime import scopes  # noqa: E402
from verifier.runtime.worlds import make_world_for  # noqa: E402


def _shared(a, b):
    """The first key by which footprints a and b ((reads, writes)) conflict, or None."""
    (ra, wa), (rb, wb) = a, b
    for mine, theirs in ((wa, rb | wb), (wb, ra)):
        for k in sorted(mine, key=repr):
            if any(fp.covers({k}, x) or fp.covers({x}, k) for x in theirs):
                return k
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scope", default="host-pair")
    ap.add_argument("--depth", type=int, default=3, help="levels whose states are measured (default 3)")
    ap.add_argument("--top", type=int, default=12, help="dependent pairs listed (default 12)")
    args = ap.parse_args(argv)
    sc = scopes.parse(args.scope)
    table = action_table()
    w0 = make_world_for(None, sc)()
    seen, frontier = {fingerprint(w0)}, [w0]
    states = with_one = 0
    causes: collections.Counter = collections.Counter()
    for level in range(args.depth):
        nxt = []
        for w in frontier:
            moves = []
            for name, act in table.items():
                for a in act.moves(w):
                    c = clone(w)
                    c.apply(name, a, check=False, say=False)
                    r, wr = act.footprint.of(w, a)
                    er, ew = fp.EPILOGUE.of(c, {})
                    moves.append((name, (r | er, wr | ew), c))
            states += 1
            alone = False
            for i, (name, f, _) in enumerate(moves):
                dependent = False
                for j, (other, g, _) in enumerate(moves):
                    if i != j and (key := _shared(f, g)) is not None:
                        dependent = True
                        causes[(name, other, key[0] if key[0] != "all" else f"all {key[1]}")] += 1
                alone |= not dependent and len(moves) > 1
            with_one += alone
            for _, _, c in moves:
                f = fingerprint(c)
                if f not in seen:
                    seen.add(f)
                    nxt.append(c)
        frontier = nxt
        print(f"level {level + 1}: {len(seen)} distinct states", flush=True)
    print(f"{args.scope}: {with_one} of {states} states measured have a move independent of every other "
          f"enabled move")
    print(f"{'action':24s} {'dependent on':24s} {'by key':20s} {'pairs':>10s}")
    for (a, b, kind), n in causes.most_common(args.top):
        print(f"{a:24s} {b:24s} {kind:20s} {n:10d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
