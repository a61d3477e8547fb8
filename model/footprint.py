"""Footprints: what of the state each action's move reads and writes, for a partial-order reduction.

A key names one part of the state (`docs/exhaustive.md`, "Footprints"):
- an element of a table: ("run", runId), ("log", runId) (the run's event log), ("request", id),
  ("interrupt", id), ("request_state", token), ("stdio", (client, server)) (an open stdio connection),
  ("sub", (listen id, runId)) (what a subscription last published), and in a composed world
  ("hclient", name) (a harness client: its process and its disk), ("sent", id) and ("read", id)
  (the harness's record of a request it sent and of an answer it read);
- a table's membership (which elements exist, in what order): ("all", "runs"), ("all", "requests"), ...;
- a counter: ("clock",), ("serial",), ("effects",), ("harness", "runs_started" | "ops" | "requests" | "crashes");
- an overridable rule the move calls: ("rule", name), ("harness_rule", name). With the baseline's rules
  the move's other keys cover what the rule reads and writes. An amendment that overrides a rule may
  read and write anything, so a reduction treats a move calling an overridden rule as dependent on
  every other move.

A key (kind, ANY) stands for every key of that kind (a conservative declaration), and EVERYTHING for
every key. Reads of a record's fields that never change once it exists (a request's method, a run's
owner) are not reads: no other move can change them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import identity

ANY = "*"
MARKERS = ("rule", "harness_rule")
EVERYTHING = ("*",)
CLOCK, SERIAL, EFFECTS = ("clock",), ("serial",), ("effects",)


def run(rid):
    return ("run", rid)


def log(rid):
    return ("log", rid)


def request(qid):
    return ("request", qid)


def interrupt(iid):
    return ("interrupt", iid)


def request_state(token):
    return ("request_state", token)


def stdio(client, server):
    return ("stdio", (client, server))


def hclient(name):
    return ("hclient", name)


def sent_ref(ref):
    """That a request carrying task reference `ref` was sent: a fabricated reference is probed once
    (`model.clients._task_refs`), so a send of it takes the others' moves back. Written by a send
    naming `ref`; not a part of the state of its own (it is in the request table)."""
    return ("sent_ref", ref)


def table(name):
    """The membership of a table: runs, requests, interrupts, request_states, stdio_open, notified,
    last_sent, listens (the subscriptions/listen requests), hclients, sent, read."""
    return ("all", name)


def every(kind):
    return (kind, ANY)


def rule(name):
    return ("rule", name)


def harness_rule(name):
    return ("harness_rule", name)


def covers(declared, key) -> bool:
    """Does the declared set name `key`, itself or through a wildcard?"""
    return key in declared or EVERYTHING in declared or (len(key) == 2 and (key[0], ANY) in declared)


Keys = Callable[[object, dict], "set | frozenset"]


@dataclass(frozen=True)
class Footprint:
    """An action's declaration: `reads` and `writes`, each a function (world, args) -> keys of the
    move in the state before it; `rules`, the overridable rules the move may call (their markers are
    reads); `exact`: False where a part is declared coarser than the move needs (said in a comment);
    `enables`: the keys whose values decide whether the move stays enabled (None: undeclared, every key)."""
    reads: Keys
    writes: Keys
    rules: frozenset = frozenset()
    exact: bool = True
    enables: Keys | None = None

    def of(self, world, args) -> tuple[frozenset, frozenset]:
        """(reads, writes) of one move; the rule markers are reads (a function may give them with its
        other keys)."""
        reads = frozenset(self.reads(world, args)) | self.rules
        return reads, frozenset(k for k in self.writes(world, args) if k[0] not in MARKERS)

    def enabling(self, world, args) -> frozenset:
        """What decides whether this move stays enabled: another move that writes it may disable it."""
        return frozenset({EVERYTHING} if self.enables is None else self.enables(world, args))


def footprint(reads=(), writes=(), rules=(), harness_rules=(), exact=True, enables=None) -> Footprint:
    """A declaration: `reads`, `writes` and `enables` are a function (world, args) -> keys, or the keys
    themselves when they do not depend on the move."""
    marks = frozenset(map(rule, rules)) | frozenset(map(harness_rule, harness_rules))
    return Footprint(_fn(reads), _fn(writes), marks, exact, None if enables is None else _fn(enables))


def _fn(keys) -> Keys:
    if callable(keys):
        return keys
    keys = frozenset(keys)
    return lambda world, args: keys


# ---- shapes the declarations share ------------------------------------------------------------------
REQUEST = lambda world, args: {request(args["request"])}
RUN = lambda world, args: {run(args["run"])}

# A run's own step: its record and its log (an event carries the time).
RUN_STEP = lambda world, args: {run(args["run"]), log(args["run"]), CLOCK}
RUN_WRITE = lambda world, args: {run(args["run"]), log(args["run"])}

# A new run or interrupt: its id is minted by an overridable rule from the next serial. A world whose
# rules override the rule holds the move to nothing (it is dependent on every other), so naming the id
# the baseline's rule mints is sound.
def new_run(world, tenant: str) -> set:
    """A new run of `tenant` (either length: a call's run is tasked or blocking, `Rules.mint_run_id`;
    so a declaration naming it is not exact)."""
    p, serial = world.params, world.serial + 1
    ids = {identity.mint(tenant, serial, n) for n in (p.mint_tasked_len, p.mint_other_len)}
    return {SERIAL, table("runs")} | {k for rid in ids for k in (run(rid), log(rid))}


def new_interrupt(world, tenant: str) -> set:
    """A new interrupt of a run of `tenant` (`Rules.mint_interrupt_id`)."""
    return {SERIAL, table("interrupts"), interrupt(identity.mint(tenant, world.serial + 1, 24, prefix="i-"))}


# The host's receipt and processing of a request (`model.host.receive`, `_process`): a tools/call may
# create a run; a retry spends a requestState and resolves an interrupt; tasks/* reach a run by a
# task reference, its interrupts by inputResponses keys, and a cancel cascades to its descendants.
# Declared as every run, log, interrupt and requestState, with any rule (conservative: which ones
# follow from the references a request carries and from the state).
RECEIPT = frozenset({CLOCK, SERIAL, table("runs"), table("interrupts"), table("request_states"),
                     every("run"), every("log"), every("interrupt"), every("request_state")})


RESOLVE_RULES = ("resolve", "eligible_approver", "do_resolve", "lifecycle_fire")


def resolving(world, args) -> set:
    """Resolving an interrupt (`Rules.resolve`): it, its run (which resumes once none is open, so
    every interrupt of the run is read) and the run's log."""
    i = world.interrupts[args["interrupt"]]
    return {interrupt(i.id), run(i.run), log(i.run), CLOCK} | {interrupt(x) for x in world.runs[i.run].interrupts}


