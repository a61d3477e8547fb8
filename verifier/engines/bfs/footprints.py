"""The footprints' verify mode: every transition's actual reads and writes, held to its declaration.

A move is taken on a clone of its state whose tables note their lookups (of a record table, a miss
only: records are never removed, and their fields are read through the record; an iteration or a
length: the table's membership), whose records note every read of a field that can change (their
classes' attribute access is hooked for the step alone), and whose rules note every overridable
rule called. Writes are what differs between the state's parts before and
after (`parts`). The rules' epilogue (`Rules.after_step`, run by `World.apply` after every action) is
observed on its own and held to `model.footprint.EPILOGUE`.

`verifying(make_world)` gives worlds whose every `apply` is checked first (clones keep the class,
so a search's every transition is): a search over them explores the same graph, more slowly, and a
false declaration raises `FootprintError` naming the action, the move and the key.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from model import footprint as fp
from model.harness import Harness, HarnessClient, HarnessRules, client_tuple
from model.rules import Rules
from model.snapshot import WORLD_FIELDS, freeze, clone, state_tuple
from model.state import Interrupt, Request, RequestState, Run
from model.world import ModelError, action_table

# Fields a record never changes once made: reading one depends on no other move.
FIXED = {
    Run: frozenset({"id", "server", "tenant", "owner", "started_by", "parent", "created_at", "creating_request",
                    "fork_of", "label"}),
    Request: frozenset({"id", "client", "subject", "server", "transport", "method", "message", "declares_tasks",
                        "declares_elicitation", "task_ref", "mcp_name", "retry_of", "operation"}),
    Interrupt: frozenset({"id", "run", "kind", "approvers", "form", "label"}),
    RequestState: frozenset({"token", "principal", "run", "interrupt", "request"}),
    HarnessClient: frozenset({"name", "subject"}),
}
# record class -> (the attribute holding its id, its key kind)
KINDS = {Run: ("id", "run"), Request: ("id", "request"), Interrupt: ("id", "interrupt"),
         RequestState: ("token", "request_state"), HarnessClient: ("name", "hclient")}
# world table -> its element kind
TABLES = {"runs": "run", "interrupts": "interrupt", "requests": "request", "request_states": "request_state"}
COUNTERS = ("clock", "serial", "effects")
HARNESS_COUNTERS = ("runs_started", "ops", "requests", "crashes")


class FootprintError(AssertionError):
    """A move read or wrote a part of the state its action's footprint does not declare."""


_seen: set | None = None      # the keys read while observing, else None


def _note(key) -> None:
    if _seen is not None:
        _seen.add(key)


class _Table(dict):
    """A table that notes its lookups (element keys) and iterations (its membership)."""
    kind = table = ""

    def _all(self):
        _note(("all", self.table))

    def __getitem__(self, k):
        _note((self.kind, k))
        return dict.__getitem__(self, k)

    def get(self, k, default=None):
        _note((self.kind, k))
        return dict.get(self, k, default)

    def __contains__(self, k):
        _note((self.kind, k))
        return dict.__contains__(self, k)

    def __iter__(self):
        self._all()
        return dict.__iter__(self)

    def __len__(self):
        self._all()
        return dict.__len__(self)

    def keys(self):
        self._all()
        return dict.keys(self)

    def values(self):
        self._all()
        return dict.values(self)

    def items(self):
        self._all()
        return dict.items(self)


class _Set(set):
    """A set of the state (open stdio connections, answers read) that notes what it is asked."""
    kind = table = ""

    def __contains__(self, k):
        _note((self.kind, k))
        return set.__contains__(self, k)

    def __iter__(self):
        _note(("all", self.table))
        return set.__iter__(self)

    def __len__(self):
        _note(("all", self.table))
        return set.__len__(self)


