"""What the exhaustive engine's plan never does: the actions no scope of `taskmodel check`'s plan
(its default scopes, homes and coverage scopes) takes, the overridable rules none calls and the
request forms none generates (issue 29, item 1: each should fire at some scope of the plan).

    .venv/bin/python benchmarks/exhaustive_coverage.py [--scopes SPEC ...]

Every scope is searched to completion (a bounded one to its depth) with no property (none may stop
a search early) and every rule counting its calls (`tests/quality/test_environment.py`, whose --slow
test asserts the target). The E2E home is the largest: about 300,000 states.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "quality")]

from test_environment import exhaustive_coverage, plan_scopes  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scopes", nargs="*", default=None, help="scopes to search (default: the check's plan)")
    args = ap.parse_args(argv)
    chosen = args.scopes or plan_scopes()
    started = time.monotonic()

    def progress(sc, s):
        nonlocal started
        print(f"{sc.name}: {s.distinct} states, {time.monotonic() - started:.1f} s", flush=True)
        started = time.monotonic()
    never, uncalled, missing = exhaustive_coverage(chosen, progress)
    print(f"actions never taken ({len(never)}): {', '.join(never) or 'none'}")
    print(f"rules never called ({len(uncalled)}): {', '.join(uncalled) or 'none'}")
    print(f"forms never generated ({len(missing)}): " + ("; ".join(f"{d}: {f}" for d, f in missing) or "none"))
    print("target: none of each;", "met" if not (never or uncalled or missing) else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
