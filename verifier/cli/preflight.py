"""What is refused before any command works: flags no command could honour and outputs it could
not write. A run that would fail at its end (an unwritable `--out`) fails here, in one line, exit 3.
Each command still checks what only it knows (a variant, a trace, a log) before its work starts.
Then what a killed run left staged in the outputs is cleared (`files.sweep`).
"""
from __future__ import annotations

import math
from pathlib import Path

from verifier.runtime.exitcodes import UsageError
from verifier.runtime.files import check_file, check_folder, sweep

DAY = 86_400.0
MAX_JOBS = 256


def preflight(args) -> None:
    check = {"check": _check, "swarm": _swarm, "gate": _gate}.get(args.command)
    if check is not None:
        check(args)
    for root in _outputs_of(args):
        sweep(root)


def _outputs_of(args) -> list:
    """The folders this command writes into."""
    if args.command in ("check", "swarm"):
        return [args.out] + ([args.counterexamples] if args.counterexamples else [])
    if args.command == "gate" and (args.record or args.write):
        from verifier.cli.gate import manifest_path
        return [manifest_path(args).parent]
    return []


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


# check's flags that one engine or two read, by the engines that read them: a flag given to a check
# none of whose engines reads it would be ignored, and is refused instead
READ_BY = {"--cluster": ("bfs",), "--scope": ("bfs",), "--max-states": ("bfs",), "--no-symmetry": ("bfs",),
           "--no-por": ("bfs",), "--no-incremental": ("bfs",), "--depth": ("bfs", "z3"), "--rlimit": ("z3",),
           "--timeout": ("z3",), "--examples": ("hypothesis",)}


def _ignored(args) -> None:
    spec = args.variant or ""
    engines = (("bfs", "hypothesis", "z3") if args.engine == "all" else (args.engine,) if args.engine else
               ("bfs", "hypothesis") if spec.endswith(".py") or ".py:" in spec else ("hypothesis",))
    given = {"--cluster": args.cluster is not None, "--scope": args.scope is not None,
             "--max-states": args.max_states is not None, "--no-symmetry": args.no_symmetry, "--no-por": args.no_por,
             "--no-incremental": not args.incremental, "--depth": args.depth is not None,
             "--rlimit": args.rlimit is not None, "--timeout": args.timeout is not None,
             "--examples": args.examples is not None}
    for flag, readers in READ_BY.items():
        if given[flag] and not set(readers) & set(engines):
            raise UsageError(f"taskmodel: {flag}: only the {' and '.join(readers)} engine{'s' * (len(readers) > 1)} "
                             f"read{'s' * (len(readers) == 1)} it, and this check runs {' and '.join(engines)}")


def _cluster(args) -> None:
    """`--cluster`: auto or HOST:PORT (ray://HOST:PORT)."""
    if args.cluster is None:
        return
    host, _, port = args.cluster.split("://", 1)[-1].rpartition(":")
    if args.cluster != "auto" and not (host and port.isdigit() and 0 < int(port) < 65536):
        raise UsageError(f"taskmodel: --cluster {args.cluster or repr('')}: neither auto nor HOST:PORT")


def _redis(url: str | None, where: str) -> None:
    """A Redis URL the client can parse (redis://, rediss:// or unix://), before the swarm's work."""
    from urllib.parse import urlsplit
    if url is None:
        return
    try:
        parts = urlsplit(url)
        _ = parts.port          # read to be checked: out of range raises
        ok = parts.scheme in ("redis", "rediss") and bool(parts.hostname) or parts.scheme == "unix" and bool(parts.path)
    except ValueError:          # a port out of range, brackets astray
        ok = False
    if not ok:
        raise UsageError(f"taskmodel: {where} {url or repr('')}: not a Redis URL (redis://HOST:PORT/DB or unix://PATH)")


def _check(args) -> None:
    _outputs(args)
    _ignored(args)
    _cluster(args)
    if args.scope:
        from verifier.runtime import scopes
        try:
            scopes.parse(args.scope)
        except scopes.ScopeError as e:
            raise UsageError(f"taskmodel: --scope: {e}") from None


def _swarm(args) -> None:
    import os
    _outputs(args)
    _cluster(args)
    _redis(args.redis, "--redis")
    if args.redis is None:
        _redis(os.environ.get("TASKMODEL_REDIS") or None, "TASKMODEL_REDIS")
    seconds(("--budget", args.budget, DAY))
    whole_numbers(("--jobs", args.jobs, MAX_JOBS), ("--searches", args.searches, 10_000),
                  ("--examples", args.examples, 10_000_000), ("--states", args.states, 100_000_000))


def _gate(args) -> None:
    whole_numbers(("--jobs", args.jobs, MAX_JOBS))
    _cluster(args)
    if args.budget is not None:
        seconds(("--budget", args.budget, DAY))
    if args.only is not None and not args.only:
        raise UsageError("taskmodel: --only needs at least one variant name")
    if args.record or args.write:
        from verifier.cli.gate import manifest_path
        check_file(manifest_path(args), "--manifest")