class _Records(_Table):
    """A world table of records (runs, requests, ...), which never loses one: finding one that exists
    depends on no other move (its fields are read through the record), so only a miss is noted."""

    def __getitem__(self, k):
        return dict.__getitem__(self, k)

    def get(self, k, default=None):
        got = dict.get(self, k, _MISSING)
        if got is _MISSING:
            _note((self.kind, k))
            return default
        return got

    def __contains__(self, k):
        found = dict.__contains__(self, k)
        if not found:
            _note((self.kind, k))
        return found


def _tracked(cls, data, kind, table):
    t = _TRACKED.get((cls, table))
    if t is None:
        t = _TRACKED[cls, table] = type(f"{cls.__name__}_{table}", (cls,), {"kind": kind, "table": table})
    return t(data)


_TRACKED: dict = {}


def _record_getattr(cls):
    fixed, (id_attr, kind) = FIXED[cls], KINDS[cls]
    get = object.__getattribute__

    def __getattribute__(self, name):
        if _seen is not None and name not in fixed and name in cls.__slots__:
            _seen.add(("log" if name == "log" else kind, get(self, id_attr)))
        return get(self, name)
    return __getattribute__


def _owner_getattr(names, key_of):
    get = object.__getattribute__

    def __getattribute__(self, name):
        if _seen is not None and name in names:
            _seen.add(key_of(self, name))
        return get(self, name)
    return __getattribute__


def _public(cls) -> frozenset:
    return frozenset(n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n)))


RULES, HARNESS_RULES = _public(Rules), _public(HarnessRules)


def _rules_getattr(names, kind):
    get = object.__getattribute__

    def __getattribute__(self, name):
        if _seen is not None:
            if name in names:
                _seen.add((kind, name))
            elif name in get(self, "__dict__"):
                _seen.add((f"{kind}s_state",))      # a variant's rules keep state of their own
        return get(self, name)
    return __getattribute__


@contextmanager
def _hooks(world):
    """Attribute access on the records, the world, the harness and the rules reports its keys."""
    hooks = {cls: _record_getattr(cls) for cls in KINDS}
    hooks[type(world)] = _owner_getattr(frozenset(COUNTERS) | {"depth", "facts", "listens"}, _world_key)
    hooks[Harness] = _owner_getattr(frozenset(HARNESS_COUNTERS), lambda h, n: ("harness", n))
    hooks[type(world.rules)] = _rules_getattr(RULES, "rule")
    if world.harness is not None:
        hooks[type(world.harness.rules)] = _rules_getattr(HARNESS_RULES, "harness_rule")
    hooks = {(cls, "__getattribute__"): hook for cls, hook in hooks.items()}
    hooks[type(world), "label"] = _unnoted(type(world).label)
    saved = {at: at[0].__dict__.get(at[1]) for at in hooks}
    for (cls, name), hook in hooks.items():
        setattr(cls, name, hook)
    try:
        yield
    finally:
        for (cls, name), old in saved.items():
            if old is None:
                delattr(cls, name)
            else:
                setattr(cls, name, old)


def _world_key(w, name: str) -> tuple:
    """The key a read of a world attribute notes: a counter, the listens' membership, or the field."""
    if name in COUNTERS:
        return (name,)
    return fp.table("listens") if name == "listens" else (f"world.{name}",)


def _unnoted(fn):
    """A story label: ids never change meaning, and a label is only told, never state."""
    def call(*args, **kw):
        global _seen
        seen, _seen = _seen, None
        try:
            return fn(*args, **kw)
        finally:
            _seen = seen
    return call


@contextmanager
def _reading():
    global _seen
    _seen, out = set(), None
    try:
        out = _seen
        yield out
    finally:
        _seen = None


