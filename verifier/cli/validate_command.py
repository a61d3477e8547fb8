"""`taskmodel validate LOG.jsonl [--map MAP.json] [--variant NAME|FILE] [--json] [--budget S]`."""
from __future__ import annotations

import json
import math

from verifier.runtime.exitcodes import UsageError
from verifier.validate import LogError, validate_log


def cmd_validate(args) -> int:
    if not (isinstance(args.budget, float) and math.isfinite(args.budget) and 0 < args.budget <= 86400):
        raise UsageError("taskmodel validate: --budget must be a number of seconds, more than 0 and at most a day")
    try:
        res = validate_log(args.log, args.map, variant=args.variant, budget=args.budget)
    except LogError as e:
        raise UsageError(f"taskmodel validate: {e}") from None
    if args.json:
        print(json.dumps(res.to_json(), indent=1))
        return res.exit_code
    print(f"{res.result}: {res.matched} of {res.events} events matched against {res.variant} "
          f"({res.steps} model steps, {res.candidates} candidate state(s) at the end)")
    if res.reason:
        print(f"  {res.reason}")
    d = res.divergence
    if d is not None:
        print(f"  first divergence: event {d.index} (line {d.line}): {d.reason}")
        if d.requirement:
            print(f"  requirement broken: {d.requirement}")
        for a in d.allowed:
            print(f"  the model allowed: {a}")
    if res.unmodelled:
        print(f"  unmodelled: {res.unjudged}")
        for u in res.unmodelled:
            runs = f"; set outside the model: {', '.join(u['runs'])}" if u["runs"] else ""
            print(f"    event {u['index']} (line {u['line']}) {u['conn']} {u['method']}: {u['why']}; assumed "
                  f"{u['assumption']}; check: {u['check']}{runs}")
    counts = {}
    for p in res.properties:
        counts[p["verdict"]] = counts.get(p["verdict"], 0) + 1
    print("  properties: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    vacuous = [p["id"] for p in res.properties if p["verdict"] == "vacuous"]
    if vacuous:
        print(f"  vacuous (premise never reached): {', '.join(vacuous)}")
    return res.exit_code
