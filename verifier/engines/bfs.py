"""The exhaustive engine: breadth-first search of the executable model's state graph at a scope.

The same actions, rules, amendments and catalogue as the random engine, and no second definition:
every enabled move of every action is taken from every reachable state (`model.world.World.apply`
on a `model.snapshot.clone`), every property is checked on every transition, and states are
identified by `model.snapshot.fingerprint`. Level by level, so the first violation of a property
found is a shortest one; a search that completes is a proof at the scope. Liveness is judged on
the explored graph (`verifier.engines.fair`). Every trace is replayed in the model before it is
reported.

The frontier is a list of (state id, world); the seen set maps a fingerprint to its state id, and
parent links give the path to any state. Both can be partitioned by fingerprint (`jobs`).
"""
from __future__ import annotations

import gc
import time
from array import array
from contextlib import contextmanager
from dataclasses import dataclass, field

from model.snapshot import clone, fingerprint, forget_texts
from model.world import World, _actions
from properties.base import load_catalogue

from .. import faults, watchdog
from ..explore import CheckResult, PropertyVerdict
from ..replay import run_trace
from . import fair, scopes

# Modules whose properties judge the client harness: checked on the composed scope.
HARNESS_AREAS = ("harness", "e2e")


@dataclass
class Found:
    """The first (shortest) violation, witness or gap of a property: the state it left and the move."""
    message: str
    parent: int
    move: tuple
    seconds: float           # into the search


@dataclass
class Search:
    """One exhaustive search: what it saw and how far it got."""
    scope: scopes.Scope
    started: float = 0.0
    generated: int = 0
    distinct: int = 0
    depth: int = 0           # levels completed: every behaviour of at most this many steps was seen
    complete: bool = False
    capped: str = ""         # why the search stopped before completing (time, states)
    bounded: bool = False    # stopped at the stated depth bound with every shorter behaviour seen
    settled: bool = False    # stopped early: every property it checks was already answered
    elapsed: float = 0.0
    found: dict = field(default_factory=dict)        # property name -> Found
    premise: dict = field(default_factory=dict)
    checks: dict = field(default_factory=dict)
    actions: dict = field(default_factory=dict)
    fault: faults.Fault | None = None
    liveness: dict = field(default_factory=dict)     # property name -> fair.Lasso | None
    parents: array = field(default_factory=lambda: array("q"))
    moves: list = field(default_factory=list)

    def stats(self) -> dict:
        return {"generated": self.generated, "distinct": self.distinct, "depth": self.depth,
                "complete": self.complete, "seconds": round(self.elapsed, 2),
                "states_per_second": round(self.distinct / self.elapsed) if self.elapsed else 0,
                **({"capped": self.capped} if self.capped else {}),
                **({"stopped": "every property answered"} if self.settled else {})}

    def path(self, sid: int) -> list[tuple]:
        out = []
        while sid > 0:
            out.append(self.moves[sid])
            sid = self.parents[sid]
        return out[::-1]


def make_world_for(variant, scope: scopes.Scope):
    """The initial world of a variant at a scope: the scope's sizes, then the variant's params."""
    from model.amend import Amendment
    params = scope.params()
    if variant is not None and isinstance(variant, type) and issubclass(variant, Amendment):
        params = variant.make_params(params)
    harness_rules = getattr(variant, "harness_rules", None) if variant is not None else None

    def make():
        rules = variant() if variant is not None else None
        if scope.composed:
            return World.composed(params, rules, harness_rules)
        return World(params, rules)
    return make


