"""An amendment searched incrementally, from the baseline's state graph stored on disk.

The baseline's graph at a scope is built once per model version (`stored`): for each state its
fingerprint, its encoding (`model.snapshot.encode`), the rules its move enumeration asked (per
action), and for each transition, in the search's move order, the move, the successor, the rules the
transition asked (the step, `after_step`, the monitors and the property checks, which may ask rules
too) and what the properties made of it: whose premise it reached and which failed. It is built with
every property of the scope open (no property is closed at a violation) and the world's memo off, so
that every rule a result depends on is asked, and recorded. A search checks its closed properties
all the same (`search.Checker`), so the successors do not depend on which properties a search has
closed.

An amendment that overrides rules only is then searched as `search.search` would, in the same order
and with the same bookkeeping, but a transition whose stored record asked none of the overridden
rules is taken from the store: the amendment's execution of it is the baseline's up to the first call
of an overridden rule, and there was none. A transition is executed all the same when a property
still open in this search failed on it (its message and bookkeeping come from the real checker).
States the baseline never reached are expanded in full. A state none of whose moves asked an
overridden rule or failed a property still open is booked in one piece (`_summarise`): its moves'
counts at once, its successors straight from the store. Where the fingerprint renames request ids,
a state reached as another world than the one stored for it (`Stored.renamings`, `Stored.inexact`) is
expanded in full, so that its path is its own.
"""
from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import inspect
import os
import pickle
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path

import zstandard

from model.harness import HarnessRules
from model.rules import Rules
from model.snapshot import clone, decode, encode, fingerprint, renamed_fingerprint
from model.world import World, action_table
from properties.base import guard_facets

from verifier.engines.bfs import fair
from verifier.engines.bfs.search import (Checker, Search, _judged, _Stop, enabled_moves, fault_at, finish,
                                          level_done, verdicts_of)
from verifier.runtime import interrupt, watchdog
from verifier.runtime.budgets import TIME_CAP
from verifier.runtime.collector import cycles_probed, quiet_gc
from verifier.runtime.reuse import sources_digest
from verifier.runtime.worlds import make_world_for

FORMAT = 10
CACHE_ENV = "TASKMODEL_GRAPH_CACHE"
ROOT = Path(__file__).resolve().parents[3]
# The harness caches what `decode_task_ref` answered across states (`Harness._raw`), so the store
# cannot tell which transitions depend on it.
UNRECORDED = frozenset({"decode_task_ref"})
# A graph is stored up to about this many states (composed-small, the largest default scope, has about
# 212,000): past it, the states are stored unexpanded, and a search expands them in full. The E2E home
# (1.5 million states with no property) is stored partly: its searches settle far sooner.
MAX_STATES = 400_000


class NotBuilt(Exception):
    """The baseline's graph at a scope is not stored, and this search does not build it."""


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or ROOT / "out" / "cache" / "graphs")


def model_hash() -> str:
    """The model's and the catalogue's code (built-in variants apart: they are not the baseline), read
    once per process: close to the code it imported, whatever is edited later."""
    if not _HASH:
        _HASH.append(_hashed())
    return _HASH[0]


_HASH: list = []


def _hashed() -> str:
    return sources_digest(hashlib.sha256(f"format {FORMAT}".encode()), ROOT, ("model", "properties"),
                          skip=("model", "variants"))


def store_key(scope, props, rename: bool) -> str:
    """`SCOPE-MODEL`: a digest of the scope, its properties and symmetry, then of the model's code."""
    text = repr((scope.name, sorted(scope.describe().items()), scope.composed, scope.depth,
                 [p.name for p in props], scope.renames(rename, scope.params())))
    return f"{hashlib.sha256(text.encode()).hexdigest()[:24]}-{model_hash()[:24]}"


# ---- recording the rules asked --------------------------------------------------------------------
_ASKED: set = set()


def _methods(cls) -> dict:
    """Every method of `cls` (private ones too: `_cascade` can be overridden)."""
    return {n: f for n, f in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("__")}


def _recording(cls, names, prefix: str = ""):
    """A subclass of `cls` whose methods `names` add their name to `_ASKED` when asked."""
    def wrap(name, f):
        key = prefix + name

        @functools.wraps(f)
        def asked(self, *args, **kw):
            _ASKED.add(key)
            return f(self, *args, **kw)
        return asked
    return type(cls.__name__, (cls,), {n: wrap(n, getattr(cls, n)) for n in names})


def overridden(variant) -> frozenset:
    """The rules (harness rules as `harness.NAME`) a variant replaces (none: the baseline)."""
    if variant is None:
        return frozenset()
    out = {n for n, f in _methods(Rules).items() if getattr(variant, n) is not f}
    hr = getattr(variant, "harness_rules", None)
    if hr is not None:
        out |= {f"harness.{n}" for n, f in _methods(HarnessRules).items() if getattr(hr, n) is not f}
    return frozenset(out)


