"""What exhaustive search needs of the model: a cheap copy of a world and a canonical fingerprint.

`clone(world)` copies everything that determines the future (records, the clock, the harness, the
monitor facts of trace properties) and shares what never changes once made: params, messages and
responses as sent, run-log events, frozen bindings. It starts an empty history: the engines keep
traces as parent links and replay them.

`fingerprint(world, rename)` is a digest of that same state, leaving out the history, caches,
annotations (the step a fact was learnt at) and the index of listen streams (`World.listens`, which
the request table determines). With `rename`, JSON-RPC request ids, which clients
mint from one counter, are renamed canonically: two states that differ only in the order
independent requests were sent are one state. Other minted ids (runIds, interruptIds, tokens) come
from the serial, which is part of the state: runs made in another order are other states.
"""
from __future__ import annotations

import hashlib
import marshal
import pickle
import re
from itertools import compress, islice
from operator import eq, is_, is_not

from .facts import Facts, Leaves, monitor_key
from .facts import copy_fact as _copy_fact
from .state import Interrupt, Request, RequestState, Run



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


_copy_run = _copier(Run, {"children": "list(o.children)", "log": "list(o.log)", "interrupts": "list(o.interrupts)"})
_copy_interrupt = _copier(Interrupt)
_copy_request = _copier(Request)
_copy_rs = _copier(RequestState)


def clone(world, share: bool = False):
    """An independent copy of `world` with an empty history (see the module's docstring). With
    `share`, the copy's tables hold `world`'s very records (`successor`, which seals them first)."""
    new = object.__new__(type(world))
    new.params = world.params
    rules = world.rules
    new.rules = _copy_stateful(rules)
    new.clock = world.clock
    if share:
        new.runs, new.interrupts = dict(world.runs), dict(world.interrupts)
        new.requests, new.request_states = dict(world.requests), dict(world.request_states)
    else:
        new.runs = {k: _COPY[type(v)](v) for k, v in world.runs.items()}
        new.interrupts = {k: _COPY[type(v)](v) for k, v in world.interrupts.items()}
        new.requests = {k: _COPY[type(v)](v) for k, v in world.requests.items()}
        new.request_states = {k: _COPY[type(v)](v) for k, v in world.request_states.items()}
    new.stdio_open = set(world.stdio_open)
    new.notified = dict(world.notified)
    new.last_sent = dict(world.last_sent)
    new.listens = world.listens          # a tuple: replaced, never changed in place
    new.effects = world.effects
    new.serial = world.serial
    new.history = []
    new.depth = world.depth
    new.step = None
    f = world.facts
    new.facts = f.fork() if type(f) is Facts else Facts({k: _copy_fact(v) for k, v in f.items()})
    new._labels = world._labels          # ids never change meaning: the cache is shared
    new._memo = dict(world._memo)        # memo entries are keyed by what they read: safe to share
    for k, v in vars(world).items():     # attributes a variant's rules added to the world
        if k not in new.__dict__ and k not in _SHARING and not callable(v):   # not an engine's wrapper of apply or moves
            new.__dict__[k] = _copy_fact(v)
    new.harness = None if world.harness is None else world.harness.clone(new)
    return new


# ---- copy on write: a search's successor shares the records its move leaves alone ----------------
class SharedRecordWrite(Exception):
    """A move wrote a record its action's footprint does not say it writes, in a world sharing that
    record with others (`successor`): a false declaration (`model.footprint`), raised, never a
    silently changed state."""


def _sealed_class(cls):
    """A subclass of a record class whose every field write raises: a record shared between worlds
    is put in it (`__class__` swapped, the same slots) and never changes again. `dataclasses.replace`
    and `copy` of one make a plain record."""
    def __new__(c, *args, **kw):
        return cls(*args, **kw) if args or kw else object.__new__(cls)

    def __setattr__(self, name, value):
        raise SharedRecordWrite(f"{cls.__name__} {self!r:.80}: `{name}` written by a move whose footprint does not "
                                f"say it writes it (model.footprint), while the record is shared with other states")
    return type(cls.__name__, (cls,), {"__slots__": (), "__new__": __new__, "__setattr__": __setattr__,
                                       "__module__": cls.__module__, "__qualname__": cls.__qualname__})


