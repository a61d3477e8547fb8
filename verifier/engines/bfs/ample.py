"""A partial-order reduction for the exhaustive engine: ample sets of one agent's moves.

Every move belongs to an agent (`agent`): a request's steps (the host's answer and `respond`, a
progress event, a delivery, a disconnect, a stdio cancellation, the end of a listen) to the request,
a run's steps to the run, the clock's ticks and purges to the clock, and the plain clients' sends,
the REST side and the harness each to one agent of their own. At a state, the enabled moves of one
request or run may be taken alone (an ample set) when:

- **C1, present and future**: no other agent's move, now or on any path that takes none of them, is
  dependent on them. Each agent has an *envelope* (`envelopes`): the keys its moves may write and
  read from this state on, itself and through the agents it creates. The chosen agent's moves (their
  footprints, `model.footprint`, joined with the epilogue's) must write nothing the others' envelopes
  touch and read nothing they write, and no other agent may write what enables the chosen one's
  other moves (`enablers`: its own key, and the run an unanswered request waits on). An agent whose
  actions may call a rule the world's rules override, a plain client that may still send, the REST
  callers and the operator, the harness, and every agent while a listen stream exists (the epilogue
  after every move publishes to it) have the envelope of everything;
- **C2, invisible**: the checks of the move changed no property's memory (the monitor keys of
  `world.facts`: the move is taken and checked like every other), and every property the search
  checks (open or closed: a closed one still runs) reads, at any transition, only that transition's
  footprint, its memory and what it declares beyond (`properties.visibility`), none of which the move
  writes. A move the reduction takes before a transition t, independent of t, then changes nothing
  any check sees at t: a violation (a premise, a witness) reached in the full graph is reached in the
  reduced one, later perhaps, and its trace replays as any other;
- **C3, the cycle proviso** (breadth-first): every successor is a state of the next level (not seen
  before, or first seen from this level). Along a cycle the levels cannot only rise, so some edge of
  it leads to a level no deeper than its source's, whose state was then fully expanded.

A search checking a liveness property, or bounded by depth (a bound counts steps, which the
reduction does not keep), is not reduced. Every move of a state the search expands is still taken
and checked; only the successors outside the ample set are not queued. The envelopes and the
visibility declarations are claims, held at every transition of a whole graph by `verify_edge`
(`search(..., por="verify")`, tests/test_por.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from model import footprint as fp
from model import identity
from model.clients import may_send
from model.host import respond_reach
from model.lifecycle import TERMINAL
from model.snapshot import clone, freeze
from model.world import action_table
from properties import visibility
from properties.base import guard_facets
from verifier.engines.bfs import footprints as F
from verifier.engines.bfs.footprints import overridden

EVERY = frozenset({fp.EVERYTHING})

# Which agent's moves each action makes (the others: their actor's).
REQUEST_STEPS = frozenset({"answer", "respond", "stream_event", "deliver", "disconnect", "end_listen", "stdio_cancel"})
RUN_STEPS = frozenset({"run_start", "run_effect", "run_compensate", "run_interrupt", "run_complete", "run_fail",
                       "run_spawn", "run_finish_cancel", "external_event", "await_external", "persist"})
CLOCK_STEPS = frozenset({"clock_tick", "purge"})
CLIENTS, REST, HARNESS, CLOCK = ("clients",), ("rest",), ("harness",), ("clock",)
# Phases after which a request's only step left is a disconnect (cancelling what it owns).
ANSWERED = frozenset({"sent", "delivered", "lost", "cancelled"})


def agent(world, name: str, args: dict) -> tuple:
    """The agent whose move (name, args) is."""
    if name in REQUEST_STEPS:
        return ("request", args["request"])
    if name in RUN_STEPS:
        return ("run", args["run"] if "run" in args else world.interrupts[args["interrupt"]].run)
    if name in CLOCK_STEPS:
        return CLOCK
    actor = action_table()[name].actor
    return HARNESS if actor == "harness" else REST if actor == "rest" else CLIENTS


@dataclass(frozen=True)
class Envelope:
    """What an agent's moves may write and read from a state on (reads beyond the writes)."""
    writes: frozenset
    reads: frozenset

    def within(self, other: "Envelope") -> bool:
        return all(fp.covers(other.writes, k) for k in self.writes) and \
            all(fp.covers(other.writes | other.reads, k) for k in self.reads)


