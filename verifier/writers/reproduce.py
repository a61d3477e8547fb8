"""Replaying a recorded counterexample (the committed reproducers and `taskmodel replay`).

A trace names its variant; only a built-in is found by that name. An author's amendment is never
imported because a trace names it: the caller passes its file (`--variant FILE`), and the file's
sha256 is compared with the one the trace recorded.
"""
from __future__ import annotations

from pathlib import Path

from model.amend import AmendmentError, load_file, sha256_file
from properties.base import load_catalogue

from verifier.runtime.exitcodes import EXIT_OK, EXIT_REFUTED, UsageError
from verifier.engines.random.explore import world_factory
from verifier.runtime.replay import Outcome, run_trace


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
        cls = load_file(str(path))
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
    return run_trace(make_world(cls, scope), [(a, dict(b)) for a, b in steps], catalogue, prop)


def make_world(cls, scope: str | None = None):
    """The world factory a trace was recorded in: the default instance, or a named scope."""
    if scope is None:
        return world_factory(cls)
    from verifier.engines.bfs import search as bfs
    from verifier.runtime import scopes
    try:
        return bfs.make_world_for(cls, scopes.parse(scope))
    except scopes.ScopeError as e:
        raise UsageError(f"taskmodel: the trace's scope: {e}") from None


def replay_file(path: Path, variant_file: str | None = None) -> int:
    """`taskmodel replay TRACE [--variant FILE]`: replay a trace, say whether it still shows what it
    recorded. Exit 0 reproduced, 1 not (diverged, not violated, violated at another step)."""
    from verifier.writers import itf
    path = Path(path)
    try:
        meta, steps = itf.load(path.read_text(encoding="utf-8"))
        variant, prop = meta["variant"], meta["property"]
        if not (isinstance(variant, str) and isinstance(prop, str)):
            raise TypeError("variant and property must be names")
    except FileNotFoundError:
        raise UsageError(f"taskmodel: {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"taskmodel: {path}: cannot be read ({e})") from None
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"taskmodel: {path}: not an ITF trace of this tool ({type(e).__name__}: {e})") from None
    if variant_file is not None:
        recorded = meta.get("amendment") or {}
        cls, notes = load_amendment(variant_file, recorded.get("sha256"), variant)
        for note in notes:
            print(f"note: {note}; replaying with it")
    else:
        cls = variant_class(variant)
    scope = meta.get("scope")
    outcome = reproduce(cls, prop, steps, scope if isinstance(scope, str) else None)
    if outcome.diverged_at is not None:
        print(f"diverges at step {outcome.diverged_at + 1}: {outcome.reason}")
        return EXIT_REFUTED
    if outcome.violation is None:
        print(f"every step replays, but {prop} ({', '.join(meta.get('ids', []))}) is not reproduced")
        return EXIT_REFUTED
    if len(outcome.violation.history) != len(steps):
        print(f"{prop} is reproduced at step {len(outcome.violation.history)}, not at step {len(steps)} as recorded")
        return EXIT_REFUTED
    print(f"replayed {len(steps)} steps of {getattr(cls, 'name', 'baseline')}: {outcome.violation}")
    return EXIT_OK
