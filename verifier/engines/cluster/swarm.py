"""Swarm verification (`taskmodel swarm`), as SPIN's swarm runs many small, differently ordered
searches in place of one large one.

A swarm is a list of independent searches spread over the workers (`RayPool` or local processes):

- random explorations of the default instance: the Hypothesis state machine, each with its own
  seed, its own action weights and its own subset of actions (and, within it, Hypothesis's swarm
  testing drawing a subset per example);
- depth-bounded searches in a randomised order, depth first or breadth first, at a scope (the
  exhaustive engine's world, clone and fingerprint; liveness needs the whole graph, so they check
  the state and step properties).

Each search reports the first violation of each property it met. The driver de-duplicates them by
property and trace shape (the sequence of actions), shrinks each distinct one once by replay (as
tasks too), de-duplicates again, replays every one in the model before it is reported, and saves
it in the shared example database (`verifier.engines.cluster.store`). What the database already held for
the variant is replayed first, so a counterexample found on one machine is checked on the next.
"""
from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass, field

SEARCH_SHARE = 0.75       # of the budget, for the searches; the rest shrinks, replays and stores
ROUNDS = 4                # searches per worker at most: many short searches, not a few long ones
ROUND_SECONDS = 5         # ... and each at least this long
MAX_STATES = 100_000      # a bounded search's seen states (its memory), whatever its time slice
SCOPES_HOST = ("host-small", "host-rest", "host-clock", "host-pair", "host-wide")
SCOPE_COMPOSED = "composed-small"


@dataclass
class Job:
    kind: str                      # "random", "dfs" or "bfs"
    spec: str                      # the variant as given ("baseline", a name, an absolute file path)
    seed: int
    seconds: float
    weights: dict | None = None    # random: the action weights that differ from the table's
    actions: list | None = None    # random: the subset of actions it may take (None: all)
    scope: str | None = None       # dfs/bfs: the world searched
    depth: int = 0                 # dfs/bfs: the longest behaviour searched

    def describe(self) -> str:
        if self.kind == "random":
            return (f"random seed {self.seed}" + (f", {len(self.actions)} actions" if self.actions else "")
                    + (f", {len(self.weights)} reweighted" if self.weights else ""))
        return f"{self.kind} seed {self.seed} at {self.scope} to depth {self.depth}"


@dataclass
class Found:
    prop: str
    moves: list                    # (action, args)
    scope: str | None              # None: the default instance
    message: str
    by: str                        # which search found it


@dataclass
class Report:
    """What one search saw."""
    job: str
    found: list = field(default_factory=list)
    premise: dict = field(default_factory=dict)
    steps: int = 0
    faults: list = field(default_factory=list)