_SEALED = {cls: _sealed_class(cls) for cls in (Run, Interrupt, Request, RequestState)}
_SEALED_RUN = _SEALED[Run]
_COPY = {Run: _copy_run, Interrupt: _copy_interrupt, Request: _copy_request, RequestState: _copy_rs}
_COPY.update({_SEALED[k]: f for k, f in _COPY.items()})
# footprint key kind -> the world table of its records ("log": a run's log lives in its record)
_TABLE_OF = {"run": "runs", "log": "runs", "interrupt": "interrupts", "request": "requests",
             "request_state": "request_states"}
_TABLES = ("runs", "interrupts", "requests", "request_states")
_SHARING = ("_loose", "_sealed_at")      # a world's own bookkeeping of what it shares (`seal`)


def seal(world) -> None:
    """Make `world`'s records shareable: from now on a write to one raises (`SharedRecordWrite`). Only
    the records it may hold unsealed are visited: those `successor` or `own` copied for it (`_loose`)
    and those made since it was last sealed (past the tables' sizes then, `_sealed_at`), so that a
    world of many records is sealed in the time of its few new ones."""
    at = world.__dict__.get("_sealed_at")
    for r in world.__dict__.get("_loose", ()):
        _seal(r)
    sizes = []
    for k, name in enumerate(_TABLES):
        table = getattr(world, name)
        sizes.append(len(table))
        # those past the size then, read from the end (skipping the first ones would read them all)
        records = table.values() if at is None else islice(reversed(table.values()), len(table) - at[k])
        for r in records:
            _seal(r)
    world._loose, world._sealed_at = [], tuple(sizes)


def _seal(r) -> None:
    """Seal one record: its class swapped, and a run's lists (its log, children and interrupts) made
    tuples, so that appending to one in place raises too. A copy (`_COPY`) makes them lists again."""
    s = _SEALED.get(type(r))
    if s is None:
        return
    if s is _SEALED_RUN:
        r.log, r.children, r.interrupts = tuple(r.log), tuple(r.children), tuple(r.interrupts)
    r.__class__ = s


def successor(world, writes):
    """`clone(world)`, but sharing every record the move about to be taken leaves alone: `writes`, the
    footprint keys it may write (`model.footprint`: ("run", id), ("request", ANY), EVERYTHING, ...),
    or None for every record. `world` is sealed first (`seal`): it must not change afterwards, and a
    write to a shared record raises rather than change both worlds. The records the move may write
    are the successor's own copies."""
    seal(world)
    new = clone(world, share=True)
    new._loose, new._sealed_at = [], world._sealed_at
    return own(new, writes)


def own(world, writes):
    """`world`, its shared records the move about to be taken may write (`writes`, as `successor`'s;
    None: every record) replaced by copies of its own: a world stepped in place after others were
    made from it."""
    if writes is None or any(k[0] == "*" for k in writes):
        for name in _TABLES:
            table = getattr(world, name)
            for i, r in table.items():
                _owned(world, table, i, r)
        return world
    for k in writes:
        name = _TABLE_OF.get(k[0])
        if name is None:
            continue
        table = getattr(world, name)
        if k[1] == "*":
            for i, r in table.items():
                _owned(world, table, i, r)
        else:
            r = table.get(k[1])
            if r is not None:
                _owned(world, table, k[1], r)
    return world


def kept_shared(parent, child) -> bool:
    """Whether `child`, a successor of `parent` (`successor`) after its step, holds every record
    `parent` holds as `parent` does: the same keys in the same order before those the step made, each
    record `parent`'s own object or the copy `own` made of it. False where the step removed, moved or
    replaced a record (a rule writing a table rather than a record's fields, which no seal stops): a
    step's record of what the records held before it (`model.before`) reads the shared records as they
    are. Read at C speed, in one pass over each table."""
    loose = {id(r) for r in child.__dict__.get("_loose", ())}
    for name in _TABLES:
        a, b = getattr(parent, name), getattr(child, name)
        if len(b) < len(a) or not all(map(eq, a, b)):
            return False
        for r in compress(b.values(), map(is_not, a.values(), b.values())):
            if id(r) not in loose:
                return False
    return True