class _Unmemoized(World):
    """The baseline's world for the store: every memo rebuilt, so that every rule is asked where its
    answer is used (a memo hit would hide a rule the moves depend on)."""

    def memo(self, name, key, build):
        return build()


# ---- the stored graph -----------------------------------------------------------------------------
@dataclass
class Stored:
    key: str
    fps: list = field(default_factory=list)        # state -> fingerprint
    codes: list = field(default_factory=list)      # state -> encode(world), compressed (zstd) over `zdict`
    zdict: bytes = b""                             # encodings of early states: later ones share most of it
    expanded: int = 0                              # states 0 .. expanded-1 have moves; the rest are stored unexpanded
    asked: list = field(default_factory=list)      # expanded state -> id of the rules its enumeration asked
    asked_by: list = field(default_factory=list)   # expanded state -> id of ((action, rules id), ...): the
    #                                                 actions whose moves asked rules (None: the liveness summary)
    enumerations: list = field(default_factory=list)    # id -> such a tuple
    info: list = field(default_factory=list)       # expanded state -> fair.state_info (liveness) or None
    edges: list = field(default_factory=list)      # expanded state -> [(name, args, successor, rules id, outcome id)]
    rulesets: list = field(default_factory=list)   # id -> frozenset of rule names
    outcomes: list = field(default_factory=list)   # id -> (premised, failed, forms)
    # per expanded state, what a search taking all of its moves from the store needs in one piece:
    whole: list = field(default_factory=list)      # state -> rules id of every rule its enumeration and moves asked
    failing: list = field(default_factory=list)    # state -> profile id of the properties failing on any of its moves
    profile: list = field(default_factory=list)    # state -> profile id of its moves' counts (`_summarise`)
    profiles: list = field(default_factory=list)   # id -> (moves, actions, forms, premised) or a frozenset
    # where the fingerprint renames request ids, a state stands for every world that renames to it,
    # and is stored as the first one the search met (its representative); a search reusing an edge
    # must land on that very world, or its traces' request ids would not be its own:
    renamings: list = field(default_factory=list)  # state -> its representative's renaming (`renamed_fingerprint`)
    inexact: dict = field(default_factory=dict)    # expanded state -> indices of its edges whose world is
    #                                                 not the successor's representative
    seconds: float = 0.0                           # to build
    index: dict = field(default_factory=dict, repr=False)   # fingerprint -> state (rebuilt on load)

    def transitions(self) -> int:
        return sum(len(e) for e in self.edges)

    def encoding(self, g: int) -> bytes:
        """Stored state `g`'s encoding (`model.snapshot.encode`), decompressed."""
        unpack = self.__dict__.get("_unpack")
        if unpack is None:          # made once per graph: loading the dictionary is most of a small state's time
            unpack = self.__dict__["_unpack"] = zstandard.ZstdDecompressor(dict_data=_dictionary(self.zdict))
        return unpack.decompress(self.codes[g])

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_unpack"}


class _Interner:
    def __init__(self, table: list):
        self.table, self.ids = table, {}

    def __call__(self, value) -> int:
        got = self.ids.get(value)
        if got is None:
            got = self.ids[value] = len(self.table)
            self.table.append(value)
        return got


