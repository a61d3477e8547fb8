"""A self-contained static HTML report: verdicts, and every counterexample stepped through.

    taskmodel report [--out out/report/index.html] [--check RESULT.json] [--counterexamples DIR]
                     [--diagrams DIR]

One HTML file with its CSS, script and SVG inline: no server, no network. It holds a check result
(`taskmodel check --json`; by default the latest, out/latest-check.json): the verdicts counted per
engine, each engine's properties, bounds, scope, budget and coverage as tables, filters by verdict,
area, requirement id and variant and a search box; and for each trace (counterexamples and witnesses:
those the result names and every `trace.itf.json` under --counterexamples) a step-through view:
previous / next buttons and the arrow keys; the step's action and what it changed; the whole state
after it (runs, tasks as a tasks/get caller reads them, interrupts, requests, the harness's tool
executions) with the changed cells marked and an only-changes toggle; the sequence diagram
(verifier.writers.diagrams.sequence, pre-rendered SVG) with the step highlighted; and every run, request
and tool execution on its lifecycle, its path highlighted up to the step (the violation at the last).
A trace is rendered only when opened, so a page of a thousand stays usable. The URL fragment
`#cx=N&step=K` opens trace N at step K; `#verdict=V&area=A&id=ID&variant=NAME&text=WORDS` sets
the filters.
Diagrams are rendered with Graphviz's `dot`; without it the report inlines the committed SVGs of
--diagrams (default diagrams/) and says so, or shows the states as text.
Exit codes: 0 written, 3 bad usage or unreadable input (one line on stderr).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from verifier.runtime.files import check_file, path_arg, sweep, write_atomic
from verifier.runtime.strict_json import loads
from verifier.writers.report.page import Counterexample, build_page, load_counterexample


# Where `taskmodel check` writes its result (its --out defaults to out/).
LATEST = Path("out/latest-check.json")


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def _path(text: str) -> Path:
    return Path(path_arg(text))


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="taskmodel report", description="Write the static HTML report.")
    p.add_argument("--out", type=_path, default=Path("out/report/index.html"),
                   help="the report file (default out/report/index.html), written whole or not at all")
    p.add_argument("--check", type=_path, default=None,
                   help=f"a check result JSON (taskmodel check --json; default {LATEST.as_posix()} when it exists)")
    p.add_argument("--counterexamples", type=_path, default=Path("counterexamples"),
                   help="folder searched for trace.itf.json (default counterexamples)")
    p.add_argument("--diagrams", type=_path, default=Path("diagrams"),
                   help="committed diagrams, used when Graphviz's dot is missing (default diagrams)")
    return p


def read_check(path: Path) -> dict:
    """A check result as one object with a `results` list (one per engine); the older flat object of
    one engine's result is read as a list of one."""
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"taskmodel report: cannot read {path.as_posix()}: {e.strerror}") from None
    except ValueError as e:
        raise UsageError(f"taskmodel report: {path.as_posix()}: {e}") from None
    if isinstance(data, dict) and "results" not in data and isinstance(data.get("properties"), list):
        data = {"variant": data.get("variant"), "results": [data]}
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not all(isinstance(r, dict) and isinstance(r.get("properties", []), list)
                                                 for r in results):
        raise UsageError(f"taskmodel report: {path.as_posix()} is not a check result (no results list)")
    return data


def properties(check: dict | None) -> list[dict]:
    """Every property verdict of every engine's result, in order."""
    return [p for r in (check or {}).get("results", []) for p in r.get("properties", []) if isinstance(p, dict)]


def collect(check: dict | None, check_path: Path | None, root: Path) -> tuple[list[Counterexample], list[str]]:
    """The counterexamples to show, each once: the check result's first, then the folder's, sorted."""
    found: list[Counterexample] = []
    seen: set[Path] = set()
    problems: list[str] = []
    wanted: list[Path] = []
    for prop in properties(check):
        t = prop.get("trace")
        if isinstance(t, str) and t:
            p = Path(t)
            if not p.is_file() and check_path is not None and (check_path.parent / p).is_file():
                p = check_path.parent / p
            if p.is_file():
                wanted.append(p)
            else:
                problems.append(f"{prop.get('name')}: trace {t} not found")
    if root.is_dir():
        wanted += sorted(root.glob("**/trace.itf.json"), key=lambda p: p.as_posix())
    for p in wanted:
        key = p.resolve()
        if key in seen:
            continue
        seen.add(key)
        try:
            found.append(load_counterexample(p))
        except (ValueError, OSError, KeyError, TypeError, AttributeError, RecursionError) as e:
            problems.append(f"{p.as_posix()}: unreadable trace ({type(e).__name__}: {e})"[:300])
    return found, problems


def summary(check: dict | None, path: Path | None) -> str:
    """`N properties from FILE`, by engine when several ran."""
    if check is None:
        return f"0 properties (no check result: {LATEST.as_posix()} not found)"
    results = check.get("results", [])
    per = ", ".join(f"{r.get('engine', '?')} {len(r.get('properties', []))}" for r in results)
    return f"{len(properties(check))} properties{f' ({per})' if len(results) > 1 else ''} from {path.as_posix()}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            args = parser().parse_args(argv)
        except SystemExit as e:
            return 0 if e.code in (0, None) else 3
        check_file(args.out, "report: --out")
        sweep(args.out.parent, 0)
        if args.check is None and LATEST.is_file():
            args.check = LATEST
        check = read_check(args.check) if args.check is not None else None
        cxs, problems = collect(check, args.check, args.counterexamples)
        html, notes = build_page(check, args.check.as_posix() if args.check else None, cxs, problems, args.diagrams)
        write_atomic(args.out, html)
    except UsageError as e:
        print(str(e).splitlines()[0], file=sys.stderr)
        return 3
    for note in notes + problems:
        print(f"note: {note}", file=sys.stderr)
    print(f"{args.out.as_posix()}: {summary(check, args.check)}, {len(cxs)} counterexample(s)")
    return 0
