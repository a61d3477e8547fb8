"""`taskmodel replay TRACE [--variant FILE]`: does a recorded trace still show what it recorded?"""
from __future__ import annotations

from pathlib import Path

from verifier.runtime.exitcodes import EXIT_OK, EXIT_REFUTED, UsageError
from verifier.writers.itf_read import TraceError, TraceFile
from verifier.writers.reproduce import load_amendment, replay_recorded, variant_class


def replay_file(path: Path, variant_file: str | None = None) -> int:
    """`taskmodel replay TRACE [--variant FILE]`: replay a trace, comparing each state it reaches
    with the one recorded, and say whether it still shows what it recorded. Exit 0 reproduced, 1
    not (diverged, a state differs, not violated, violated at another step), 3 a malformed trace."""
    path = Path(path)
    trace = TraceFile(path)
    try:
        head = trace.check()
    except FileNotFoundError:
        raise UsageError(f"taskmodel: {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"taskmodel: {path}: cannot be read ({e})") from None
    except TraceError as e:
        raise UsageError(f"taskmodel: {path}: not an ITF trace of this tool: {e}") from None
    meta = head.meta
    variant, prop = meta["variant"], meta["property"]
    if variant_file is not None:
        recorded = meta.get("amendment") or {}
        cls, notes = load_amendment(variant_file, recorded.get("sha256"), variant)
        for note in notes:
            print(f"note: {note}; replaying with it")
    else:
        try:
            cls = variant_class(variant)
        except UsageError as e:
            raise UsageError(f"taskmodel: {path}: #meta.variant: {str(e).removeprefix('taskmodel: ')}") from None
    try:
        outcome = replay_recorded(cls, prop, trace.states(), meta.get("scope"))
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"taskmodel: {path}: cannot be read ({e})") from None
    except TraceError as e:           # the file changed between the two readings
        raise UsageError(f"taskmodel: {path}: not an ITF trace of this tool: {e}") from None
    if outcome.diverged_at is not None:
        where = "the initial state" if outcome.diverged_at < 0 else f"step {outcome.diverged_at + 1}"
        print(f"the trace does not replay: diverges at {where}: {outcome.reason}")
        return EXIT_REFUTED
    steps = head.steps
    if outcome.violation is None:
        print(f"every step replays, but {prop} ({', '.join(meta.get('ids', []))}) is not reproduced")
        return EXIT_REFUTED
    if len(outcome.violation.history) != steps:
        print(f"{prop} is reproduced at step {len(outcome.violation.history)}, not at step {steps} as recorded")
        return EXIT_REFUTED
    print(f"replayed {steps} steps of {getattr(cls, 'name', 'baseline')}: {outcome.violation}")
    return EXIT_OK