ALL = Envelope(EVERY, EVERY)


def _wild(changed, steps) -> bool:
    """May these actions' moves call a rule the world's rules override (their declared rules, and the
    epilogue's after each)? A rule a footprint names only in its keys is caught by `verify_edge`: the
    move's effect is then everything, outside any envelope but everything."""
    if not changed:
        return False
    table = action_table()
    rules = frozenset().union(*(table[n].footprint.rules for n in steps)) | frozenset(map(fp.rule, fp.PUBLISH_RULES))
    return bool(changed & rules)


def room(world) -> int:
    """How many more ids the serial may mint, falling by one at each mint: a run the host, REST or a
    fork starts (up to `max_runs` of them), an interrupt (up to its cap), and per request that may ever
    be sent one call's run and one requestState."""
    p = world.params
    interrupts = p.max_interrupts if p.max_interrupts is not None else p.max_runs
    requests = max(p.max_requests, (p.client_requests or 0) * len(p.clients)) + p.retry_reserve + p.focus_reserve \
        + (p.harness_max_requests if world.harness is not None else 0)
    by_calls = sum(r.creating_request is not None for r in world.runs.values())
    return max(0, p.max_runs - (len(world.runs) - by_calls)) + max(0, interrupts - len(world.interrupts)) + \
        max(0, requests - by_calls) + max(0, requests - len(world.request_states))


def fresh(world) -> frozenset:
    """The keys of every run, interrupt and requestState the serial may still mint (no existing one is
    among them): a new record's keys name none that a present move reads."""
    key = (world.params, world.serial, room(world))
    got = _FRESH.get(key)
    if got is None:
        p = world.params
        out = {fp.SERIAL, fp.table("runs"), fp.table("interrupts"), fp.table("request_states")}
        for serial in range(world.serial + 1, world.serial + key[2] + 1):
            for t in p.tenants:
                for n in (p.mint_tasked_len, p.mint_other_len):
                    rid = identity.mint(t, serial, n)
                    out |= {fp.run(rid), fp.log(rid)}
                out.add(fp.interrupt(identity.mint(t, serial, 24, prefix="i-")))
            out.add(fp.request_state(f"rs-{serial}"))
        if len(_FRESH) > 4096:
            _FRESH.clear()
        got = _FRESH[key] = frozenset(out) if key[2] else frozenset()
    return got


_FRESH: dict = {}


def _runs(world, rids) -> set:
    """A set of runs, each with its log and its interrupts, and what a cancel of each reaches."""
    out = set()
    for rid in rids:
        out.add(fp.run(rid))
        for r in fp.descendants(world, rid):
            out |= {fp.run(r), fp.log(r)} | {fp.interrupt(i) for i in world.runs[r].interrupts}
    return out


def _request_envelope(world, q, new) -> Envelope:
    """A request's moves from here on: the request, what it reaches (the runs its references name or
    the run it starts, `fp.cancelling` of what it owns), what a run may still add below them. A run or
    interrupt its references name that does not exist is only read (a creation writes it, from `new`)."""
    keys = {fp.request(q.id)}
    if q.owns is not None:
        keys |= _runs(world, [q.owns])
    if q.phase not in ANSWERED:
        if q.method == "tools/call":
            keys |= _runs(world, [q.run]) if q.run is not None else set(new)
        else:
            keys |= respond_reach(world, {"request": q.id}) - {fp.CLOCK}
        if q.retry_of is not None or q.method == "tools/call":
            keys |= {fp.every("request_state")} | new
    absent = {k for k in keys if fp.missing(world, k)}
    keys -= absent
    if any(k[0] == "run" or k == fp.table("runs") for k in keys):
        keys |= new            # a reached run may still start a child or an interrupt (tasks/list: any run)
    return Envelope(frozenset(keys), frozenset({fp.CLOCK, fp.table("listens"), fp.EFFECTS}) | absent)


