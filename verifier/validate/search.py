"""Matching a log against the model: a set of candidate model states, stepped event by event.

As in TLA+ trace validation, the log is read in order and every candidate is a model state
consistent with what was read so far. A client's request is the model client action that sends
exactly it (`observe.decode`), applied to each candidate; a close is the network's disconnect or
delivery; a server message, and a run event when the log has them, must be one the model emitted
or appended. Between observed events the host may take internal steps the log does not show
(host progress, interrupts, completion, clock ticks): when no candidate explains the next
observation as it stands, a breadth-first search over the model's enabled internal moves (on
`model.snapshot` clones, deduplicated by state) looks for the states that do, level by
level, and keeps every state of the first level that has one (internal steps are placed as late
as the log allows).

What the model emitted and the log has not shown yet waits in per-request queues (per-run for
run events); a connection closing while the model still owes it a message rules that candidate
out. With run events in the log, host steps that append to a run's log happen only when the log
shows their first event; without them, the host's internal steps are left free (the steps that
only act on the outside world, effects and child runs, are left out: nothing on the wire shows
them).

Every property of the host's catalogue is checked on every step taken; a candidate whose
behaviour breaks one keeps the violation, and the answer is read from the candidates left at the
end (see `verifier.validate.validate_log`).
"""
from __future__ import annotations

import hashlib
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice

from model.actions import load_all
from model.before import KEPT, READERS, kept, prime
from model.facts import Facts
from model.lifecycle import TERMINAL
from model.footprint import covers, declared_writes, request as request_key, writes_of
from model.snapshot import (RECORD_FORMS, beyond_records, encoded, fingerprint, freeze, kept_shared, own,
                            same_state, state_tuple, successor, tables_alike)
from model.state import Interrupt
from properties.base import guard_facets

from verifier.validate.binding import binding_of
from verifier.validate.ids import Bindings
from model.actions import SILENT

from verifier.validate.observe import KEEP, describe, with_elicitation

INTERNAL_ACTORS = ("host", "clock")
ANSWERING = ("respond", "answer")      # the host's steps that send a request's whole answer (model/host.py)
# The run-log event the host's own run steps append first (model/host.py); a search for an observed
# run event of another kind need not take them.
APPENDS = {"run_start": "run.started", "run_interrupt": "interrupt.requested", "run_complete": "run.completed",
           "run_fail": "run.failed", "run_finish_cancel": "run.cancelled", "run_effect": "effect.performed",
           "run_compensate": "effect.performed", "run_spawn": "run.created", "external_event": "interrupt.resolved"}


class Stop(Exception):
    """The search gave up: a budget or cap (undetermined), or a divergence."""

    def __init__(self, kind: str, reason: str, allowed=(), at: int | None = None, requirement: str | None = None):
        super().__init__(reason)
        self.kind, self.reason, self.allowed = kind, reason, list(allowed)
        self.at = at            # the event that diverged, when it is not the one being matched
        self.requirement = requirement   # what the catalogue, judged on the observed bytes, says it breaks


@dataclass
class Conn:
    transport: str
    subject: str | None
    headers: dict
    server: str
    no_subject: str = ""
    requests: list = field(default_factory=list)    # model request ids sent on it, in order
    s2c: int = 0                                     # server messages seen on it


class Cand:
    """One model state consistent with the log so far."""
    __slots__ = ("world", "ids", "out", "runq", "violation", "reached", "origin")

    def __init__(self, world, ids, out, runq, violation, reached, origin):
        self.world = world
        self.ids: Bindings = ids
        self.out: dict = out          # model request id -> tuple of (message, origin, event index) emitted,
                                      # not yet seen
        self.runq: dict = runq        # model run id -> tuple of (event, status or None, origin, the request
                                      # whose answer the step sent, or None) appended, not yet seen
        self.violation = violation    # (event index, property, message) of the first property broken
        self.reached = reached        # frozenset of premise counters reached (properties', cases': Property.reached)
        self.origin = origin          # (pre-state, action, args, listen refs) of the last step, or None

    def but(self, **kw) -> "Cand":
        c = Cand(self.world, self.ids, self.out, self.runq, self.violation, self.reached, self.origin)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


# Alike states (candidates) compared two by two up to this many, then by their whole-state keys: a
# comparison reads only the records two worlds do not share, a key the whole world, once.
PAIRWISE = 4


