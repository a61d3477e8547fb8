"""What the exhaustive engine's plan never does: the actions no scope of `taskmodel check`'s plan
(its default scopes, homes and coverage scopes) takes, the overridable rules none calls and the
request forms none generates (issue 29, item 1: each should fire at some scope of the plan).

    .venv/bin/python benchmarks/exhaustive_coverage.py [--scopes SPEC ...]

Every scope is searched to completion with no property (none may stop a search early) and every
rule counting its calls. Long: the E2E home alone is about 1.5 M states (13 minutes on one core).
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "quality")]

from model.amend import Amendment, rule_names  # noqa: E402
from model.clients import REQUEST_FORMS  # noqa: E402
from model.world import action_table  # noqa: E402
from properties.base import load_catalogue  # noqa: E402
from test_environment import UNREACHABLE_RULES, VARIANT_ONLY, counting  # noqa: E402
from verifier.engines.bfs.search import plan, search  # noqa: E402
from verifier.runtime import scopes  # noqa: E402
from verifier.runtime.worlds import make_world_for  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scopes", nargs="*", default=None, help="scopes to search (default: the check's plan)")
    args = ap.parse_args(argv)
    chosen = [scopes.parse(s) for s in args.scopes] if args.scopes else \
        [sc for sc, _ in plan(None, list(load_catalogue().values()))] + [scopes.parse(s) for s in (*scopes.COVERAGE, *scopes.HARNESS_COVERAGE)]
    calls, actions, forms = collections.Counter(), collections.Counter(), collections.Counter()
    rules = counting(Amendment, rule_names(), calls)
    for sc in chosen:
        started = time.monotonic()
        s = search(make_world_for(rules, sc), [], sc, want_graph=False)
        actions.update({k: n for k, n in s.actions.items() if n})
        forms.update({k: n for k, n in s.forms.items() if n})
        print(f"{sc.name}: {s.distinct} states, {'complete' if s.complete else 'incomplete'}, "
              f"{time.monotonic() - started:.1f} s", flush=True)
    never = sorted(set(action_table()) - set(actions) - set(VARIANT_ONLY))
    uncalled = sorted(set(rule_names()) - set(calls) - set(UNREACHABLE_RULES))
    missing = sorted((d, f) for d, fs in REQUEST_FORMS.items() for f in fs if not forms.get((d, f)))
    print(f"actions never taken ({len(never)}): {', '.join(never) or 'none'}")
    print(f"rules never called ({len(uncalled)}): {', '.join(uncalled) or 'none'}")
    print(f"forms never generated ({len(missing)}): " + ("; ".join(f"{d}: {f}" for d, f in missing) or "none"))
    print("target: none of each;", "met" if not (never or uncalled or missing) else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
