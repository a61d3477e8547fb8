"""What a property is, and the registry the catalogue modules fill.

Kinds (the finer form of the catalogue's S/T/L/W/G):
- invariant: over the state after every step;
- step: over one step (the state before, the step's record, the state after);
- trace: over the history so far (kept incrementally in `world.facts`);
- liveness: over a finished exploration (after the fair drain of `model.fairness`) or, for the
  exhaustive engine, over every state of the explored graph: what is owed there. What it must
  remember of the steps that led to a state it keeps in `world.facts` through its `monitor`,
  called after every step (engines keep no history in the states they search);
- witness: a behaviour that must be reachable (its check returns a message when reached);
- gap: a known gap: its check returns a message when the gap is exhibited.
A check returns None when the property holds at this step, or a message carrying the values involved.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from model.host import awaits_respond
from model.before import Before
from model.lifecycle import TERMINAL
from model.facts import Leaves

KINDS = ("invariant", "step", "trace", "liveness", "witness", "gap")
REQUIREMENT_KINDS = {"S": ("invariant", "step"), "T": ("trace",), "L": ("liveness",), "W": ("witness",), "G": ("gap",)}


@dataclass(frozen=True)
class Property:
    name: str
    ids: tuple[str, ...]
    kind: str
    clause: str
    sentence: str
    check: Callable = field(compare=False)
    premise: Callable | None = field(default=None, compare=False)   # when the antecedent is exercised
    area: str = ""
    monitor: Callable | None = field(default=None, compare=False)   # (world, step) -> None, after every step
    reads: tuple[str, ...] | None = None    # what of a step the check and premise read (`FACETS`, actions)
    cases: tuple[str, ...] = ()             # the premise's cases its requirement's sentence enumerates
    _facets: int = field(default=0, init=False, repr=False, compare=False)
    _actions: frozenset = field(default=frozenset(), init=False, repr=False, compare=False)
    _keys: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.reads is not None:
            object.__setattr__(self, "_facets", sum(_BIT[r] for r in self.reads if r in _BIT))
            object.__setattr__(self, "_actions", frozenset(r for r in self.reads if r not in _BIT))
        if len(set(self.cases)) != len(self.cases):
            raise ValueError(f"{self.name}: a case named twice")
        if self.cases and self.premise is None:
            raise ValueError(f"{self.name}: cases without a premise to reach them")

    def reached(self, got) -> tuple[str, ...]:
        """The premise counters an answer `got` of the premise adds one to: the property's own, and
        one per case it names (`case_key`). A premise of a property with cases answers the cases it
        reached (a case name, or a collection of them; empty: not reached); one without, a truth
        value. A case the property does not declare is a bug of its premise: it raises."""
        if not got:
            return ()
        if not self.cases:
            return (self.name,)
        keys = self._keys.get(got) if isinstance(got, (str, tuple, frozenset)) else None
        if keys is None:
            named = (got,) if isinstance(got, str) else tuple(got) if not isinstance(got, bool) else (got,)
            wrong = [c for c in named if c not in self.cases]
            if wrong:
                raise ValueError(f"{self.name}'s premise answered {wrong!r}, not one of its cases")
            keys = (self.name, *dict.fromkeys(case_key(self.name, c) for c in named))
            if isinstance(got, (str, tuple, frozenset)):
                self._keys[got] = keys
        return keys

    def case_counts(self, counts: dict) -> dict[str, int]:
        """{case: how often it was reached} from premise counters (`reached`'s keys)."""
        return {c: counts.get(case_key(self.name, c), 0) for c in self.cases}

    def unreached(self, counts: dict) -> list[str]:
        """The declared cases the counters show never reached."""
        return [c for c in self.cases if not counts.get(case_key(self.name, c))]

    def counter_keys(self) -> tuple[str, ...]:
        """Every premise counter of this property: its own and its cases'."""
        return (self.name, *(case_key(self.name, c) for c in self.cases))

    @property
    def asserted(self) -> bool:
        """Safety, trace and liveness properties fail an exploration; witnesses and gaps are observed."""
        return self.kind not in ("witness", "gap")

    def may_read(self, facets: int, action: str) -> bool:
        """Whether a step with these facets (`step_facets`), taken by `action`, holds anything this
        property reads: always, unless it declares `reads` and the step touched none of it."""
        return self.reads is None or bool(self._facets & facets) or action in self._actions


# What a step touched, told cheaply from its record and the state after it. A property that reads
# only part of a step says which (`prop(reads=...)`: these facets and action names); an engine may
# then skip it at a step touching none of them. The declaration is a claim about the property's
# code: at such a step (past the first step of a behaviour, which may set up a property's monitor
# state) its check returns None, its premise False, and neither changes the world. The exhaustive
# engine's `guards="verify"` mode checks the claim at every step it would skip
# (tests/test_bfs.py, on the baseline and the built-in variants).
FACETS = {
    "emitted": "the step sent a message (step.emitted: responses, notifications)",
    "events": "the step appended an event to a run's log (step.events)",
    "status": "a run's status differs from before the step, or a run was made",
    "phase": "a request's phase differs from before the step, or a request was made",
    "created": "the step made a request, a run or an interrupt (step.created)",
    "cancelled": "the step cancelled a request (step.cancelled)",
    "owns": "a request's ownership (the run it owns) differs from before the step, or a request was made",
    "terminal": "a run became completed, failed or cancelled at the step, or a run was made",
}
_BIT = {name: 1 << i for i, name in enumerate(FACETS)}


def guard_facets(world, step) -> int | None:
    """The facets by which every engine's guards may skip a property at this step (`Prop.may_read`),
    or None at a behaviour's first step, where every property runs (it may set up monitor state)."""
    return step_facets(world, step) if world.depth > 1 else None


def step_facets(world, step) -> int:
    """The facets (`FACETS`) of a step taken in `world`, as bits."""
    m = (1 if step.emitted else 0) | (2 if step.events else 0) | (16 if step.created else 0) \
        | (32 if step.cancelled else 0)
    pre = step.pre_status
    if isinstance(pre, Before):         # only the records the step may have written can differ
        return _written_facets(world, step, m)
    for rid, r in world.runs.items():
        was = pre.get(rid)
        if was != r.status:
            m |= 4
            if was is None or r.status in TERMINAL:
                m |= 128
                break
    pre, owner = step.pre_phase, step.pre_owner
    for qid, q in world.requests.items():
        if qid not in pre:
            return m | 8 | 64
        if pre[qid] != q.phase:
            m |= 8
            if m & 64:
                break
        if owner[qid] != q.owns:
            m |= 64
            if m & 8:
                break
    return m


def _written_facets(world, step, m: int) -> int:
    """`step_facets` of a step that recorded the records it may write (`model.before.Before`)."""
    pre = step.pre_status
    if pre.made():
        m |= 4 | 128
    else:
        for rid in pre.changed():
            r = world.runs[rid]
            if pre.saved[rid] != r.status:
                m |= 4
                if r.status in TERMINAL:
                    m |= 128
                    break
    phase, owner = step.pre_phase, step.pre_owner
    if phase.made():
        return m | 8 | 64
    for qid in phase.changed():
        q = world.requests[qid]
        if phase.saved[qid] != q.phase:
            m |= 8
        if owner.saved[qid] != q.owns:
            m |= 64
    return m


def status_changes(world, step) -> list[tuple[str, str | None, str]]:
    """(runId, status before, status after) of every run whose status the step changed or that it
    made (before: None)."""
    pre = step.pre_status
    runs = world.runs
    if isinstance(pre, Before):
        ids = [*pre.changed(), *pre.made()]
        return [(rid, pre.get(rid), runs[rid].status) for rid in ids if pre.get(rid) != runs[rid].status]
    return [(rid, pre.get(rid), r.status) for rid, r in runs.items() if pre.get(rid) != r.status]


def case_key(name: str, case: str) -> str:
    """The premise counter of one case of a property (beside the property's own, keyed by its name)."""
    return f"{name} / {case}"


def count_premise(counts: dict, p: Property, got) -> bool:
    """Add a premise's answer `got` to the counters `counts`; whether it was reached."""
    keys = p.reached(got)
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return bool(keys)


CATALOGUE: dict[str, Property] = {}


def prop(name: str, ids, kind: str, clause: str, sentence: str, premise: Callable | None = None,
         monitor: Callable | None = None, reads=None, cases=()):
    """Register the decorated check `(world, step) -> str | None` as a property. `reads`: the
    facets of a step (`FACETS`) and action names it reads, when that is not everything. `cases`:
    the premise cases its requirement's sentence enumerates (requirements.md, "Premise cases"); the
    premise then answers which of them a step reached, and a proof needs every one reached."""
    assert kind in KINDS, kind
    ids = (ids,) if isinstance(ids, str) else tuple(ids)
    reads = tuple(reads) if reads is not None else None

    def register(check):
        area = check.__module__.rsplit(".", 1)[-1]
        if name in CATALOGUE:
            raise ValueError(f"duplicate property {name}")
        CATALOGUE[name] = Property(name, ids, kind, clause, sentence, check, premise, area, monitor, reads,
                                   tuple(cases))
        return check
    return register


def annotate(world, key: str, item, index: int) -> None:
    """Remember the step at which a monitor learnt `item`, for messages only: annotations (fact keys
    holding a ".") are left out of state fingerprints, so two states that differ only in when
    something happened are one state (model.snapshot)."""
    world.facts.setdefault(f"{key}.at", Leaves()).setdefault(item, index)


def learnt_at(world, key: str, item) -> int | str:
    return world.facts.peek(f"{key}.at", {}).get(item, "?")


def handled(world, step) -> list:
    """The requests the host processed at this step, judged from the step alone: a tools/call at its
    receipt, any other request at the host's `respond` to it (at its receipt where answers are atomic)."""
    if step.action == "respond":
        q = world.requests.get(step.args.get("request"))
        return [q] if q is not None else []
    out = []
    for qid in step.created:
        q = world.requests.get(qid)
        if q is not None and not awaits_respond(q):
            out.append(q)
    return out


def find(name_or_id: str) -> Property:
    """A property by its name, or the one property that checks a requirement id."""
    if name_or_id in CATALOGUE:
        return CATALOGUE[name_or_id]
    found = [p for p in CATALOGUE.values() if name_or_id in p.ids]
    if len(found) != 1:
        raise KeyError(f"{name_or_id!r} names {len(found)} properties")
    return found[0]


# The catalogue's order, whatever order its modules were first imported in (a module that imports
# one of them early must not change which of two properties broken by one step is reported first).
AREAS = ("creation", "harness", "e2e", "identity", "ownership", "liveness", "notify_wire", "projection", "update",
         "tasks_ops")


def load_catalogue() -> dict[str, Property]:
    from . import (creation, e2e, harness, identity, liveness, notify_wire, ownership,  # noqa: F401
                   projection, tasks_ops, update)
    rank = {a: i for i, a in enumerate(AREAS)}
    order = sorted(CATALOGUE.values(), key=lambda p: rank.get(p.area, len(AREAS)))   # stable: definition order within
    if list(CATALOGUE) != [p.name for p in order]:
        ordered = {p.name: p for p in order}
        CATALOGUE.clear()
        CATALOGUE.update(ordered)
    return CATALOGUE