class _Alike:
    """Candidates kept once each among those alike (in a group's key): compared two by two by
    `same` while a group holds at most `PAIRWISE`, then by `key`, which tells apart what `same` does."""

    def __init__(self, same, key):
        self.same, self.key = same, key
        self.groups: dict = {}       # -> [candidate, ...], or {key: candidate} past PAIRWISE

    def add(self, group, c: Cand) -> bool:
        """Whether `c` is not alike any candidate of `group` kept before (it is kept)."""
        alike = self.groups.get(group)
        if alike is None:
            self.groups[group] = [c]
        elif type(alike) is list:
            if any(self.same(other, c) for other in alike):
                return False
            alike.append(c)
            if len(alike) > PAIRWISE:
                self.groups[group] = {self.key(o): o for o in alike}
        else:
            k = self.key(c)
            if k in alike:
                return False
            alike[k] = c
        return True


class _Seen:
    """The states a search has reached, each once by its state (`same_state`: what its fingerprint
    tells apart) and what it still owes the log (in `_brief`), compared only with those alike in what
    `_brief` and `_maskable` read."""

    def __init__(self):
        self.alike = _Alike(lambda a, b: same_state(a.world, b.world), lambda c: fingerprint(c.world, rename=False))

    def add(self, c: Cand) -> bool:
        """Whether `c` is a state not reached before (it is kept)."""
        return self.alike.add((_brief(c), _maskable(c.world)), c)