def _instrument(w) -> None:
    """Replace a clone's tables by recording ones (and empty its caches, so that every lookup a
    cached answer would skip is made and seen)."""
    for name, kind in TABLES.items():
        setattr(w, name, _tracked(_Records, getattr(w, name), kind, name))
    w.stdio_open = _tracked(_Set, w.stdio_open, "stdio", "stdio_open")
    w.notified = _tracked(_Table, w.notified, "sub", "notified")
    w.last_sent = _tracked(_Table, w.last_sent, "sub", "last_sent")
    w._memo, w._labels = {}, {}
    h = w.harness
    if h is not None:
        h.clients = _tracked(_Table, h.clients, "hclient", "hclients")
        h.sent = _tracked(_Table, h.sent, "sent", "sent")
        h.read = _tracked(_Set, h.read, "read", "read")
        h._decoded = {}


def parts(w) -> dict:
    """The state as keyed parts: a move wrote a key when the part under it differs after the move.
    ("fixed", kind, id) holds what a record never changes (it must not)."""
    out = {fp.CLOCK: w.clock, fp.SERIAL: w.serial, fp.EFFECTS: w.effects}
    for name, kind in TABLES.items():
        t = getattr(w, name)
        out[("all", name)] = tuple(dict.keys(t))
        for k, rec in dict.items(t):
            cls = type(rec)
            fixed = FIXED[cls]
            out[(kind, k)] = tuple(_plain(getattr(rec, s)) for s in cls.__slots__ if s not in fixed and s != "log")
            out[("fixed", kind, k)] = tuple(getattr(rec, s) for s in cls.__slots__ if s in fixed)
            if cls is Run:
                out[fp.log(k)] = tuple(rec.log)
    out[fp.table("listens")] = w.listens
    out[("all", "stdio_open")] = tuple(sorted(w.stdio_open))
    for pair in w.stdio_open:
        out[("stdio", pair)] = True
    for name in ("notified", "last_sent"):
        out[("all", name)] = tuple(dict.keys(getattr(w, name)))
    for key in {*dict.keys(w.notified), *dict.keys(w.last_sent)}:
        out[("sub", key)] = (dict.get(w.notified, key), dict.get(w.last_sent, key))
    for k, v in vars(w).items():
        if k not in WORLD_FIELDS and not callable(v):
            out[("world", k)] = freeze(v)
    if getattr(w.rules, "__dict__", None):
        out[("rules_state",)] = freeze(vars(w.rules))
    h = w.harness
    if h is not None:
        for n in HARNESS_COUNTERS:
            out[("harness", n)] = getattr(h, n)
        for name, c in dict.items(h.clients):
            out[fp.hclient(name)] = client_tuple(c)
        out[("all", "sent")] = tuple(dict.keys(h.sent))
        for k, v in dict.items(h.sent):
            out[("sent", k)] = v
        out[("all", "read")] = tuple(sorted(h.read))
        for k in h.read:
            out[("read", k)] = True
        if getattr(h.rules, "__dict__", None):
            out[("harness_rules_state",)] = freeze(vars(h.rules))
    return out


def _plain(v):
    return tuple(v) if type(v) is list else v


def _written(before: dict, after: dict, broken: list) -> set:
    """The keys whose parts differ; a fixed field that changed or a record removed is noted in `broken`."""
    out = set()
    for k in before.keys() | after.keys():
        if before.get(k, _MISSING) != after.get(k, _MISSING):
            if k[0] == "fixed" or (k[0] in TABLES.values() and k not in after):
                if k in before:
                    broken.append(f"a field of {k[1]} {k[2]!r} that never changes once made changed"
                                  if k[0] == "fixed" else f"{k[0]} {k[1]!r} was removed from its table")
                continue
            out.add(k)
    return out


_MISSING = object()


@dataclass
class Observed:
    """What one move did: its action's reads and writes, and the epilogue's (after_step)."""
    reads: set
    writes: set
    epilogue_reads: set
    epilogue_writes: set
    epilogue_declared: tuple        # (reads, writes) of `fp.EPILOGUE` in the state the epilogue ran in
    world: object                   # the state after the move
    broken: list                    # what changed that never may (`_written`)