def search(make_world, props, scope: scopes.Scope, rename: bool = True, deadline: float | None = None,
           max_states: int | None = None, progress=None, want_graph: bool = True, max_depth: int | None = None,
           every: float = 2.0) -> Search:
    """Breadth-first search from `make_world()`; checks `props` on every transition. With
    `max_depth`, only behaviours of at most that many steps (`Search.bounded`)."""
    started = time.monotonic()
    table = _actions()
    names = list(table)
    s = Search(scope, started=started)
    props = list(props)
    live = [p for p in props if p.kind == "liveness"]
    safety = [p for p in props if p.kind != "liveness"]
    checker = Checker(safety, s)
    monitors = [p.monitor for p in live if p.monitor is not None]
    dog = watchdog.current()
    w0 = make_world()
    seen = {fingerprint(w0, rename): 0}
    s.parents.append(-1)
    s.moves.append(None)
    graph = fair.Graph() if (live and want_graph) else None
    frontier = [(0, w0)]
    last_report = started
    here = ["the enabled moves", None]
    try:
        with quiet_gc():
            while frontier:
                nxt = []
                for sid, w in frontier:
                    out_edges = [] if graph is not None else None
                    try:
                        with dog.bounded():     # each state's moves, steps and checks, as one bounded step
                            enabled = enabled_moves(w, table, names, here)
                            if graph is not None:
                                graph.add_state(sid, fair.state_info(w, live, enabled))
                            for name, args, c, f in successors(w, enabled, monitors, checker, rename, here, sid, s):
                                cid = seen.get(f)
                                if cid is None:
                                    cid = seen[f] = len(s.moves)
                                    s.parents.append(sid)
                                    s.moves.append((name, args))
                                    nxt.append((cid, c))
                                if out_edges is not None:
                                    out_edges.append((cid, name, args))
                    except (KeyboardInterrupt, _Stop):
                        raise
                    except BaseException as e:      # an amendment's rule or the model raised, exited or hung
                        s.fault = fault_at(s, sid, here, e)
                        raise _Stop from None
                    if graph is not None:
                        graph.add_edges(sid, out_edges)
                    now = time.monotonic()
                    if progress is not None and now - last_report >= every:
                        last_report = now
                        s.distinct, s.elapsed = len(s.moves), now - started
                        progress(s, len(nxt) + len(frontier))
                    if deadline is not None and now > deadline:
                        s.capped = "time"
                        raise _Stop
                    if max_states is not None and len(s.moves) > max_states:
                        s.capped = f"{max_states} states"
                        raise _Stop
                frontier = nxt
                if level_done(s, frontier, max_depth, safety, checker.open, live):
                    raise _Stop
        s.complete = True
        s.depth -= 1          # the last level added no state: the diameter
    except _Stop:
        pass
    finish(s, safety, live, graph)
    return s


def level_done(s: Search, frontier, max_depth, safety, open_props, live) -> bool:
    """After a level: count it; True when the search stops here (the depth bound, or every
    property answered, so that no verdict can change)."""
    s.depth += 1
    if max_depth is not None and s.depth >= max_depth and frontier:
        s.bounded = True
        return True
    if safety and not open_props and not live and frontier:
        s.settled = True
        return True
    return False


def finish(s: Search, safety, live, graph) -> None:
    """The search's totals, and liveness judged on the graph when the search completed."""
    forget_texts()
    s.distinct = len(s.moves)
    s.elapsed = time.monotonic() - s.started
    for p in safety:
        s.checks.setdefault(p.name, s.generated)
    if s.complete and graph is not None and s.fault is None:
        for p in live:
            s.liveness[p.name] = graph.fair_violation(p.name)
            s.premise[p.name] = graph.premise_count(p.name)


@contextmanager
def quiet_gc():
    """Fewer collections while searching: the frontier holds thousands of worlds, and every full
    collection walks them all (a fifth of the search's time at the default thresholds)."""
    old = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*old)


def enabled_moves(w, table, names, here) -> dict:
    """{action: its moves in `w`} for the actions enabled there, in the table's order."""
    out = {}
    here[1] = None
    for name in names:
        here[0] = name
        moves = table[name].moves(w)
        if moves:
            out[name] = moves
    return out


