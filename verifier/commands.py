"""The subcommands of `taskmodel` (argument parsing is in `verifier.cli`)."""
from __future__ import annotations

import json
from pathlib import Path

from .exitcodes import EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED, UsageError
from .files import write_atomic


def _variant(spec):
    from model.amend import AmendmentError
    from model.variants import resolve
    if spec in (None, "baseline"):
        return None
    try:
        return resolve(spec)
    except AmendmentError as e:
        raise UsageError(f"taskmodel: {e}") from None


def _catalogue():
    from properties.base import load_catalogue
    return load_catalogue()


# ---- list -----------------------------------------------------------------------------------------
def listing() -> dict:
    from model.variants import builtins
    from properties.requirements import REQUIREMENTS
    props = _catalogue()
    by_id: dict[str, list[str]] = {rid: [] for rid in REQUIREMENTS}
    for p in props.values():
        for rid in p.ids:
            by_id.setdefault(rid, []).append(p.name)
    return {
        "properties": [{"name": p.name, "ids": list(p.ids), "kind": p.kind, "clause": p.clause,
                        "sentence": p.sentence, "area": p.area} for p in props.values()],
        "requirements": {rid: {"kind": REQUIREMENTS.get(rid, ("?", ""))[0], "source": REQUIREMENTS.get(rid, ("", "?"))[1],
                               "properties": names} for rid, names in by_id.items()},
        "variants": [{"name": v.name, "kind": v.kind, "changes": v.changes, "source": v.source,
                      "expect": dict(v.expect), "params": dict(v.params)} for v in builtins().values()],
    }


def cmd_list(args) -> int:
    data = listing()
    if args.json:
        print(json.dumps(data, indent=1))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table
    con = Console()
    t = Table(title=f"{len(data['properties'])} properties", show_lines=False)
    for col in ("property", "ids", "kind", "clause", "sentence"):
        t.add_column(col, overflow="fold")
    for p in data["properties"]:
        t.add_row(p["name"], ", ".join(p["ids"]), p["kind"], p["clause"], p["sentence"])
    con.print(t)
    missing = [rid for rid, r in data["requirements"].items() if not r["properties"]]
    if missing:
        con.print(f"[yellow]requirement ids no property names yet: {', '.join(missing)}[/]")
    v = Table(title=f"{len(data['variants'])} built-in variants")
    for col in ("variant", "kind", "changes", "expected"):
        v.add_column(col, overflow="fold")
    for x in data["variants"]:
        v.add_row(x["name"], x["kind"], x["changes"], ", ".join(f"{k} {w}" for k, w in x["expect"].items()))
    con.print(v)
    return EXIT_OK


# ---- check ----------------------------------------------------------------------------------------
def result_json(result, paths: dict | None = None) -> dict:
    return {
        "variant": result.variant, "engine": result.engine, "seed": result.seed,
        "bounds": result.bounds, "budget": {"seconds": result.budget_s, "elapsed": round(result.elapsed_s, 2),
                                            "examples": result.examples, "steps": result.steps,
                                            "steps_per_second": round(result.steps_per_second, 1)},
        "coverage": {"actions": result.action_counts,
                     "premises": {v.name: v.premise for v in result.verdicts}},
        "properties": [{"name": v.name, "ids": list(v.ids), "kind": v.kind, "clause": v.clause,
                        "verdict": v.verdict, "message": v.message, "length": v.length,
                        "premise": v.premise, "checks": v.checks,
                        "trace": (paths or {}).get(v.name)} for v in result.verdicts],
    }


def exit_code(verdicts) -> int:
    if any(v.verdict == "refuted" for v in verdicts):
        return EXIT_REFUTED
    if any(v.verdict in ("vacuous", "unreached", "undetermined", "tool-error") for v in verdicts):
        return EXIT_UNDETERMINED
    return EXIT_OK


STYLE = {"holds": "green", "proved": "green", "proved-bounded": "green", "reached": "green",
         "known-gap": "cyan", "refuted": "bold red", "vacuous": "yellow", "unreached": "yellow",
         "undetermined": "yellow", "tool-error": "bold magenta"}


def print_result(result, con) -> None:
    from rich.table import Table
    t = Table(title=f"{result.variant}: {result.engine}")
    for col in ("property", "ids", "kind", "verdict", "premise", "length", "message"):
        t.add_column(col, overflow="fold")
    for v in result.verdicts:
        t.add_row(v.name, ", ".join(v.ids), v.kind, f"[{STYLE.get(v.verdict, 'white')}]{v.verdict}[/]",
                  str(v.premise), "" if v.length is None else str(v.length), (v.message or "")[:160])
    con.print(t)
    if result.action_counts:                      # Z3 explores no concrete actions
        cov = Table(title="coverage: actions fired")
        cov.add_column("action")
        cov.add_column("times", justify="right")
        for name, n in sorted(result.action_counts.items(), key=lambda kv: -kv[1]):
            cov.add_row(name, str(n))
        con.print(cov)
    b = result.bounds
    con.print(f"bounds: {', '.join(f'{k}={v}' for k, v in b.items())}")
    if result.engine == "z3":
        con.print(f"budget: {result.budget_s:g} s of Z3 wall clock, used {result.elapsed_s:.1f} s")
    else:
        con.print(f"budget: {result.budget_s:g} s, used {result.elapsed_s:.1f} s; seed {result.seed}; "
                  f"{result.examples} examples, {result.steps} steps ({result.steps_per_second:.0f} steps/s)")
    vac = [v.name for v in result.verdicts if v.verdict in ("vacuous", "unreached")]
    if vac:
        con.print(f"[yellow]undetermined (premise never reached or witness unreached): {', '.join(vac)}[/]")


