"""Partitioned exhaustive search: one scope's breadth-first search spread over worker processes.

Level-synchronous. The frontier of a level is split by fingerprint into shards; `pool.map`
expands each shard in a worker (`expand_shard`: a top-level function whose arguments are plain
data, so a Ray pool can run it as a task), which rebuilds each state from its compact encoding
(`model.snapshot.encode`), takes every enabled move, checks every property (a closed one unheard), and returns the
successors with their fingerprints, the violations, premise counts, faults and what liveness needs
of the state. The coordinator keeps the seen set and merges the shards' answers in the order the
single-process search visits them (frontier order, then move order), so it gives the same search:
the same state ids and parent links, distinct and generated counts, depth, verdicts, shortest
lengths and counterexamples (`tests/test_partition.py` holds it to that).

One subtlety keeps it exact. The single-process search stops checking a property at its first
violation, and a trace property's monitor state is part of the fingerprint, so closing it changes
the states that follow. A worker cannot know what another shard found in the same level, so when
a level holds a violation the coordinator takes the earliest one (in visiting order), cuts that
property off after it, and expands again the states of the level from there on that the other
shards hold (the shard that found it closed it there and went on in order, as the single process
does); this is repeated once per distinct position of a first violation in the level.

A pool with `map_pinned` (`LocalPool`: shard k always runs in worker k, whose memory lasts
between levels) lets a worker keep the successors of its own shard instead of encoding them: the
coordinator sends such a state back as its fingerprint alone when the first transition into it was
that worker's, and only states made in another shard travel encoded. A pool with `map` alone (Ray's)
ships every state.

Liveness is judged on the whole graph as before: each state's progress moves and pending
obligations come back from its worker with its out-edges, and the coordinator builds the graph
(`verifier.engines.bfs.fair`). A variant given as an amendment file travels as its path and is loaded
in the worker (the same path must exist there). The pool only needs `map(fn, items) -> list` in
order: `LocalPool` is a process pool of this machine; `verifier.engines.cluster` provides one over Ray.
Fingerprints do not depend on the process (no string hashing: sets are sorted where a state holds
them), so workers started fresh, with other hash seeds, agree with the coordinator.
"""
from __future__ import annotations

import gc
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field

from model.snapshot import decode, encode, fingerprint, forget_texts
from model.world import action_table
from properties.base import load_catalogue

from verifier.runtime.budgets import TIME_CAP
from verifier.runtime.collector import RARE, quiet_gc
from verifier.runtime import faults, interrupt, watchdog
from verifier.engines.bfs import search as bfs, fair
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for


