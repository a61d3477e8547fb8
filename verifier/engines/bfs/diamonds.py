"""The independence a partial-order reduction would reorder by, checked on a scope's graph.

Two moves enabled in one state are independent by their declarations (`model.footprint.conflict`)
when neither writes what the other reads, writes or is enabled by. Each move's footprint is its
action's (`Footprint.of`, `Footprint.enabling`) in the state, joined with the epilogue's
(`Rules.after_step`, which `World.apply` runs after every move) in its successor. A move that calls a
rule the world's rules override may do anything: it is dependent on every other.

`diamonds(world, renames)` takes every independent pair both ways round: each move must stay enabled
after the other (the same arguments), and both orders must reach one state (its fingerprint, with the
scope's renaming of request ids). A pair that does not is a false declaration: the reduction would
lose the states between. `walk(spec, depth)` does this at every state of a scope's graph, breadth
first.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model import footprint as fp
from model.snapshot import clone, fingerprint
from model.world import action_table
from verifier.engines.bfs.ample import effect_of
from verifier.engines.bfs.footprints import overridden
from verifier.runtime import scopes
from verifier.runtime.worlds import make_world_for

def effect(world, name: str, args: dict, changed=frozenset()):
    """(the move's `fp.Effect`, its successor)."""
    after = clone(world)
    after.apply(name, args, check=False, say=False)
    return effect_of(world, name, args, after, changed), after


def enabled(world) -> list[tuple[str, dict]]:
    return [(name, dict(a)) for name, act in action_table().items() for a in act.moves(world)]


@dataclass
class Found:
    """What `diamonds` found in one state."""
    moves: list = field(default_factory=list)          # the enabled moves, (action, args)
    independent: list = field(default_factory=list)    # (i, j) indices into the enabled moves
    dependent: list = field(default_factory=list)      # (i, j)
    broken: list = field(default_factory=list)         # (move, move, what broke)
    dependent_by: dict = field(default_factory=dict)   # (action, action, key kind) -> pairs
    successors: list = field(default_factory=list)


def diamonds(world, renames: bool) -> Found:
    moves = enabled(world)
    changed = overridden(world)
    effects = [effect(world, n, a, changed) for n, a in moves]
    out = Found(moves=moves, successors=[after for _, after in effects])
    for i in range(len(moves)):
        for j in range(i + 1, len(moves)):
            key = fp.conflict(effects[i][0], effects[j][0], world, renames)
            if key is not None:
                kind = key[0] if key[0] != "all" else f"all {key[1]}"
                pair = (moves[i][0], moves[j][0], kind)
                out.dependent_by[pair] = out.dependent_by.get(pair, 0) + 1
                out.dependent.append((i, j))
                continue
            out.independent.append((i, j))
            ends = []
            for (t, u, after_t) in ((moves[i], moves[j], effects[i][1]), (moves[j], moves[i], effects[j][1])):
                if u[1] not in action_table()[u[0]].moves(after_t):
                    out.broken.append((t, u, f"{u[0]}({u[1]}) is no longer enabled after {t[0]}({t[1]})"))
                    break
                end = clone(after_t)
                end.apply(u[0], u[1], check=False, say=False)
                ends.append(fingerprint(end, renames, facts=False))
            else:
                if ends[0] != ends[1]:
                    out.broken.append((moves[i], moves[j], "the two orders reach different states"))
    return out


def owner(move) -> tuple:
    """Whose move it is, for an ample set of more than one move: a client's sends are its choices (at
    its last request they take each other back), a request's steps and a run's steps likewise."""
    name, args = move
    for k in ("client", "request", "run", "interrupt"):
        if k in args:
            return (k, args[k])
    return ("action", name)


def free_owner(found: Found):
    """An owner whose enabled moves are independent of every other enabled move (not all the moves):
    the first condition for those moves to be an ample set. None if there is none."""
    owners = [owner(m) for m in found.moves]
    crossing = {o for i, j in found.dependent if owners[i] != owners[j] for o in (owners[i], owners[j])}
    free = [o for o in dict.fromkeys(owners) if o not in crossing]
    return free[0] if free and len(set(owners)) > 1 else None


@dataclass
class Walk:
    states: int = 0
    with_pair: int = 0          # states where some two enabled moves are independent
    with_alone: int = 0         # states where some move is independent of every other enabled move
    with_owner: int = 0         # states where one owner's moves are independent of every other (`free_owner`)
    pairs: int = 0              # independent pairs taken both ways round
    broken: list = field(default_factory=list)
    dependent_by: dict = field(default_factory=dict)
    levels: list = field(default_factory=list)


def walk(spec: str, depth: int | None = None, make_world=None) -> Walk:
    """Every state of the scope's graph to `depth` levels (all of it: None), checked by `diamonds`."""
    sc = scopes.parse(spec)
    w0 = (make_world or make_world_for(None, sc))()
    renames = sc.renames(params=w0.params)
    seen, frontier, out = {fingerprint(w0, renames)}, [w0], Walk()
    while frontier and (depth is None or len(out.levels) < depth):
        nxt = []
        for w in frontier:
            found = diamonds(w, renames)
            out.states += 1
            out.pairs += len(found.independent)
            out.with_pair += bool(found.independent)
            partners = {k for pair in found.independent for k in pair}
            out.with_alone += any(sum(k in p for p in found.independent) == len(found.moves) - 1 for k in partners)
            out.with_owner += free_owner(found) is not None
            out.broken += [(w, *b) for b in found.broken]
            for k, n in found.dependent_by.items():
                out.dependent_by[k] = out.dependent_by.get(k, 0) + n
            for c in found.successors:
                f = fingerprint(c, renames)
                if f not in seen:
                    seen.add(f)
                    nxt.append(c)
        frontier = nxt
        out.levels.append(len(seen))
    return out
