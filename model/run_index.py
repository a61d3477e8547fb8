"""What the runs' own moves and the clock read of every run, kept from step to step
(`model.before.kept`): a long session's world (the trace validator's) holds a run per call, nearly
all of them ended, and reading each one at every step made validation quadratic in the log's length.

- The live runs: not purged, not in a terminal status. Only they take their own steps (start,
  interrupt, complete, ...). And the runs not yet durable (`persist`), and those purged.
- The calendar: the time each run not purged reaches its purge time or has its TTL elapse, so that
  the purge moves and TTL-2 read only the runs due. It is kept only while the
  world's rules compute `ttl_ms` and `purge_time` as the baseline does, from the run's own record;
  an override may read anything, so every run is read at every step.
- The runs' order in their table, to give the runs read in it (and `model.before`'s records).

Small worlds (the exhaustive engine's) read every run, as before.
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort

from . import footprint as fp
from .before import KEPT, READERS, in_table_order, kept, small
from .lifecycle import TERMINAL

_TIMERS = frozenset({fp.rule("ttl_ms"), fp.rule("purge_time")})


def _changed_ids(step) -> list:
    pre = step.pre_status
    return [*pre.changed(), *pre.made()]


def _kept_ids(name: str, test):
    """Register the kept ids of the runs passing `test(run)` (a dict's keys, in the table's order);
    the reader."""
    def whole(world) -> dict:
        return dict.fromkeys(k for k, r in world.runs.items() if test(r))

    def after(world, was: dict, step) -> dict | None:
        """The ids after `step`, from those before it; None where a run the step wrote passes again
        (read whole, for the table's order)."""
        runs, pre, keep = world.runs, step.pre_status, was
        for k in pre.changed():
            now = test(runs[k])
            if now != (k in keep):
                if now:
                    return None
                keep = dict(keep) if keep is was else keep
                del keep[k]
        made = [k for k in pre.made() if test(runs[k])]
        if made:
            keep = dict(keep) if keep is was else keep
            keep.update(dict.fromkeys(made))
        return keep

    KEPT[name] = after
    READERS.append(lambda world: kept(world, name, whole))
    return lambda world: [world.runs[k] for k in kept(world, name, whole)]


_live = _kept_ids("runs.live", lambda r: not r.purged and r.status not in TERMINAL)
_undurable = _kept_ids("runs.undurable", lambda r: not r.durable)
_purged = _kept_ids("runs.purged", lambda r: r.purged)


def live_runs(world, statuses=None) -> list:
    """The runs not purged in one of `statuses` (default: any), in the table's order; every run is
    read where a status asked for is terminal or the world is small."""
    if statuses is not None and TERMINAL.isdisjoint(statuses) and not small(world):
        return [r for r in _live(world) if r.status in statuses]
    return [r for r in world.runs.values() if not r.purged and (statuses is None or r.status in statuses)]


def undurable_runs(world) -> list:
    """The runs not yet durably readable, in the table's order."""
    return _undurable(world)


def purged_runs(world) -> list:
    """The runs purged, in the table's order."""
    return _purged(world)


def can_end_live_only(world, trigger: str) -> bool:
    """Whether the world's rules allow `trigger` from no terminal status (the baseline's lifecycle),
    so that only live runs can take it."""
    return not any(world.rules.lifecycle_can("run", s, trigger) for s in TERMINAL)


# ---- the runs' order -------------------------------------------------------------------------------
def _order_whole(world) -> dict[str, int]:
    return {k: n for n, k in enumerate(world.runs)}


def _order_after(world, was: dict, step) -> dict | None:
    """Each run's place in the table after `step`: the runs it made follow; None where a run went."""
    made = step.pre_status.made()
    if len(world.runs) != len(was) + len(made):
        return None
    if not made:
        return was
    out = dict(was)
    out.update((k, len(was) + n) for n, k in enumerate(made))
    return out


KEPT["runs.order"] = _order_after
READERS.append(lambda world: kept(world, "runs.order", _order_whole))


def in_order(world, ids) -> list:
    """The runs `ids` (each in the table), in the table's order."""
    order = kept(world, "runs.order", _order_whole)
    return [world.runs[k] for k in sorted(ids, key=order.__getitem__)]


# ---- the calendar: when each run is due ----------------------------------------------------------
def _due(world, r) -> float:
    """The clock tick from which `r` is purgeable or its TTL has elapsed (inf: neither is known)."""
    if r.purged:
        return math.inf
    rules, out = world.rules, math.inf
    purge = rules.purge_time(world, r)
    if purge is not None:
        out = purge
    ttl = rules.ttl_ms(world, r)
    if ttl is not None:     # elapsed once created_at * tick + ttl <= clock * tick: whole ticks, exactly
        out = min(out, r.created_at - (-ttl // world.params.tick_ms))
    return out


def _calendar_whole(world) -> tuple[dict, list]:
    dues = {k: d for k, r in world.runs.items() if (d := _due(world, r)) < math.inf}
    return dues, sorted((d, k) for k, d in dues.items())


def _calendar_after(world, was: tuple, step) -> tuple:
    """The calendar after `step`: the runs it wrote or made, placed again where their time moved."""
    dues, cal = was
    for k in _changed_ids(step):
        d = _due(world, world.runs[k])
        old = dues.get(k, math.inf)
        if d == old:
            continue
        if dues is was[0]:
            dues, cal = dict(dues), list(cal)
        if old < math.inf:
            del cal[bisect_left(cal, (old, k))]
            del dues[k]
        if d < math.inf:
            insort(cal, (d, k))
            dues[k] = d
    return was if dues is was[0] else (dues, cal)


KEPT["runs.calendar"] = _calendar_after


def maybe_due(world, ordered: bool = True) -> list:
    """The runs that may be purgeable, or have their TTL elapsed, at the clock, in the table's order
    (or, not `ordered`, the calendar's): those the calendar says are due; every run where it is not
    kept (see the module). The caller tests each."""
    if small(world) or fp.overridden(world) & _TIMERS:
        return list(world.runs.values())
    cal = kept(world, "runs.calendar", _calendar_whole)[1]
    if not cal or cal[0][0] > world.clock:
        return []
    ids = [k for _, k in cal[:bisect_right(cal, world.clock, key=_first)]]
    return in_order(world, ids) if ordered else [world.runs[k] for k in ids]


def _first(entry):
    return entry[0]


READERS.append(lambda world: kept(world, "runs.calendar", _calendar_whole))


# ---- the requests of each run, the runs of each request ------------------------------------------
def _naming(name: str, table: str, field: str, written):
    """Register the kept index {a value of `field`: the ids of `table`'s records holding it}, carried
    past a step from the records it wrote or made (`written(step)`), and return its reader
    `(world, value) -> the ids holding value now`. The index is added to in place, and so shared by
    every world stepped from the one that read it whole, each adding its own: it lists a superset of
    any one world's ids (another world's, a record that held another value before), and the reader
    keeps those of its own world that hold the value."""
    def whole(world) -> dict[str, set]:
        out: dict = {}
        for k, r in getattr(world, table).items():
            v = getattr(r, field)
            if v is not None:
                out.setdefault(v, set()).add(k)
        return out

    def after(world, was: dict, step) -> dict:
        records = getattr(world, table)
        for k in written(step):
            v = getattr(records[k], field)
            if v is not None:
                was.setdefault(v, set()).add(k)
        return was

    def read(world, value) -> set:
        records = getattr(world, table)
        ids = kept(world, name, whole).get(value, ())
        return {k for k in ids if k in records and getattr(records[k], field) == value}

    KEPT[name] = after
    READERS.append(lambda world: kept(world, name, whole))
    return read


_requests_of = _naming("requests.by_run", "requests", "run",
                       lambda step: (*step.pre_phase.changed(), *step.pre_phase.made()))
_runs_of = _naming("runs.by_creator", "runs", "creating_request", _changed_ids)


def requests_of_run(world, run_id: str) -> list:
    """The requests whose `run` is `run_id`, in the table's order."""
    requests = world.requests
    if small(world):
        return [q for q in requests.values() if q.run == run_id]
    return [requests[k] for k in in_table_order(requests, _requests_of(world, run_id))]


def runs_created_by(world, request_id: str) -> set:
    """The ids of the runs whose `creating_request` is `request_id`."""
    if small(world):
        return {k for k, r in world.runs.items() if r.creating_request == request_id}
    return _runs_of(world, request_id)