class LocalPool:
    """A process pool on this machine: `map(fn, items)` gives fn's results in the items' order,
    each item run by whichever worker is free; `map_pinned` runs item i in worker i % workers,
    whose memory lasts between calls (the partitioned search keeps a worker's own states there
    instead of shipping them)."""

    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self._executors = [ProcessPoolExecutor(max_workers=1) for _ in range(workers)]

    def map(self, fn, items: list) -> list:
        results: list = [None] * len(items)
        todo, free, running = iter(enumerate(items)), list(range(self.workers)), {}
        while True:
            for k in list(free):
                got = next(todo, None)
                if got is None:
                    break
                free.remove(k)
                running[self._executors[k].submit(fn, got[1])] = (got[0], k)
            if not running:
                return results
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                i, k = running.pop(fut)
                results[i] = fut.result()
                free.append(k)

    def map_pinned(self, fn, items: list) -> list:
        futures = [self._executors[i % self.workers].submit(fn, item) for i, item in enumerate(items)]
        return [f.result() for f in futures]

    def close(self) -> None:
        for ex in self._executors:
            ex.shutdown(wait=True, cancel_futures=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# ---- the worker's side ---------------------------------------------------------------------------
def variant_spec(variant):
    """What names a variant in another process: None (the baseline), an amendment file's path
    (loaded there), or the class itself (a built-in, importable by name)."""
    if variant is None:
        return None
    origin = getattr(variant, "_origin", None)
    if origin is not None:
        return str(origin[0])
    return variant


def _load_variant(spec):
    if spec is None or not isinstance(spec, str):
        return spec
    from model.amend import load_file
    return load_file(spec)


_CONTEXT: dict = {}      # the worker's variant, initial world and properties, kept between tasks


def _context(spec, scope, names, shadow):
    key = (spec if isinstance(spec, str) or spec is None else (spec.__module__, spec.__qualname__),
           repr(scope), tuple(names), shadow)
    got = _CONTEXT.get(key)
    if got is None:
        variant, recorder = _load_variant(spec), None
        if shadow and variant is not None:
            from verifier.runtime.shadow import instrument
            variant, recorder = instrument(variant)
        catalogue = load_catalogue()
        props = [catalogue[n] for n in names]
        _CONTEXT.clear()
        forget_texts()
        got = _CONTEXT[key] = (make_world_for(variant, scope)(), props, recorder)
    return got


# A pinned worker's own states (`LocalPool.map_pinned`): the successors it made whose shard is its own
# are kept here rather than encoded, and the coordinator sends their fingerprint alone when the
# first transition into one (in the single-process order) was this worker's.
_HELD: dict = {"search": None, "level": -1, "cur": {}, "next": {}}


def _held(task) -> dict:
    """This worker's kept states for the task's search and level: `cur` the level's own states,
    `next` {fingerprint: (world, position of the state that made it)} the successors kept so far."""
    h = _HELD
    if h["search"] != task["search"]:
        h.update(search=task["search"], level=-1, cur={}, next={})
        forget_texts()
        gc.set_threshold(*RARE)     # between tasks, collections walk the states it keeps: seldom
    if h["level"] != task["level"]:
        h["cur"] = {f: w for f, (w, _) in h["next"].items()} if h["level"] == task["level"] - 1 else {}
        h["next"], h["level"] = {}, task["level"]
    elif task["items"]:             # the level again from a cut-off: what its states made from there goes
        first = task["items"][0][0]
        h["next"] = {f: x for f, x in h["next"].items() if x[1] < first}
    return h


@dataclass
class Expanded:
    """One state's expansion, as a worker returns it."""
    pos: int                 # its place in the level's frontier
    succ: list = field(default_factory=list)        # (action, args, fingerprint) per transition, in order
    encodings: dict = field(default_factory=dict)   # fingerprint -> encoding, for those first met here
    found: dict = field(default_factory=dict)       # property -> (transition ordinal, message, (action, args))
    premise: dict = field(default_factory=dict)
    generated: int = 0
    actions: dict = field(default_factory=dict)
    forms: dict = field(default_factory=dict)
    info: tuple | None = None                        # fair.state_info, when liveness is judged
    fault: faults.Fault | None = None                # its history: the faulting move alone
    capped: str = ""                                 # the command's cap passed while it was expanded
    overrides: dict | None = None                    # the shadow's counts during this expansion


class _Tally:
    """The part of a `bfs.Search` one expansion writes to (the checker's `s`)."""

    def __init__(self, item: Expanded):
        self.item = item
        self.generated = 0
        self.actions = item.actions
        self.forms = item.forms
        self.premise = item.premise
        self.found: dict = {}
        self.checks: dict = {}
        self.started = time.monotonic()


class _ShardChecker(bfs.Checker):
    """The checker of a shard: a property is open until its first violation here, and never after
    its cut-off (the position of its first violation in the level, found by another pass)."""

    def __init__(self, safety, open_names, cutoffs):
        super().__init__(safety, None)
        self.reopen([x for x in self.entries if x[0] in open_names])
        self.cutoffs = cutoffs
        self.pos = 0

    def check(self, world, step, sid, name, args):
        at = (self.pos, self.s.generated - 1)
        if self.cutoffs and any(at > self.cutoffs.get(n, at) for n, _, _ in self.open):
            self.reopen([x for x in self.open if at <= self.cutoffs.get(x[0], at)])
        found = self.s.found
        before = len(found)
        super().check(world, step, sid, name, args)
        if len(found) > before:
            for n, f in found.items():
                self.s.item.found.setdefault(n, (at[1], f.message, f.move))


def expand_shard(task: dict) -> list:
    """Expand one shard of a level (see the module's docstring); a list of `Expanded`, one per
    state in order, stopping early (the rest left out) when the time left runs out."""
    template, props, recorder = _context(task["variant"], task["scope"], task["props"], task["shadow"])
    live = [p for p in props if p.kind == "liveness"]
    safety = [p for p in props if p.kind != "liveness"]
    monitors = [p.monitor for p in live if p.monitor is not None]
    checker = _ShardChecker(safety, set(task["open"]), task["cutoffs"])
    table = action_table()
    names = list(table)
    rename, want_graph = task["rename"], task["graph"] and bool(live)
    stop_at = time.monotonic() + task["seconds"]
    met: set = set()
    out = []
    held = _held(task) if task.get("shard") is not None else None
    own, shards = task.get("shard"), task.get("shards")
    with _watchdog(task["step_limit"]) as dog, quiet_gc():
        for pos, data in task["items"]:
            interrupt.check()
            if time.monotonic() > stop_at:
                break
            item = Expanded(pos)
            tally = checker.s = _Tally(item)
            checker.pos = pos
            before = recorder.summary() if recorder is not None else None
            here = ["the enabled moves", None]
            w = decode(data, template) if type(data) is bytes else held["cur"][data[1]]
            try:
                with dog.bounded():
                    enabled = bfs.enabled_moves(w, table, names, here)
                    if want_graph:
                        item.info = fair.state_info(w, live, enabled)
                    for name, args, c, f in bfs.successors(w, enabled, monitors, checker, rename, here, pos, tally):
                        item.succ.append((name, args, f))
                        if held is not None and shard_of(f, shards) == own:
                            if f not in held["next"]:
                                held["next"][f] = (c, pos)
                        elif f not in met:
                            met.add(f)
                            item.encodings[f] = encode(c)
            except KeyboardInterrupt:
                raise
            except watchdog.CapReached as e:    # not expanded: the search stops here, the cap named
                item.capped = str(e)
            except BaseException as e:      # noqa: B036 -- a rule raised, exited or hung: a fault
                item.fault = _fault(here, e)
            item.generated = tally.generated
            if recorder is not None:
                now = recorder.summary()
                item.overrides = {r: {k: now[r][k] - before[r][k] for k in now[r]} for r in now}
            out.append(item)
            if item.fault is not None or item.capped:
                break
    if held is None:
        forget_texts(pieces=False)      # the texts belong to this task's states; the pieces to the search
    return out


@contextmanager
def _watchdog(limit):
    """The worker's watchdog: the one a forked worker inherited from its command, else its own."""
    dog = watchdog.current()
    if dog.active:
        yield dog
        return
    with watchdog.Watchdog(limit) as dog:
        yield dog


def _fault(here, e) -> faults.Fault:
    name, args = here
    where = name if args is not None else f"the enabled moves of {name}"
    if isinstance(e, bfs.CheckFault):
        where, e = f"the check of {e.name}", e.error
    return faults.Fault(faults.locate(e), faults.one_line(e), [(name, dict(args))] if args is not None else [], where)


# ---- the coordinator -----------------------------------------------------------------------------
def shard_of(f: bytes, shards: int) -> int:
    """The shard of a state: by its fingerprint, the same in every process."""
    return int.from_bytes(f[:8], "little") % shards


def search(variant, make_world, props, scope: scopes.Scope, pool, rename: bool = True, deadline: float | None = None,
           max_states: int | None = None, progress=None, max_depth: int | None = None, shadow: bool = False,
           shards: int | None = None):
    """The partitioned search (see the module's docstring): a `bfs.Search`, and the shadow's
    counts of the expansions (None without `shadow`)."""
    started = time.monotonic()
    s = bfs.Search(scope, started=started)
    props = list(props)
    live = [p for p in props if p.kind == "liveness"]
    safety = [p for p in props if p.kind != "liveness"]
    graph = fair.Graph() if live else None
    pinned = hasattr(pool, "map_pinned")
    shards = pool.workers if pinned else (shards or max(1, getattr(pool, "workers", 2)))
    w0 = make_world()
    rename = scope.renames(rename, w0.params)
    base = dict(variant=variant_spec(variant), scope=scope, props=[p.name for p in props], rename=rename,
                graph=graph is not None, shadow=shadow, step_limit=watchdog.current().limit or watchdog.DEFAULT_STEP_LIMIT,
                search=f"{os.getpid()}-{id(s)}-{started}" if pinned else None)
    f0 = fingerprint(w0, rename)
    seen = {f0: 0}
    s.parents.append(-1)
    s.moves.append(None)
    frontier = [(0, f0, encode(w0))]
    open_names = [p.name for p in safety]
    overrides: dict = {}
    try:
        with quiet_gc():
            while frontier:
                results = _level(frontier, dict(base, level=s.depth), open_names, pool, shards, deadline, pinned)
                nxt = _merge(s, frontier, results, seen, graph, open_names, overrides, max_states, shards)
                if progress is not None:
                    s.distinct, s.elapsed = len(s.moves), time.monotonic() - started
                    progress(s, len(nxt))
                frontier = nxt
                if bfs.level_done(s, frontier, max_depth, safety, open_names, live):
                    raise bfs._Stop
        s.complete = True
        s.depth -= 1
    except bfs._Stop:
        pass
    bfs.finish(s, safety, live, graph)
    return s, (overrides if shadow else None)


def _level(frontier, base, open_names, pool, shards, deadline, pinned=False) -> list:
    """Every state of a level expanded: [Expanded | None] in frontier order (None: not reached
    before the deadline). Repeated from the earliest new first violation on, with that property
    cut off after it, until no pass finds one the cut-offs do not already hold."""
    results: list = [None] * len(frontier)
    cutoffs: dict = {}
    todo = list(range(len(frontier)))
    while todo:
        parts: list = [[] for _ in range(shards)]
        for pos in todo:
            results[pos] = None        # a pass the deadline cuts short leaves no stale answer
            parts[shard_of(frontier[pos][1], shards)].append((pos, frontier[pos][2]))
        seconds = max(0.0, deadline - time.monotonic()) if deadline is not None else 1e9
        if pinned:          # one task per worker, in shard order, so that shard k is always worker k
            tasks = [dict(base, open=list(open_names), cutoffs=dict(cutoffs), items=items, seconds=seconds,
                          shard=k, shards=shards) for k, items in enumerate(parts)]
        else:
            tasks = [dict(base, open=list(open_names), cutoffs=dict(cutoffs), items=items, seconds=seconds)
                     for items in parts if items]
        for out in (pool.map_pinned if pinned else pool.map)(expand_shard, tasks):
            for item in out:
                results[item.pos] = item
        first = _first_new(results, cutoffs)
        if first is None:
            break
        at, names = first
        for n in names:
            cutoffs[n] = at
        # The shard that found them closed them there and went on in order, as the single process
        # does: its later states stand. The other shards' later states had them open: again.
        finder = shard_of(frontier[at[0]][1], shards)
        todo = [pos for pos in range(at[0] + 1, len(frontier)) if shard_of(frontier[pos][1], shards) != finder]
    return results


def _first_new(results, cutoffs):
    """(the earliest position of a first violation the cut-offs do not hold, the properties
    violated there), before any fault or state left unexpanded; None when there is none."""
    best, names = None, []
    for item in results:
        if item is None:
            break
        for n, (ordinal, _, _) in item.found.items():
            if n in cutoffs:
                continue
            at = (item.pos, ordinal)
            if best is None or at < best:
                best, names = at, [n]
            elif at == best:
                names.append(n)
        if best is not None and best[0] == item.pos or item.fault is not None:
            break           # positions are visited in order: nothing later comes first
    return None if best is None else (best, names)


def _merge(s, frontier, results, seen, graph, open_names, overrides, max_states, shards=1) -> list:
    """Add a level's expansions to the search, in the single-process order; the next frontier
    [(state id, fingerprint, its encoding, or ("held", fingerprint) where the worker of its shard
    made it first and kept it)]."""
    nxt = []
    for (sid, fp, _), item in zip(frontier, results):
        if item is None or item.capped:
            s.capped = f"{TIME_CAP} ({item.capped})" if item is not None else TIME_CAP
            raise bfs._Stop
        if graph is not None and item.info is not None:
            graph.add_state(sid, item.info)
        base = s.generated
        s.generated += item.generated
        for name, n in item.actions.items():
            s.actions[name] = s.actions.get(name, 0) + n
        for form, n in item.forms.items():
            s.forms[form] = s.forms.get(form, 0) + n
        for name, n in item.premise.items():
            s.premise[name] = s.premise.get(name, 0) + n
        for name, (ordinal, message, move) in item.found.items():
            if name not in s.found:
                s.found[name] = bfs.Found(message, sid, move, time.monotonic() - s.started)
                s.checks[name] = base + ordinal + 1
        open_names[:] = [n for n in open_names if n not in s.found]
        for rule, counts in (item.overrides or {}).items():
            got = overrides.setdefault(rule, {"calls": 0, "differed": 0})
            for k, v in counts.items():
                got[k] = got.get(k, 0) + v
        edges = [] if graph is not None else None
        for name, args, f in item.succ:
            cid = seen.get(f)
            if cid is None:
                cid = seen[f] = len(s.moves)
                s.parents.append(sid)
                s.moves.append((name, args))
                data = item.encodings.get(f)
                if data is None:        # kept by the worker that made it: it expands it next
                    if shard_of(f, shards) != shard_of(fp, shards):
                        raise RuntimeError(f"no encoding of a new state made in another shard ({f.hex()})")
                    data = ("held", f)
                nxt.append((cid, f, data))
            if edges is not None:
                edges.append((cid, name, args))
        if item.fault is not None:       # the state's expansion stopped part way: no graph to judge
            item.fault.history = s.path(sid) + item.fault.history
            s.fault = item.fault
            raise bfs._Stop
        if graph is not None:
            graph.add_edges(sid, edges)
        if max_states is not None and len(s.moves) > max_states:
            s.capped = f"{max_states} states"
            raise bfs._Stop
    return nxt


def search_partitioned(variant, scope, pool, props=None, symmetry=True, budget=60.0, max_states=None, max_depth=None,
                       progress=None, shadow=False):
    """The exhaustive search of a variant at ONE scope (a name, `NAME,field=value,...` or a
    Scope), its levels expanded by `pool`: a CheckResult identical to `bfs.run_bfs` at that scope
    (the properties of the catalogue by default, every one judged at this scope)."""
    started = time.monotonic()
    scope = scope if isinstance(scope, scopes.Scope) else scopes.parse(scope)
    catalogue = list(props) if props is not None else list(load_catalogue().values())
    judged = judge(variant, scope, catalogue, pool, symmetry, budget, max_states, max_depth, progress, shadow)
    return bfs.result_of(variant, [judged], catalogue, budget, started)


def judge(variant, scope, props, pool, rename, seconds, max_states, max_depth, progress, shadow=False):
    """(the search, its verdicts, the overrides' counts) of one scope, as `bfs._judged` gives them."""
    recorder = None
    replay_variant = variant
    if shadow and variant is not None:
        from verifier.runtime.shadow import instrument
        replay_variant, recorder = instrument(variant)
    make = make_world_for(replay_variant, scope)
    bound = min(d for d in (max_depth, scope.depth) if d is not None) if (max_depth or scope.depth) else None
    s, counted = search(variant, make, props, scope, pool, rename=rename, deadline=time.monotonic() + seconds,
                        max_states=max_states, progress=progress, max_depth=bound, shadow=shadow)
    if s.fault is not None:
        from verifier.runtime.worlds import guarded_factory
        from verifier.runtime.replay import fault_of_moves
        s.fault = fault_of_moves(guarded_factory(make), s.fault.history, props) or s.fault
    verdicts = bfs.verdicts_of(s, make, props)
    overrides = None
    if recorder is not None:
        overrides = recorder.summary()
        for rule, counts in (counted or {}).items():
            for k, v in counts.items():
                overrides[rule][k] += v
    return s, verdicts, overrides