def successors(w, enabled, monitors, checker, rename, here, sid, counts):
    """(action, args, successor, its fingerprint) for every enabled move of `w`, in order: each
    taken on a clone (and counted in `counts.generated` and `counts.actions`), the liveness
    monitors told, the open properties checked (`checker`)."""
    actions = counts.actions
    for name, moves in enabled.items():
        for args in moves:
            here[0], here[1] = name, args
            c = clone(w)
            step = c.apply(name, args, check=False)
            counts.generated += 1
            actions[name] = actions.get(name, 0) + 1
            for m in monitors:
                m(c, step)
            if checker.open:
                checker.check(c, step, sid, name, args)
            yield name, args, c, fingerprint(c, rename)


def fault_at(s: Search, sid: int, here, e: BaseException) -> faults.Fault:
    """What a state's moves, a step or a check raised, with the path to it."""
    name, args = here
    where = name if args is not None else f"the enabled moves of {name}"
    if isinstance(e, CheckFault):
        where, e = f"the check of {e.name}", e.error
    return faults.Fault(faults.locate(e), faults.one_line(e),
                        s.path(sid) + ([(name, dict(args))] if args is not None else []), where)


class _Stop(Exception):
    pass


class Checker:
    """The open properties of a search, checked on each transition; the first violation of each is
    kept (`Search.found`) and closes it. `allowed(name)`, when given, says whether a property is
    still open at this transition (a partitioned search's cut-offs)."""

    def __init__(self, safety, s: Search):
        self.s = s
        self.open = [(p.name, p.premise, p.check) for p in safety]

    def check(self, world, step, sid, name, args):
        s = self.s
        premise, closed = s.premise, False
        for pname, pre, check in self.open:
            try:
                if pre is not None and pre(world, step):
                    premise[pname] = premise.get(pname, 0) + 1
                msg = check(world, step)
            except Exception as e:
                raise CheckFault(pname, e) from None
            if msg:
                s.found[pname] = Found(msg, sid, (name, dict(args)), time.monotonic() - s.started)
                s.checks[pname] = s.generated
                closed = True
        if closed:
            self.open = [x for x in self.open if x[0] not in s.found]


class CheckFault(Exception):
    """A property's check raised: a fault of the check, not of the step."""

    def __init__(self, name, error):
        super().__init__(name)
        self.name, self.error = name, error


# ---- the engine: searches, replayed traces, verdicts ---------------------------------------------
def split_catalogue(catalogue):
    """Host properties are judged at a host scope, the harness's at a composed one."""
    host = [p for p in catalogue if p.area not in HARNESS_AREAS]
    harness = [p for p in catalogue if p.area in HARNESS_AREAS]
    return host, harness


def plan(scope_spec, catalogue):
    """[(scope, properties)]: one given scope judges every property; by default the host scope
    judges the host's and the composed scope the harness's."""
    if scope_spec:
        return [(scopes.parse(scope_spec), list(catalogue))]
    host, harness = split_catalogue(catalogue)
    out = [(scopes.parse(None), host)] if host else []
    if harness:
        out.append((scopes.parse(None, composed=True), harness))
    return out


def _search_job(variant, scope, names, rename, seconds, max_states, max_depth, shadow):
    """One search in a worker process (properties are named, not pickled)."""
    catalogue = load_catalogue()
    props = [catalogue[n] for n in names]
    return _judged(variant, scope, props, rename, seconds, max_states, max_depth, None, shadow)


def _judged(variant, scope, props, rename, seconds, max_states, max_depth, progress, shadow=False):
    """(the search, its verdicts, the overrides' counts) of one scope. With `shadow`, each rule
    the variant overrides is counted and compared with the baseline's (`verifier.shadow`)."""
    recorder = None
    if shadow and variant is not None:
        from ..shadow import instrument
        variant, recorder = instrument(variant)
    make = make_world_for(variant, scope)
    bound = min(d for d in (max_depth, scope.depth) if d is not None) if (max_depth or scope.depth) else None
    s = search(make, props, scope, rename=rename, deadline=time.monotonic() + seconds, max_states=max_states,
               progress=progress, max_depth=bound)
    if s.fault is not None:      # told again by a replay: the steps before it in protocol words
        from ..explore import _fault_at, guarded_factory
        s.fault = _fault_at(guarded_factory(make), s.fault.history, props) or s.fault
    return s, verdicts_of(s, make, props), (recorder.summary() if recorder is not None else None)


