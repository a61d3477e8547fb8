"""The shortest behaviour violating one property, by breadth-first search from the initial state,
for shortening a trace another engine found (`shortest`).

Searched at a scope whose sizes are bounds only (clients, servers, requests, runs, ticks, ...):
every other parameter is the engine's own world's, so a behaviour found here is one of that world
too, and it is replayed there before it is returned. The search is bounded by work (a depth and a
number of states), never by time, so what it returns depends on its inputs alone.
"""
from __future__ import annotations

from dataclasses import dataclass

from model.host import child_runs
from model.snapshot import clone, fingerprint
from model.world import World, action_table
from verifier.engines.bfs.search import Search, enabled_moves, search, successors
from verifier.runtime import interrupt, scopes, watchdog
from verifier.runtime.checking import Observations, Violation, check_liveness
from verifier.runtime.replay import run_trace

# The Params fields that only bound the environment: a smaller value removes behaviours and changes
# none. A scope's other fields (retention) are taken from the world the trace replays in.
BOUNDS = ("clients", "servers", "stdio", "max_requests", "retry_reserve", "max_runs", "max_interrupts",
          "max_pauses", "max_children", "rest_subjects", "max_effects", "max_time", "harness_clients",
          "harness_max_runs", "harness_max_requests", "harness_max_crashes", "harness_max_attempts")

MAX_STATES = 20_000     # per search: a few seconds


@dataclass
class Shortened:
    trace: list | None          # the Step records of a shorter violation, replayed in the engine's world
    message: str | None
    how: str                    # what was searched, and what came of it


def fitted(world, composed: bool) -> dict:
    """The bounds of the smallest scope `world`'s behaviour (its history) lies in."""
    hist = world.history
    used = {s.args.get("client") for s in hist} | {q.client for q in world.requests.values()}
    sizes = {
        "clients": tuple(c for c in world.params.clients if c in used),
        "servers": tuple(sv for sv in world.params.servers
                         if sv[0] in {s.args.get("server") for s in hist} | {q.server for q in world.requests.values()}),
        "stdio": any(q.transport == "stdio" for q in world.requests.values()) or any(
            s.action.startswith("stdio_") for s in hist),
        "max_requests": len(world.requests), "retry_reserve": 0, "max_runs": len(world.runs),
        "max_interrupts": len(world.interrupts), "max_pauses": sum(s.action == "operator_pause" for s in hist),
        "max_children": child_runs(world),
        "rest_subjects": tuple(sorted({s.args["subject"] for s in hist
                                       if s.action.startswith(("rest_", "operator_", "fork")) and "subject" in s.args})),
        "max_effects": world.effects, "max_time": world.clock}
    h = world.harness
    if composed and h is not None:
        sizes.update(harness_clients=tuple(c for c in world.params.harness_clients if c[0] in used),
                     harness_max_runs=h.runs_started, harness_max_requests=h.requests, harness_max_crashes=h.crashes)
    return sizes


# What a scope's search branches on (who sends, to whom, how many requests): kept at the scope's
# own when it is widened to a trace; the rest (runs, interrupts, pauses, effects, ticks, the REST
# side) grows to what the trace used.
BRANCHING = ("clients", "servers", "stdio", "max_requests", "retry_reserve", "harness_clients", "harness_max_requests")


def widened(sizes: dict, own: dict) -> dict:
    """`sizes` (a scope's), each bound but the branching ones raised to `own`'s where that is larger."""
    out = dict(sizes)
    for k, v in own.items():
        if k in BRANCHING or k not in sizes:
            continue
        if k == "rest_subjects":
            out[k] = tuple(sorted(set(sizes[k] or ()) | set(v)))
        elif sizes[k] is not None and v is not None and v > sizes[k]:
            out[k] = v
    return out


def _factory(variant, base, sizes: dict, composed: bool):
    from model.amend import Amendment
    params = base.with_(**{k: v for k, v in sizes.items() if k in BOUNDS})
    if variant is not None and isinstance(variant, type) and issubclass(variant, Amendment):
        params = variant.make_params(params)
    harness_rules = getattr(variant, "harness_rules", None) if variant is not None else None

    def make():
        rules = variant() if variant is not None else None
        return World.composed(params, rules, harness_rules) if composed else World(params, rules)
    return make


def _unpaid(world, prop) -> bool:
    """The fair drain from `world` leaves `prop` (liveness) unpaid, as `run_trace` judges it."""
    try:
        check_liveness(clone(world), [prop], {prop.name}, Observations())
    except Violation:
        return True
    return False


