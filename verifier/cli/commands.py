"""The subcommands of `taskmodel` (argument parsing is in `verifier.cli`)."""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

from verifier.runtime.budgets import (AUTHOR_EXAMPLES, DEFAULT_EXAMPLES, DEFAULT_RLIMIT, EXAMPLES_PER_CHUNK, NO_CAP,
                                     chunks_for)
from verifier.runtime.contradictions import contradictions, told as told_contradiction
from verifier.runtime.exitcodes import EXIT_OK, EXIT_UNDETERMINED, UsageError
from verifier.runtime.files import write_atomic
from verifier.runtime.results import (SCHEMA_VERSION, combined, exit_code, expectations, result_json,
                                      tool_version)
from verifier.runtime.worlds import resolve_variant


def _catalogue():
    from properties.base import load_catalogue
    return load_catalogue()


# ---- list -----------------------------------------------------------------------------------------
def listing() -> dict:
    from model.variants import builtins
    from properties.requirements import REQUIREMENTS
    from verifier.runtime import scopes
    props = _catalogue()
    by_id: dict[str, list[str]] = {rid: [] for rid in REQUIREMENTS}
    for p in props.values():
        for rid in p.ids:
            by_id.setdefault(rid, []).append(p.name)
    return {
        "properties": [{"name": p.name, "ids": list(p.ids), "kind": p.kind, "clause": p.clause,
                        "sentence": p.sentence, "area": p.area, "cases": list(p.cases)} for p in props.values()],
        "requirements": {rid: {"kind": REQUIREMENTS.get(rid, ("?", ""))[0], "source": REQUIREMENTS.get(rid, ("", "?"))[1],
                               "properties": names} for rid, names in by_id.items()},
        "variants": [{"name": v.name, "kind": v.kind, "changes": v.changes, "source": v.source,
                      "expect": dict(v.expect), "params": dict(v.params)} for v in builtins().values()],
        "scopes": [{"doc": s.doc, **s.describe()} for s in _scopes().values()],
        "homes": [{"id": rid, "scope": spec, "why": why} for rid, (spec, why) in _homes().items()],
        "also": [{"scope": spec, "with": scopes.DEFAULT_HOST} for spec in scopes.ALSO],
        "plan": scopes.plan_specs(),
        "coverage": [{"scope": spec, "side": side, "adds": adds} for side, table in _coverage().items()
                     for spec, adds in table.items()],
    }


def _coverage() -> dict:
    """Side -> {coverage scope: what it adds to that side's default scope}."""
    from verifier.runtime.scopes import COVERAGE, DEFAULT_COMPOSED, DEFAULT_HOST, HARNESS_COVERAGE
    return {DEFAULT_HOST: COVERAGE, DEFAULT_COMPOSED: HARNESS_COVERAGE}


def _homes() -> dict:
    from verifier.runtime.scopes import HOMES
    return HOMES


def _scopes() -> dict:
    from verifier.runtime.scopes import SCOPES
    return SCOPES


def cmd_list(args) -> int:
    if getattr(args, "profile", None):
        from verifier.cli.profile_listing import print_profile
        print_profile(args.profile, args.json)
        return EXIT_OK
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
        cases = f"\n[dim]premise cases:[/] {'; '.join(p['cases'])}" if p["cases"] else ""
        t.add_row(p["name"], ", ".join(p["ids"]), p["kind"], p["clause"], p["sentence"] + cases)
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
    s = Table(title=f"{len(data['scopes'])} scopes of the exhaustive engine (--engine bfs --scope NAME)")
    for col in ("scope", "what", "bound", "symmetry"):
        s.add_column(col, overflow="fold")
    for x in data["scopes"]:
        s.add_row(x["name"], x["doc"], "complete" if x["depth"] is None else f"at most {x['depth']} steps",
                  ", ".join(x["symmetry"]) or "none")
    con.print(s)
    h = Table(title="homes: the scope a property its side's default scope never exercises is primarily judged at")
    for col in ("id", "scope", "what it needs"):
        h.add_column(col, overflow="fold")
    for x in data["homes"]:
        h.add_row(x["id"], x["scope"], x["why"])
    con.print(h)
    con.print(f"a check without --scope searches {len(data['plan'])} scopes: host-small, "
              f"{', '.join(x['scope'] for x in data['also'])}, the homes and the coverage scopes with every host "
              f"property, composed-small and the harness coverage scopes with every harness property; a property's "
              f"verdicts there are merged, and a proof needs every case of its premise reached at one of them")
    c = Table(title="coverage scopes: one more dimension of the environment each, searched by every check")
    for col in ("scope", "what it adds to", "what"):
        c.add_column(col, overflow="fold")
    for x in data["coverage"]:
        c.add_row(x["scope"], x["side"], x["adds"])
    con.print(c)
    return EXIT_OK




