"""Swarm verification (`taskmodel swarm`), as SPIN's swarm runs many small, differently ordered
searches in place of one large one.

A swarm is a list of independent searches spread over the workers (`RayPool` or local processes):

- random explorations of the default instance: the Hypothesis state machine, each with its own
  seed, its own action weights and its own subset of actions (and, within it, Hypothesis's swarm
  testing drawing a subset per example);
- depth-bounded searches in a randomised order, depth first or breadth first, at a scope (the
  exhaustive engine's world, clone and fingerprint; liveness needs the whole graph, so they check
  the state and step properties).

A swarm is bounded by work: a number of searches, the examples of each random one, the states of
each bounded one. The same seed and work give the same searches on any number of workers and at any
load; the wall-clock cap (`--budget`) only ever cuts a search short, and what it cut leaves every
property the swarm did not refute `undetermined (time cap)`.

Each search reports the first violation of each property it met. The driver de-duplicates them by
property and trace shape (the sequence of actions), shrinks each distinct one once by replay (as
tasks too), de-duplicates again, replays every one in the model before it is reported, and saves
it in the shared example database (`verifier.cli.swarm_store`). What the database already held for
the variant is replayed first, so a counterexample found on one machine is checked on the next.
"""
from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass, field

from verifier.runtime.budgets import EXAMPLES_PER_CHUNK, TIME_CAP, chunks_for
from verifier.runtime.worlds import make_world_for

# The default work: about the time the former 60-s slices took on an idle two-core machine.
SEARCHES = 8              # searches in a swarm, half random, half bounded
EXAMPLES = 600            # a random search's examples (seeded chunks of EXAMPLES_PER_CHUNK)
STATES = 25_000           # a bounded search's distinct states
SEARCH_SHARE = 0.75       # of the cap, for the searches; the rest shrinks, replays and stores
SCOPES_HOST = ("host-small", "host-rest", "host-clock", "host-pair", "host-wide")
SCOPE_COMPOSED = "composed-small"


@dataclass
class Job:
    kind: str                      # "random", "dfs" or "bfs"
    spec: str                      # the variant as given ("baseline", a name, an absolute file path)
    seed: int
    work: int                      # random: seeded chunks of examples; dfs/bfs: distinct states
    cap: float                     # seconds: the outer wall-clock cap of this search
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
    capped: bool = False           # the wall-clock cap cut it before its work was done