def _run_envelope(world, r, new) -> Envelope:
    """A live run's steps from here on: its record, log and interrupts, the effect budget, and what the
    serial may still mint (a child, an interrupt)."""
    keys = {fp.run(r.id), fp.log(r.id), fp.EFFECTS} | {fp.interrupt(i) for i in r.interrupts} | set(new)
    keys |= _runs(world, r.children)
    return Envelope(frozenset(keys), frozenset({fp.CLOCK, fp.table("listens")}))


def enablers(world, o) -> frozenset:
    """The keys whose change may enable a move of request or run `o` not enabled now: its own record,
    and for a request still unanswered the run it waits on (a blocking call's, a retry's)."""
    if o[0] == "request":
        q = world.requests[o[1]]
        if q.phase not in ANSWERED and q.run is not None:
            return frozenset({o, fp.run(q.run)})
    return frozenset({o})


def senders_active(world) -> bool:
    """May a plain client send anything more (within any budget and reserve), or cancel or close over stdio?"""
    p = world.params
    if p.clients and may_send(world, p.retry_reserve + p.focus_reserve):
        return True
    return bool(world.stdio_open)


def rest_callers(p) -> bool:
    """May a REST caller or the operator act at these sizes (their envelope: everything)?"""
    return p.rest_subjects != () or p.max_pauses != 0


def rest_envelope(world, new) -> Envelope | None:
    """The REST side's and the operator's: everything where a REST caller or a pause may act; else, while
    there is room for a run, the REST-created run (one per exploration) and a fork (of a run that is no
    fork, from its log and interrupts: `model.rest`); else None."""
    p = world.params
    if rest_callers(p):
        return ALL
    if len(world.runs) >= p.max_runs:
        return None
    sources = _runs(world, [r.id for r in world.runs.values() if not r.purged and r.fork_of is None])
    return Envelope(new | {fp.EFFECTS}, frozenset({fp.CLOCK, fp.table("listens")}) | sources)


def envelopes(world) -> dict:
    """{agent: Envelope} for every agent that may still move (none: nothing to fear from it)."""
    out: dict = {}
    p = world.params
    everything = world.listens or p.atomic_answers     # the epilogue's streams, a receipt that answers at once
    changed = overridden(world)
    if senders_active(world):
        out[CLIENTS] = ALL
    new = fresh(world)
    rest = rest_envelope(world, new)
    if rest is not None:
        out[REST] = rest
    if world.harness is not None:
        out[HARNESS] = ALL
    if p.max_time > 0:
        out[CLOCK] = ALL if everything or _wild(changed, CLOCK_STEPS) else Envelope(
            frozenset({fp.CLOCK, fp.every("run"), fp.every("log")}), frozenset({fp.table("runs"), fp.table("listens")}))
    wild_requests = everything or _wild(changed, REQUEST_STEPS)
    for q in world.requests.values():
        out[("request", q.id)] = ALL if wild_requests else _request_envelope(world, q, new)
    wild_runs = everything or _wild(changed, RUN_STEPS)
    for r in world.runs.values():
        # an ended run may still hear an external event for an interrupt left open
        if not r.purged and (r.status not in TERMINAL or any(world.interrupts[i].open for i in r.interrupts)):
            out[("run", r.id)] = ALL if wild_runs else _run_envelope(world, r, new)
    return {b: ALL for b in out} if everything else out


def _union(envs, but) -> Envelope:
    """The envelope of every agent but `but`: what may happen on a path that takes none of its moves."""
    w, r = set(), set()
    for b, e in envs.items():
        if b != but:
            w |= e.writes
            r |= e.reads
    return Envelope(frozenset(w), frozenset(r))