def build(scope, props, rename: bool, deadline: float | None = None, progress=None) -> Stored:
    """The baseline's graph at `scope` (the scope must bound it, by its sizes or its depth), every
    property open: whole, or its first states in search order expanded and the others stored
    unexpanded, past `MAX_STATES`, at the scope's depth bound (the states a search bounded there
    reaches and does not expand), or at the level where the baseline's own search stops, every
    property answered (`search.level_done`: no search beyond it is the baseline's, and an
    amendment's goes on in full); `NotBuilt` past the
    monotonic `deadline` (the check's cap: the graph is part of its work). `progress(search, queued)` is
    told how far it got every few seconds, as a search's is."""
    started = last = time.monotonic()
    told = Search(scope, started=started, how="building the baseline's stored graph")
    rename = scope.renames(rename, scope.params())
    st = Stored(store_key(scope, props, rename))
    ruleset, outcome, enumeration = _Interner(st.rulesets), _Interner(st.outcomes), _Interner(st.enumerations)
    rules_cls = _recording(Rules, _methods(Rules))
    harness_cls = _recording(HarnessRules, _methods(HarnessRules), "harness.") if scope.composed else None
    params = scope.params()
    table = action_table()
    names = list(table)
    live = [p for p in props if p.kind == "liveness"]
    safety = [p for p in props if p.kind != "liveness"]
    monitors = [p.monitor for p in live if p.monitor is not None]
    entries = [(p.name, p.premise, p.check, p) for p in safety]
    todo_by: dict = {}
    answered: set = set()
    w0 = _Unmemoized(params, rules_cls(), harness=scope.composed, harness_rules=harness_cls)
    frontier = [w0]
    f0, m0 = _keyed(w0, rename)
    st.index[f0] = 0
    st.fps.append(f0)
    if rename:
        st.renamings.append(m0)
    packer = _Packer(st)
    shared = _Shared()
    level = 0
    with quiet_gc():
        while frontier:
            if scope.depth is not None and level >= scope.depth:     # the scope's bound: as a search stops
                for u in frontier:
                    packer.add(encode(u))
                break
            level += 1
            nxt = []
            for i, w in enumerate(frontier):
                if len(st.fps) >= MAX_STATES:       # the rest, in state order, stored unexpanded
                    for u in frontier[i:] + nxt:
                        packer.add(encode(u))
                    frontier, nxt = [], []
                    break
                interrupt.check()
                now = time.monotonic()
                if deadline is not None and now > deadline:
                    raise NotBuilt(f"the baseline's graph at {scope.name} was not built within the cap")
                if progress is not None and now - last >= 2.0:
                    last = now
                    told.generated, told.distinct, told.depth, told.elapsed = \
                        sum(map(len, st.edges)), len(st.fps), level - 1, now - started
                    progress(told, len(frontier) - i + len(nxt))
                enabled, by, union = {}, [], set()
                for name in names:        # `enabled_moves`, noting the rules each action's moves asked
                    _ASKED.clear()
                    moves = table[name].moves(w)
                    if moves:
                        enabled[name] = moves
                    if _ASKED:
                        by.append((name, ruleset(frozenset(_ASKED))))
                        union |= _ASKED
                _ASKED.clear()
                st.info.append(shared.info(fair.state_info(w, live, enabled)) if live else None)
                if _ASKED:
                    by.append((None, ruleset(frozenset(_ASKED))))
                    union |= _ASKED
                st.asked.append(ruleset(frozenset(union)))
                st.asked_by.append(enumeration(tuple(by)))
                packer.add(encode(w))
                edges = []
                for name, moves in enabled.items():
                    for args in moves:
                        _ASKED.clear()
                        c = clone(w)
                        step = c.apply(name, args, check=False, say=False)
                        for m in monitors:
                            m(c, step)
                        facets = guard_facets(c, step)
                        if facets is None:
                            todo = entries
                        else:
                            todo = todo_by.get((facets, name))
                            if todo is None:
                                todo = todo_by[facets, name] = [e for e in entries if e[3].may_read(facets, name)]
                        premised, failed = [], []
                        for pname, pre, check, p in todo:
                            if pre is not None:
                                premised += p.reached(pre(c, step))
                            if check(c, step):
                                failed.append(pname)
                                answered.add(pname)
                        f, m = _keyed(c, rename)
                        sid = st.index.get(f)
                        if sid is None:
                            sid = st.index[f] = len(st.fps)
                            st.fps.append(f)
                            nxt.append(c)
                            if rename:
                                st.renamings.append(shared.renaming(m))
                        elif rename and m != st.renamings[sid]:
                            st.inexact.setdefault(len(st.edges), set()).add(len(edges))
                        edges.append((name, shared.args(args), sid, ruleset(frozenset(_ASKED)),
                                      outcome((frozenset(premised), frozenset(failed), tuple(step.forms)))))
                st.edges.append(edges)
            frontier = nxt
            cycles_probed()
            if safety and not live and len(answered) == len(safety):     # the baseline's search settles here
                for u in frontier:
                    packer.add(encode(u))
                break
    packer.close()
    st.expanded = len(st.edges)
    st.inexact = {g: frozenset(i) for g, i in st.inexact.items()}
    _summarise(st, ruleset)
    st.seconds = time.monotonic() - started
    return st


def _summarise(st: Stored, ruleset) -> None:
    """Each expanded state's moves in one piece: the rules they asked in all, the properties failing
    on any, and their counts (moves; transitions per action, per request form, per premise reached),
    so that a search taking every move of a state from the store books them at once."""
    profile = _Interner(st.profiles)
    for g, edges in enumerate(st.edges):
        rules, failing = set(st.rulesets[st.asked[g]]), set()
        actions, forms, premised = {}, {}, {}
        for name, _, _, rid, oid in edges:
            rules |= st.rulesets[rid]
            pre, failed, fs = st.outcomes[oid]
            failing |= failed
            actions[name] = actions.get(name, 0) + 1
            for f in fs:
                forms[f] = forms.get(f, 0) + 1
            for p in pre:
                premised[p] = premised.get(p, 0) + 1
        st.whole.append(ruleset(frozenset(rules)))
        st.failing.append(profile(frozenset(failing)))
        st.profile.append(profile((len(edges), tuple(actions.items()), tuple(forms.items()),
                                   tuple(sorted(premised.items())))))


