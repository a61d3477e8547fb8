"""What exhaustive search needs of the model: a cheap copy of a world and a canonical fingerprint.

`clone(world)` copies everything that determines the future (records, the clock, the harness, the
monitor facts of trace properties) and shares what never changes once made: params, messages and
responses as sent, run-log events, frozen bindings. It starts an empty history: the engines keep
traces as parent links and replay them.

`fingerprint(world, rename)` is a digest of that same state, leaving out the history, caches and
annotations (the step a fact was learnt at). With `rename`, JSON-RPC request ids, which clients
mint from one counter, are renamed canonically: two states that differ only in the order
independent requests were sent are one state. Other minted ids (runIds, interruptIds, tokens) come
from the serial, which is part of the state: runs made in another order are other states.
"""
from __future__ import annotations

import hashlib
import re

from .state import Interrupt, Request, RequestState, Run

# world.facts keys holding a "." are caches and annotations (the step a fact was learnt at, a
# memo keyed by the step object): they never decide a later verdict, so neither copy nor digest
# carries them. Every other key is monitor state of a trace property.
def _monitor_key(key) -> bool:
    return "." not in key


def _copier(cls, deep: dict[str, str] | None = None):
    """A fast copy of a slotted dataclass: one attribute store per slot; `deep` maps a slot to the
    expression that copies it (a list or dict the model mutates in place)."""
    deep = deep or {}
    lines = ["def copy(o, new=object.__new__, cls=cls):", "    n = new(cls)"]
    for s in cls.__slots__:
        lines.append(f"    n.{s} = {deep.get(s, 'o.' + s)}")
    lines.append("    return n")
    ns = {"cls": cls}
    exec("\n".join(lines), ns)
    return ns["copy"]


_copy_run = _copier(Run, {"children": "o.children[:]", "log": "o.log[:]", "interrupts": "o.interrupts[:]"})
_copy_interrupt = _copier(Interrupt)
_copy_request = _copier(Request)
_copy_rs = _copier(RequestState)


def _copy_fact(v):
    if type(v) is dict:
        return {k: _copy_fact(x) for k, x in v.items()}
    if type(v) is set:
        return set(v)
    if type(v) is list:
        return [_copy_fact(x) for x in v]
    return v            # tuples, strings, numbers: immutable


def clone(world):
    """An independent copy of `world` with an empty history (see the module's docstring)."""
    new = object.__new__(type(world))
    new.params = world.params
    rules = world.rules
    new.rules = _copy_stateful(rules)
    new.clock = world.clock
    new.runs = {k: _copy_run(v) for k, v in world.runs.items()}
    new.interrupts = {k: _copy_interrupt(v) for k, v in world.interrupts.items()}
    new.requests = {k: _copy_request(v) for k, v in world.requests.items()}
    new.request_states = {k: _copy_rs(v) for k, v in world.request_states.items()}
    new.stdio_open = set(world.stdio_open)
    new.notified = dict(world.notified)
    new.last_sent = dict(world.last_sent)
    new.effects = world.effects
    new.serial = world.serial
    new.history = []
    new.depth = world.depth
    new.step = None
    new.facts = {k: _copy_fact(v) for k, v in world.facts.items()}
    new._labels = world._labels          # ids never change meaning: the cache is shared
    new._memo = dict(world._memo)        # memo entries are keyed by what they read: safe to share
    for k, v in vars(world).items():     # attributes a variant's rules added to the world
        if k not in new.__dict__ and not callable(v):   # not an engine's wrapper of apply or moves
            new.__dict__[k] = _copy_fact(v)
    new.harness = None if world.harness is None else world.harness.clone(new)
    return new


def _copy_stateful(obj):
    """Rules are shared unless the instance holds state of its own (a variant's counter)."""
    d = getattr(obj, "__dict__", None)
    if not d:
        return obj
    out = object.__new__(type(obj))
    out.__dict__.update({k: _copy_fact(v) for k, v in d.items()})
    return out


# ---- the fingerprint ----------------------------------------------------------------------------
_HISTORY_FIELDS = {"label"}     # story names: the order things were made, not what they are


def _fields(obj, skip=_HISTORY_FIELDS) -> tuple:
    return tuple(getattr(obj, s) for s in obj.__slots__ if s not in skip)