def _owned(world, table, key, r) -> None:
    """`table[key]` (the record `r`) a copy of world's own, if `r` is sealed."""
    if type(r) is not _BASE[type(r)]:
        r = table[key] = _COPY[type(r)](r)
        loose = world.__dict__.get("_loose")
        if loose is not None:
            loose.append(r)


_BASE = {cls: cls for cls in _SEALED}
_BASE.update({s: cls for cls, s in _SEALED.items()})


def _copy_stateful(obj):
    """Rules are shared unless the instance holds state of its own (a variant's counter)."""
    d = getattr(obj, "__dict__", None)
    if not d:
        return obj
    out = object.__new__(type(obj))
    out.__dict__.update({k: _copy_fact(v) for k, v in d.items()})
    return out


# ---- a compact encoding, to send a state to another process ------------------------------------
def _codec(cls):
    """Compiled (record -> tuple of its slots, tuple -> record): plain tuples pickle in C, where a
    slotted dataclass takes pickle's slow path through copyreg."""
    slots = cls.__slots__
    ns = {"cls": cls, "new": object.__new__}
    exec(f"def out(o):\n    return ({', '.join('o.' + x for x in slots)},)\n"
         f"def back(t):\n    n = new(cls)\n    ({', '.join('n.' + x for x in slots)},) = t\n    return n", ns)
    return ns["out"], ns["back"]


_CODECS = {"runs": _codec(Run), "interrupts": _codec(Interrupt), "requests": _codec(Request),
           "request_states": _codec(RequestState)}
_PLAIN_FIELDS = ("clock", "stdio_open", "notified", "last_sent", "listens", "effects", "serial", "depth", "_labels")


def encode(world) -> bytes:
    """The bytes of what `clone` copies (pickled), but what no later step can read: the params and
    the rules, which the receiving process has from its own initial world of the same variant and
    scope (`decode`; rules that hold state of their own travel as that state), and the memo
    (rebuilt from its key)."""
    tables = tuple({k: out(v) for k, v in getattr(world, name).items()} for name, (out, _) in _CODECS.items())
    facts = world.facts.plain() if type(world.facts) is Facts else dict(world.facts)
    own = {k: v for k, v in vars(world).items() if k not in WORLD_FIELDS and not callable(v)}
    rules = getattr(world.rules, "__dict__", None) or None
    harness = None
    if world.harness is not None:
        state = {k: v for k, v in vars(world.harness).items() if k not in ("rules", "said")}
        harness = (state, getattr(world.harness.rules, "__dict__", None) or None)
    plain = tuple(getattr(world, k) for k in _PLAIN_FIELDS)
    texts = [_text(x) for x in _shared(world)]      # made once here already: the receiver need not redo them
    return pickle.dumps((tables, plain, facts, own, rules, harness, texts), protocol=5)


def _shared(world):
    """The messages, responses and run-log events of a world, in a fixed order (their texts travel)."""
    for r in world.runs.values():
        yield from r.log
    for q in world.requests.values():
        yield q.message
        if type(q.response) is dict:
            yield q.response


def decode(data: bytes, template):
    """The world `encode` gave, rebuilt over `template` (an initial world of the same variant and
    scope: its params, rules and harness rules)."""
    tables, plain, facts, own, rules, harness, texts = pickle.loads(data)
    new = object.__new__(type(template))
    new.params = template.params
    new.rules = template.rules
    if rules:
        new.rules = object.__new__(type(template.rules))
        new.rules.__dict__.update(rules)
    for (name, (_, back)), table in zip(_CODECS.items(), tables):
        setattr(new, name, {k: back(v) for k, v in table.items()})
    for k, v in zip(_PLAIN_FIELDS, plain):
        setattr(new, k, v)
    new.facts = Facts(facts)
    new.history, new.step, new._memo = [], None, {}
    new.__dict__.update(own)
    for obj, text in zip(_shared(new), texts):
        _TEXTS[id(obj)] = (obj, text)
    new.harness = None
    if harness is not None:
        state, hr = harness
        h = new.harness = object.__new__(type(template.harness))
        h.__dict__.update(state)
        h.said = ""
        h.rules = template.harness.rules
        if hr:
            h.rules = object.__new__(type(template.harness.rules))
            h.rules.__dict__.update(hr)
    return new