class _Shared:
    """One object for each distinct move's arguments, liveness summary of a state and renaming:
    composed-small's 586,278 transitions hold 13 distinct arguments, its 211,830 states 476 summaries,
    and pickle writes a shared object once, so the stored graph loads several times faster. Nothing
    changes either once made (a search reads them, `fair.Graph` too)."""

    def __init__(self):
        self._args: dict = {}
        self._info: dict = {}
        self._renamings: dict = {}

    def args(self, args: dict) -> dict:
        return self._args.setdefault(repr(args), args)     # repr: the same keys in the same order

    def renaming(self, m: tuple | None) -> tuple | None:
        return self._renamings.setdefault(m, m)

    def info(self, info: tuple) -> tuple:
        fair_keys, pending, premised = info
        return self._info.setdefault((fair_keys, tuple(pending.items()), tuple(premised)), info)


def _dictionary(data: bytes):
    """Raw content as a zstd dictionary (no trained one: the first states' encodings are the best
    guess of what later ones hold)."""
    return zstandard.ZstdCompressionDict(data, dict_type=zstandard.DICT_TYPE_RAWCONTENT)


class _Packer:
    """Compresses the states' encodings over a dictionary made of the first states' (states differ
    from one another in a few records: composed-small's, about 3,000 bytes each, take about 335 over
    it). zstd at level 5, not zlib at 6: more than twice as fast each way, for about as many bytes."""
    FIRST = 256

    def __init__(self, st: Stored):
        self.st, self.held = st, []          # encodings waiting for the dictionary
        self.primed = None                   # a compressor over the dictionary

    def add(self, data: bytes) -> None:
        if self.st.zdict:
            self.st.codes.append(self._pack(data))
            return
        self.held.append(data)
        self.st.codes.append(None)
        if len(self.held) >= self.FIRST:
            self.close()

    def close(self) -> None:
        if self.st.zdict:
            return
        self.st.zdict = b"".join(self.held[-16:])[-32768:] or b"\0"
        start = len(self.st.codes) - len(self.held)
        for i, data in enumerate(self.held):
            self.st.codes[start + i] = self._pack(data)
        self.held = []

    def _pack(self, data: bytes) -> bytes:
        if self.primed is None:     # priming a compressor hashes the whole dictionary: done once
            self.primed = zstandard.ZstdCompressor(level=5, dict_data=_dictionary(self.st.zdict),
                                                   write_checksum=False, write_dict_id=False)
        return self.primed.compress(data)


def stored(scope, props, rename: bool, folder: Path | None = None, not_built: str | None = None,
           deadline: float | None = None, progress=None) -> Stored:
    """The stored graph of the baseline at `scope` for `props`, built (and written) when there is none
    for this model's code, scope and properties: `NotBuilt` when `not_built` says why this caller does
    not build one, or when the build passes the monotonic `deadline`; a build tells `progress`."""
    key = store_key(scope, props, rename)
    folder = Path(folder) if folder is not None else cache_dir()
    path = folder / f"{key}.pickle"
    got = _LOADED.pop(path, None)
    if got is not None and path.is_file() and got[0] == path.stat().st_mtime_ns:
        _LOADED[path] = got         # now the most recently used
        return got[1]
    if not_built is not None and not path.is_file() and not path.with_suffix(".lock").is_file():
        raise NotBuilt(f"no stored graph of the baseline at {scope.name}; {not_built}")     # and no builder
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(path.with_suffix(".lock"), deadline, scope):     # one builder; the others wait, then load
        return _load_or_build(scope, props, rename, key, folder, path, not_built, deadline, progress)


