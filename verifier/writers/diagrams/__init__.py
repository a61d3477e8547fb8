"""Diagrams generated from the model: the lifecycles of `model.lifecycle`, each in DOT, SVG and Mermaid.

Layered like the diagram backends of `transitions`: `graph` builds a neutral `Graph` from a machine of
`model.lifecycle` (decorated from `model.projection` and from `probe`, which drives the real model),
`dot`, `svg` and `mermaid` draw it, `highlight` draws a trace's runs' paths on the run lifecycle,
`sequence` draws its sequence diagram (Mermaid and SVG), and `tutorial` keeps the quoted blocks of
docs/tutorial.md in step with the generated files.

    taskmodel diagrams [--out DIR] [--counterexamples DIR] [--tutorial-file FILE]
                       [--lifecycles] [--traces] [--tutorial] [--check]

With no step flag every step runs: the lifecycle diagrams into --out (default diagrams/), a
highlighted `lifecycle.svg` and `lifecycle.mmd` beside every `trace.itf.json` under --counterexamples
(default counterexamples/), and the include blocks of --tutorial-file (default docs/tutorial.md).
--check writes nothing and exits 1 when a committed file differs from what would be written.
When Graphviz's `dot` is missing, SVG files are skipped and the skip is printed on stderr.
Exit codes: 0 done (or nothing differs), 1 a file differs under --check, 3 bad usage.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from verifier.runtime.exitcodes import UsageError
from verifier.runtime.files import check_file, check_folder, path_arg, sweep, write_atomic
from verifier.writers.diagrams import dot, graph, highlight, mermaid, svg, tutorial
from verifier.writers.diagrams import trace as itf_trace

DEFAULT_OUT = Path("diagrams")
DEFAULT_COUNTEREXAMPLES = Path("counterexamples")
DEFAULT_TUTORIAL = Path("docs/tutorial.md")


@dataclass
class Plan:
    """The files a step would write (path -> text) and what it had to skip, with the reason."""
    files: dict[Path, str] = field(default_factory=dict)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add_svg(self, path: Path, dot_source: str) -> None:
        try:
            self.files[path] = svg.render(dot_source)
        except svg.DotMissing as e:
            self.skipped.append((path, str(e)))


# ---- the lifecycle diagrams ----------------------------------------------------------------------
def plan_lifecycles(out_dir: Path) -> Plan:
    plan = Plan()
    gs = graph.graphs()
    for g in gs:
        source = dot.to_dot(g)
        plan.files[out_dir / f"{g.name}.dot"] = source
        plan.files[out_dir / f"{g.name}.mmd"] = mermaid.to_mermaid(g)
        plan.add_svg(out_dir / f"{g.name}.svg", source)
    plan.files[out_dir / "README.md"] = readme(gs)
    return plan


def readme(gs: list[graph.Graph]) -> str:
    lines = [
        "# Diagrams",
        "",
        "Generated from the model by `taskmodel diagrams` (`python -m verifier.writers.diagrams`): every state and edge "
        "comes from the `transitions` machines of `model/lifecycle.py`, the one definition the model fires its "
        "steps through. Do not edit these files; `tests/test_diagrams.py` regenerates them and fails when they "
        "differ. Each diagram is here as Mermaid (rendered below), SVG (Graphviz) and DOT.",
        "",
        "Every counterexample under `../counterexamples/<variant>/<property>/` has a `lifecycle.svg` and "
        "`lifecycle.mmd` beside its trace: the run lifecycle with every run's path highlighted, the violating run's last state marked. "
        "The tutorial (`../docs/tutorial.md`) walks through them.",
        "",
        "| diagram | SVG | Mermaid | DOT |",
        "|---|---|---|---|",
    ]
    for g in gs:
        lines.append(f"| [{g.title}](#{anchor(g.title)}) | [{g.name}.svg]({g.name}.svg) | "
                     f"[{g.name}.mmd]({g.name}.mmd) | [{g.name}.dot]({g.name}.dot) |")
    for g in gs:
        lines += ["", f"## {g.title}", "", g.description, "", f"SVG: [{g.name}.svg]({g.name}.svg)", "",
                  "```mermaid", mermaid.to_mermaid(g).rstrip("\n"), "```"]
        if g.lifecycle == "request" and any("signal" in e.marks for e in g.edges):
            from verifier.writers.diagrams.probe import probe_requests
            found = probe_requests()
            lines += ["", "The edges are labelled with the model's actions observed to take them "
                          "(`verifier/writers/diagrams/probe.py` drives `model.actions` from a fresh `tools/call`):", "",
                      "| action | actor | what it does |", "|---|---|---|"]
            for name, (actor, doc) in found.docs.items():
                kind = " (cancellation signal)" if name in found.signals else ""
                lines.append(f"| `{name}`{kind} | {actor} | {doc or '—'} |")
    return "\n".join(lines) + "\n"


def anchor(title: str) -> str:
    import re
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


# ---- the counterexamples' paths ------------------------------------------------------------------
def trace_files(root: Path) -> list[Path]:
    return sorted(Path(root).glob("**/trace.itf.json"), key=lambda p: p.as_posix()) if Path(root).is_dir() else []


def plan_traces(root: Path) -> Plan:
    plan = Plan()
    for path in trace_files(root):
        try:
            t = itf_trace.load(path)
        except (ValueError, OSError, KeyError, TypeError, AttributeError) as e:
            plan.skipped.append((path, f"unreadable trace: {type(e).__name__}: {e}"[:300]))
            continue
        g = highlight.path_graph(t)
        plan.files[path.parent / "lifecycle.mmd"] = mermaid.to_mermaid(g)
        plan.add_svg(path.parent / "lifecycle.svg", dot.to_dot(g))
    if not plan.files and not plan.skipped:
        plan.notes.append(f"no trace.itf.json under {Path(root).as_posix()}/: no highlighted lifecycle to write")
    return plan


# ---- the tutorial ----------------------------------------------------------------------------------
def plan_tutorial(path: Path, root: Path = Path(".")) -> Plan:
    plan = Plan()
    if not path.is_file():
        plan.notes.append(f"{path.as_posix()} does not exist: tutorial step skipped")
        return plan
    text, found = tutorial.refresh(path.read_text(encoding="utf-8"), root)
    plan.files[path] = text
    for b in found:
        if b.status == "missing":
            plan.notes.append(f"{path.as_posix()}: include {b.path} kept its placeholder (the file does not exist yet)")
    return plan


# ---- entry points --------------------------------------------------------------------------------
def generate(out_dir: Path) -> list[Path]:
    """Write the lifecycle diagrams into out_dir; the paths written (SVG skipped, with a warning, without dot)."""
    plan = plan_lifecycles(Path(out_dir))
    written = _write(plan)
    _report(plan, sys.stderr)
    return written


def highlight_traces(root: Path) -> list[Path]:
    plan = plan_traces(Path(root))
    written = _write(plan)
    _report(plan, sys.stderr)
    return written


def _write(plan: Plan) -> list[Path]:
    written = []
    for path, text in plan.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            write_atomic(path, text)
        written.append(path)
    return written


def _report(plan: Plan, stream) -> None:
    for note in plan.notes:
        print(f"note: {note}", file=stream)
    reasons: dict[str, list[Path]] = {}
    for path, why in plan.skipped:
        reasons.setdefault(why, []).append(path)
    for why, paths in reasons.items():
        print(f"skipped {len(paths)} file(s): {why}: {', '.join(p.as_posix() for p in paths)}", file=stream)


def drift(plan: Plan) -> list[str]:
    """The planned files whose committed copy differs or is missing."""
    out = []
    for path, text in plan.files.items():
        if not path.is_file():
            out.append(f"{path.as_posix()}: missing")
        elif path.read_text(encoding="utf-8") != text:
            out.append(f"{path.as_posix()}: differs")
    return out


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ValueError(f"{self.prog}: {message}")


def _path(text: str) -> Path:
    return Path(path_arg(text))


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="taskmodel diagrams", description="Regenerate the diagrams from model.lifecycle.")
    p.add_argument("--out", type=_path, default=DEFAULT_OUT, help="lifecycle diagrams folder (default diagrams)")
    p.add_argument("--counterexamples", type=_path, default=DEFAULT_COUNTEREXAMPLES,
                   help="folder searched for trace.itf.json (default counterexamples)")
    p.add_argument("--tutorial-file", type=_path, default=DEFAULT_TUTORIAL,
                   help="Markdown file whose include blocks are refreshed (default docs/tutorial.md)")
    p.add_argument("--lifecycles", action="store_true", help="step: the lifecycle diagrams")
    p.add_argument("--traces", action="store_true", help="step: a highlighted lifecycle beside every trace")
    p.add_argument("--tutorial", action="store_true", help="step: refresh the tutorial's include blocks")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file differs")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser().parse_args(argv)
    except ValueError as e:
        print(str(e).splitlines()[0], file=sys.stderr)
        return 3
    except SystemExit as e:          # --help
        return 0 if e.code in (0, None) else 3
    every = not (args.lifecycles or args.traces or args.tutorial)
    try:        # what this run would write, refused before the work
        if not args.check and (every or args.lifecycles):
            check_folder(args.out, "diagrams: --out")
        if not args.check and (every or args.tutorial):
            check_file(args.tutorial_file, "diagrams: --tutorial-file")
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return 3
    if not args.check:
        for root in (args.out, args.counterexamples):
            sweep(root)
    plans: list[tuple[str, Plan]] = []
    if every or args.lifecycles:
        plans.append((f"{args.out.as_posix()}/", plan_lifecycles(args.out)))
    if every or args.traces:
        plans.append((f"highlighted traces under {args.counterexamples.as_posix()}/", plan_traces(args.counterexamples)))
    # The tutorial quotes the generated files: refresh it after they were written.
    status = 0
    for name, plan in plans:
        _report(plan, sys.stderr)
        if args.check:
            bad = drift(plan)
            for line in bad:
                print(line)
            status = max(status, 1 if bad else 0)
            print(f"{name}: {len(plan.files) - len(bad)} of {len(plan.files)} file(s) current")
        else:
            _write(plan)
            print(f"{name}: {len(plan.files)} file(s) written")
    if every or args.tutorial:
        plan = plan_tutorial(args.tutorial_file)
        _report(plan, sys.stderr)
        if args.check:
            bad = drift(plan)
            for line in bad:
                print(line + " (run `taskmodel diagrams --tutorial`)")
            status = max(status, 1 if bad else 0)
        elif plan.files:
            _write(plan)
            print(f"{args.tutorial_file.as_posix()}: include blocks refreshed")
    return status