class Matcher:
    def __init__(self, world, props, mapping: dict, run_events: bool, deadline: float, keep_origins: bool, events,
                 max_depth: int = 6, max_states: int = 20000, max_candidates: int = 512, max_steps: int | None = None):
        self.props = props
        self.events = events
        self.asserted = {p.name for p in props if p.asserted}
        self.mapping = mapping
        self.run_events = run_events
        self.deadline = deadline
        self.keep = keep_origins
        self.max_depth, self.max_states, self.max_candidates = max_depth, max_states, max_candidates
        self.max_steps = max_steps           # model steps in all (a diagnosis's work budget), or None
        self.table = load_all()
        self.internal = [n for n, a in self.table.items() if a.actor in INTERNAL_ACTORS
                         and (run_events or n not in SILENT)]
        ids = Bindings(mapping.get("tenants"), binding_of(mapping))
        self.cands = [Cand(world, ids, {}, {}, None, frozenset(), None)]
        self.conns: dict[str, Conn] = {}
        self.reqs: dict[tuple, str] = {}     # (conn, JSON-RPC id) -> model request id
        self.ignored: set = set()            # (conn, JSON-RPC id) of requests passed over
        self.steps = 0
        self.index = 0                       # the event being matched
        self.texts = Texts()                 # messages' texts, numbered (`_future`)

    # ---- stepping the model ------------------------------------------------------------------
    def _step(self, cand: Cand, name: str, args: dict, sent=None, in_place=False) -> Cand:
        """The candidate after one model step (on a clone unless `in_place`; a move calling an
        overridden rule always on one, as `_tried` may take it twice), its emissions queued and the
        catalogue checked. `sent` (`observe.Sent`): what a decoded request carries beyond
        the action's arguments."""
        if self.max_steps is not None and self.steps >= self.max_steps:
            raise Stop("undetermined", f"the work budget of {self.max_steps} model steps was spent")
        # the records the step may write are the new world's own, the others shared (copying every
        # record the session ever made at every step made validation quadratic in the log's length)
        action = load_all()[name]
        writes = writes_of(cand.world, action, args)
        guess = declared_writes(cand.world, action, args) if writes is None else None
        if guess is not None:
            w, step = _tried(cand.world, name, args, sent, guess)
        else:
            w = own(cand.world, writes) if in_place else successor(cand.world, writes)
            step = send(w, name, args, sent, writes)
        self.steps += 1
        origin = (cand.world, name, args, sent) if self.keep and not in_place else None
        out = cand.out
        if step.emitted:
            out = dict(out)
            for k, (qid, msg) in enumerate(step.emitted):
                if qid is not None and qid in w.requests:
                    out[qid] = out.get(qid, ()) + ((msg, (origin, k), self.index),)
        runq = cand.runq
        if step.events and self.run_events:
            runq = dict(runq)
            last = {rid: k for k, (rid, _) in enumerate(step.events)}
            answers = args["request"] if name in ANSWERING else None
            for k, (rid, e) in enumerate(step.events):
                # the run's status after the step is its last event's; an earlier one's is not recorded
                # (two answers of one update: the first leaves the run waiting on the second)
                status = w.runs[rid].status if last[rid] == k else None
                runq[rid] = runq.get(rid, ()) + ((e, status, (origin, k), answers),)
        violation, reached = cand.violation, cand.reached
        # the guards skip a property at a step touching nothing it reads, as the engines do
        facets = guard_facets(w, step)
        for p in self.props:
            if facets is not None and not p.may_read(facets, name):
                continue
            if p.premise is not None and (p.cases or p.name not in reached):
                keys = p.reached(p.premise(w, step))       # the property's counter and its cases'
                if keys and not reached.issuperset(keys):
                    reached = reached.union(keys)
            if violation is None and p.name in self.asserted:
                msg = p.check(w, step)
                if msg:
                    violation = (self.index, p, msg)
        return Cand(w, cand.ids, out, runq, violation, reached, origin)

    def _internal_moves(self, world, focus=None, kind=None, appending=False):
        """The enabled internal moves; with `focus` (runs, requests), only those on them (and the
        clock): moves on other runs wait until an observation of their own needs them. With `kind`
        (a run event observed), the run's own steps that append another kind are left out; with
        `appending`, every move but those steps."""
        for name in self.internal:
            if kind is not None and name in APPENDS and APPENDS[name] != kind[0] or appending and name not in APPENDS:
                continue
            action = self.table[name]
            moves = action.moves(world) if focus is None or action.moves_on is None else \
                action.moves_on(world, focus[0])
            for args in moves:
                if focus is not None and not _on(world, args, focus):
                    continue
                if kind is not None and name == "run_interrupt" and not _interrupt_fits(args, kind[1]):
                    continue
                yield name, args

    def search(self, goal, words: str, allow_events: bool, focus=None, kind=None, answering=None):
        """Replace the candidates by those that explain one observation. `goal(cand)` is a list of
        candidates after it (empty when it is contradicted there) or None when the candidate has
        not yet produced what the observation needs. `focus(world)` names the runs and requests the
        observation is about: the search first moves only those, then, if that explains nothing,
        everything to a shallower depth. `answering` (a request id): the observation is that
        request's response, which only the host's step answering it emits, so the search's first
        level is that step alone (the same level, without trying every other move)."""
        direct, waiting, expected = [], [], []
        for c in self.cands:
            prime(c.world)          # every world the search steps from it carries the kept values
            got = goal(c)
            if got is None:
                waiting.append(c)
            elif got:
                direct.extend(got)
            else:
                expected.append(c)
        tried = {}
        if not direct and answering is not None:
            direct, tried = self._answered(goal, waiting, answering, allow_events)
        if direct:
            self.cands = self._capped(direct)
            return
        passes = [(focus, self.max_depth), (None, 2)] if focus is not None else [(None, self.max_depth)]
        if kind is not None:        # a run event: one of the run's own steps first (the usual answer)
            passes.insert(0, (focus, 1, True))
        deep = False
        for f, depth, *only in passes:
            found, deep = self._bfs(goal, waiting, expected, allow_events, f, depth, words, kind, bool(only),
                                    answering, tried)
            if found:
                self.cands = self._capped(found)
                return
        allowed = self._allowed(expected, waiting)
        raise Stop("diverges", f"the model cannot produce {words}" + (" (search depth reached)" if deep else ""),
                   allowed)

    def _answered(self, goal, waiting, qid, allow_events) -> tuple[list, dict]:
        """(the candidates after the host's step answering `qid` that explain the observation, every
        such step taken: (id of the candidate, action, qid) -> (the child, what `goal` said of it))."""
        found, tried = [], {}
        for c in waiting:
            for name in ANSWERING:
                if dict(request=qid) not in self.table[name].moves(c.world):
                    continue
                child = self._step(c, name, dict(request=qid))
                got = None
                if child.runq is c.runq or allow_events:
                    got = goal(child)
                    found.extend(got or ())
                tried[(id(c), name, qid)] = child, got
        return found, tried

    def _may_answer(self, world, name, args, qid) -> bool:
        """Whether the move may write request `qid` (its response is in its record): by the move's
        footprint (`model.footprint.writes_of`; the baseline's are held true by their verify mode,
        docs/exhaustive.md), and any move without one or calling an overridden rule, which may write
        anything."""
        writes = writes_of(world, self.table[name], args)
        return writes is None or covers(writes, request_key(qid))

    def _bfs(self, goal, roots, expected, allow_events, focus, max_depth, words, kind=None, appending=False,
             answering=None, tried=None):
        """(the candidates of the first level that explains the observation, whether the depth bound
        was what stopped the search). With `answering`, each level first takes the host's step
        answering that request alone (as `search` does at the first, its steps in `tried`): only it
        emits the response, so if it explains the observation the level's other moves cannot, and
        the level's widest part, every other move of every state, is never taken; when it does not,
        the level reads those steps again rather than taking them twice. The last level of such a
        search takes only the moves that may write that request (`_may_answer`): a child of any other
        move neither holds the response nor is searched further."""
        frontier, seen, states, tried = roots, _Seen(), 0, tried or {}
        for level in range(max_depth):
            if answering is not None and level:        # the roots' own answer was tried by `search`
                found, tried = self._answered(goal, frontier, answering, allow_events)
                if found:
                    return found, False
            found, nxt = [], []
            last = answering is not None and level == max_depth - 1
            for c in frontier:
                runs_reqs = focus(c.world) if focus is not None else None
                for name, args in self._internal_moves(c.world, runs_reqs, kind, appending):
                    if time.monotonic() > self.deadline:
                        raise Stop("undetermined", f"budget ran out searching for {words}")
                    if last and not self._may_answer(c.world, name, args, answering):
                        continue
                    known = tried.get((id(c), name, args.get("request")))
                    child = known[0] if known else self._step(c, name, args)
                    states += 1
                    appended = child.runq is not c.runq
                    if appended and not allow_events:
                        continue          # a step the log would show as a run event, and does not
                    got = known[1] if known else goal(child)
                    if got is None and appended:
                        got = []          # it appended, but not the event the log shows next
                    if got is None:
                        if seen.add(child):
                            nxt.append(child)
                    elif got:
                        found.extend(got)
                    else:
                        expected.append(child)
                    if states > self.max_states:
                        raise Stop("undetermined", f"more than {self.max_states} model states searched for {words}")
            if found:
                return found, False
            frontier = nxt
            if not frontier:
                return [], False
        return [], True

    def _capped(self, cands):
        """The candidates, each model state once: states that differ only in what no later step
        reads (a closed interrupt's kind and approvers) are one (see `_future`). The masked state is
        read only of candidates alike in what masking leaves as it is (`_brief`)."""
        if len(cands) > 1:
            futures: dict = {}
            alike = _Alike(lambda a, b: _same_future(a, b, self.texts, futures),
                           lambda c: _future_of(c, self.texts, futures))
            cands = [c for c in cands if alike.add(_brief(c), c)]
        if len(cands) > self.max_candidates:
            raise Stop("undetermined", f"more than {self.max_candidates} model states fit the log")
        return cands

    def _allowed(self, expected, waiting) -> list[str]:
        out: list[str] = []
        for c in expected[:20]:
            for qid, queue in c.out.items():
                if queue:
                    text = f"{qid}: {describe(queue[0][0])}"
                    if text not in out:
                        out.append(text)
            for rid, queue in c.runq.items():
                if queue:
                    text = f"{rid}: {queue[0][0]['type']}"
                    if text not in out:
                        out.append(text)
        if not out:
            for c in waiting[:5]:
                for name, args in self._internal_moves(c.world):
                    text = f"{name}({', '.join(f'{k}={v}' for k, v in args.items())})"
                    if text not in out:
                        out.append(text)
        return out[:12]