# ---- the fingerprint ----------------------------------------------------------------------------
_HISTORY_FIELDS = {"label"}     # story names: the order things were made, not what they are


def _getter(cls, skip=_HISTORY_FIELDS, texts: bool = False, log: bool = False):
    """A compiled `(o, text) -> tuple` of an object's slots but `skip` (one attribute load per
    slot, the fingerprint's inner loop). With `texts`, dict-typed slots go through `text`; with
    `log`, the run log's events follow, each through `text`."""
    hints = getattr(cls, "__annotations__", {})
    parts = []
    for s in cls.__slots__:
        if s in skip:
            continue
        hint = str(hints.get(s, ""))
        dictish = texts and "dict" in hint
        # a list slot as a tuple: a sealed record holds it as one (`seal`), and its form is the same
        parts.append(f"(text(o.{s}) if type(o.{s}) is dict else o.{s})" if dictish else
                     f"tuple(o.{s})" if hint.startswith("list[") else f"o.{s}")
    if log:
        parts.append("tuple(map(text, o.log))")
    ns: dict = {}
    exec(f"def get(o, text):\n    return ({', '.join(parts)},)", ns)
    return ns["get"]


# Messages, responses and run-log events are built once and never changed afterwards; every clone
# shares them. So each one's text is made once and kept with the object (which keeps its id unique).
_TEXTS: dict[int, tuple[object, str]] = {}


def _text(obj) -> str:
    got = _TEXTS.get(id(obj))
    if got is None or got[0] is not obj:
        got = _TEXTS[id(obj)] = (obj, repr(obj))
    return got[1]


# The fingerprint holds each text as its digest, also kept with the object: a long session's world
# holds hundreds of messages, and hashing them whole at every state would cost more than the step.
_TEXT_DIGESTS: dict[int, tuple[object, bytes]] = {}


def _text_digest(obj) -> bytes:
    got = _TEXT_DIGESTS.get(id(obj))
    if got is None or got[0] is not obj:
        got = _TEXT_DIGESTS[id(obj)] = (obj, _digest(_text(obj).encode()))
    return got[1]


def forget_texts(pieces: bool = True) -> None:
    """Drop the kept texts (an engine calls this when a search ends). The renamed pieces are kept
    by their text, not by an object: `pieces=False` keeps them for more of the same search."""
    _TEXTS.clear()
    _TEXT_DIGESTS.clear()
    _FROZEN.clear()
    _FORMS.clear()
    if pieces:
        _PIECES.clear()


_RUN_SKIP = _HISTORY_FIELDS | {"log"}
_run_fields = _getter(Run, _RUN_SKIP, log=True)
_interrupt_fields = _getter(Interrupt)
_request_fields = _getter(Request, texts=True)
_rs_fields = _getter(RequestState)


def _sealed_forms(getter):
    """`getter` for the fingerprint (`text` = `_text_digest`), each sealed record's form made once:
    a sealed record never changes (`seal`), and a world of many records shares most of them."""
    def get(o, text):
        if type(o) in _BASE_OF_SEALED:
            got = _FORMS.get(id(o))
            if got is None or got[0] is not o:
                got = _FORMS[id(o)] = (o, getter(o, text))
            return got[1]
        return getter(o, text)
    return get


_FORMS: dict[int, tuple] = {}          # id -> (sealed record, its fingerprint form), kept with the record
_BASE_OF_SEALED = frozenset(_SEALED.values())
_FORMED = tuple(map(_sealed_forms, (_run_fields, _interrupt_fields, _request_fields, _rs_fields)))


def state_tuple(world, facts: bool = True, text=_text) -> tuple:
    """Everything that determines the future, as one nested tuple (dict order kept: the model's
    tables are insertion-ordered by creation, which `rename` then makes canonical). Without
    `facts`, the model's own state alone (the properties' monitor state left out). `text` gives
    the form of each message, response and run-log event (their `repr` by default)."""
    runs, interrupts, requests, states = _FORMED if text is _text_digest else (
        _run_fields, _interrupt_fields, _request_fields, _rs_fields)
    return (world.serial, world.clock, world.effects,
            tuple([runs(r, text) for r in world.runs.values()]),
            tuple([interrupts(i, text) for i in world.interrupts.values()]),
            tuple([requests(q, text) for q in world.requests.values()]),
            tuple([states(s, text) for s in world.request_states.values()]),
            *beyond_records(world, facts))