STYLE = {"holds": "green", "proved": "green", "proved-bounded": "green", "reached": "green",
         "known-gap": "cyan", "refuted": "bold red", "vacuous": "yellow", "unreached": "yellow",
         "undetermined": "yellow", "tool-error": "bold magenta"}


def print_together(results, con) -> None:
    """One table for several engines: each engine's verdict side by side, the shortest trace, and
    the message of the decisive verdict (a refutation, else a proof, else the last engine's)."""
    from rich.table import Table
    t = Table(title=f"{results[0].variant}: {' + '.join(r.engine for r in results)}")
    t.add_column("property", no_wrap=True, min_width=12)
    t.add_column("ids", overflow="fold")
    t.add_column("kind", overflow="fold")
    for r in results:
        t.add_column(r.engine, overflow="fold")
    t.add_column("length", overflow="fold")
    t.add_column("message", overflow="fold")
    decisive = {v.name: v for v in combined(results).verdicts}
    rows = [{v.name: v for v in r.verdicts} for r in results]
    for v in results[0].verdicts:
        got = [row.get(v.name) for row in rows]
        lengths = [g.length for g in got if g is not None and g.length is not None]
        t.add_row(v.name, ", ".join(v.ids), v.kind,
                  *(f"[{STYLE.get(g.verdict, 'white')}]{g.verdict}[/]" if g else "" for g in got),
                  str(min(lengths)) if lengths else "", (decisive[v.name].message or "")[:160])
    con.print(t)


def print_cases(result, con) -> None:
    """Each property's premise cases, reached or not (a proof needs every one), and the scopes that
    judged each property (grouped: most share one plan)."""
    from rich.table import Table
    with_cases = [v for v in result.verdicts if v.cases]
    if with_cases:
        t = Table(title="coverage: premise cases (a proof needs every case reached)")
        for col in ("property", "ids", "reached", "never reached"):
            t.add_column(col, overflow="fold", no_wrap=col == "property")
        for v in with_cases:
            missing = v.unreached_cases
            t.add_row(v.name, ", ".join(v.ids), f"{len(v.cases) - len(missing)} of {len(v.cases)}",
                      f"[yellow]{'; '.join(missing)}[/]" if missing else "")
        con.print(t)
    groups: dict = {}
    for v in result.verdicts:
        if v.judged_at:
            groups.setdefault(tuple(v.judged_at), []).append(v.name)
    for where, names in sorted(groups.items(), key=lambda g: -len(g[1])):
        con.print(f"judged at {len(where)} scope{'s' * (len(where) > 1)} ({', '.join(where)}): "
                  + (f"{len(names)} properties" if len(names) > 3 else ", ".join(names)))