def observe(world, name: str, args: dict) -> Observed:
    """Take the move on a recording clone of `world`, as `World.apply` takes it."""
    act = action_table()[name]
    c = clone(world)
    before = parts(c)
    _instrument(c)
    # No step record: what a move annotates it with (request forms) is read for the record alone.
    c.step = None
    with _hooks(c):
        with _reading() as reads:
            act.apply(c, **args)
        mid = parts(c)
        declared = fp.EPILOGUE.of(c, {})
        with _reading() as epilogue_reads:
            c.rules.after_step(c)
    after = parts(c)
    broken: list = []
    return Observed(reads, _written(before, mid, broken), epilogue_reads, _written(mid, after, broken), declared, c,
                    broken)


def check_move(world, name: str, args: dict) -> Observed:
    """Observe the move and hold it to its action's footprint; FootprintError on a mismatch."""
    act = action_table()[name]
    decl = getattr(act, "footprint", None)
    if decl is None:
        raise FootprintError(f"{name} declares no footprint")
    reads, writes = decl.of(world, args)
    got = observe(world, name, args)
    changed = overridden(world)
    # A fixed field is no read of anyone's: only a move on an overridden rule (dependent on every
    # other) may change one.
    if got.broken and not (got.reads | got.epilogue_reads) & changed:
        raise FootprintError(f"{name}({args}): {got.broken[0]}")
    # A move that calls an overridden rule is dependent on every other: nothing to hold it to.
    if not any(fp.covers(reads, m) for m in changed):
        _hold(f"{name}({args})", reads, writes, got.reads, got.writes)
    if not any(fp.covers(got.epilogue_declared[0], m) for m in changed):
        _hold(f"the epilogue (Rules.after_step) after {name}({args})", *got.epilogue_declared,
              got.epilogue_reads, got.epilogue_writes)
    return got


def overridden(world) -> set:
    """The markers of the rules `world`'s rules (and its harness's) override."""
    out = {fp.rule(n) for n in RULES if getattr(type(world.rules), n) is not getattr(Rules, n)}
    if world.harness is not None:
        hr = type(world.harness.rules)
        out |= {fp.harness_rule(n) for n in HARNESS_RULES if getattr(hr, n) is not getattr(HarnessRules, n)}
    return out


def _hold(what, reads, writes, actual_reads, actual_writes) -> None:
    for key in sorted(actual_writes, key=repr):
        if not fp.covers(writes, key):
            raise FootprintError(f"{what} wrote {key!r}, which its footprint does not declare")
    for key in sorted(actual_reads, key=repr):
        if not fp.covers(reads, key) and not fp.covers(writes, key):
            raise FootprintError(f"{what} read {key!r}, which its footprint does not declare")


def verifying(make_world, per_move=check_move):
    """Worlds whose every `apply` first calls `per_move(world, action, args)` (by default: checks the
    move against its action's footprint) and then compares the observed successor with the real one
    (the recording changed nothing; unless the move called a rule the world's rules override). Clones
    keep the class, so every transition of a search is checked."""
    def make():
        w = make_world()
        w.__class__ = _verifying_class(type(w), per_move)
        return w
    return make


def _verifying_class(cls, per_move):
    def apply(self, action_name, args=None, check=True, say=True):
        args = dict(args or {})
        if check and args not in action_table()[action_name].moves(self):
            raise ModelError(f"{action_name}({args}) is not enabled in this state")
        got = per_move(self, action_name, args)
        step = cls.apply(self, action_name, args, check=False, say=say)
        # An overridden rule may read the step record, which the recording clone goes without; such a
        # move is held to nothing, so only a move that called none must end where the real one did.
        called = (got.reads | got.epilogue_reads) & overridden(self)
        if not called and state_tuple(got.world, facts=False) != state_tuple(self, facts=False):
            raise FootprintError(f"{action_name}({args}): the observed move ended elsewhere than the real one")
        return step
    return type(f"Verifying{cls.__name__}", (cls,), {"apply": apply})
