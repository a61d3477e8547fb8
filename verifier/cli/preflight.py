"""What is refused before any command works: flags no command could honour and outputs it could
not write. A run that would fail at its end (an unwritable `--out`) fails here, in one line, exit 3.
Each command still checks what only it knows (a variant, a trace, a log) before its work starts.
"""
from __future__ import annotations

import math
from pathlib import Path

from verifier.runtime.exitcodes import UsageError
from verifier.runtime.files import check_file, check_folder

DAY = 86_400.0
MAX_JOBS = 256


def preflight(args) -> None:
    check = {"check": _check, "swarm": _swarm, "gate": _gate}.get(args.command)
    if check is not None:
        check(args)


def whole_numbers(*limits) -> None:
    """Refuse each (flag, value, highest) whose value is not a whole number from 1 to highest."""
    for flag, value, high in limits:
        if not 1 <= value <= high:
            raise UsageError(f"taskmodel: {flag} must be a whole number from 1 to {high}, not {value}")


def seconds(*limits) -> None:
    """Refuse each (flag, value, highest) whose value is not a number of seconds in (0, highest]."""
    for flag, value, high in limits:
        if not math.isfinite(value) or not 0 < value <= high:
            raise UsageError(f"taskmodel: {flag} must be a number of seconds above 0 and at most {high:g}, "
                             f"not {value:g}")


def _outputs(args) -> None:
    check_folder(args.out, "--out")
    check_file(Path(args.out) / "latest-check.json", "--out")
    if args.counterexamples:
        check_folder(args.counterexamples, "--counterexamples")


def _check(args) -> None:
    _outputs(args)
    if args.scope:
        from verifier.runtime import scopes
        try:
            scopes.parse(args.scope)
        except scopes.ScopeError as e:
            raise UsageError(f"taskmodel: --scope: {e}") from None


def _swarm(args) -> None:
    _outputs(args)
    seconds(("--budget", args.budget, DAY))
    whole_numbers(("--jobs", args.jobs, MAX_JOBS), ("--searches", args.searches, 10_000),
                  ("--examples", args.examples, 10_000_000), ("--states", args.states, 100_000_000))


def _gate(args) -> None:
    whole_numbers(("--jobs", args.jobs, MAX_JOBS))
    if args.budget is not None:
        seconds(("--budget", args.budget, DAY))
    if args.only is not None and not args.only:
        raise UsageError("taskmodel: --only needs at least one variant name")
    if args.record or args.write:
        from verifier.cli.gate import manifest_path
        check_file(manifest_path(args), "--manifest")