@contextlib.contextmanager
def _locked(lock: Path, deadline: float | None, scope):
    """An exclusive lock on `lock`, waited for until the monotonic `deadline`."""
    with open(lock, "a") as fh:
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                interrupt.check()
                if deadline is not None and time.monotonic() > deadline:
                    raise NotBuilt(f"the baseline's graph at {scope.name} was being built elsewhere past the cap")
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _load_or_build(scope, props, rename, key, folder, path, not_built, deadline, progress=None) -> Stored:
    st = None
    if path.is_file():
        try:
            with quiet_gc(), open(path, "rb") as fh:
                st = pickle.load(fh)
            if not isinstance(st, Stored) or st.key != key:
                st = None
        except Exception:       # a torn or foreign file: built again below
            st = None
        if st is not None:
            st.index = {f: i for i, f in enumerate(st.fps)}
    if st is None and not_built is not None:
        raise NotBuilt(f"no stored graph of the baseline at {scope.name}; {not_built}")
    if st is None:
        st = build(scope, props, rename, deadline, progress)
        index, st.index = st.index, {}
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with quiet_gc(), open(tmp, "wb") as fh:
            pickle.dump(st, fh, protocol=5)
        os.replace(tmp, path)
        st.index = index
        for old in folder.glob(f"{key.split('-')[0]}-*"):    # the same scope's graphs of other model code
            if old.suffix in (".pickle", ".lock") and old.stem != path.stem:
                old.unlink(missing_ok=True)
    _LOADED.pop(path, None)
    while len(_LOADED) >= KEEP:             # they are large: the least recently used goes
        del _LOADED[next(iter(_LOADED))]
    _LOADED[path] = (path.stat().st_mtime_ns, st)
    return st


# path -> (its mtime, the graph), least recently used first: a process searching several amendments
# loads each graph once, and a gate worker taking client variants keeps host-small's and composed-small's
_LOADED: dict = {}
KEEP = 2


# ---- the incremental search -----------------------------------------------------------------------
def scratch_reason(variant, scope, rename: bool) -> str | None:
    """Why this amendment (None: the baseline) at this scope is searched from scratch (None: it can be
    incremental; the baseline's own search takes everything from the store)."""
    if getattr(variant, "params", None):
        return "the amendment changes params"
    if getattr(variant, "lifecycle_extra", ()):
        return "the amendment adds lifecycle transitions"
    if scope.composed and overridden(variant) & UNRECORDED:
        return "the amendment overrides decode_task_ref, which the harness caches across states"
    return None


@dataclass
class Work:
    """What the incremental search took from the store and what it executed. A transition or an
    enumeration that asked an overridden rule is compared with the store where the store holds the
    same move (or the state's moves): `asked` counts those, `differed` those of them whose successor
    (or list of moves) is not the store's. Where the store holds nothing to compare with (a state the
    baseline never reached or stored unexpanded, a move the baseline lacked), and where a step that
    asked several overridden rules differs (which one answered otherwise, the shadow tells), the step
    counts in `unknown`."""
    executed: int = 0                 # transitions executed
    enumerated: int = 0               # states whose moves were enumerated
    asked: dict = field(default_factory=dict)      # overridden rule -> compared transitions that asked it
    differed: dict = field(default_factory=dict)   # overridden rule -> of those, successors unlike the store's
    unknown: dict = field(default_factory=dict)    # overridden rule -> asked with nothing stored to compare with

    def overrides(self, shadowed) -> dict:
        """{rule: {calls, differed}} for the rules the shadow's Recorder `shadowed` counts: the
        compared steps that asked the rule and those of them that differed, plus the shadow's own
        counts of its calls where it ran (the steps counted in `unknown`). A rule the recorder does
        not count (a private one) is left out, as the shadow leaves it out elsewhere."""
        out = {}
        for r, c in shadowed.summary().items():
            out[r] = {"calls": self.asked.get(r, 0) + c["calls"], "differed": self.differed.get(r, 0) + c["differed"]}
        return out