def unclocked(keys: Keys) -> Keys:
    """A move's writes where they are its reads but the clock: an event it logs only carries the time."""
    return lambda world, args: keys(world, args) - {CLOCK}


resolved = unclocked(resolving)     # what resolving an interrupt writes


def received(world) -> set:
    """The receipt of a request other than tools/call: ownership on receipt only, unless the host
    answers at once (`Params.atomic_answers`: the receipt path, `RECEIPT`, calling any rule)."""
    return RECEIPT | {rule(ANY)} if world.params.atomic_answers else {rule("owns_on_receipt")}


def new_request(world, listen: bool = False, client: str | None = None) -> set:
    """A request a client sends: its id is the next in the table (`model.clients.new_request`); a
    subscriptions/listen (`listen`) joins the listens too. `MINT` marks the send; a plain client's
    (`client`) also spends its own budget (`requests_of`)."""
    out = (minted(world) if listen else minted(world) - {table("listens")}) | {MINT}
    return out | {requests_of(client)} if client is not None else out


def requests_of(client):
    """How many requests `client` has sent: what its own budget (`Params.client_requests`) counts.
    Written by its every send; not a part of the state of its own (it is in the request table)."""
    return ("requests_of", client)


# Two sends both mint the next request id and join the request table (a listen, the listens too): in
# either order the same requests exist under swapped ids, which the fingerprint's renaming (the
# request-order symmetry) makes one state. Where it renames, two sends commute on these keys.
MINT = ("mint", "requests")


def minted(world) -> set:
    """The keys a send writes to mint its request: the tables' membership and the next id."""
    return {table("requests"), table("listens"), request(f"r{len(world.requests) + 1}")}


def budget(world, reserve: int = 0, client: str | None = None) -> set:
    """What enables `client`'s send as far as the request budget goes, only where one more send spends
    it (below that, no other send can take it back): the request table's length, or with a budget per
    client (`Params.client_requests`) the client's own count."""
    cap = world.params.client_requests
    if cap is None:
        return {table("requests")} if len(world.requests) + 1 >= world.params.max_requests + reserve else set()
    return {requests_of(client)} if requests_sent(world, client) + 1 >= cap + reserve else set()


def requests_sent(world, client: str) -> int:
    """How many requests `client` has sent (what `requests_of` names; `Params.client_requests` caps it)."""
    return sum(q.client == client for q in world.requests.values())


def missing(world, key) -> bool:
    """Does `key` name a run (its record or log) or an interrupt that does not exist?"""
    if key[0] in ("run", "log") and key[1] != ANY:
        return key[1] not in world.runs
    return key[0] == "interrupt" and key[1] != ANY and key[1] not in world.interrupts


def descendants(world, rid) -> set:
    """A run and every run below it (what a cancel of it may reach, `Rules.cancel_run`)."""
    out, todo = set(), [rid]
    while todo:
        r = todo.pop()
        if r not in out and r in world.runs:
            out.add(r)
            todo.extend(world.runs[r].children)
    return out


def cancelling(world, owned) -> set:
    """What cancelling the run a request owns may write: the run, its descendants, their logs."""
    if owned is None:
        return set()
    return {k for r in descendants(world, owned) for k in (run(r), log(r))}


def sent_by(world, args) -> str:
    """The harness client that sent `args["request"]`."""
    return world.harness.sent[args["request"]][0]