def plan(spec: str, composed: bool, seed: int, workers: int, budget: float, searches: int = SEARCHES,
         examples: int = EXAMPLES, states: int = STATES) -> list[Job]:
    """`searches` searches, half random explorations, half bounded searches (taking the scopes in
    turn); every choice drawn from the swarm's seed, none from the number of workers. Each has its
    work and, as an outer cap, a slice of the budget's search share (the searches a worker runs in turn)."""
    from model.actions import load_all
    rng = random.Random(seed)
    names = list(load_all())
    count = searches
    cap = budget * SEARCH_SHARE / -(-count // max(1, workers))
    scopes = SCOPES_HOST + ((SCOPE_COMPOSED,) if composed else ())
    first = rng.randrange(len(scopes))
    jobs = []
    for i in range(count):
        s = rng.randrange(1 << 30)
        if i % 2 == 0:
            # The first exploration is the plain machine; the others reweight and leave out actions.
            weights = None if i == 0 else {n: rng.choice((1, 2, 4, 8)) for n in names if rng.random() < 0.5}
            actions = None if i == 0 else sorted(n for n in names if rng.random() < 0.75) or None
            jobs.append(Job("random", spec, s, chunks_for(examples), cap, weights=weights, actions=actions))
        else:
            jobs.append(Job(rng.choice(("dfs", "bfs")), spec, s, states, cap, scope=scopes[(first + i // 2) % len(scopes)],
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

    from verifier.runtime.worlds import guarded_factory, world_factory
    from verifier.engines.random.explore import seed_only
    from verifier.runtime.faults import fault_of
    from verifier.engines.random.machine import STEPS_PER_DRAW, make_machine
    from verifier.runtime.checking import Observations, OutOfBudget
    catalogue = list(load_catalogue().values())
    make = guarded_factory(world_factory(_variant(job.spec)))
    asserted = {p.name for p in catalogue if p.asserted}
    deadline = time.monotonic() + job.cap
    obs = Observations(deadline=deadline)
    report = Report(job.describe())
    chunk = 0
    while asserted and chunk < job.work and not obs.faults:
        if time.monotonic() >= deadline:
            report.capped = True
            break
        machine = make_machine(make, catalogue, asserted, obs, actions=job.actions, weights=job.weights)
        hyp_seed(job.seed * 100_003 + chunk)(machine)
        chunk += 1
        try:
            with seed_only():
                run_state_machine_as_test(machine, settings=settings(
                    max_examples=EXAMPLES_PER_CHUNK, stateful_step_count=max(1, 40 // STEPS_PER_DRAW), deadline=None,
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
            elif not obs.faults:
                report.capped = True
    for name, (msg, hist) in obs.observed.items():          # witnesses reached, gaps shown
        report.found.append(Found(name, [(s.action, dict(s.args)) for s in hist], None, msg, report.job))
    report.premise, report.steps, report.faults = dict(obs.premise_counts), obs.steps, list(obs.faults)
    return report


def _bounded(job: Job) -> Report:
    """A depth-bounded search in a random order of actions and moves: depth first (a stack) or
    breadth first (a queue), every state and step property checked on every transition."""
    from model.snapshot import clone, fingerprint
    from model.world import action_table
    from properties.base import count_premise, load_catalogue

    from verifier.runtime import faults
    from verifier.engines.bfs import search as bfs
    from verifier.runtime import scopes
    rng = random.Random(job.seed)
    scope = scopes.parse(job.scope)
    host, harness = bfs.split_catalogue(list(load_catalogue().values()))
    open_props = [p for p in (harness if scope.composed else host) if p.kind != "liveness"]
    table = action_table()
    names = list(table)
    report = Report(job.describe())
    deadline = time.monotonic() + job.cap
    w0 = make_world_for(_variant(job.spec), scope)()
    rename = scope.renames(True, w0.params)
    seen = {fingerprint(w0, rename)}
    frontier = deque([(w0, ())])
    take = frontier.pop if job.kind == "dfs" else frontier.popleft
    here = None
    try:
        while frontier and open_props and len(seen) < job.work:
            if time.monotonic() >= deadline:
                report.capped = True
                break
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
                        if p.premise is not None:
                            count_premise(report.premise, p, p.premise(c, step))
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

    from verifier.runtime.replay import until
    from verifier.runtime.checking import OutOfBudget
    from verifier.runtime.replay import run_trace, shrink
    from verifier.runtime.worlds import world_at
    spec, found, seconds = item
    catalogue = list(load_catalogue().values())
    make = world_at(_variant(spec), found.scope)
    out = run_trace(make, found.moves, catalogue, found.prop)
    if out.violation is None:
        return None
    hist, best = out.violation.history, out.violation
    try:
        small, _ = shrink(until(make, time.monotonic() + seconds), [(s.action, s.args) for s in hist],
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


def result_of(variant, name, final, found, reports, catalogue, seed, budget, started):
    """The CheckResult of the swarm (engine "swarm"), every counterexample replayed in the model
    before it is reported, and the replayed traces to store: (property, history, scope, meta)."""
    from verifier.runtime.results import CheckResult, PropertyVerdict, vacuity
    from verifier.runtime.faults import Fault
    from verifier.runtime.replay import run_trace
    from verifier.runtime.worlds import world_at
    premise, steps, faults = {}, 0, []
    capped = sum(r.capped for r in reports)
    for r in reports:
        steps += r.steps
        for k, n in r.premise.items():
            premise[k] = premise.get(k, 0) + n
        faults += [f for f in r.faults if all(g.signature() != f.signature() for g in faults)]
    shortest, traces = {}, []
    for f in sorted(final, key=lambda f: (len(f.moves), f.scope or "")):
        make = world_at(variant, f.scope)
        out = run_trace(make, f.moves, catalogue, f.prop)
        if out.violation is None:
            continue
        p = next(x for x in catalogue if x.name == f.prop)
        meta = {"variant": name, "property": p.name, "ids": list(p.ids), "kind": p.kind,
                "verdict": "refuted" if p.asserted else "known-gap", "message": out.violation.message,
                "length": len(out.violation.history), "seed": seed, "found_by": f.by,
                **({"scope": f.scope} if f.scope else {})}
        traces.append((p.name, make, out.violation.history, meta))
        shortest.setdefault(p.name, (out.violation, f.scope))
    reached = {f.prop for f in found}
    verdicts = []
    for p in catalogue:
        v, scope = shortest.get(p.name, (None, None))
        n = premise.get(p.name, 0)
        message = v.message if v is not None else None
        if p.kind == "witness":
            verdict = "reached" if p.name in reached else ("undetermined" if faults or capped else "unreached")
        elif v is not None:
            verdict = "refuted" if p.asserted else "known-gap"
        else:
            empty = vacuity(p, premise)
            verdict = "undetermined" if faults or capped else ("holds" if empty is None else "vacuous")
            message = empty if verdict == "vacuous" else message
        if verdict == "undetermined" and capped and not faults:
            message = f"{TIME_CAP}: {capped} of {len(reports)} searches cut before their work was done"
        pv = PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict,
                             message, v.history if v is not None else None, n, cases=p.case_counts(premise))
        pv.scope = scope              # a bounded search's trace replays at its scope
        verdicts.append(pv)
    result = CheckResult(variant=name, engine="swarm", seed=seed, budget_s=budget,
                         elapsed_s=time.monotonic() - started, bounds={}, examples=len(reports), steps=steps,
                         action_counts={}, verdicts=verdicts, faults=[f for f in faults if isinstance(f, Fault)])
    if capped:
        result.stopped = f"{TIME_CAP}: {capped} of {len(reports)} searches cut before their work was done"
    return result, traces
