"""A step's record of what its world held before it (`Step.pre_status`, `pre_phase`, `pre_owner`),
made in the time of the step's own records, not of the world's.

A world stepped from a footprint (`model.footprint.writes_of`: the records the move may write, the
others shared and sealed, `model.snapshot.successor`) holds the same values as before the step in
every record outside that footprint. `Before` saves the field of the footprint's records alone and
reads every other record as it is: a long session's world (the trace validator's) holds thousands
of requests, and copying every one's phase at every step made validation quadratic in the log's
length. A world stepped without a footprint copies the whole table, as a plain dict.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import islice
from weakref import ref

# table -> the footprint key kinds of its records (a run's log lives in its record)
_KINDS = {"runs": ("run", "log"), "requests": ("request",)}


def past(table: dict, size: int) -> tuple:
    """The keys of `table` past its first `size`, in its order: read from the end, in the time of
    those alone (a long session's tables hold thousands)."""
    return tuple(reversed(tuple(islice(reversed(table), len(table) - size))))


class StaleBefore(RuntimeError):
    """A `Before` read after its world took another step: the records no longer hold the old values."""


class Before(Mapping):
    """`field` of each record of `world.<table>` as it was before the step being taken: saved for the
    records the step may write, read from the record itself for every other, absent for the records
    the step made. Read while that step is the world's last; a read after another raises. The world
    is held by a weak reference: it holds the step that holds this view, and a cycle would leave every
    world a long search drops to the cyclic collector."""

    __slots__ = ("_world", "_table", "_field", "saved", "_size", "_depth", "_new")

    def __init__(self, world, table: str, field: str, ids):
        self._world, self._table, self._field = ref(world), getattr(world, table), field
        self.saved = {k: getattr(self._table[k], field) for k in ids}
        self._size, self._depth, self._new = len(self._table), world.depth, None

    def _live(self) -> dict:
        world = self._world()
        if world is None or world.depth - self._depth > 1:
            raise StaleBefore(f"a step's record of {self._field} read after its world took another step")
        return self._table

    def made(self) -> tuple:
        """The ids the step made (the table's records past its size before the step), in the table's
        order."""
        if self._new is None:
            self._new = past(self._live(), self._size)
        return self._new

    def changed(self):
        """The ids whose record the step may have written (those that existed before it), in the
        table's order."""
        return self.saved.keys()

    def __getitem__(self, k):
        saved = self.saved
        if k in saved:
            return saved[k]
        r = self._live().get(k)
        if r is None or k in self.made():
            raise KeyError(k)
        return getattr(r, self._field)

    def get(self, k, default=None):
        saved = self.saved
        if k in saved:
            return saved[k]
        r = self._live().get(k)
        if r is None or k in self.made():
            return default
        return getattr(r, self._field)

    def __contains__(self, k) -> bool:
        return k in self.saved or k in self._live() and k not in self.made()

    def __iter__(self):
        return islice(iter(self._live()), self._size)

    def __len__(self) -> int:
        return self._size


def in_table_order(records: dict, ids: set, order: dict | None = None) -> list:
    """`ids` of `records` in the table's order (a set's depends on the process's hash seed), as a
    whole record's are: by `order` (id -> place) where the caller keeps one; requests are made with
    the ids r1, r2, ... (`model.clients.new_request`): by number; any other table is read for its
    order."""
    if len(ids) < 2:
        return [k for k in ids if k in records]
    if order is not None:
        return sorted([k for k in ids if k in records], key=order.__getitem__)
    if all(type(k) is str and k[:1] == "r" and k[1:].isdigit() for k in ids):
        return [k for k in sorted(ids, key=lambda k: int(k[1:])) if k in records]
    return [k for k in records if k in ids]


# table -> the kept value of its ids' places, where one is kept (`model.run_index`)
ORDERS = {"runs": "runs.order"}


def kept_now(world, name):
    got = world._memo.get(name) if name is not None else None
    return got[1] if got is not None and got[0] == world.depth else None


def before(world, writes) -> tuple | None:
    """(pre_status, pre_phase, pre_owner) of the step about to be taken in `world`, as `Before` views
    of the records `writes` (footprint keys) names; None where it names a whole table or everything
    (then the step copies the tables)."""
    ids = {}
    for table, kinds in _KINDS.items():
        out = set()
        for k in writes:
            if k[0] == "*" or k[0] in kinds and k[1] == "*":
                return None
            if k[0] in kinds:
                out.add(k[1])
        ids[table] = in_table_order(getattr(world, table), out, kept_now(world, ORDERS.get(table)))
    return (Before(world, "runs", "status", ids["runs"]), Before(world, "requests", "phase", ids["requests"]),
            Before(world, "requests", "owns", ids["requests"]))


# Values derived from a world and kept in its memo by depth (`World._memo`: name -> (depth, value)),
# carried past each step that recorded `Before` views from the value before it and the records the
# step wrote, so that they are never read whole again: name -> after(world, value before, step), the
# value after the step, or None where it must be read whole. Registered by the modules that read them.
KEPT: dict[str, Callable] = {}
# Each kept value's reader (world -> value), registered with it: what `prime` reads.
READERS: list[Callable] = []


def prime(world) -> None:
    """Read every kept value of `world`, so that every world stepped from it carries them: a search
    whose states are stepped from each other then reads each value whole once, not at each branch
    whose first reader is one of its moves."""
    for read in READERS:
        read(world)


def carry(world, step) -> None:
    """Carry the kept values of the state before `step` (just taken in `world`) past it."""
    memo = world._memo
    for name in [k for k in memo if k in KEPT]:        # a small world keeps none: nothing to read
        got = memo[name]
        if got[0] != step.index:
            continue
        value = KEPT[name](world, got[1], step)
        if value is None:
            del memo[name]
        else:
            memo[name] = (world.depth, value)


# A world with fewer records than this is read whole: keeping costs more than reading (the exhaustive
# engine's worlds hold a few).
SMALL = 48


def small(world) -> bool:
    """Whether `world` holds so few records that its kept values are read whole (`SMALL`). A choice of
    cost, not a reading of the state (either way gives the same values): the tables' sizes are taken
    as a dict's, which an engine observing what a property reads does not count."""
    return dict.__len__(world.requests) + dict.__len__(world.runs) < SMALL


def kept(world, name: str, whole: Callable):
    """The kept value `name` of `world` (`KEPT`), read whole (`whole(world)`) where it was not carried.
    During a step it is read whole and not kept: the records are half written."""
    if world.step is not None or small(world):
        return whole(world)
    got = world._memo.get(name)
    if got is not None and got[0] == world.depth:
        return got[1]
    value = whole(world)
    world._memo[name] = (world.depth, value)
    return value
