"""The trace validator holds the cyclic collector off while it matches a log (`verifier.runtime.collector`),
as the exhaustive engine does while it searches: its world keeps every record the log named, and each
collection walked them all (a tenth of a 500-conversation log's time, growing with its length). That
is sound because validation makes no reference cycles, which is held here: every world it drops is
freed by reference counting, conforming, diverging and diagnosed."""
from __future__ import annotations

import gc

import pytest

from benchmarks.validate import diverging, session
from verifier.runtime import collector
from verifier.validate import validate_log
from verifier.writers.traffic import MAPPING


def cycles_made(fn) -> int:
    """The objects in reference cycles `fn()` leaves behind, collections held off while it runs. Run
    once before, so that what a first call makes to keep (imports, caches) is not counted."""
    fn()
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.freeze()         # what exists now is no collection's: the one after `fn` finds what it made
    try:
        fn()
        return gc.collect()
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("run_events", [False, True])
def test_validating_a_log_makes_no_reference_cycles(run_events):
    lines = session(12, run_events)

    def both():
        assert validate_log(lines, MAPPING, budget=600, diagnose=False).result == "conforms"
        got = validate_log(diverging(lines), MAPPING, budget=600, diagnose=True)
        assert got.result == "diverges" and got.divergence.requirement == "ISO-1"
    assert cycles_made(both) == 0


def test_a_logs_match_runs_no_collection(monkeypatch):
    """With collections on, none runs while a log is matched (the probe set beyond this log's reach),
    and they are on again after it."""
    monkeypatch.setattr(collector, "PROBE_AFTER", 10 ** 12)
    lines = session(30, False)
    ran = []

    def noted(phase, info):
        if phase == "start":
            ran.append(info["generation"])
    gc.enable()
    gc.callbacks.append(noted)
    try:
        got = validate_log(lines, MAPPING, budget=600, diagnose=False)
    finally:
        gc.callbacks.remove(noted)
    assert got.result == "conforms" and ran == [] and gc.isenabled()