# Messages, responses and run-log events are built once and never changed afterwards; every clone
# shares them. So each one's text is made once and kept with the object (which keeps its id unique).
_TEXTS: dict[int, tuple[object, str]] = {}


def _text(obj) -> str:
    got = _TEXTS.get(id(obj))
    if got is None or got[0] is not obj:
        got = _TEXTS[id(obj)] = (obj, repr(obj))
    return got[1]


def forget_texts() -> None:
    """Drop the kept texts (an engine calls this when a search ends)."""
    _TEXTS.clear()


def _request_fields(q) -> tuple:
    return tuple(_text(v) if type(v) is dict else v for v in _fields(q))


def _run_fields(r) -> tuple:
    return (*_fields(r, _RUN_SKIP), tuple(map(_text, r.log)))


_RUN_SKIP = _HISTORY_FIELDS | {"log"}


def state_tuple(world, facts: bool = True) -> tuple:
    """Everything that determines the future, as one nested tuple (dict order kept: the model's
    tables are insertion-ordered by creation, which `rename` then makes canonical). Without
    `facts`, the model's own state alone (the properties' monitor state left out)."""
    facts = tuple((k, _freeze(v)) for k, v in sorted(world.facts.items(), key=_first)
                  if _monitor_key(k)) if facts else ()
    extra = tuple((k, _freeze(v)) for k, v in vars(world).items() if k not in _WORLD_FIELDS and not callable(v))
    rules = getattr(world.rules, "__dict__", None)
    return (world.serial, world.clock, world.effects,
            tuple(_run_fields(r) for r in world.runs.values()),
            tuple(_fields(i) for i in world.interrupts.values()),
            tuple(_request_fields(q) for q in world.requests.values()),
            tuple(_fields(s) for s in world.request_states.values()),
            tuple(sorted(world.stdio_open)), tuple(world.notified.items()), tuple(world.last_sent.items()),
            facts, extra, _freeze(rules) if rules else (),
            () if world.harness is None else world.harness.state_tuple())


def _first(kv):
    return kv[0]


_WORLD_FIELDS = {"params", "rules", "clock", "runs", "interrupts", "requests", "request_states", "stdio_open",
                 "notified", "last_sent", "effects", "serial", "history", "depth", "step", "facts", "_labels", "_memo",
                 "harness"}


def _freeze(v):
    """A hashable, deterministic form: dicts keep their insertion order (the order the path made
    them in, fixed for a path), sets are sorted (their order would depend on string hashing)."""
    t = type(v)
    if t is str or t is int or t is tuple or v is None:
        return v
    if t is dict:
        return tuple((k, _freeze(x)) for k, x in v.items())
    if t is set or t is frozenset:
        return tuple(sorted(v, key=repr)) if v else ()
    if t is list:
        return tuple(_freeze(x) for x in v)
    return v


_REQUEST_ID = re.compile(r"'r(\d+)'")


def fingerprint(world, rename: bool = True, facts: bool = True) -> bytes:
    """A 16-byte digest of `state_tuple`. With `rename`, JSON-RPC request ids (minted in the order
    requests were sent) are renamed in the order of what each request holds with every request id
    masked, and the request table is listed in that order: the same requests sent by independent
    clients in either order are one state."""
    t = state_tuple(world, facts)
    if not rename or len(world.requests) < 2:
        return hashlib.blake2b(repr(t).encode(), digest_size=16).digest()
    own = [repr(q) for q in t[5]]
    masked = [_REQUEST_ID.sub("'r#'", x) for x in own]
    order = sorted(range(len(own)), key=masked.__getitem__)
    ids = list(world.requests)
    if ids != [f"r{n + 1}" for n in range(len(ids))]:        # ids not minted by the clients' counter
        return hashlib.blake2b(repr(t).encode(), digest_size=16).digest()
    new = {str(old + 1): str(rank + 1) for rank, old in enumerate(order)}
    sub = lambda m: f"'r{new.get(m.group(1), m.group(1))}'"     # noqa: E731
    rest = repr(t[:5] + t[6:])
    text = _REQUEST_ID.sub(sub, rest) + "|" + "|".join(_REQUEST_ID.sub(sub, own[i]) for i in order)
    return hashlib.blake2b(text.encode(), digest_size=16).digest()