def print_result(result, con, told: dict | None = None, paths: dict | None = None, debug: bool = False,
                 table: bool = True) -> None:
    from rich.table import Table

    from verifier.runtime.shadow import unexercised
    if table:
        t = Table(title=f"{result.variant}: {result.engine}")
        # The property names are the row keys: never fold them mid-word, even at 80 columns.
        t.add_column("property", no_wrap=True, min_width=12)
        for col in ("ids", "kind", "verdict", "premise", "length", "message"):
            t.add_column(col, overflow="fold")
        for v in result.verdicts:
            t.add_row(v.name, ", ".join(v.ids), v.kind, f"[{STYLE.get(v.verdict, 'white')}]{v.verdict}[/]",
                      str(v.premise), "" if v.length is None else str(v.length), (v.message or "")[:160])
        con.print(t)
    else:
        con.print(f"\n[bold]{result.engine}[/]")
    print_cases(result, con)
    if result.action_counts:                      # Z3 explores no concrete actions
        cov = Table(title="coverage: actions fired")
        cov.add_column("action", no_wrap=True)
        cov.add_column("times", justify="right")
        for name, n in sorted(result.action_counts.items(), key=lambda kv: -kv[1]):
            cov.add_row(name, str(n))
        for name in (result.states or {}).get("actions_never_fired", ()):   # bfs: over the whole graph
            cov.add_row(name, "[red]0 (never fired)[/]")
        con.print(cov)
    if result.form_counts is not None:            # an engine that counts the requests it generated
        from model.clients import REQUEST_FORMS
        counted = (result.states or {}).get("counted")
        forms = Table(title="coverage: requests generated, per dimension and form (0: a vacuity of the environment)"
                      + (f"; {counted}" if counted else ""))
        for col in ("dimension", "form", "requests"):
            forms.add_column(col, no_wrap=col != "form", justify="right" if col == "requests" else "left")
        for dim, names in REQUEST_FORMS.items():
            for form in names:
                n = result.form_counts.get((dim, form), 0)
                forms.add_row(dim, form, str(n) if n else "[red]0 (never generated)[/]")
        con.print(forms)
    if result.overrides:
        ov = Table(title="overrides: calls, and answers that differed from the baseline's")
        ov.add_column("rule", no_wrap=True)
        ov.add_column("calls", justify="right")
        ov.add_column("differed", justify="right")
        ov.add_column("")
        idle = set(unexercised(result.overrides))
        for rule, c in result.overrides.items():
            ov.add_row(rule, str(c["calls"]), str(c["differed"]), "[yellow]unexercised[/]" if rule in idle else "")
        con.print(ov)
    b = result.bounds
    if result.engine == "bfs":
        for name, st in (result.states or {}).get("scopes", {}).items():
            shape = ("complete" if st["complete"] else st.get("stopped") or
                     f"stopped ({st.get('capped', 'a bound')}) after depth {st['depth']}")
            con.print(f"scope {name}: {st['distinct']} distinct states, {st['generated']} generated, depth "
                      f"{st['depth']}, {st['states_per_second']} states/s, {st['seconds']} s; {shape}")
    else:
        con.print(f"bounds: {', '.join(f'{k}={v}' for k, v in b.items())}")
    if result.work:
        con.print(f"work budget: {work_words(result.engine, result.work)}")
    cap = "none" if result.budget_s is None else f"{result.budget_s:g} s"
    if result.engine == "z3":
        con.print(f"time cap: {cap} of Z3 wall clock, used {result.elapsed_s:.1f} s")
    else:
        con.print(f"time cap: {cap}, used {result.elapsed_s:.1f} s; seed {result.seed}; "
                  f"{result.examples} examples, {result.steps} steps ({result.steps_per_second:.0f} steps/s)")
    if result.reused:
        con.print(f"result {result.reused}")
    if result.stopped:
        con.print(f"stopped early: {result.stopped}")
    for v in result.verdicts:
        if v.verdict == "refuted" and v.trace is not None:
            con.print(f"\n[bold red]{v.name}[/] ({', '.join(v.ids)}) refuted in {len(v.trace)} steps:")
            _print_steps(con, (told or {}).get((result.engine, v.name)) or [(s.note, []) for s in v.trace])
            con.print(f"   [red]{v.message}[/]")
            if (paths or {}).get((result.engine, v.name)):
                con.print(f"   trace: {paths[(result.engine, v.name)]}")
    for f in result.faults:
        con.print(f"\n[bold magenta]fault[/] at {f.where}: {f.error}" + (f" during {f.action}" if f.action else ""))
        _print_steps(con, [(n, []) for n in f.notes])
        if f.history and f.action and f.history[-1][0] == f.action:
            con.print(f"   {len(f.notes) + 1}. {f.action}({', '.join(f'{k}={v!r}' for k, v in f.history[-1][1].items())}) raised")
        if debug and f.trace:
            con.print(f.trace, markup=False, highlight=False)
    vac = [v for v in result.verdicts if v.verdict in ("vacuous", "unreached")]
    if vac:
        con.print(f"[yellow]undetermined (premise never reached or witness unreached): "
                  f"{', '.join(v.name for v in vac)}[/]")
    idle = unexercised(result.overrides)
    if idle:
        con.print(f"[yellow]unexercised (an override never fired, or never answered otherwise than the "
                  f"baseline): {', '.join(idle)}[/]")