def search(make_world, props, scope, st: Stored, over: frozenset, rename: bool = False,
           deadline: float | None = None, max_states: int | None = None, progress=None, want_graph: bool = True,
           max_depth: int | None = None, every: float = 2.0, shadowed=None):
    """`search.search(make_world, props, scope, ...)` with guards on, from the stored graph `st` of
    the baseline: (the Search, its Work). `make_world` builds the amendment's initial world, whose
    rules `over` names the overrides of (recorded here as asked). `shadowed`: the Recorder of the
    shadow comparison the amendment's rules are instrumented with, switched on only where the store
    holds nothing to compare with (elsewhere the store answers what the shadow would, and cheaper)."""
    started = time.monotonic()
    table = action_table()
    names = list(table)
    s = Search(scope, started=started)
    props = list(props)
    live = [p for p in props if p.kind == "liveness"]
    safety = [p for p in props if p.kind != "liveness"]
    checker = Checker(safety, s, "on")
    monitors = [p.monitor for p in live if p.monitor is not None]
    dog = watchdog.current()
    work = Work(asked={r: 0 for r in sorted(over)}, differed={r: 0 for r in sorted(over)},
                unknown={r: 0 for r in sorted(over)})
    if shadowed is not None:
        shadowed.enabled = False
    w0 = make_world()           # also the template stored states are rebuilt over
    f0, m0 = _keyed(w0, rename)
    # a state's id in this search: by its stored id where the store has it, else by its fingerprint
    at = array("q", [-1]) * len(st.fps)
    seen: dict = {}
    g0 = st.index.get(f0)
    if g0 is not None:
        at[g0] = 0
        g0 = _faithful(st, g0, m0)
    else:
        seen[f0] = 0
    s.parents.append(-1)
    s.moves.append(None)
    graph = fair.Graph() if (live and want_graph) else None
    frontier = [(0, w0, g0)]
    last_report = started
    here = ["the enabled moves", None]
    compared = [False]          # is the step in progress compared with the store's?
    fps, edges_of, rulesets, outcomes, expanded = st.fps, st.edges, st.rulesets, st.outcomes, st.expanded
    whole, failing, profile, profiles = st.whole, st.failing, st.profile, st.profiles
    clean_rules = [not (r & over) for r in rulesets]
    inexact = st.inexact
    asked_by, enumerations = st.asked_by, st.enumerations
    premise = s.premise
    booked: dict = {}           # profile id -> states whose moves were all taken from the store

    def added(parent, name, args, c, g, nxt) -> int:
        """A state reached for the first time: its id, with its parent link and its place in the next
        level (`c` its world, or None to rebuild from the stored state `g` if it is expanded)."""
        cid = len(s.moves)
        s.parents.append(parent)
        s.moves.append((name, args))
        nxt.append((cid, c, g))
        return cid

    def executed(w, name, args, sid, stored_edge):
        """A transition taken on a clone, as `search.successors` takes it: (successor, fingerprint, its
        renaming); `stored_edge`: the store's (name, args, successor) of this move, None where it has none."""
        here[0], here[1] = name, args
        _ASKED.clear()
        compared[0] = stored_edge is not None
        if shadowed is not None:
            shadowed.enabled = not compared[0]
        c = clone(w)
        step = c.apply(name, args, check=False, say=False)
        s.generated += 1
        s.actions[name] = s.actions.get(name, 0) + 1
        for f in step.forms:
            s.forms[f] = s.forms.get(f, 0) + 1
        for m in monitors:
            m(c, step)
        if checker.entries:
            checker.check(c, step, sid, name, args)
        f, m = _keyed(c, rename)
        work.executed += 1
        tallied(stored_edge is not None and fps[stored_edge[2]] != f,
                lambda: clone(w).apply(name, args, check=False, say=False))
        return c, f, m

    def tallied(differs: bool, again=None) -> None:
        """Counts the overridden rules the step just taken asked (`_ASKED`), compared with the store
        (`compared`) or not. A step that asked several and `differs` from the store's says nothing
        of which one answered otherwise: `again()` takes it once more with the shadow on to tell
        (without it, each counts as differing)."""
        if not compared[0]:
            for r in _ASKED:
                work.unknown[r] += 1
        elif differs and len(_ASKED) > 1 and shadowed is not None and again is not None:
            asked = list(_ASKED)
            shadowed.enabled = True
            try:
                again()
            finally:
                shadowed.enabled = False
            for r in asked:
                work.unknown[r] += 1
        else:
            for r in _ASKED:
                work.asked[r] += 1
                work.differed[r] += differs

    try:
        with quiet_gc():
            while frontier:
                nxt = []
                for sid, w, g in frontier:
                    interrupt.check()
                    out_edges = [] if graph is not None else None
                    has_moves = g is not None and g < expanded
                    if has_moves and clean_rules[whole[g]] and profiles[failing[g]] <= checker.closed and \
                            g not in inexact:
                        # nothing of this state's moves can differ: booked in one piece
                        pid = profile[g]
                        booked[pid] = booked.get(pid, 0) + 1
                        n, _, _, premised = profiles[pid]
                        s.generated += n
                        if premised and checker.open:
                            closed = checker.closed_counters
                            for pname, k in premised:
                                if pname not in closed:
                                    premise[pname] = premise.get(pname, 0) + k
                        if graph is not None:
                            graph.add_state(sid, st.info[g])
                        for name, args, succ, _, _ in edges_of[g]:      # `added`, inlined: the hot loop
                            cid = at[succ]
                            if cid < 0:
                                cid = at[succ] = len(s.moves)
                                s.parents.append(sid)
                                s.moves.append((name, args))
                                nxt.append((cid, None, succ))
                            if out_edges is not None:
                                out_edges.append((cid, name, args))
                    else:       # the rest may execute the amendment's rules: one bounded step
                        try:
                            with dog.bounded():
                                if has_moves and clean_rules[st.asked[g]]:
                                    moves = edges_of[g]
                                    if graph is not None:
                                        graph.add_state(sid, st.info[g])
                                else:
                                    if w is None:
                                        w = _decoded(st, g, w0, s.depth)
                                    _ASKED.clear()
                                    compared[0] = has_moves
                                    if shadowed is not None:
                                        shadowed.enabled = not has_moves
                                    enabled = enabled_moves(w, table, names, here) if not has_moves else \
                                        _reenumerated(w, table, names, here, edges_of[g],
                                                      [n for n, r in enumerations[asked_by[g]] if not clean_rules[r]])
                                    if graph is not None:
                                        graph.add_state(sid, fair.state_info(w, live, enabled))
                                    work.enumerated += 1
                                    moves = _matched(enabled, edges_of[g] if has_moves else ())
                                    # the moves themselves differ from the baseline's?
                                    other = has_moves and (len(moves) != len(edges_of[g]) or
                                                           any(m[2] is None for m in moves))
                                    tallied(other, functools.partial(_enumerated_again, w, table, names, here))
                                other_world = inexact.get(g) if has_moves else None
                                if other_world:
                                    other_world = {id(edges_of[g][i]) for i in other_world}
                                for edge in moves:
                                    name, args, succ, rid, oid = edge
                                    # an edge first reaching its successor as a world other than the
                                    # stored one is executed: that world's moves are not in the store
                                    reuse = succ is not None and clean_rules[rid] and not (
                                        other_world and at[succ] < 0 and id(edge) in other_world)
                                    if reuse:
                                        premised, failed, forms = outcomes[oid]
                                        reuse = failed <= checker.closed
                                    if reuse:
                                        s.generated += 1
                                        s.actions[name] = s.actions.get(name, 0) + 1
                                        for f in forms:
                                            s.forms[f] = s.forms.get(f, 0) + 1
                                        if checker.open:
                                            for pname in premised - checker.closed_counters:
                                                premise[pname] = premise.get(pname, 0) + 1
                                        c, cg, m = None, succ, None
                                    else:
                                        if w is None:
                                            w = _decoded(st, g, w0, s.depth)
                                        c, f, m = executed(w, name, args, sid,
                                                           None if succ is None else (name, args, succ))
                                        cg = st.index.get(f)
                                    if cg is not None:
                                        cid = at[cg]
                                        if cid < 0:
                                            cid = at[cg] = added(sid, name, args, c,
                                                                 cg if c is None else _faithful(st, cg, m), nxt)
                                    else:
                                        cid = seen.get(f)
                                        if cid is None:
                                            cid = seen[f] = added(sid, name, args, c, None, nxt)
                                    if out_edges is not None:
                                        out_edges.append((cid, name, args))
                        except (KeyboardInterrupt, _Stop):
                            raise
                        except watchdog.CapReached as e:    # the command's cap, in the middle of a state
                            s.capped = f"{TIME_CAP} ({e})"
                            raise _Stop from None
                        except BaseException as e:      # an amendment's rule or the model raised, exited or hung
                            tallied(True)               # raising where the baseline answered differs (as in the shadow)
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
                        s.capped = TIME_CAP
                        raise _Stop
                    if max_states is not None and len(s.moves) > max_states:
                        s.capped = f"{max_states} states"
                        raise _Stop
                frontier = nxt
                if level_done(s, frontier, max_depth, safety, checker.open, live):
                    raise _Stop
        s.complete = True
        s.depth -= 1
    except _Stop:
        pass
    for pid, times in booked.items():       # the states booked in one piece: their moves' actions and forms
        _, actions, forms, _ = profiles[pid]
        for name, k in actions:
            s.actions[name] = s.actions.get(name, 0) + k * times
        for f, k in forms:
            s.forms[f] = s.forms.get(f, 0) + k * times
    finish(s, safety, live, graph)
    return s, work