def plan(spec: str, composed: bool, seed: int, workers: int, budget: float) -> list[Job]:
    """Half random explorations, half bounded searches (taking the scopes in turn), up to `ROUNDS`
    per worker, each with a slice of the budget; every choice drawn from the swarm's seed."""
    from model.actions import load_all
    rng = random.Random(seed)
    names = list(load_all())
    rounds = max(1, min(ROUNDS, int(budget * SEARCH_SHARE // ROUND_SECONDS)))
    count = max(2, rounds * workers)
    seconds = max(1.0, budget * SEARCH_SHARE / -(-count // workers))     # the searches one worker runs in turn
    scopes = SCOPES_HOST + ((SCOPE_COMPOSED,) if composed else ())
    first = rng.randrange(len(scopes))
    jobs = []
    for i in range(count):
        s = rng.randrange(1 << 30)
        if i % 2 == 0:
            # The first exploration is the plain machine; the others reweight and leave out actions.
            weights = None if i == 0 else {n: rng.choice((1, 2, 4, 8)) for n in names if rng.random() < 0.5}
            actions = None if i == 0 else sorted(n for n in names if rng.random() < 0.75) or None
            jobs.append(Job("random", spec, s, seconds, weights=weights, actions=actions))
        else:
            jobs.append(Job(rng.choice(("dfs", "bfs")), spec, s, seconds, scope=scopes[(first + i // 2) % len(scopes)],
                            depth=rng.randint(4, 12)))
    return jobs


def run_job(job: Job) -> Report:
    """One search, in a worker."""
    return _random(job) if job.kind == "random" else _bounded(job)


def _variant(spec: str):
    from model.variants import resolve
    return None if spec == "baseline" else resolve(spec)


def _random(job: Job) -> Report:
    from hypothesis import HealthCheck, Phase, Verbosity, seed as hyp_seed, settings
    from hypothesis.stateful import run_state_machine_as_test

    from properties.base import load_catalogue

    from verifier.engines.random.explore import guarded_factory, seed_only, world_factory
    from verifier.runtime.faults import fault_of
    from verifier.engines.random.machine import STEPS_PER_DRAW, Observations, OutOfBudget, make_machine
    catalogue = list(load_catalogue().values())
    make = guarded_factory(world_factory(_variant(job.spec)))
    asserted = {p.name for p in catalogue if p.asserted}
    deadline = time.monotonic() + job.seconds
    obs = Observations(deadline=deadline)
    report = Report(job.describe())
    chunk = 0
    while asserted and time.monotonic() < deadline and not obs.faults:
        machine = make_machine(make, catalogue, asserted, obs, actions=job.actions, weights=job.weights)
        hyp_seed(job.seed * 100_003 + chunk)(machine)
        chunk += 1
        try:
            with seed_only():
                run_state_machine_as_test(machine, settings=settings(
                    max_examples=25, stateful_step_count=max(1, 40 // STEPS_PER_DRAW), deadline=None,
                    database=None, report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
                    phases=[Phase.generate], print_blob=False, verbosity=Verbosity.quiet))
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            v, obs.last_failure = obs.last_failure, None
            if v is not None:
                report.found.append(Found(v.prop.name, [(s.action, dict(s.args)) for s in v.history], None,
                                          v.message, report.job))
                asserted.discard(v.prop.name)
            elif not obs.faults and not isinstance(e, OutOfBudget) and time.monotonic() <= deadline:
                obs.fault(fault_of(e, [], "the exploration"))
    for name, (msg, hist) in obs.observed.items():          # witnesses reached, gaps shown
        report.found.append(Found(name, [(s.action, dict(s.args)) for s in hist], None, msg, report.job))
    report.premise, report.steps, report.faults = dict(obs.premise_counts), obs.steps, list(obs.faults)
    return report


def _bounded(job: Job) -> Report:
    """A depth-bounded search in a random order of actions and moves: depth first (a stack) or
    breadth first (a queue), every state and step property checked on every transition."""
    from model.snapshot import clone, fingerprint
    from model.world import _actions
    from properties.base import load_catalogue

    from verifier.runtime import faults
    from verifier.engines.bfs import search as bfs
    from verifier.runtime import scopes
    rng = random.Random(job.seed)
    scope = scopes.parse(job.scope)
    host, harness = bfs.split_catalogue(list(load_catalogue().values()))
    open_props = [p for p in (harness if scope.composed else host) if p.kind != "liveness"]
    table = _actions()
    names = list(table)
    report = Report(job.describe())
    deadline = time.monotonic() + job.seconds
    w0 = bfs.make_world_for(_variant(job.spec), scope)()
    rename = scope.renames(True, w0.params)
    seen = {fingerprint(w0, rename)}
    frontier = deque([(w0, ())])
    take = frontier.pop if job.kind == "dfs" else frontier.popleft
    here = None
    try:
        while frontier and open_props and len(seen) < MAX_STATES and time.monotonic() < deadline:
            w, path = take()
            if len(path) >= job.depth:
                continue
            order = names[:]
            rng.shuffle(order)
            for name in order:
                here = (name, None, path)
                moves = list(table[name].moves(w))
                rng.shuffle(moves)
                for args in moves:
                    here = (name, args, path)
                    c = clone(w)
                    step = c.apply(name, args, check=False, say=False)     # described when replayed
                    report.steps += 1
                    moved = path + ((name, dict(args)),)
                    for p in list(open_props):
                        if p.premise is not None and p.premise(c, step):
                            report.premise[p.name] = report.premise.get(p.name, 0) + 1
                        msg = p.check(c, step)
                        if msg:
                            report.found.append(Found(p.name, list(moved), scope.name, msg, report.job))
                            open_props.remove(p)
                    f = fingerprint(c, rename)
                    if f not in seen:
                        seen.add(f)
                        frontier.append((c, moved))
    except KeyboardInterrupt:
        raise
    except BaseException as e:       # an amendment's rule, the model or a check raised: a fault
        name, args, path = here or ("the initial world", None, ())
        report.faults.append(faults.Fault(faults.locate(e), faults.one_line(e),
                                          list(path) + ([(name, dict(args))] if args is not None else []), name))
    return report


def shrink_one(item):
    """(spec, Found, seconds) -> the Found shrunk by replay within `seconds` (else as replayed), or
    None when it does not replay (in a worker)."""
    from properties.base import load_catalogue

    from verifier.engines.random.explore import _until
    from verifier.engines.random.machine import OutOfBudget
    from verifier.runtime.replay import run_trace, shrink
    from verifier.writers.reproduce import make_world
    spec, found, seconds = item
    catalogue = list(load_catalogue().values())
    make = make_world(_variant(spec), found.scope)
    out = run_trace(make, found.moves, catalogue, found.prop)
    if out.violation is None:
        return None
    hist, best = out.violation.history, out.violation
    try:
        small, _ = shrink(_until(make, time.monotonic() + seconds), [(s.action, s.args) for s in hist],
                          [s.created for s in hist], catalogue, found.prop)
        again = run_trace(make, small, catalogue, found.prop)
        if again.violation is not None and len(again.violation.history) <= len(hist):
            best = again.violation
    except OutOfBudget:
        pass                        # the budget is spent: the trace stands as found
    return Found(found.prop, [(s.action, dict(s.args)) for s in best.history], found.scope, best.message, found.by)


def distinct(found: list) -> list:
    """One per (property, scope, shape: the sequence of actions), the shortest."""
    best = {}
    for f in sorted(found, key=lambda f: (len(f.moves), f.by)):
        best.setdefault((f.prop, f.scope, tuple(a for a, _ in f.moves)), f)
    return list(best.values())


# ---- the command ---------------------------------------------------------------------------------
def run_swarm(args) -> int:
    """`taskmodel swarm`: plan, search on the pool, shrink, replay, store; exit codes as for check."""
    import json
    import math
    from pathlib import Path

    from rich.console import Console

    from properties.base import load_catalogue

    from verifier.cli import commands
    from verifier.runtime.exitcodes import UsageError
    from verifier.runtime.files import write_atomic
    from verifier.engines.cluster import open_pool, store
    if not math.isfinite(args.budget) or not 0 < args.budget <= 86_400:
        raise UsageError(f"taskmodel: --budget must be a number of seconds above 0 and at most 86400, "
                         f"not {args.budget:g}")
    if not 1 <= args.jobs <= 256:
        raise UsageError(f"taskmodel: --jobs must be a whole number from 1 to 256, not {args.jobs}")
    variant = commands._variant(args.variant)
    name = getattr(variant, "name", "baseline")
    spec = _spec(args.variant)
    catalogue = list(load_catalogue().values())
    with open_pool(args.cluster, None if args.cluster else args.jobs) as pool:
        db, where = store.open_database(args.redis, Path(args.out) / "swarm-db")
        started = time.monotonic()        # the budget is the searches', not the cluster's start
        workers = getattr(pool, "workers", args.jobs)
        stored = _stored(db, variant, name, catalogue)
        composed = variant is None or getattr(variant, "harness_rules", None) is not None
        jobs = plan(spec, composed, args.seed, workers, args.budget)
        reports = pool.map(run_job, jobs)
        kinds = {p.name: p.kind for p in catalogue}
        found = [f for r in reports for f in r.found]
        groups = distinct([f for f in found if kinds[f.prop] != "witness"])
        left = max(1.0, args.budget - (time.monotonic() - started)) * 0.8
        shrunk = [f for f in pool.map(shrink_one, [(spec, f, left) for f in groups]) if f is not None]
    final = distinct(shrunk + stored)
    result, saved = _result(variant, name, spec, final, found, reports, catalogue, db, args, started)
    result.bounds = {"searches": len(jobs), "random": sum(j.kind == "random" for j in jobs),
                     "bounded": sum(j.kind != "random" for j in jobs), "workers": workers,
                     "found": len(found), "distinct": len(groups), "stored": saved,
                     "replayed_from_database": len(stored), "database": where}
    paths, told = commands._counterexamples(variant, [result], args)
    code = commands.exit_code([result])
    payload = {"schema_version": commands.SCHEMA_VERSION, "tool": {"name": "taskmodel",
               "version": commands.tool_version()}, "command": "swarm", "variant": name,
               "results": [commands.result_json(result, paths)],
               "expectations": commands.expectations(variant, [result]),
               "exit_code": code}
    text = json.dumps(payload, indent=1) + "\n"
    out = Path(args.out) / f"swarm-{name}.json"
    write_atomic(out, text)
    if args.json:
        print(text, end="")
        return code
    con = Console(width=None if Console().is_terminal else 200)
    commands.print_result(result, con, told, paths)
    con.print(f"swarm: {len(jobs)} searches ({result.bounds['random']} random, {result.bounds['bounded']} bounded) "
              f"on {workers} workers; {len(found)} violations found, {len(groups)} distinct by property and shape, "
              f"shrunk once; {len(stored)} replayed from and {saved} stored in {where}")
    con.print(f"result written to {out}")
    return code


def _spec(given: str | None) -> str:
    """The variant as a worker finds it: a built-in by name, an amendment file by absolute path."""
    from verifier.cli.gate_cluster import _spec as absolute
    return "baseline" if given in (None, "baseline") else absolute(given)


def _stored(db, variant, name: str, catalogue) -> list:
    """The database's counterexamples of this variant that still reproduce in this model."""
    from verifier.writers import itf
    from verifier.writers.reproduce import reproduce
    from verifier.engines.cluster import store
    out = []
    for p in catalogue:
        for value in db.fetch(store.key(name, p.name)):
            try:
                meta, steps = itf.load(value.decode("utf-8"))
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                continue            # not a trace of this tool: another user of the shared database
            scope = meta.get("scope") if isinstance(meta.get("scope"), str) else None
            got = reproduce(variant, p.name, steps, scope)
            if got.violation is not None and len(got.violation.history) == len(steps):
                out.append(Found(p.name, [(s.action, dict(s.args)) for s in got.violation.history], scope,
                                 got.violation.message, "the database"))
    return out


def _result(variant, name, spec, final, found, reports, catalogue, db, args, started):
    """The CheckResult of the swarm (engine "swarm"), every counterexample replayed in the model
    before it is reported and saved; returns it and how many traces were saved."""
    from verifier.writers import itf
    from verifier.engines.random.explore import CheckResult, PropertyVerdict
    from verifier.runtime.faults import Fault
    from verifier.runtime.replay import run_trace
    from verifier.writers.reproduce import make_world
    from verifier.engines.cluster import store
    premise, steps, faults = {}, 0, []
    for r in reports:
        steps += r.steps
        for k, n in r.premise.items():
            premise[k] = premise.get(k, 0) + n
        faults += [f for f in r.faults if all(g.signature() != f.signature() for g in faults)]
    shortest, saved = {}, 0
    for f in sorted(final, key=lambda f: (len(f.moves), f.scope or "")):
        make = make_world(variant, f.scope)
        out = run_trace(make, f.moves, catalogue, f.prop)
        if out.violation is None:
            continue
        p = next(x for x in catalogue if x.name == f.prop)
        meta = {"variant": name, "property": p.name, "ids": list(p.ids), "kind": p.kind,
                "verdict": "refuted" if p.asserted else "known-gap", "message": out.violation.message,
                "length": len(out.violation.history), "seed": args.seed, "found_by": f.by,
                **({"scope": f.scope} if f.scope else {})}
        db.save(store.key(name, p.name), itf.dumps(itf.build(make, out.violation.history, meta)).encode("utf-8"))
        saved += 1
        shortest.setdefault(p.name, (out.violation, f.scope))
    reached = {f.prop for f in found}
    verdicts = []
    for p in catalogue:
        v, scope = shortest.get(p.name, (None, None))
        n = premise.get(p.name, 0)
        if p.kind == "witness":
            verdict = "reached" if p.name in reached else ("undetermined" if faults else "unreached")
        elif v is not None:
            verdict = "refuted" if p.asserted else "known-gap"
        else:
            verdict = "undetermined" if faults else ("holds" if n or p.premise is None else "vacuous")
        pv = PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict,
                             v.message if v is not None else None, v.history if v is not None else None, n)
        pv.scope = scope              # a bounded search's trace replays at its scope
        verdicts.append(pv)
    result = CheckResult(variant=name, engine="swarm", seed=args.seed, budget_s=args.budget,
                         elapsed_s=time.monotonic() - started, bounds={}, examples=len(reports), steps=steps,
                         action_counts={}, verdicts=verdicts, faults=[f for f in faults if isinstance(f, Fault)])
    return result, saved