def work_words(engine: str, work: dict) -> str:
    """What bounded an engine, in words: the part of its answer that is not about the machine."""
    if engine == "hypothesis":
        return (f"{work['examples']} examples ({work['chunks']} seeded chunks of {work['examples_per_chunk']}, "
                f"{work['steps_per_example']} steps each), seed {work['seed']}")
    if engine == "bfs":
        states = "every search to completion" if work.get("max_states") is None else \
            f"at most {work['max_states']} distinct states per scope"
        return states + (f", behaviours of at most {work['max_depth']} steps" if work.get("max_depth") else "")
    return ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in work.items())


def _print_steps(con, steps) -> None:
    for i, (note, changes) in enumerate(steps, start=1):
        con.print(f"   {i}. {note}", markup=False, highlight=False)
        for c in changes:
            con.print(f"      - {c}", markup=False, highlight=False)


def _told(make_world, trace) -> list[tuple[str, list[str]]]:
    """Each step's note and what it changed, by replay (as `trace.md` tells them)."""
    from verifier.writers import itf
    world = make_world()
    prev, out = itf.snapshot(world), []
    for step in trace:
        s = world.apply(step.action, step.args, check=False)
        now = itf.snapshot(world)
        out.append((s.note, itf.changes(prev, now)))
        prev = now
    return out


def _check_limits(args) -> None:
    """Refuse what cannot be a meaningful bound: zero, negative, NaN, infinite or absurd values."""
    from verifier.cli.preflight import DAY, seconds, whole_numbers
    seconds(*((flag, value, high) for flag, value, high in (
        ("--budget", args.budget, DAY), ("--timeout", args.timeout, DAY), ("--step-timeout", args.step_timeout, 3600.0))
        if value is not None))
    whole_numbers(*((flag, value, high) for flag, value, high in (
        ("--steps", args.steps, 1_000), ("--depth", args.depth, 1_000), ("--jobs", args.jobs, 256),
        ("--examples", args.examples, 10_000_000), ("--max-states", args.max_states, 10 ** 9),
        ("--rlimit", args.rlimit, 10 ** 12))
        if value is not None or flag not in ("--depth", "--examples", "--max-states", "--rlimit")))


