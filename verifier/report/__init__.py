"""A self-contained static HTML report: verdicts, and every counterexample stepped through.

    taskmodel report [--out out/report/index.html] [--check RESULT.json] [--counterexamples DIR]
                     [--diagrams DIR]

One HTML file with its CSS, script and SVG inline: no server, no network. It holds the table of
properties and verdicts of a check result (`taskmodel check --json`), and for each counterexample
(those the result names and every `trace.itf.json` under --counterexamples) a step-through view:
previous / next buttons and the arrow keys, the action and the fields it changed, the sequence so
far, and the run lifecycle with the run's path highlighted up to the step (the violation at the
last step). The URL fragment `#cx=N&step=K` opens counterexample N at step K.
Diagrams are rendered with Graphviz's `dot`; without it the report inlines the committed SVGs of
--diagrams (default diagrams/) and says so, or shows the states as text.
Exit codes: 0 written, 3 bad usage or unreadable input (one line on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .page import Counterexample, build_page, load_counterexample


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="taskmodel report", description="Write the static HTML report.")
    p.add_argument("--out", type=Path, default=Path("out/report/index.html"))
    p.add_argument("--check", type=Path, default=None, help="a check result JSON (taskmodel check --json)")
    p.add_argument("--counterexamples", type=Path, default=Path("counterexamples"),
                   help="folder searched for trace.itf.json (default counterexamples)")
    p.add_argument("--diagrams", type=Path, default=Path("diagrams"),
                   help="committed diagrams, used when Graphviz's dot is missing (default diagrams)")
    return p


def read_check(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"taskmodel report: cannot read {path.as_posix()}: {e.strerror}") from None
    except ValueError as e:
        raise UsageError(f"taskmodel report: {path.as_posix()} is not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("properties", []), list):
        raise UsageError(f"taskmodel report: {path.as_posix()} is not a check result (no properties list)")
    return data


def collect(check: dict | None, check_path: Path | None, root: Path) -> tuple[list[Counterexample], list[str]]:
    """The counterexamples to show, each once: the check result's first, then the folder's, sorted."""
    found: list[Counterexample] = []
    seen: set[Path] = set()
    problems: list[str] = []
    wanted: list[Path] = []
    for prop in (check or {}).get("properties", []):
        t = prop.get("trace") if isinstance(prop, dict) else None
        if t:
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
        except (ValueError, OSError, KeyError, TypeError) as e:
            problems.append(f"{p.as_posix()}: unreadable trace ({e})")
    return found, problems


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            args = parser().parse_args(argv)
        except SystemExit as e:
            return 0 if e.code in (0, None) else 3
        check = read_check(args.check) if args.check is not None else None
        cxs, problems = collect(check, args.check, args.counterexamples)
    except UsageError as e:
        print(str(e).splitlines()[0], file=sys.stderr)
        return 3
    html, notes = build_page(check, args.check.as_posix() if args.check else None, cxs, problems, args.diagrams)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(html, encoding="utf-8", newline="\n")
    for note in notes + problems:
        print(f"note: {note}", file=sys.stderr)
    print(f"{args.out.as_posix()}: {len((check or {}).get('properties', []))} properties, "
          f"{len(cxs)} counterexample(s)")
    return 0
