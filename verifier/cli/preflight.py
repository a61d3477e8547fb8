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
    check = {"check": _check, "swarm": _outputs, "gate": _gate}.get(args.command)
    if check is not None:
        check(args)


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


def _gate(args) -> None:
    if not 1 <= args.jobs <= MAX_JOBS:
        raise UsageError(f"taskmodel: --jobs must be a whole number from 1 to {MAX_JOBS}, not {args.jobs}")
    if args.budget is not None and (not math.isfinite(args.budget) or not 0 < args.budget <= DAY):
        raise UsageError(f"taskmodel: --budget must be a number of seconds above 0 and at most {DAY:g}, "
                         f"not {args.budget:g}")
    if args.only is not None and not args.only:
        raise UsageError("taskmodel: --only needs at least one variant name")
    if args.record or args.write:
        from verifier.cli.gate import manifest_path
        check_file(manifest_path(args), "--manifest")
