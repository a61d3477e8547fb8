"""`taskmodel validate LOG.jsonl [--map MAP.json] [--variant NAME|FILE] [--json] [--budget S] [--allow-unmodelled]`."""
from __future__ import annotations

import json
import math

from verifier.runtime.exitcodes import UsageError
from verifier.validate import LogError, validate_log


def cmd_validate(args) -> int:
    if not (isinstance(args.budget, float) and math.isfinite(args.budget) and 0 < args.budget <= 86400):
        raise UsageError("taskmodel validate: --budget must be a number of seconds, more than 0 and at most a day")
    try:
        res = validate_log(args.log, args.map, variant=args.variant, budget=args.budget,
                           allow_unmodelled=args.allow_unmodelled)
    except LogError as e:
        raise UsageError(f"taskmodel validate: {e}") from None
    if args.json:
        print(json.dumps(res.to_json(), indent=1))
        return res.exit_code
    x = res.exchanges
    fraction = f" ({res.judged_fraction:.0%})" if res.judged_fraction is not None else ""
    print(f"{res.result}: {res.matched} of {res.events} events matched against {res.variant} "
          f"({res.steps} model steps, {res.candidates} candidate state(s) at the end)")
    print(f"  exchanges: {x['judged']} of {x['judged'] + x['unjudged']} judged{fraction}"
          + (f", {x['ignored']} passed over by the mapping" if x["ignored"] else ""))
    if res.profile:
        print(f"  profile {res.profile}: {len(res.out_of_scope)} ids out of its scope, not judged "
              f"(taskmodel list --profile {res.profile} says why): {', '.join(res.out_of_scope)}")
    if res.reason:
        print(f"  {res.reason}")
    d = res.divergence
    if d is not None:
        print(f"  first divergence: event {d.index} (line {d.line}): {d.reason}")
        if d.requirement:
            print(f"  requirement broken: {d.requirement}")
        for a in d.allowed:
            print(f"  the model allowed: {a}")
    if res.unjudged:
        print(f"  not judged: {len(res.unjudged)} exchange(s); no verdict covers them")
        for u in res.unjudged:
            runs = f"; set outside the model: {', '.join(u['runs'])}" if u["runs"] else ""
            assumed = f"; assumed {u['assumption']}; check: {u['check']}" if u["assumption"] else ""
            print(f"    event {u['index']} (line {u['line']}) {u['conn']} {u['method']}: {u['why']}{assumed}{runs}")
    for a in res.assumptions:
        print(f"  assumed: {a}")
    _requirements(res.requirements)
    return res.exit_code


def _requirements(reqs: list[dict]) -> None:
    """One line per verdict: the ids, a held id with cases the log never showed naming them."""
    for verdict in ("broken", "held", "unjudged"):
        ids = [r for r in reqs if r["verdict"] == verdict]
        if ids:
            print(f"  {verdict} ({len(ids)}): {', '.join(r['id'] for r in ids)}")
    for r in reqs:
        missing = [c["case"] for c in r["cases"] if c["verdict"] == "unjudged"]
        if r["verdict"] == "held" and missing:
            print(f"    {r['id']} unjudged for: {'; '.join(missing)}")
