"""What the runs' own moves and the clock read of every run, kept from step to step
(`model.before.kept`): a long session's world (the trace validator's) holds a run per call, nearly
all of them ended, and reading each one at every step made validation quadratic in the log's length.

- The live runs: not purged, not in a terminal status. Only they take their own steps (start,
  interrupt, complete, ...). And the runs not yet durable (`persist`).
- The next due time: no run not purged reaches its purge time, or has its TTL elapse, before it. A
  lower bound (a run purged or otherwise moved later leaves it as it was), so the clock's tick, the
  purge moves and TTL-2 read every run only from the time it names. It is kept only while the
  world's rules compute `ttl_ms` and `purge_time` as the baseline does, from the run's own record;
  an override may read anything, so every run is read at every step.

Small worlds (the exhaustive engine's) read every run, as before.
"""
from __future__ import annotations

import math

from . import footprint as fp
from .before import KEPT, READERS, in_table_order, kept, small
from .lifecycle import TERMINAL

_TIMERS = frozenset({fp.rule("ttl_ms"), fp.rule("purge_time")})


def _changed_ids(step) -> list:
    pre = step.pre_status
    return [*pre.changed(), *pre.made()]


def _kept_ids(name: str, test):
    """Register the kept ids of the runs passing `test(run)`, in the table's order; the reader."""
    def whole(world) -> tuple[str, ...]:
        return tuple(k for k, r in world.runs.items() if test(r))

    def after(world, was: tuple, step) -> tuple | None:
        """The ids after `step`, from those before it; None where a run the step wrote passes again
        (read whole, for the table's order)."""
        runs, pre, keep = world.runs, step.pre_status, None
        for k in pre.changed():
            now = test(runs[k])
            if now != (k in (was if keep is None else keep)):
                if now:
                    return None
                keep = dict.fromkeys(was) if keep is None else keep
                del keep[k]
        made = [k for k in pre.made() if test(runs[k])]
        if made:
            keep = dict.fromkeys(was) if keep is None else keep
            keep.update(dict.fromkeys(made))
        return was if keep is None else tuple(keep)

    KEPT[name] = after
    READERS.append(lambda world: kept(world, name, whole))
    return lambda world: [world.runs[k] for k in kept(world, name, whole)]


_live = _kept_ids("runs.live", lambda r: not r.purged and r.status not in TERMINAL)
_undurable = _kept_ids("runs.undurable", lambda r: not r.durable)


def live_runs(world, statuses=None) -> list:
    """The runs not purged in one of `statuses` (default: any), in the table's order; every run is
    read where a status asked for is terminal or the world is small."""
    if statuses is not None and TERMINAL.isdisjoint(statuses) and not small(world):
        return [r for r in _live(world) if r.status in statuses]
    return [r for r in world.runs.values() if not r.purged and (statuses is None or r.status in statuses)]


def undurable_runs(world) -> list:
    """The runs not yet durably readable, in the table's order."""
    return _undurable(world)


def can_end_live_only(world, trigger: str) -> bool:
    """Whether the world's rules allow `trigger` from no terminal status (the baseline's lifecycle),
    so that only live runs can take it."""
    return not any(world.rules.lifecycle_can("run", s, trigger) for s in TERMINAL)


# ---- the next due time -----------------------------------------------------------------------------
def _due(world, r) -> float:
    """The clock tick from which `r` is purgeable or its TTL has elapsed (inf: neither is known)."""
    if r.purged:
        return math.inf
    rules, out = world.rules, math.inf
    purge = rules.purge_time(world, r)
    if purge is not None:
        out = purge
    ttl = rules.ttl_ms(world, r)
    if ttl is not None:
        out = min(out, r.created_at + ttl / world.params.tick_ms)
    return out


def _due_whole(world) -> float:
    return min((_due(world, r) for r in world.runs.values()), default=math.inf)


def _due_after(world, was: float, step) -> float | None:
    """The bound after `step`: the runs it wrote may be due sooner; None once the clock reached it (read
    whole: the runs then due may have been purged since)."""
    out = min([was, *(_due(world, world.runs[k]) for k in _changed_ids(step))])
    return None if out <= world.clock else out


KEPT["runs.due"] = _due_after


def nothing_due(world, fresh: bool = False) -> bool:
    """Whether no run not purged is purgeable, or has its TTL elapsed, at the clock: then none need be
    read. False wherever that is not known without reading them all (see the module). `fresh`: read
    by a step before it wrote anything (the clock's tick)."""
    if small(world) or fp.overridden(world) & _TIMERS:
        return False
    return world.clock < kept(world, "runs.due", _due_whole, fresh=fresh)


READERS.append(nothing_due)


# ---- the requests of each run ----------------------------------------------------------------------
def _by_run_whole(world) -> dict[str, tuple[str, ...]]:
    out: dict = {}
    for k, q in world.requests.items():
        if q.run is not None:
            out[q.run] = out.get(q.run, ()) + (k,)
    return out


def _by_run_after(world, was: dict, step) -> dict:
    """Each run's requests after `step`: those the step wrote or made that name a run they were not
    listed under are added (a request that named another run before stays listed there: the
    reader checks)."""
    requests, out = world.requests, None
    for k in (*step.pre_phase.changed(), *step.pre_phase.made()):
        r = requests[k].run
        if r is not None and k not in (was if out is None else out).get(r, ()):
            out = dict(was) if out is None else out
            out[r] = out.get(r, ()) + (k,)
    return was if out is None else out


KEPT["requests.by_run"] = _by_run_after
READERS.append(lambda world: kept(world, "requests.by_run", _by_run_whole))


def requests_of_run(world, run_id: str) -> list:
    """The requests whose `run` is `run_id`, in the table's order."""
    requests = world.requests
    if small(world):
        return [q for q in requests.values() if q.run == run_id]
    ids = kept(world, "requests.by_run", _by_run_whole).get(run_id, ())
    return [requests[k] for k in in_table_order(requests, {k for k in ids if requests[k].run == run_id})]