def _on(world, args, focus) -> bool:
    runs, requests = focus
    if "run" in args:
        return args["run"] in runs
    if "request" in args:
        return args["request"] in requests or world.requests[args["request"]].run in runs
    if "interrupt" in args:
        return world.interrupts[args["interrupt"]].run in runs
    return True


def _interrupt_fits(args, data: dict) -> bool:
    if "kind" in data and data["kind"] != args["kind"]:
        return False
    return "mode" not in data or data["mode"] == ("form" if args["form"] else "url")


def _tried(world, name, args, sent, guess):
    """(the successor, the step) of a move that calls a rule the world's rules override, which may
    write any record: taken first on a successor sharing every record its declared footprint `guess`
    leaves alone, sealed, so that a write to one raises; where it raises, or removes, moves or replaces
    a record (`kept_shared`: the step's views read the shared ones), taken again on a copy of every
    record (and a fault of the move raises there too)."""
    try:
        w = successor(world, guess)
        step = send(w, name, args, sent, guess)
        if kept_shared(world, w):
            return w, step
    except Exception:
        pass
    w = successor(world, None)
    return w, send(w, name, args, sent, None)


def send(world, name: str, args: dict, sent=None, writes=None):
    """Take the model step `name(args)` in `world` as the observed request was sent (`observe.Sent`):
    a listen naming the observed task references, a request carrying the observed elicitation
    declaration (set on the request the step made, before anything reads it). `writes`: the records
    the step may write, the world's own (`World.apply`)."""
    if sent is not None and sent.listen is not None:
        world.memo = _seeded(world, f"task_refs:{args['server']}", [(args["server"], r) for r in sent.listen])
    try:
        step = world.apply(name, args, check=False, writes=writes)
    finally:
        world.__dict__.pop("memo", None)
    if sent is not None and sent.elicitation != KEEP:
        q = next(world.requests[k] for k in step.created if k in world.requests)
        q.message = with_elicitation(q.message, sent.elicitation)
        q.declares_elicitation = sent.elicitation is not None
    return step


