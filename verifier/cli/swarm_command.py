"""`taskmodel swarm`: many differently ordered searches on a pool, their counterexamples shrunk,
replayed, stored in a shared database and printed as `check` prints them."""
from __future__ import annotations

import time

import json
from pathlib import Path

from rich.console import Console

from properties.base import load_catalogue

from verifier.cli import swarm_store as store
from verifier.cli.commands import counterexample_folders, print_result
from verifier.engines.cluster import open_pool
from verifier.engines.cluster.swarm import Found, distinct, plan, result_of, run_job, shrink_one
from verifier.runtime.files import write_atomic
from verifier.runtime.results import SCHEMA_VERSION, exit_code, expectations, result_json, tool_version
from verifier.runtime.worlds import portable_spec, resolve_variant
from verifier.writers import itf
from verifier.writers.itf_read import TraceError, TraceFile
from verifier.writers.reproduce import replay_recorded


def run_swarm(args) -> int:
    """`taskmodel swarm`: plan, search on the pool, shrink, replay, store; exit codes as for check
    (its flags are refused, when they must be, by `verifier.cli.preflight`)."""
    variant = resolve_variant(args.variant)
    name = getattr(variant, "name", "baseline")
    spec = "baseline" if args.variant in (None, "baseline") else portable_spec(args.variant)
    catalogue = list(load_catalogue().values())
    with open_pool(args.cluster, None if args.cluster else args.jobs) as pool:
        db, where = store.open_database(args.redis, Path(args.out) / "swarm-db")
        started = time.monotonic()        # the budget is the searches', not the cluster's start
        workers = getattr(pool, "workers", args.jobs)
        stored = _stored(db, variant, name, catalogue)
        composed = variant is None or getattr(variant, "harness_rules", None) is not None
        jobs = plan(spec, composed, args.seed, workers, args.budget, args.searches, args.examples, args.states)
        reports = pool.map(run_job, jobs)
        kinds = {p.name: p.kind for p in catalogue}
        found = [f for r in reports for f in r.found]
        groups = distinct([f for f in found if kinds[f.prop] != "witness"])
        left = max(1.0, args.budget - (time.monotonic() - started)) * 0.8
        shrunk = [f for f in pool.map(shrink_one, [(spec, f, left) for f in groups]) if f is not None]
    final = distinct(shrunk + stored)
    result, traces = result_of(variant, name, final, found, reports, catalogue, args.seed, args.budget, started)
    for prop, make, history, meta in traces:
        db.save(store.key(name, prop), itf.dumps(itf.build(make, history, meta)).encode("utf-8"))
    saved = len(traces)
    result.bounds = {"searches": len(jobs), "random": sum(j.kind == "random" for j in jobs),
                     "bounded": sum(j.kind != "random" for j in jobs), "workers": workers,
                     "found": len(found), "distinct": len(groups), "stored": saved,
                     "replayed_from_database": len(stored), "database": where}
    result.work = {"searches": args.searches, "examples_per_random_search": args.examples,
                   "states_per_bounded_search": args.states}
    paths, told = counterexample_folders(variant, [result], args)
    code = exit_code([result])
    payload = {"schema_version": SCHEMA_VERSION, "tool": {"name": "taskmodel",
               "version": tool_version()}, "command": "swarm", "variant": name,
               "results": [result_json(result, paths)],
               "expectations": expectations(variant, [result]),
               "exit_code": code}
    text = json.dumps(payload, indent=1) + "\n"
    out = Path(args.out) / f"swarm-{name}.json"
    write_atomic(out, text)
    if args.json:
        print(text, end="")
        return code
    con = Console(width=None if Console().is_terminal else 200)
    print_result(result, con, told, paths)
    con.print(f"swarm: {len(jobs)} searches ({result.bounds['random']} random, {result.bounds['bounded']} bounded) "
              f"on {workers} workers; {len(found)} violations found, {len(groups)} distinct by property and shape, "
              f"shrunk once; {len(stored)} replayed from and {saved} stored in {where}")
    con.print(f"result written to {out}")
    return code


def _stored(db, variant, name: str, catalogue) -> list:
    """The database's counterexamples of this variant that still reproduce, state by state, in this model."""
    out = []
    for p in catalogue:
        for value in db.fetch(store.key(name, p.name)):
            try:
                trace = TraceFile(text=value.decode("utf-8"))
                head = trace.check()
            except (TraceError, UnicodeDecodeError):
                continue            # not a trace of this tool: another user of the shared database
            scope = head.meta.get("scope")
            got = replay_recorded(variant, p.name, trace.states(), scope)
            if got.violation is not None and len(got.violation.history) == head.steps:
                out.append(Found(p.name, [(s.action, dict(s.args)) for s in got.violation.history], scope,
                                 got.violation.message, "the database"))
    return out