def cmd_check(args) -> int:
    from rich.console import Console

    from verifier.runtime.watchdog import Watchdog
    _check_limits(args)
    variant = resolve_variant(args.variant)
    expected_only = getattr(args, "expect", False)
    if expected_only and not getattr(variant, "expect", None):
        raise UsageError("taskmodel: --expect: the variant declares no `expect` to judge")
    con = Console(stderr=args.json)
    if not con.is_terminal:
        con = Console(stderr=args.json, width=200)    # logs and CI: do not fold the table to 80 columns
    engines = _engines(args)
    results = []
    started = time.monotonic()
    cap = NO_CAP if args.budget is None else args.budget
    # The watchdog holds the cap too: a step blocked across it is stopped there (a rule that sleeps
    # uses no CPU, and the engines see the time only between steps).
    with Watchdog(args.step_timeout, deadline=None if args.budget is None else started + args.budget) as dog:
        for engine in engines:
            # Each engine does its whole work budget (the author's default: every exhaustive search
            # to completion first, then the random examples); the cap, when asked for, bounds them all.
            args.cap_left = max(0.0, round(cap - (time.monotonic() - started), 2))
            got = _run_engine(engine, variant, args, strict=args.engine != "all")
            if got is not None:
                results.append(got)
        dog.renew_grace()
        paths, told = counterexample_folders(variant, results, args)
    for r in results:   # the command's cap, not the share each engine had (Z3: its own); none is null
        cap = r.budget_s if r.engine == "z3" else args.budget
        r.budget_s = cap if cap is not None and math.isfinite(cap) else None
    expected = expectations(variant, results)
    code = exit_code([combined(results)] if args.engine is None and len(results) > 1 else results,
                     expected if expected_only else None)
    contradicted = contradictions(variant, results) if len(results) > 1 else []
    if contradicted and code == EXIT_OK:      # every expectation met, but a proof did not hold
        code = EXIT_UNDETERMINED
    payload = {"schema_version": SCHEMA_VERSION, "tool": {"name": "taskmodel", "version": tool_version()},
               "command": "check", "variant": results[0].variant,
               "results": [result_json(r, paths) for r in results],
               "expectations": expected, "contradictions": contradicted, "exit_code": code}
    text = json.dumps(payload, indent=1) + "\n"
    out = Path(args.out) / f"check-{results[0].variant}.json"
    write_atomic(out, text)
    write_atomic(Path(args.out) / "latest-check.json", text)
    if args.json:
        print(text, end="")
    else:
        for r in results:
            print_result(r, con, told, paths, debug=args.debug, table=len(results) == 1)
        if len(results) > 1:
            print_together(results, con)
        for c in contradicted:
            con.print(f"[bold red]contradicted[/]: {told_contradiction(c)}")
        against = {i for c in contradicted for i in c["ids"]}
        for e in expected:
            verdict = "as expected" if e["met"] else "[bold red]unexpected[/]"
            proof = "; [bold red]a proof of it was contradicted[/] (above)" if e["id"] in against else ""
            con.print(f"expect {e['id']} {e['want']}: {verdict} (got {', '.join(e['got']) or 'no property'}){proof}")
        if paths:
            con.print(f"counterexamples written under {args.counterexamples}")
        con.print(f"result written to {out}")
    return code


Z3_DEPTH = 8          # the Z3 bound when --depth is not given


def _engines(args) -> tuple[str, ...]:
    """The engines a check runs: `all`, the one named, or by default the random engine, and for an
    amendment file the exhaustive search at the small scopes first."""
    if args.engine == "all":
        return ("bfs", "hypothesis", "z3")
    if args.engine is not None:
        return (args.engine,)
    spec = args.variant or ""
    return ("bfs", "hypothesis") if spec.endswith(".py") or ".py:" in spec else ("hypothesis",)


def _run_engine(engine: str, variant, args, strict: bool):
    from verifier.cli.progress import Heartbeat, SearchProgress
    name = getattr(variant, "name", "baseline")
    if engine == "hypothesis":
        return _explore(variant, args, Heartbeat(bar=True))
    if engine == "bfs":
        from verifier import engines
        try:
            from verifier.engines.bfs.run import run_bfs
        except ImportError:
            if strict:
                raise UsageError("taskmodel: the bfs engine is not available in this build") from None
            print("taskmodel: the bfs engine is not available in this build; skipped", file=sys.stderr)
            return None
        from verifier.runtime.scopes import ScopeError
        progress = SearchProgress(name)
        try:
            if getattr(args, "cluster", None):
                from verifier.engines.cluster.check import bfs_on_cluster
                got = bfs_on_cluster(variant, args.cluster, args.scope, not args.no_symmetry, args.cap_left,
                                     args.max_states, args.depth, progress)
                if got is not None:
                    return got
            return engines.run("bfs", variant, scope=args.scope, symmetry=not args.no_symmetry, jobs=args.jobs,
                               budget=args.cap_left, max_states=args.max_states, progress=progress,
                               max_depth=args.depth, shadow=True, incremental=args.incremental,
                               por=not getattr(args, "no_por", False))
        except ScopeError as e:
            raise UsageError(f"taskmodel: --scope: {e}") from None
    return _z3_result(variant, args)