def _seeded(world, key, value):
    """The world's memo, answering `key` with `value` whatever the state (see `Matcher._step`)."""
    real = type(world).memo

    def memo(name, k, build):
        return value if name == key else real(world, name, k, build)
    return memo


KIND_WORDS = (("approval", "waiting-approval"), ("clarification", "waiting-input"))
# What the host says of an interrupt while it is open, named after its kind, read as the same words.
PLAIN_WORDS = tuple(pair for kind, status in KIND_WORDS for pair in
                    ((f"'{kind} needed'", "'input needed'"), (f"'run is {status}'", "'run is waiting'")))


def _future(c: Cand, texts: Texts) -> tuple:
    """What decides a candidate's future: its model state with the kind and approvers masked of
    every interrupt closed or left on a finished run (the model reads them only while the run
    waits on it), what it still owes the log, and its bindings. Keys compare when made with one
    `texts`."""
    w = c.world
    closed = _closed(w)
    with _masking(closed):
        text = repr(state_tuple(w, text=_numbering({i.id for i in closed}, texts)))
    if closed:
        text = _plain(text)
    ids = tuple(tuple(sorted(c.ids.real[k].items())) for k in _BOUND) + (tuple(sorted(c.ids.errors.items())),)
    return hashlib.blake2b(text.encode(), digest_size=16).digest(), _queued(c), ids, c.violation is None


_BOUND = ("run", "interrupt", "token")


def _is_closed(w, i) -> bool:
    return not i.open or i.kind != "external-event" and w.runs[i.run].status in TERMINAL


def _closed(w) -> list:
    return [i for i in w.interrupts.values() if _is_closed(w, i)]


def _closed_ids(w) -> frozenset:
    return frozenset(i.id for i in _closed(w))


def _closed_after(w, was: frozenset, step) -> frozenset:
    """The closed interrupts after `step`: an interrupt opens, closes or is made with a write of its
    run's record (its log), and its run ends with one, so those of the runs the step wrote are read."""
    out = None
    for rid in (*step.pre_status.changed(), *step.pre_status.made()):
        for iid in w.runs[rid].interrupts:
            now = _is_closed(w, w.interrupts[iid])
            if now != (iid in (was if out is None else out)):
                out = set(was) if out is None else out
                (out.add if now else out.discard)(iid)
    return was if out is None else frozenset(out)


# kept from step to step (`model.before.kept`): read by every comparison of candidates
KEPT["validate.closed"] = _closed_after
READERS.append(lambda w: kept(w, "validate.closed", _closed_ids))


def _numbering(masked, texts: Texts):
    """The form of a text in `_future`'s state (`masked`: the ids of the closed interrupts)."""

    def number(obj) -> int:
        mode = 0 if not masked else 2 if obj.get("interruptId") in masked and obj.get("type") == \
            "interrupt.requested" else 1
        return texts.number(obj, mode)
    return number


def _future_of(c: Cand, texts: Texts, futures: dict) -> tuple:
    """`_future(c, texts)`, made once per candidate (`futures`: by candidate)."""
    got = futures.get(id(c))
    if got is None:
        got = futures[id(c)] = (c, _future(c, texts))
    return got[1]