def run_bfs(variant=None, scope=None, symmetry=True, jobs=1, budget=60.0, progress=None, props=None,
            max_states=None, max_depth=None, shadow=False):
    """Exhaustive search of a variant (an Amendment subclass or None) at a scope; a CheckResult
    with `states` (generated, distinct, depth, complete, per scope) and `faults`."""
    started = time.monotonic()
    catalogue = list(props) if props is not None else list(load_catalogue().values())
    jobs_plan = plan(scope, catalogue)
    results = []
    if jobs > 1 and len(jobs_plan) == 1 and _by_name(jobs_plan[0][1]):
        from .partition import LocalPool, judge
        sc, ps = jobs_plan[0]
        with LocalPool(jobs) as pool:
            results.append(judge(variant, sc, ps, pool, symmetry, budget, max_states, max_depth, progress, shadow))
    elif jobs > 1 and len(jobs_plan) > 1 and _picklable(variant):
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=min(jobs, len(jobs_plan))) as pool:
            futs = [pool.submit(_search_job, variant, sc, [p.name for p in ps], symmetry, budget, max_states,
                                max_depth, shadow) for sc, ps in jobs_plan]
            results = [f.result() for f in futs]
    else:
        share = budget / len(jobs_plan)
        for sc, ps in jobs_plan:
            left = max(1.0, started + share * (len(results) + 1) - time.monotonic())
            results.append(_judged(variant, sc, ps, symmetry, left, max_states, max_depth, progress, shadow))
    return result_of(variant, results, catalogue, budget, started)


def result_of(variant, results, catalogue, budget, started) -> CheckResult:
    """The CheckResult of searches [(search, verdicts, overrides' counts)], one per scope."""
    verdicts = [v for _, vs, _ in results for v in vs]
    order = {p.name: i for i, p in enumerate(catalogue)}
    verdicts.sort(key=lambda v: order.get(v.name, 0))
    searches = [s for s, _, _ in results]
    r = CheckResult(
        variant=getattr(variant, "name", "baseline") if variant else "baseline", engine="bfs", seed=0,
        budget_s=budget, elapsed_s=time.monotonic() - started,
        bounds={"scopes": [s.scope.describe() for s in searches]}, examples=len(searches),
        steps=sum(s.generated for s in searches),
        action_counts=_summed(s.actions for s in searches), verdicts=verdicts)
    r.states = {"generated": sum(s.generated for s in searches), "distinct": sum(s.distinct for s in searches),
                "depth": min(s.depth for s in searches), "complete": all(s.complete for s in searches),
                "scopes": {s.scope.name: s.stats() for s in searches}}
    r.faults = _distinct_faults(s.fault for s in searches if s.fault is not None)
    r.scope = {s.scope.name: s.scope.describe() for s in searches}
    counted = [o for _, _, o in results if o is not None]
    r.overrides = {rule: {k: sum(o[rule][k] for o in counted) for k in ("calls", "differed")}
                   for rule in counted[0]} if counted else None
    r.stopped = "; ".join(f"{s.scope.name}: every property answered" for s in searches if s.settled)
    return r


def _distinct_faults(found) -> list:
    """One fault per place and kind of exception (two scopes often meet the same one): the shortest."""
    best: dict = {}
    for f in found:
        if f.signature() not in best or len(f.history) < len(best[f.signature()].history):
            best[f.signature()] = f
    return list(best.values())


def _by_name(props) -> bool:
    """Properties a worker process can look up in the catalogue by name."""
    catalogue = load_catalogue()
    return all(catalogue.get(p.name) is p for p in props)