def _keyed(world, rename: bool) -> tuple[bytes, tuple | None]:
    """The world's fingerprint and its renaming (None: renamed nothing, or not renaming)."""
    return renamed_fingerprint(world) if rename else (fingerprint(world, False), None)


def _faithful(st: Stored, g: int, renaming) -> int | None:
    """`g`, when a world reached as the stored state `g` with this renaming (`renamed_fingerprint`) is
    its representative; else None: a world the store holds no moves of (where the fingerprint renames
    request ids, only)."""
    return g if not st.renamings or renaming == st.renamings[g] else None


def _reenumerated(w, table, names, here, stored: list, dirty: list) -> dict:
    """`enabled_moves` of a stored state whose enumeration asked overridden rules: the moves of the
    actions in `dirty` (those whose moves asked one) enumerated under the amendment, the others'
    taken from its `stored` edges (an action's moves that asked none of them are the baseline's)."""
    kept: dict = {}
    for e in stored:
        kept.setdefault(e[0], []).append(e[1])
    out = {}
    for name in names:
        if name in dirty:
            here[0], here[1] = name, None
            moves = table[name].moves(w)
        else:
            moves = kept.get(name)
        if moves:
            out[name] = moves
    return out


def _enumerated_again(w, table, names, here) -> None:
    """The moves of `w` enumerated once more, on a copy with no memo (a memo hit asks no rule)."""
    c = clone(w)
    c._memo = {}
    enabled_moves(c, table, names, here)