def _same_future(a: Cand, b: Cand, texts: Texts, futures: dict) -> bool:
    """Whether `_future(a, texts) == _future(b, texts)`, read in the time of the records the two worlds
    do not share: a record both hold has one text (the same interrupts masked in both), and the
    state's text is the texts of its parts (no masked word spans two). Where the two mask other
    interrupts, their keys are made (kept in `futures`, by candidate)."""
    if (a.violation is None) != (b.violation is None) or _queued(a) != _queued(b) or a.ids.errors != b.ids.errors \
            or any(a.ids.real[k] != b.ids.real[k] for k in _BOUND):
        return False
    wa, wb = a.world, b.world
    if (wa.serial, wa.clock, wa.effects) != (wb.serial, wb.clock, wb.effects):
        return False
    closed = kept(wa, "validate.closed", _closed_ids)
    if closed != kept(wb, "validate.closed", _closed_ids):
        return _future_of(a, texts, futures) == _future_of(b, texts, futures)
    number = _numbering(closed, texts)

    def text(form) -> str:
        return _plain(repr(form)) if closed else repr(form)

    def key(form, r) -> str:
        if r.id in closed and isinstance(r, Interrupt):     # masked as `_future` masks it
            with _masking([r]):
                return text(form(r, number))
        return text(form(r, number))
    if not tables_alike(wa, wb, RECORD_FORMS, key):
        return False
    fa, fb = wa.facts, wb.facts
    if type(fa) is Facts and type(fb) is Facts and fa.alike(fb, freeze, encoded):
        return text(beyond_records(wa, False)) == text(beyond_records(wb, False))
    return text(beyond_records(wa, True)) == text(beyond_records(wb, True))


class Texts:
    """Each message, response and run-log event as `_future`'s text of a state would hold it (the
    repr of its repr, the words masked), numbered: they never change once made, and a long
    session's world holds hundreds of them, so a state's text is short and made without them.
    Mode 0: as it is; 1: the words masked; 2: a closed interrupt's event, masked."""

    def __init__(self):
        self.by_object: dict = {}       # (id, mode) -> (object, number)
        self.numbers: dict = {}         # text -> number

    def number(self, obj: dict, mode: int) -> int:
        got = self.by_object.get((id(obj), mode))
        if got is None or got[0] is not obj:
            text = repr(repr(dict(obj, kind="closed", approvers=None) if mode == 2 else obj))
            text = _plain(text) if mode else text
            got = self.by_object[(id(obj), mode)] = (obj, self.numbers.setdefault(text, len(self.numbers)))
        return got[1]


def _brief(c: Cand) -> tuple:
    """A few things the state's fingerprint and `_future` read, and masking leaves as they are: two
    candidates that differ in them are different states. Of the tables, only the latest records:
    the steps a search takes are mostly on them, and the cost must not grow with the session."""
    w = c.world
    return (w.serial, w.clock, len(w.requests), len(w.runs), len(w.interrupts),
            tuple([(r.status, r.updated_at) for r in _latest(w.runs)]), tuple([q.phase for q in _latest(w.requests)]),
            tuple([(i.open, i.form) for i in _latest(w.interrupts)]), _queued(c))


def _maskable(w) -> tuple:
    """More of what the fingerprint reads of the latest records, left out of `_brief` because `_future`
    masks part of it: the interrupts' kinds, and when each run's events were appended."""
    return tuple([i.kind for i in _latest(w.interrupts)]), tuple([tuple([e.get("at") for e in r.log])
                                                                  for r in _latest(w.runs)])


def _latest(table: dict, n: int = 16):
    return islice(reversed(table.values()), n)


@contextmanager
def _masking(closed):
    """The closed interrupts' kind and approvers masked while the state is read, restored after (a
    record shared with other worlds too: `object.__setattr__` passes its seal, `model.snapshot.seal`)."""
    kept = [(i, i.kind, i.approvers, i.label) for i in closed]
    for i in closed:
        _set(i, "closed", None, "")
    try:
        yield
    finally:
        for i, kind, approvers, label in kept:
            _set(i, kind, approvers, label)


def _set(i, kind, approvers, label) -> None:
    for field, value in (("kind", kind), ("approvers", approvers), ("label", label)):
        object.__setattr__(i, field, value)


def _plain(text: str) -> str:
    for words, plain in PLAIN_WORDS:
        text = text.replace(words, plain)
    return text


def _queued(c: Cand) -> tuple:
    return (tuple((k, len(v)) for k, v in c.out.items() if v), tuple((k, len(v)) for k, v in c.runq.items() if v))