# ---- the epilogue: `Rules.after_step`, run by `World.apply` after every action -------------------
PUBLISH_RULES = ("after_step", "can_read", "detailed_task", "project_status", "task_id", "ttl_ms", "purge_time",
                 "status_message", "input_requests", "tool_result", "blocking_cancel_result", "missing_elicitation",
                 "elicitation_modes", "notification")


def _epilogue_reads(world, args) -> set:
    """Which requests are listen streams (`World.listens`: no other request is read), each listen's
    phase and acknowledged runs, and for an open stream each run's record, its interrupts and what
    that stream last published."""
    out = {table("listens")}
    for qid in world.listens:
        q = world.requests[qid]
        out.add(request(q.id))
        if q.phase == "streaming":
            for rid in q.acked:
                out |= {run(rid), ("sub", (q.id, rid))} | {interrupt(i) for i in world.runs[rid].interrupts}
    return out


def _epilogue_writes(world, args) -> set:
    """What each open stream last published; a table's membership only where it lacks a stream's task
    (the first view noted adds it to `notified`, the first notification sent to `last_sent`)."""
    subs = {(q.id, rid) for q in map(world.requests.__getitem__, world.listens) if q.phase == "streaming"
            for rid in q.acked}
    return {("sub", k) for k in subs} | {table(name) for name in ("notified", "last_sent")
                                         if any(k not in getattr(world, name) for k in subs)}


EPILOGUE = footprint(_epilogue_reads, _epilogue_writes, rules=PUBLISH_RULES)


# ---- what a successor must own: the records a move may write ------------------------------------------
def writes_of(world, action, args):
    """The keys `action`'s move with `args` may write in `world` (with the epilogue's, which writes no
    record), for a successor sharing every other record (`model.snapshot.successor`); None where the
    move may write anything: no footprint, or a rule it or the epilogue calls overridden by the
    world's rules."""
    f, over = action.footprint, overridden(world)
    if f is not None and over and (over & f.rules or over & EPILOGUE.rules):
        return None
    return declared_writes(world, action, args)


def declared_writes(world, action, args):
    """The keys `action`'s move with `args` writes by its declared footprint, whatever rules the world
    overrides (`writes_of` says None where an overridden rule may write anything): what a move calling
    an overridden rule may be tried with first, sharing the rest sealed, so that a write beyond it
    raises. None: the action declares no footprint."""
    f = action.footprint
    return None if f is None else f.writes(world, args)


def overridden(world) -> frozenset:
    """The rule markers (`rule(name)`, `harness_rule(name)`) the world's rules (and its harness's)
    override, computed once per class."""
    h = world.harness
    key = (type(world.rules), None if h is None else type(h.rules))
    got = _OVERRIDES.get(key)
    if got is None:
        from .harness import HarnessRules
        from .rules import Rules
        got = _OVERRIDES[key] = frozenset(
            [rule(n) for n in _differing(key[0], Rules)] +
            ([harness_rule(n) for n in _differing(key[1], HarnessRules)] if key[1] is not None else []))
    return got


_OVERRIDES: dict = {}


def _differing(cls, base) -> list[str]:
    """The methods of `cls` that are not `base`'s own (a recording wrapper of a base method is its own)."""
    import inspect
    out = []
    for n, f in inspect.getmembers(base, inspect.isfunction):
        mine = getattr(cls, n, None)
        if mine is not f and inspect.unwrap(mine) is not f:
            out.append(n)
    return out


# ---- independence: what a partial-order reduction may reorder -----------------------------------------
@dataclass(frozen=True)
class Effect:
    """One move's footprint in its state, the epilogue's (after the move) joined: what it reads,
    writes and is enabled by."""
    reads: frozenset
    writes: frozenset
    enables: frozenset

    @property
    def mints(self) -> bool:
        return MINT in self.writes


def _hits(mine, theirs):
    for k in sorted(mine, key=repr):
        if any(covers((k,), x) or covers((x,), k) for x in theirs):
            return k
    return None


def conflict(a: Effect, b: Effect, world=None, renames: bool = False):
    """The first key by which two moves enabled in `world` are dependent, or None: one writes what the
    other reads, writes or is enabled by. Where the fingerprint renames request ids and both moves
    send, their mints (`minted`) commute, save where one send's enabling (the budget) reads them. A
    send that reads the request table for more than its length declares what it reads by finer keys
    (a listen's task ids: `sent_ref`); `verifier.engines.bfs.diamonds` checks that they commute."""
    aw, bw, ar, br = a.writes, b.writes, a.reads, b.reads
    if renames and a.mints and b.mints:
        # what each client has sent is a count: two sends add to it in either order
        keys = minted(world) | {MINT} | {k for k in a.writes | b.writes if k[0] == "requests_of"}
        aw, bw, ar, br = aw - keys, bw - keys, ar - keys, br - keys
        if (k := _hits(a.writes, b.enables) or _hits(b.writes, a.enables)) is not None:
            return k
    return _hits(aw, br | bw | b.enables) or _hits(bw, ar | a.enables)