# The getter of a record's form of each record table of `state_tuple`, in its order (`text`: its texts'
# form, as `state_tuple` takes it).
RECORD_FORMS = (_run_fields, _interrupt_fields, _request_fields, _rs_fields)


def beyond_records(world, facts: bool) -> tuple:
    """The part of `state_tuple` past the record tables."""
    f = world.facts
    facts = () if not facts else f.monitor_form(freeze) if type(f) is Facts else \
        tuple((k, freeze(v)) for k, v in sorted(f.items(), key=_first) if monitor_key(k))
    extra = tuple((k, freeze(v)) for k, v in vars(world).items() if k not in WORLD_FIELDS and not callable(v))
    rules = getattr(world.rules, "__dict__", None)
    return (tuple(sorted(world.stdio_open)), tuple(world.notified.items()), tuple(world.last_sent.items()),
            facts, extra, freeze(rules) if rules else (),
            () if world.harness is None else world.harness.state_tuple())


def same_state(a, b) -> bool:
    """Whether `fingerprint(a, rename=False) == fingerprint(b, rename=False)`: the two `state_tuple`s
    compared, in the time of the records the worlds do not share (a record both hold is one value).
    The trace validator compares states of a long session that differ in a few records."""
    if a.serial != b.serial or a.clock != b.clock or a.effects != b.effects:
        return False
    if not tables_alike(a, b, _FORMED, lambda form, r: encoded(form(r, _text_digest))):
        return False
    fa, fb = a.facts, b.facts
    if type(fa) is Facts and type(fb) is Facts:     # the monitors' maps grow with the session
        return fa.alike(fb, freeze, encoded) and encoded(beyond_records(a, False)) == encoded(beyond_records(b, False))
    return encoded(beyond_records(a, True)) == encoded(beyond_records(b, True))


def tables_alike(a, b, getters, key) -> bool:
    """Whether the record tables of worlds `a` and `b` (in `state_tuple`'s order, each with its form's
    getter in `getters`) hold records alike two by two: `key(getter, record)` equal, read only of the
    records the two do not share."""
    for name, form in zip(_TABLES, getters):
        ta, tb = getattr(a, name), getattr(b, name)
        if len(ta) != len(tb):
            return False
        if all(map(is_, ta.values(), tb.values())):
            continue
        for x, y in zip(ta.values(), tb.values()):
            if x is not y and key(form, x) != key(form, y):
                return False
    return True


def _first(kv):
    return kv[0]


WORLD_FIELDS = {"params", "rules", "clock", "runs", "interrupts", "requests", "request_states", "stdio_open",
                 "notified", "last_sent", "listens", "effects", "serial", "history", "depth", "step", "facts", "_labels", "_memo",
                 "harness", *_SHARING}


def freeze(v):
    """A hashable, deterministic form: dicts keep their insertion order (the order the path made
    them in, fixed for a path), sets are sorted (their order would depend on string hashing)."""
    t = type(v)
    if t is str or t is int or t is tuple or v is None:
        return v
    if t is dict:
        return tuple([(k, x if type(x) in _LEAVES else freeze(x)) for k, x in v.items()])
    if t is Leaves:             # its values are their own form: a dict's, item by item
        return tuple(dict.items(v))
    if t is frozenset:          # never changes once made: sorted once (a monitor's copy of scopes)
        got = _FROZEN.get(id(v))
        if got is None or got[0] is not v:
            got = _FROZEN[id(v)] = (v, tuple(sorted(v, key=repr)) if v else ())
        return got[1]
    if t is set:
        return tuple(sorted(v, key=repr)) if v else ()
    if t is list:
        return tuple([x if type(x) in _LEAVES else freeze(x) for x in v])
    fields = getattr(t, "__dataclass_fields__", None)
    if fields is not None and t.__dataclass_params__.frozen:   # a value record (a harness binding):
        # its class and fields, plain, so that the state is marshalled, not repr'd
        return (_RECORD, t.__qualname__) + tuple(freeze(getattr(v, f)) for f in fields)
    return v


