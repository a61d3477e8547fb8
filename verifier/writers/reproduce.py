"""Replaying a recorded counterexample (the committed reproducers and `taskmodel replay`).

A trace names its variant; only a built-in is found by that name. An author's amendment is never
imported because a trace names it: the caller passes its file (`--variant FILE`), and the file's
sha256 is compared with the one the trace recorded. `taskmodel replay` replays a trace file's own
states (`replay_recorded`), each state reached compared with the one recorded; a reproducer, which
holds only the steps, replays those (`reproduce`).
"""
from __future__ import annotations

from pathlib import Path

from model.amend import AmendmentError, sha256_file
from properties.base import load_catalogue

from verifier.runtime.amendments import load_checked
from verifier.runtime.exitcodes import UsageError
from verifier.runtime.replay import Outcome, run_trace
from verifier.runtime.worlds import world_at
from verifier.writers import itf


def variant_class(name: str):
    """The baseline (None) or a built-in variant, by name."""
    from model.variants import builtins
    if name == "baseline":
        return None
    table = builtins()
    if name not in table:
        raise UsageError(f"taskmodel: variant {name!r} is not built in: pass its amendment with --variant FILE")
    return table[name]


def load_amendment(path, sha256: str | None = None, variant: str | None = None):
    """An author's amendment file -> (its class, one-line notes when it is not the one recorded:
    another sha256, another variant name)."""
    try:
        cls = load_checked(str(path))
    except AmendmentError as e:
        raise UsageError(f"taskmodel: {e}") from None
    notes = []
    if sha256 and sha256_file(Path(path)) != sha256:
        notes.append(f"{Path(path).name} differs from the amendment the trace was recorded with "
                     f"(sha256 {sha256[:12]}...)")
    if variant and cls.name != variant:
        notes.append(f"{Path(path).name} defines variant {cls.name!r}, the trace was recorded on {variant!r}")
    return cls, notes


def reproduce(variant, prop: str, steps, scope: str | None = None) -> Outcome:
    """Replay `steps` on `variant` (a built-in's name, "baseline", or an amendment class), in the
    default instance or, for a trace of the exhaustive engine, at the `scope` it was found at."""
    cls = variant_class(variant) if isinstance(variant, str) else variant
    catalogue = list(load_catalogue().values())
    return run_trace(world_at(cls, scope), [(a, dict(b)) for a, b in steps], catalogue, prop)


def replay_recorded(variant, prop: str, states, scope: str | None = None) -> Outcome:
    """Replay a recorded trace's ITF states (as `itf_read.TraceFile.states` streams them): each step
    its state's `#meta` names, and each state reached compared with the one recorded."""
    cls = variant_class(variant) if isinstance(variant, str) else variant
    catalogue = list(load_catalogue().values())
    states = iter(states)
    recorded = [next(states)]

    def moves():
        for state in states:
            recorded[0] = state
            yield state["#meta"]["action"], dict(state["#meta"].get("args", {}))
    return run_trace(world_at(cls, scope), moves(), catalogue, prop,
                     compare=lambda i, world: itf.difference(recorded[0], world))