class _NoChecks:
    entries = ()


def _stem_search(make_world, prop, scope, depth: int, max_states: int) -> tuple[list | None, Search]:
    """Breadth-first, the shortest stem after which the fair drain leaves `prop` unpaid."""
    table = action_table()
    names = list(table)
    s = Search(scope)
    w0 = make_world()
    rename = scope.renames(True, w0.params)
    seen = {fingerprint(w0, rename)}
    s.parents.append(-1)
    s.moves.append(None)
    frontier, here = [(0, w0)], ["", None]
    monitors = [prop.monitor] if prop.monitor is not None else []
    for _ in range(depth):
        nxt = []
        for sid, w in frontier:
            interrupt.check()
            with watchdog.current().bounded():      # as the search does: each state's moves as one step
                for name, args, c, f in successors(w, enabled_moves(w, table, names, here), monitors, _NoChecks,
                                                   rename, here, sid, s):
                    if f in seen:
                        continue
                    seen.add(f)
                    s.parents.append(sid)
                    s.moves.append((name, dict(args)))
                    if _unpaid(c, prop):
                        return s.path(len(s.moves) - 1), s
                    if len(s.moves) > max_states:
                        s.capped = f"{max_states} states"
                        return None, s
                    nxt.append((len(s.moves) - 1, c))
        frontier = nxt
        s.depth += 1
        if not frontier:
            s.complete = True
            break
    return None, s


def _found(make_world, prop, scope, depth: int, max_states: int) -> tuple[list | None, Search]:
    if prop.kind == "liveness":
        return _stem_search(make_world, prop, scope, depth, max_states)
    s = search(make_world, [prop], scope, max_states=max_states, want_graph=False, max_depth=depth)
    got = s.found.get(prop.name)
    return (s.path(got.parent) + [got.move] if got is not None and s.fault is None else None), s


def shortest(variant, make_world, trace, catalogue, prop, base=None, max_states: int = MAX_STATES) -> Shortened:
    """A shorter trace than `trace` (Step records violating `prop` in `make_world()`'s world), by
    breadth-first search at the property's scope (its home, or its side's default), at that scope
    widened to the runs, ticks and REST side the trace used, and at the scope the trace's own
    behaviour lies in; each bounded by the best length so far and by `max_states`. In the result,
    `trace` is None when nothing shorter was found, and `how` says what was searched and why."""
    from model.params import Params
    base = base or Params()
    out = run_trace(make_world, [(s.action, s.args) for s in trace], catalogue, prop.name,
                    created=[s.created for s in trace])
    if out.violation is None:
        return Shortened(None, None, "kept: the trace does not replay")
    harness = prop.area in ("harness", "e2e")
    side = scopes.parse(scopes.home(prop.ids) or (scopes.DEFAULT_COMPOSED if harness else scopes.DEFAULT_HOST))
    own = fitted(out.world, harness)
    candidates = [(side.name, side.sizes, side.composed),
                  (f"{side.name}+trace", widened(side.sizes, own), side.composed),   # its runs, ticks, REST side
                  ("trace", own, harness)]                                           # the scope the trace lies in
    best, message, found_at, notes, tried = None, None, "", [], []
    for name, sizes, composed in candidates:
        sizes = {k: v for k, v in sizes.items() if k in BOUNDS}
        if (sizes, composed) in tried:
            continue
        tried.append((sizes, composed))
        length = len(best or trace)
        make = _factory(variant, base, sizes, composed)
        scope = scopes.Scope(name, "", sizes, composed)
        try:
            moves, s = _found(make, prop, scope, length - 1, max_states)
            got = run_trace(make_world, moves, catalogue, prop.name) if moves is not None else None
        except KeyboardInterrupt:
            raise
        except Exception as e:          # a rule raised in a state the trace never reached: not this trace's fault
            notes.append(f"{name} a fault ({type(e).__name__})")
            continue
        if moves is None:
            notes.append(f"{name} a fault ({s.fault.where})" if s.fault is not None else
                         f"{name} capped at {s.capped}" if s.capped else f"{name} none within {s.depth}")
        elif got.violation is None or len(got.violation.history) >= length:
            notes.append(f"{name} {len(moves)}{' (stem)' if prop.kind == 'liveness' else ''}, not shorter replayed")
        else:
            best, message, found_at = got.violation.history, got.violation.message, name
    how = (f"bfs at {found_at}: {len(best)} steps, shrunk {len(trace)}" if best is not None else
           f"shrunk {len(trace)} steps kept; bfs: " + ", ".join(notes))
    return Shortened(best, message, how)