_RECORD = "\0record"      # marks a frozen record's form: no text the model holds starts with a NUL


_LEAVES = frozenset({str, int, tuple, type(None)})      # what `freeze` returns as it is
_FROZEN: dict[int, tuple] = {}      # id -> (frozenset, its sorted form), kept with the object


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def encoded(t: tuple) -> bytes:
    """The bytes of a state tuple: marshal (version 2: no shared references, no interning marks,
    so equal values always give equal bytes) where every value is a plain one, else its repr.
    Either is one-to-one on the values a state holds, so both give the classes `repr` gave."""
    try:
        return b"m" + marshal.dumps(t, 2)
    except ValueError:          # an object marshal does not know (a harness binding, a variant's)
        return b"r" + repr(t).encode()


_REQUEST_ID = re.compile(r"'r(\d+)'")
# The renamed form of each message text (as it stands in a state's repr), by its text and the
# renaming: a short hex digest, which holds neither a quote nor an "r", so no renaming reaches it.
_PIECES: dict[tuple, str] = {}


def _piece(text: str, mapping) -> str:
    """The hex digest of a text's repr with its request ids renamed by `mapping` (old number ->
    new), or masked when `mapping` is None."""
    key = (text, mapping)
    got = _PIECES.get(key)
    if got is None:
        if mapping is None:
            renamed = _REQUEST_ID.sub("'r#'", repr(text))
        else:
            table = dict(mapping)
            renamed = _REQUEST_ID.sub(lambda m: f"'r{table.get(m.group(1), m.group(1))}'", repr(text))
        got = _PIECES[key] = hashlib.blake2b(renamed.encode(), digest_size=16).hexdigest()
    return got


def fingerprint(world, rename: bool = True, facts: bool = True) -> bytes:
    """A 16-byte digest of `state_tuple`. With `rename`, JSON-RPC request ids (minted in the order
    requests were sent) are renamed in the order of what each request holds with every request id
    masked, and the request table is listed in that order: the same requests sent by independent
    clients in either order are one state."""
    if not rename:
        return _digest(encoded(state_tuple(world, facts, _text_digest)))
    return renamed_fingerprint(world, facts)[0]


def renamed_fingerprint(world, facts: bool = True) -> tuple[bytes, tuple | None]:
    """`fingerprint(world)` and the renaming it applied: ((old number, new number), ...) of the request
    ids, or None where it renamed nothing (fewer than two requests, or ids not minted in order). Two
    worlds of one renamed fingerprint are the same world exactly when their renamings are equal: a
    renaming is one-to-one on request ids, so the renamed state and it give the world back (the stored
    graph tells its representative worlds so, without a second fingerprint)."""
    ids = list(world.requests)
    if len(ids) < 2 or ids != [f"r{n + 1}" for n in range(len(ids))]:
        return _digest(encoded(state_tuple(world, facts, _text_digest))), None
    # Renaming works on the repr, where a request id is a quoted 'rN' (also inside message texts);
    # each text stands as the digest of its own renamed repr (a match never spans a text's bounds).
    masked_text = lambda obj: _piece(_text(obj), None)       # noqa: E731
    masked = [_REQUEST_ID.sub("'r#'", repr(_request_fields(q, masked_text))) for q in world.requests.values()]
    order = sorted(range(len(ids)), key=masked.__getitem__)
    mapping = tuple((str(old + 1), str(rank + 1)) for rank, old in enumerate(order))
    new = dict(mapping)
    t = state_tuple(world, facts, lambda obj: _piece(_text(obj), mapping))
    own = [repr(q) for q in t[5]]
    if order == sorted(order):      # the requests are in their canonical order already: nothing to rename
        return _digest((repr(t[:5] + t[6:]) + "|" + "|".join(own)).encode()), mapping
    sub = lambda m: f"'r{new.get(m.group(1), m.group(1))}'"     # noqa: E731
    text = _REQUEST_ID.sub(sub, repr(t[:5] + t[6:])) + "|" + "|".join(_REQUEST_ID.sub(sub, own[i]) for i in order)
    return _digest(text.encode()), mapping