def _touches(keys, against) -> bool:
    """Does some key of `keys` name a part some key of `against` names (wildcards either way)?"""
    if not keys or not against:
        return False
    if fp.EVERYTHING in against or fp.EVERYTHING in keys:
        return True
    kinds = {k[0] for k in against if len(k) == 2 and k[1] == fp.ANY}
    return any(k in against or k[0] in kinds or (len(k) == 2 and k[1] == fp.ANY and any(x[0] == k[0] for x in against))
               for k in keys)


def _eligible_state(world) -> bool:
    """Told cheaply: is no agent's envelope everything here (else no ample set can exist)?"""
    p = world.params
    return not (world.listens or p.atomic_answers or world.harness is not None or senders_active(world)
                or rest_callers(p))


def reduced(world, succ, props, changed) -> list[int] | None:
    """The indices of an ample set among a state's transitions `succ` [(action, args, successor, quiet:
    its checks changed no property's memory, ahead: its successor is a state of the next level)], or
    None: keep them all."""
    if not _eligible_state(world):
        return None
    mine: dict = {}
    for i, (name, args, _, _, _) in enumerate(succ):
        mine.setdefault(agent(world, name, args), []).append(i)
    if len(mine) < 2:
        return None
    envs = None
    # In one fixed order of agents: a reduction that took one request's steps here and the other's in
    # the next state would still reach every mix of the two.
    for a, idx in sorted(mine.items()):
        if a[0] not in ("request", "run"):
            continue
        if not all(succ[i][4] and succ[i][3] for i in idx):
            continue
        effects = [effect_of(world, succ[i][0], succ[i][1], succ[i][2], changed) for i in idx]
        writes = frozenset().union(*(e.writes for e in effects))
        if any(visibility.sees(p.name, writes) for p in props):
            continue
        if envs is None:
            envs = envelopes(world)
        reads = frozenset().union(*(e.reads | e.enables for e in effects))
        others = _union(envs, a)
        if fp.EVERYTHING in others.writes:
            return None
        if _touches(enablers(world, a), others.writes) or _touches(writes, others.writes | others.reads) or \
                _touches(reads, others.writes):
            continue
        return idx
    return None


def quiet(world, after) -> bool:
    """Did the checks of the move from `world` to `after` leave every property's memory as it was?"""
    return world.facts.monitor_form(freeze) == after.facts.monitor_form(freeze)


def ineligible(props, live, max_depth) -> str | None:
    """Why a search may not be reduced at all, or None."""
    if live:
        return "a liveness property is checked (its fairness needs the whole graph)"
    if max_depth is not None:
        return "the search is bounded by depth (the reduction does not keep behaviours' lengths)"
    undeclared = [p.name for p in props if not visibility.declared(p.name)]
    if undeclared:
        return f"{undeclared[0]} does not declare what it reads (properties.visibility)" + (
            f", and {len(undeclared) - 1} more" if len(undeclared) > 1 else "")
    return None


def effect_of(world, name: str, args: dict, after, changed) -> fp.Effect:
    """A move's footprint in `world`, the epilogue's in its successor `after` joined; everything when it
    calls an overridden rule."""
    decl = action_table()[name].footprint
    reads, writes = decl.of(world, args)
    ereads, ewrites = fp.EPILOGUE.of(after, {})
    if any(fp.covers(reads | ereads, m) for m in changed):
        return fp.Effect(EVERY, EVERY, EVERY)
    return fp.Effect(reads | ereads, writes | ewrites, decl.enabling(world, args))


class PorError(AssertionError):
    """A claim the reduction rests on is false at a transition (an envelope, or a property's visibility)."""


class Reducer:
    """Called by the search with a state and its transitions [(action, args, successor, fingerprint)]:
    the ones to queue (an ample set's, or all). With `verify`, all, each first held to the claims."""

    def __init__(self, props, w0, verify: bool = False):
        self.props = props
        self.changed = overridden(w0)
        self.verify = verify

    def __call__(self, world, steps, seen, deeper, counts, here):
        """`seen`: fingerprint -> state id; ids from `deeper` on are states of the next level."""
        if self.verify:
            envs, moves = envelopes(world), _moves_by_agent(world)
            for name, args, c, _ in steps:
                here[0], here[1] = name, args
                verify_edge(world, name, args, c, self.props, self.changed, envs, moves)
            return steps
        idx = reduced(world, [(n, a, c, quiet(world, c), seen.get(f, deeper) >= deeper) for n, a, c, f in steps],
                      self.props, self.changed)
        if idx is None:
            return steps
        counts.reduced += 1
        return [steps[i] for i in idx]