def _matched(enabled: dict, stored: list) -> list:
    """The enabled moves as stored edges (name, args, successor, rules id, outcome id), the store's
    where it has the move (`stored`: the baseline's edges of this state), else with no successor."""
    flat = [(n, a) for n, ms in enabled.items() for a in ms]
    if not stored:
        return [(n, a, None, None, None) for n, a in flat]
    if len(flat) == len(stored) and all(e[0] == n and e[1] == a for (n, a), e in zip(flat, stored)):
        return stored
    known = {_move(e[0], e[1]): e for e in stored}
    return [known.get(_move(n, a)) or (n, a, None, None, None) for n, a in flat]


def _move(name: str, args: dict) -> tuple:
    return name, repr(sorted(args.items()))


def _decoded(st: Stored, g: int, template, depth: int):
    """A stored state rebuilt under the amendment's rules, at this search's depth for it."""
    w = decode(st.encoding(g), template)
    w.depth = depth
    return w


def judged(variant, scope, props, rename, seconds, max_states, max_depth, progress, shadow=False, folder=None,
           no_build: str | None = None, por: bool = False):
    """`search._judged`, incrementally from the baseline's stored graph where the amendment allows
    it (`scratch_reason`); the Search says which (`Search.how`). A missing graph is built as part of
    the search's work when the search is bounded by the scope alone, unless `no_build` says why this
    caller does not build one."""
    reason = scratch_reason(variant, scope, rename)
    if reason is not None:
        s, verdicts, counts = _judged(variant, scope, props, rename, seconds, max_states, max_depth, progress, shadow,
                                      por)
        s.how = f"from scratch: {reason}"
        return s, verdicts, counts
    until = time.monotonic() + seconds
    try:        # the graph is built by a search bounded by the scope alone: a work bound would not cover it
        st = stored(scope, props, rename, folder, deadline=until, progress=progress, not_built=(
            "a search bounded by work does not build one" if max_states is not None or max_depth is not None
            else no_build))
    except NotBuilt as e:
        s, verdicts, counts = _judged(variant, scope, props, rename, max(0.0, until - time.monotonic()), max_states,
                                      max_depth, progress, shadow, por)
        s.how = f"from scratch: {e}"
        return s, verdicts, counts
    over = overridden(variant)
    recorder, searched = None, variant
    if shadow and variant is not None:
        from verifier.runtime.shadow import instrument
        searched, recorder = instrument(variant)
    if variant is not None:
        searched = _recording(searched, [n for n in over if not n.startswith("harness.")])
    client = [n[len("harness."):] for n in over if n.startswith("harness.")]
    if client:
        searched = type(searched.__name__, (searched,), {
            "harness_rules": _recording(searched.harness_rules, client, "harness.")})
    make = make_world_for(searched, scope)
    bound = min(d for d in (max_depth, scope.depth) if d is not None) if (max_depth or scope.depth) else None
    s, work = search(make, props, scope, st, over, rename=scope.renames(rename, scope.params()),
                     deadline=until, max_states=max_states, progress=progress, max_depth=bound, shadowed=recorder)
    total = s.generated
    s.how = f"incremental from the stored baseline graph ({work.executed} of {total} transitions re-executed)"
    s.work = work
    counts = work.overrides(recorder) if recorder is not None else None
    idle = unexercised(s, counts)
    if idle:
        s.how += f"; {', '.join(idle)} unexercised at scope {scope.name} (complete)"
    if s.fault is not None:      # as `search._judged` tells it
        from verifier.runtime.replay import fault_of_moves
        from verifier.runtime.worlds import guarded_factory
        s.fault = fault_of_moves(guarded_factory(make), s.fault.history, props) or s.fault
    return s, verdicts_of(s, make, props), counts


def unexercised(s: Search, counts: dict | None = None) -> list[str]:
    """At a complete incremental search: the overrides never asked, or whose every transition that
    asked one led where the baseline's did. Where the store held nothing to compare with, the
    shadow's `counts` say whether it answered otherwise (`Work.overrides`); without them such a
    call counts as differing (nothing shows that it answered alike)."""
    work = getattr(s, "work", None)
    if work is None or not s.complete:
        return []
    if counts is not None:
        return [r for r, c in counts.items() if not c["calls"] or not c["differed"]]
    return [r for r in work.asked if not work.unknown[r] and not work.differed[r]]