def _explore(variant, args, beat):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from verifier import engines
    name = getattr(variant, "name", "baseline")
    with Progress(TextColumn("exploring {task.description}"), BarColumn(), TextColumn("{task.fields[info]}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True, disable=not beat.tty) as bar:
        task = bar.add_task(name, total=1.0, info="")

        def progress(frac, obs, refuted):
            info = f"{obs.steps} steps, {len(refuted)} refuted"
            bar.update(task, completed=frac, info=info)
            beat.beat(f"exploring {name}: {frac:.0%} of its work budget, {info}")
        # After an amendment file's exhaustive search (the author's default check) a pass sized to
        # the seconds it takes; its size is printed with the result (`work budget`).
        examples = args.examples or (AUTHOR_EXAMPLES if _engines(args) == ("bfs", "hypothesis") else DEFAULT_EXAMPLES)
        return engines.run("hypothesis", variant, budget=args.cap_left, seed=args.seed, step_count=args.steps,
                           chunks=chunks_for(examples), examples_per_chunk=EXAMPLES_PER_CHUNK,
                           progress=progress, shadow=True)


def counterexample_folders(variant, results, args):
    """Write a folder per refuted property, known gap and witness (by default under out/), and tell
    each refuted property's steps with what they changed."""
    from verifier.runtime.budgets import TIME_CAP
    from verifier.runtime.faults import one_line
    from verifier.runtime.watchdog import CapReached
    from verifier.runtime.worlds import guarded_factory, world_at, world_factory
    from verifier.writers import counterexamples
    paths, told = {}, {}
    default = guarded_factory(world_factory(variant))
    for r in results:
        for v in r.verdicts:
            if v.trace is None or v.verdict not in ("refuted", "known-gap", "reached"):
                continue
            # Several engines each keep their own folder (both may refute the same property).
            root = Path(args.counterexamples) / (r.engine if len(results) > 1 else "") if args.counterexamples else None
            scope = getattr(v, "scope", None)        # the exhaustive engine's traces replay at their scope
            make = guarded_factory(world_at(variant, scope)) if scope else default
            key = (r.engine, v.name)
            try:
                if v.verdict == "refuted":
                    told[key] = _told(make, v.trace)
                if args.counterexamples:
                    paths[key] = str(counterexamples.write(root, variant, v, make, r.seed)
                                     / "trace.itf.json")
            except Exception as e:      # a trace that no longer replays is told by its notes alone
                print(f"taskmodel: {v.name}: the trace could not be written ({one_line(e)})", file=sys.stderr)
            except CapReached as e:     # a step of its replay blocked past the cap (watchdog.GRACE)
                print(f"taskmodel: {v.name}: the trace could not be written ({TIME_CAP}: {e})", file=sys.stderr)
    return paths, told


def _z3_result(variant, args):
    from verifier import engines
    try:
        from verifier.engines.z3 import bridge as z3bridge
    except ImportError:
        raise UsageError("taskmodel: the z3 engine is not available in this build") from None
    timeout = args.cap_left if args.timeout is None else min(args.timeout, args.cap_left)
    return engines.run("z3", variant, depth=args.depth or Z3_DEPTH, timeout=timeout,
                       rlimit=args.rlimit or DEFAULT_RLIMIT)


# ---- replay ---------------------------------------------------------------------------------------
def cmd_replay(args) -> int:
    from verifier.cli.replay_command import replay_file
    return replay_file(Path(args.file), getattr(args, "variant", None))


# ---- rules ----------------------------------------------------------------------------------------
def cmd_rules(args) -> int:
    if args.world:
        from verifier.writers.world_reference import render
        print(render(), end="")
        return EXIT_OK
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
    from verifier.cli.gate import run_gate
    return run_gate(args)


def cmd_swarm(args) -> int:
    from verifier.cli.swarm_command import run_swarm
    return run_swarm(args)


def cmd_diagrams(args) -> int:
    try:
        from verifier.writers.diagrams import main as diagrams_main
    except ImportError:
        raise UsageError("taskmodel: diagrams are not available in this build") from None
    return diagrams_main(args.rest)


def cmd_report(args) -> int:
    try:
        from verifier.writers.report import main as report_main
    except ImportError:
        raise UsageError("taskmodel: the report is not available in this build") from None
    return report_main(args.rest)


def cmd_validate(args) -> int:
    from verifier.cli.validate_command import cmd_validate as run
    return run(args)
