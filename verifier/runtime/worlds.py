"""The worlds a variant is explored, searched or replayed in: the default instance, or a scope.

Engines build their worlds here, and so do the writers that replay a trace to tell it, so a
reproducer never needs an engine to rebuild what an engine found.
"""
from __future__ import annotations

from pathlib import Path

from model.world import World

from verifier.runtime import scopes
from verifier.runtime.checking import guard_world
from verifier.runtime.exitcodes import UsageError
from verifier.runtime.faults import ModelFault, fault_of
from verifier.runtime.watchdog import CapReached


def world_factory(variant=None, base_params=None):
    """The world a variant (an Amendment subclass, or None for the baseline) explores."""
    from model.amend import Amendment
    params = (variant.make_params(base_params) if variant is not None and issubclass(variant, Amendment)
              else base_params)
    harness_rules = getattr(variant, "harness_rules", None) if variant is not None else None

    def make():
        rules = variant() if variant is not None else None
        return World.composed(params, rules, harness_rules) if hasattr(World, "composed") else World(params, rules)
    return make


def guarded_factory(make_world):
    """Worlds whose steps turn any error into a ModelFault (`machine.guard_world`); an error while
    building the world is a fault too."""
    def make():
        try:
            world = make_world()
        except (KeyboardInterrupt, CapReached, ModelFault):
            raise
        except BaseException as e:
            raise ModelFault(fault_of(e, [], "building the initial world")) from e
        return guard_world(world)
    return make


def make_world_for(variant, scope: scopes.Scope):
    """The initial world of a variant at a scope: the scope's sizes, then the variant's params."""
    from model.amend import Amendment
    params = scope.params()
    if variant is not None and isinstance(variant, type) and issubclass(variant, Amendment):
        params = variant.make_params(params)
    harness_rules = getattr(variant, "harness_rules", None) if variant is not None else None

    def make():
        rules = variant() if variant is not None else None
        if scope.composed:
            return World.composed(params, rules, harness_rules)
        return World(params, rules)
    return make


def world_at(cls, scope: str | None = None):
    """The world factory a trace was recorded in: the default instance, or a named scope."""
    if scope is None:
        return world_factory(cls)
    try:
        return make_world_for(cls, scopes.parse(scope))
    except scopes.ScopeError as e:
        raise UsageError(f"taskmodel: the trace's scope: {e}") from None


def resolve_variant(spec):
    """A variant named on the command line (a built-in, or path/to/file.py[:Class]), or None for
    the baseline; a bad name or file is bad input."""
    from model.amend import AmendmentError
    from verifier.runtime.amendments import resolve_checked
    if spec in (None, "baseline"):
        return None
    try:
        return resolve_checked(spec)
    except AmendmentError as e:
        raise UsageError(f"taskmodel: {e}") from None


# The validator's instance: the model's Subjects, clients and servers (model/params.py), with the
# exploration bounds lifted: a real session makes as many requests, runs and ticks as it likes.
UNBOUNDED = dict(max_requests=10 ** 9, max_runs=10 ** 9, max_effects=10 ** 9, max_time=10 ** 9, max_interrupts=None,
                 max_pauses=None, retry_reserve=0)


def unbounded_world(variant):
    """The initial world a recorded log is matched against (`UNBOUNDED`)."""
    from model.params import Params
    from model.world import World
    base = Params().with_(**UNBOUNDED)
    params = variant.make_params(base) if variant is not None else base
    return World(params, variant() if variant is not None else None)


def portable_spec(spec: str) -> str:
    """A variant as a worker process finds it: a built-in by name, an amendment file by its absolute
    path (a worker's current folder is not the driver's)."""
    if ".py:" in spec:
        file, _, cls = spec.partition(".py:")
        return f"{Path(file + '.py').resolve()}:{cls}"
    return str(Path(spec).resolve()) if spec.endswith(".py") else spec