def _picklable(variant) -> bool:
    import pickle
    try:
        pickle.dumps(variant)
        return True
    except Exception:
        return False


def _summed(dicts) -> dict:
    out: dict = {}
    for d in dicts:
        for k, v in d.items():
            out[k] = out.get(k, 0) + v
    return dict(sorted(out.items()))


def verdicts_of(s: Search, make_world, props) -> list:
    """One verdict per property from a search; every trace replayed in the model first."""
    scope_words = f"at scope {s.scope.name} ({s.distinct} states, diameter {s.depth})"
    if s.bounded:
        scope_words = f"for every behaviour of at most {s.depth} steps at scope {s.scope.name} ({s.distinct} states)"
    bound_words = (f"no violation of length <= {s.depth} at scope {s.scope.name} "
                   f"({s.distinct} states; stopped: {s.capped or 'a fault'})")
    done = s.complete or s.bounded
    out = []
    for p in props:
        found, trace, message, loop = s.found.get(p.name), None, None, None
        if found is not None:
            trace, message = _replayed(make_world, s.path(found.parent) + [found.move], props, p)
        lasso = s.liveness.get(p.name)
        if lasso is not None:
            trace, message, loop = _lasso(make_world, s, lasso, p)
        premise = s.premise.get(p.name, 0)
        reached = premise or p.premise is None
        if trace is not None and message is None:
            verdict, message = "tool-error", "the search's trace does not replay in the model (an engine bug)"
            trace = None
        elif p.kind == "witness":
            verdict = "reached" if trace is not None else "unreached"
            if trace is None:
                message = (f"proved unreachable {scope_words}" if s.complete else
                           f"not reached {scope_words}" if s.bounded else f"not reached: {bound_words}")
        elif p.kind == "gap":
            verdict = "known-gap" if trace is not None else (
                ("proved" if reached else "vacuous") if done else "undetermined")
        else:
            verdict = "refuted" if trace is not None else (
                ("proved" if reached else "vacuous") if done else "undetermined")
        if s.bounded and verdict == "proved":
            verdict = "proved-bounded"
        if s.bounded and p.kind == "liveness" and verdict != "refuted":
            verdict = "undetermined"      # a lasso needs the whole graph
        if verdict in ("proved", "proved-bounded", "vacuous"):
            message = scope_words if verdict != "vacuous" else f"premise never reached {scope_words}"
        elif verdict == "undetermined":
            message = bound_words if not s.bounded else f"liveness needs the whole graph; {scope_words}"
        v = PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict, message, trace, premise,
                            s.checks.get(p.name, 0))
        v.loop = loop
        v.scope = s.scope.name            # the world its trace replays in (model.snapshot's scope)
        out.append(v)
    return out


def _replayed(make_world, moves, props, p):
    """Replay `moves`; the Step records and message when p fails at the last step, else (moves, None)."""
    out = run_trace(make_world, moves, props, p.name, liveness=False)
    if out.violation is None or len(out.violation.history) != len(moves):
        return moves, None
    return out.violation.history, out.violation.message


def _lasso(make_world, s: Search, lasso, p):
    """The prefix to the loop's state and the loop, replayed; the obligation pending at the end."""
    from model.fairness import progress_moves
    moves = s.path(lasso.state) + list(lasso.loop)
    world = make_world()
    try:
        for name, args in moves:
            step = world.apply(name, args)
            if p.monitor is not None:
                p.monitor(world, step)
    except Exception:
        return moves, None, None
    world.facts["drain_quiesced"] = not lasso.loop      # stuttering: nothing fair is left to do
    pending = p.check(world, None)
    if not pending or (not lasso.loop and progress_moves(world)):
        return moves, None, None
    loop_at = len(moves) - len(lasso.loop)
    shape = (f"then stutters for ever at step {loop_at}: no fair progress move is enabled" if not lasso.loop else
             f"then loops for ever over steps {loop_at + 1}..{len(moves)}, a fair cycle")
    return world.history, f"{pending} ({shape})", loop_at
