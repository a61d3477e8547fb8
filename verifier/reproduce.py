"""Replaying a recorded counterexample (the committed reproducers and `taskmodel replay`)."""
from __future__ import annotations

from model.variants import resolve
from properties.base import load_catalogue

from .explore import world_factory
from .replay import Outcome, run_trace


def variant_class(name: str):
    return None if name == "baseline" else resolve(name)


def reproduce(variant: str, prop: str, steps) -> Outcome:
    catalogue = list(load_catalogue().values())
    return run_trace(world_factory(variant_class(variant)), [(a, dict(b)) for a, b in steps], catalogue, prop)