def _moves_by_agent(world) -> dict:
    out: dict = {}
    for name, act in action_table().items():
        for a in act.moves(world):
            out.setdefault(agent(world, name, a), set()).add((name, repr(sorted(a.items()))))
    return out


def _plain(keys) -> set:
    return {k for k in keys if k[0] not in fp.MARKERS}


def verify_edge(world, name, args, after, props, changed, envs=None, moves=None) -> None:
    """Hold one transition to the reduction's claims; PorError at the first false one. For every
    request or run O but the move's own agent, the envelope of all the others (`_union`) must cover the
    move and not grow after it, and the move must enable no move of O unless it writes O's key: so every
    path from a state that takes none of O's moves stays within that envelope, and O's first move on it
    is one enabled in the state (C1). And each property's reads must lie within the move's footprint
    and what it declares (C2)."""
    envs = envelopes(world) if envs is None else envs
    a = agent(world, name, args)
    what = f"{name}({args})"
    e = effect_of(world, name, args, after, changed)
    later = envelopes(after)
    moves = _moves_by_agent(world) if moves is None else moves
    now = None
    for o in envs:
        if o == a or o[0] not in ("request", "run"):
            continue
        before = _union(envs, o)
        if fp.EVERYTHING in before.writes:
            continue
        for k in sorted(_plain(e.writes), key=repr):
            if not fp.covers(before.writes, k):
                raise PorError(f"{what} wrote {k!r}, outside the envelope of every agent but {o}")
        for k in sorted(_plain(e.reads | e.enables), key=repr):
            if not fp.covers(before.writes | before.reads, k):
                raise PorError(f"{what} read {k!r}, outside the envelope of every agent but {o}")
        if not _union(later, o).within(before):
            raise PorError(f"after {what}, the envelope of every agent but {o} grew")
        if not _touches(enablers(world, o), e.writes):
            now = _moves_by_agent(after) if now is None else now
            extra = now.get(o, set()) - moves.get(o, set())
            if extra:
                raise PorError(f"{what} enabled a move of {o} without writing what enables it: {sorted(extra)[0]}")
    step = after.history[-1]
    facets = guard_facets(after, step)
    for p in props:
        if not visibility.declared(p.name) or (facets is not None and not p.may_read(facets, name)):
            continue
        for k in sorted(read_by_check(after, step, p), key=repr):
            if not fp.covers(e.reads | e.writes, k) and not visibility.sees(p.name, {k}):
                raise PorError(f"{p.name} read {k!r} at {what}, beyond the transition's footprint and what it "
                               f"declares (properties.visibility)")


IGNORED = frozenset({"world.facts"})      # the properties' memory (C2 keeps it)


def read_by_check(after, step, p) -> set:
    """The parts of the state a property's premise and check read at a transition, recorded on a clone."""
    c = clone(after)
    F._instrument(c)
    with F._hooks(c):
        with F._reading() as got:
            if p.premise is not None:
                p.premise(c, step)
            p.check(c, step)
    # A step's `created` lists requests, runs and interrupts alike, and a check looking one up in the
    # wrong table misses: ids of one table are never another's (their forms differ), so no move can
    # make that miss a hit.
    others = {kind: {i for t, kk in TABLE_KINDS.items() if kk != kind for i in dict.keys(getattr(after, t))}
              for kind in TABLE_KINDS.values()}
    return {k for k in got if k[0] not in fp.MARKERS and k[0] not in IGNORED
            and not (k[0] in others and len(k) == 2 and k[1] in others[k[0]])}


TABLE_KINDS = {"runs": "run", "interrupts": "interrupt", "requests": "request", "request_states": "request_state"}
