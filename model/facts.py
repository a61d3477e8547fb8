"""`world.facts`: what properties remember between steps, copied on write.

A search clones a world for every move it takes, and most of the monitor state a clone inherits is
never touched by the step it takes. So a clone shares every value with the world it came from, and
each of the two copies a value the first time it is asked for it (`get`, `[]`, `setdefault`: a
property may change what it was given in place), so neither sees the other's change. Values that
cannot change (tuples, strings, numbers, frozensets) are never copied. A property that mostly reads
its facts `peek`s (no copy) and asks for its own copy only when it has something to write.

Each key's fingerprint form is kept until the key is asked for again, and `monitor_form` hands the
whole of it to the fingerprint. Taking that form seals the facts: whatever is asked for later is
copied first, so a value whose form was taken never changes in place.

A monitor's map by run or interrupt id grows with the session; one whose values are leaves is a
`Leaves`, copied and frozen in the time of a dict's copy, not of a loop over its entries.
"""
from __future__ import annotations

ATOMS = frozenset({str, int, tuple, bool, float, type(None), frozenset})   # immutable: shared, never copied
_MISSING = object()


# A `Leaves` map's keys and values: `==` between them is equality of their fingerprint forms (no bool
# or float, which equal an int of another form), so two maps compare at a dict's speed.
LEAF_TYPES = frozenset({str, int, type(None)})


def _leaf(v) -> bool:
    t = type(v)
    return t in LEAF_TYPES or t is tuple and all(type(x) in LEAF_TYPES for x in v)


class Leaves(dict):
    """A fact's map whose keys and values are leaves (`LEAF_TYPES`, or tuples of them): copied, frozen
    and compared as a whole at a dict's speed (a long session's monitors keep one entry per run;
    copying them entry by entry at every step made the trace validator quadratic). Anything else
    is refused."""
    __slots__ = ()

    def __setitem__(self, key, value):
        if not (_leaf(key) and _leaf(value)):
            raise TypeError(f"a Leaves map holds leaves, not {key!r}: {value!r}")
        dict.__setitem__(self, key, value)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def update(self, *args, **kw):
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def __reduce__(self):
        return Leaves, (dict(self),)


def alike(a, b, form) -> bool:
    """Whether two facts' values have the same fingerprint form (`form`: a value's, as bytes; a plain
    dict's keys are their own form), read in the time of what they do not share: the same object,
    `Leaves` maps by `==` and key order, plain dicts key by key."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b):
        return form(a) == form(b)
    if ta is Leaves:
        return len(a) == len(b) and a == b and list(a) == list(b)
    if ta is dict:
        return len(a) == len(b) and form(tuple(a)) == form(tuple(b)) and \
            all(alike(x, b[k], form) for k, x in a.items())
    return form(a) == form(b)


def copy_fact(v):
    """A copy of a fact's value deep enough that changing the copy in place leaves `v` as it was."""
    t = type(v)
    if t is Leaves:
        return Leaves(v)
    if t is dict:
        return {k: x if type(x) in ATOMS else copy_fact(x) for k, x in v.items()}
    if t is set:
        return set(v)
    if t is list:
        return [x if type(x) in ATOMS else copy_fact(x) for x in v]
    return v            # tuples, strings, numbers: immutable


def monitor_key(key) -> bool:
    """Keys holding a "." are caches and annotations (the step a fact was learnt at, a memo keyed
    by the step object): they never decide a later verdict, so no copy of a state carries them into
    its fingerprint. Every other key is monitor state of a trace property."""
    return "." not in key


class Facts(dict):
    __slots__ = ("_own", "_forms", "_form")

    def __init__(self, *args):
        dict.__init__(self, *args)
        self._own: set = set()         # keys whose value this world copied: its own to change
        self._forms: dict = {}         # monitor key -> its fingerprint form, while unchanged
        self._form: tuple | None = None

    def __reduce__(self):
        return Facts, (dict(self),)

    def _take(self, key, v):
        """The value of `key` this world may change in place."""
        if type(v) in ATOMS:
            return v
        if key not in self._own:
            v = copy_fact(v)
            dict.__setitem__(self, key, v)
            self._own.add(key)
        self._changed(key)
        return v

    def _changed(self, key):
        self._forms.pop(key, None)
        self._form = None

    def peek(self, key, default=None):
        """The value of `key` as it stands, shared with other worlds: to read, never to change in
        place (`get`, `[]` and `setdefault` give the copy this world may change)."""
        return dict.get(self, key, default)

    def get(self, key, default=None):
        v = dict.get(self, key, _MISSING)
        return default if v is _MISSING else self._take(key, v)

    def __getitem__(self, key):
        return self._take(key, dict.__getitem__(self, key))

    def setdefault(self, key, default=None):
        if key in self:
            return self[key]
        self[key] = default
        return default

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        self._own.add(key)
        self._changed(key)

    def __delitem__(self, key):
        dict.__delitem__(self, key)
        self._own.discard(key)
        self._changed(key)

    def pop(self, key, *default):
        self._own.discard(key)
        self._changed(key)
        return dict.pop(self, key, *default)

    def update(self, *args, **kw):
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def clear(self):
        dict.clear(self)
        self._own.clear()
        self._forms.clear()
        self._form = None

    def popitem(self):
        key = next(reversed(dict.keys(self)))
        return key, self.pop(key)

    def values(self):
        return [self[k] for k in self]

    def items(self):
        return [(k, self[k]) for k in self]

    def fork(self) -> "Facts":
        """The facts of a clone: every value shared, and from now on copied by whichever side asks."""
        new = dict.__new__(Facts)
        dict.update(new, self)
        new._own = set()
        new._forms = dict(self._forms)
        new._form = self._form
        self._own.clear()
        return new

    def plain(self) -> dict:
        """The facts as a plain dict of the values as they stand (shared, not copied)."""
        return dict(dict.items(self))

    def alike(self, other: "Facts", freeze, encode) -> bool:
        """Whether `encode(self.monitor_form(freeze))` equals `other`'s, without making either: values
        both share compare as they are, forms both hold by their bytes, others by `alike`."""
        keys = sorted(k for k in dict.keys(self) if "." not in k)
        if keys != sorted(k for k in dict.keys(other) if "." not in k):
            return False
        fa, fb = self._forms, other._forms
        for k in keys:
            x, y = dict.__getitem__(self, k), dict.__getitem__(other, k)
            if x is y:
                continue
            f, g = fa.get(k, _MISSING), fb.get(k, _MISSING)
            if f is not _MISSING and g is not _MISSING:
                if f is not g and encode(f) != encode(g):
                    return False
            elif not alike(x, y, lambda v: encode(freeze(v))):
                return False
        return True

    def monitor_form(self, freeze) -> tuple:
        """((key, freeze(value)), ...) of the monitor keys in key order, and the facts sealed."""
        self._own.clear()
        if self._form is None:
            forms = self._forms
            out = []
            for k in sorted(dict.keys(self)):
                if "." in k:
                    continue
                f = forms.get(k, _MISSING)
                if f is _MISSING:
                    f = forms[k] = freeze(dict.__getitem__(self, k))
                out.append((k, f))
            self._form = tuple(out)
        return self._form
