"""`taskmodel replay TRACE [--variant FILE]`: does a recorded trace still show what it recorded?"""
from __future__ import annotations

from pathlib import Path

from verifier.runtime.exitcodes import EXIT_OK, EXIT_REFUTED, UsageError
from verifier.writers import itf
from verifier.writers.reproduce import load_amendment, reproduce, variant_class


def replay_file(path: Path, variant_file: str | None = None) -> int:
    """`taskmodel replay TRACE [--variant FILE]`: replay a trace, say whether it still shows what it
    recorded. Exit 0 reproduced, 1 not (diverged, not violated, violated at another step)."""
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