def cmd_check(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    variant = _variant(args.variant)
    if args.budget <= 0 or args.steps <= 0:
        raise UsageError("taskmodel: --budget and --steps must be positive")
    con = Console(stderr=args.json)
    if not con.is_terminal:
        con = Console(stderr=args.json, width=200)    # logs and CI: do not fold the table to 80 columns
    results = []
    if args.engine in ("hypothesis", "all"):
        from .explore import explore
        with Progress(TextColumn("exploring {task.description}"), BarColumn(), TextColumn("{task.fields[info]}"),
                      TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(getattr(variant, "name", "baseline"), total=1.0, info="")

            def progress(frac, obs, refuted):
                bar.update(task, completed=frac, info=f"{obs.steps} steps, {len(refuted)} refuted")
            results.append(explore(variant, budget=args.budget, seed=args.seed, step_count=args.steps,
                                   progress=progress))
    if args.engine in ("z3", "all"):
        results.append(_z3_result(variant, args))
    paths = {}
    if args.counterexamples:
        from . import counterexamples
        from .explore import world_factory
        for r in results:
            for v in r.verdicts:
                if v.trace is not None and v.verdict in ("refuted", "known-gap", "reached"):
                    paths[v.name] = str(counterexamples.write(Path(args.counterexamples), variant, v,
                                                              world_factory(variant), r.seed) / "trace.itf.json")
    payload = [result_json(r, paths) for r in results]
    out = Path(args.out) / f"check-{results[0].variant}.json"
    write_atomic(out, json.dumps(payload[0] if len(payload) == 1 else payload, indent=1) + "\n")
    write_atomic(Path(args.out) / "latest-check.json", json.dumps(payload[0] if len(payload) == 1 else payload, indent=1) + "\n")
    if args.json:
        print(json.dumps(payload[0] if len(payload) == 1 else payload, indent=1))
    else:
        for r in results:
            print_result(r, con)
        con.print(f"result written to {out}")
    verdicts = [v for r in results for v in r.verdicts]
    return exit_code(verdicts)


def _z3_result(variant, args):
    try:
        from .z3bridge import z3_check
    except ImportError:
        raise UsageError("taskmodel: the z3 engine is not available in this build") from None
    return z3_check(variant, depth=args.depth, timeout=args.timeout)


# ---- replay ---------------------------------------------------------------------------------------
def cmd_replay(args) -> int:
    from . import itf
    from .reproduce import reproduce
    path = Path(args.file)
    try:
        meta, steps = itf.load(path.read_text(encoding="utf-8"))
        variant, prop = meta["variant"], meta["property"]
    except FileNotFoundError:
        raise UsageError(f"taskmodel: {path}: no such file") from None
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"taskmodel: {path}: not an ITF trace of this tool ({type(e).__name__}: {e})") from None
    outcome = reproduce(variant, prop, steps)
    if outcome.diverged_at is not None:
        print(f"diverges at step {outcome.diverged_at + 1}: {outcome.reason}")
        return EXIT_REFUTED
    if outcome.violation is None:
        print(f"every step replays, but {prop} ({', '.join(meta.get('ids', []))}) is not reproduced")
        return EXIT_REFUTED
    if len(outcome.violation.history) != len(steps):
        print(f"{prop} is reproduced at step {len(outcome.violation.history)}, not at step {len(steps)} as recorded")
        return EXIT_REFUTED
    print(f"replayed {len(steps)} steps of {variant}: {outcome.violation}")
    return EXIT_OK


# ---- rules ----------------------------------------------------------------------------------------
def cmd_rules(args) -> int:
    from dataclasses import fields

    from model.amend import rule_names
    from model.params import PARAMETER_IDS, Params
    from model.rules import Rules
    print("Rules an amendment may override (method name and signature):")
    for name, sig in sorted(rule_names().items()):
        doc = (getattr(Rules, name).__doc__ or "").strip().splitlines()
        print(f"  {name}{sig}  {doc[0] if doc else ''}")
    print("Parameters (Amendment.params):")
    named = {v: k for k, v in PARAMETER_IDS.items()}
    for f in fields(Params):
        print(f"  {f.name} = {f.default!r}" + (f"  ({named[f.name]})" if f.name in named else ""))
    return EXIT_OK


# ---- gate, diagrams, report -----------------------------------------------------------------------
def cmd_gate(args) -> int:
    from .gate import run_gate
    return run_gate(args)


def cmd_diagrams(args) -> int:
    try:
        from .diagrams import main as diagrams_main
    except ImportError:
        raise UsageError("taskmodel: diagrams are not available in this build") from None
    return diagrams_main(args.rest)


def cmd_report(args) -> int:
    try:
        from .report import main as report_main
    except ImportError:
        raise UsageError("taskmodel: the report is not available in this build") from None
    return report_main(args.rest)
