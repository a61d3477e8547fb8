"""The cyclic garbage collector held off while a search runs: the exhaustive engine's, and the
trace validator's match of a long log, whose world keeps every record it saw (docs/exhaustive.md)."""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def quiet_gc():
    """No cyclic collections while searching. The model makes no reference cycles (reference
    counting frees every world a search drops: collections during a search of composed-small, or a
    long log's validation, found no garbage), and each collection walks the objects the search keeps,
    the frontier's worlds above all: a tenth of an amendment's search at composed-small. An
    amendment's rules could make cycles all the same: `cycles_probed`, at each level's end (each log
    event's, in validation), collects once the search has made enough objects, and turns collections
    back on, rare, if that found garbage."""
    was, old, probed = gc.isenabled(), gc.get_threshold(), _GC["probed"]
    gc.disable()
    gc.freeze()         # what was made before is no collection's: the probe counts the search's garbage
    _GC["probed"] = False
    try:
        yield
    finally:
        # What the search made and still holds goes to the oldest generation with the rest (two list
        # splices): left young, the first allocation after this would walk it all (0.45 s at
        # composed-small), to promote it.
        gc.freeze()
        gc.unfreeze()
        gc.set_threshold(*old)
        (gc.enable if was else gc.disable)()
        _GC["probed"] = probed


_GC = {"probed": True}
RARE = (100_000, 50, 100)       # thresholds where collections must run: a full one seldom walks all kept
# The probe walks every young object the search still holds (a million took 0.4 s at composed-small):
# it comes early, and judges the share of garbage, which rules that make cycles keep making.
PROBE_AFTER = 100_000           # objects made since collections were turned off
CYCLIC = 1_000                  # garbage found past this (1%): the search makes cycles


def cycles_probed() -> None:
    """Within `quiet_gc`, once PROBE_AFTER objects were made: collect the young ones, and collect
    from then on (at the thresholds' least frequent) if they held more than CYCLIC in cycles."""
    if _GC["probed"] or gc.get_count()[0] < PROBE_AFTER:
        return
    _GC["probed"] = True
    if gc.collect(0) > CYCLIC:
        gc.set_threshold(*RARE)
        gc.enable()
