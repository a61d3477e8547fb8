"""Mutation analysis: does the catalogue notice a simple bug in the model's host and client code?

    .venv/bin/python benchmarks/mutation.py [--files model/host.py ...] [--limit N] [--seed S] [--jobs J]
        [--bfs-budget S] [--host-states N] [--composed-states N] [--chunks N] [--list] [--json FILE] [--rerun JSON]

Each mutant is one edit of one file's syntax tree: a negated condition, a flipped comparison or
boolean operator, a deleted call or attribute assignment (among them every `world.append` and
`world.emit`), a swapped constant (a number off by one, a boolean flipped, a status name replaced by
the next). It is loaded by an import hook in a process of its own, so the working tree is never
written, and checked the way `taskmodel check` would at a short budget, cheapest first, stopping at
the first kill:

1. the exhaustive search of the host's properties at `host-small` (complete in seconds; a mutant
   that makes it grow past `--host-states` is stopped there, by work, not by the clock);
2. a deterministic Hypothesis exploration of the default instance (scenario stories, then
   `--chunks` chunks), which reaches what that scope cannot (REST, stdio, the clock, other tenants);
3. the exhaustive search of the harness's properties at `composed-small`, capped at a number of states.

Outcomes, against the same checks of the unmutated model:
- killed: an asserted property refuted (its trace replays) that the unmutated model does not refute;
- crashed: a fault (the model raising at run time), an import error, or the process outlasting its time;
- vacuous: nothing refuted, but a premise the unmutated model reaches is never reached, a witness it
  reaches is not (the check exits 2, not 0), or an action or request form it generates is not (a
  vacuity of the environment: check's coverage tables show it, and tests/quality/test_environment.py
  fails on it), or a premise or action count falls by more than the gate's `coverage_factor` (what
  `taskmodel gate` reports as drift of a model change);
- undetermined: a stage cut short by its wall-clock cap (`--bfs-budget`), or a search the unmutated
  model completes cut by its state cap, never counted either way;
- survived: every verdict as for the unmutated model. docs/mutation.md classifies the survivors.
What only tells a step in words (`_say*` functions, an action's `say`, f-strings, `.said`), the
coverage classifier, footprint declarations (held to the truth by their own verify mode) and
docstrings are not mutated.
"""
from __future__ import annotations

import argparse
import ast
import importlib.abc
import importlib.util
import json
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = ("model/host.py", "model/rules.py", "model/clients.py", "model/wire.py", "model/projection.py",
         "model/rest.py", "model/network.py", "model/harness.py")
STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
        ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
NARRATION = re.compile(r"^_?say")
MEASURING = ("request_forms", "_ref_form")


# ---- mutants -------------------------------------------------------------------------------------
def _sites(tree):
    """[(line, what, apply)] in a fixed order: the same source always gives the same mutants."""
    out = []
    skip = {id(n) for f in _narration(tree) for n in ast.walk(f)}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            out.append((node.test.lineno, "negated condition", lambda n=node: setattr(
                n, "test", ast.UnaryOp(ast.Not(), n.test))))
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in FLIP:
            new = FLIP[type(node.ops[0])]
            out.append((node.lineno, f"{type(node.ops[0]).__name__} -> {new.__name__}",
                        lambda n=node, new=new: n.ops.__setitem__(0, new())))
        elif isinstance(node, ast.BoolOp):
            other = ast.Or if isinstance(node.op, ast.And) else ast.And
            out.append((node.lineno, f"{type(node.op).__name__} -> {other.__name__}",
                        lambda n=node, o=other: setattr(n, "op", o())))
        elif isinstance(node, ast.Constant) and not isinstance(getattr(node, "parent", None), ast.Expr):
            v = node.value
            if isinstance(v, bool):
                out.append((node.lineno, f"{v} -> {not v}", lambda n=node: setattr(n, "value", not n.value)))
            elif isinstance(v, int) and v in (0, 1, 2):
                out.append((node.lineno, f"{v} -> {1 - v if v < 2 else 1}",
                            lambda n=node: setattr(n, "value", 1 - n.value if n.value < 2 else 1)))
            elif v in STATUSES:
                new = STATUSES[(STATUSES.index(v) + 1) % len(STATUSES)]
                out.append((node.lineno, f"{v!r} -> {new!r}", lambda n=node, new=new: setattr(n, "value", new)))
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for i, st in enumerate(stmts):
                if _deletable(st) and id(st) not in skip:
                    out.append((st.lineno, f"deleted `{ast.unparse(st).splitlines()[0][:60]}`",
                                lambda body=stmts, i=i: body.__setitem__(i, ast.copy_location(ast.Pass(), body[i]))))
    return out


def _footprints(tree):
    """What only declares a footprint (`model.footprint`): the `footprint` argument of an `@action`,
    every `fp.footprint(...)`, and the functions and module constants named only from those
    (transitively). Its mistakes are caught by the footprint verify mode (tests/test_footprints.py),
    never by a property."""
    def declaring(n):
        return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "footprint" \
            and getattr(n.func.value, "id", None) == "fp"
    roots = [n for n in ast.walk(tree) if declaring(n)]
    roots += [k.value for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for d in f.decorator_list
              if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "action"
              for k in d.keywords if k.arg == "footprint"]
    defs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    defs |= {a.targets[0].id: a for a in tree.body
             if isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)}
    inside = {id(x) for r in roots for x in ast.walk(r)}
    helpers: set = set()
    while True:
        named_in = {x.id for r in roots + [defs[h] for h in helpers] for x in ast.walk(r) if isinstance(x, ast.Name)}
        named_out = {x.id for x in ast.walk(tree)
                     if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load) and id(x) not in inside}
        more = {n for n in named_in & set(defs) if n not in named_out} - helpers
        if not more:
            break
        helpers |= more
        inside |= {id(x) for h in more for x in ast.walk(defs[h])}
    yield from roots
    yield from (defs[h] for h in sorted(helpers))


def _narration(tree):
    """What only tells a step in words: `_say*` functions, the `say` argument of an `@action`,
    f-strings, assignments to `.said`; and the coverage classifier, which measures and never acts."""
    yield from _footprints(tree)
    for f in ast.walk(tree):
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if NARRATION.match(f.name) or f.name in MEASURING:
                yield f
            for d in f.decorator_list:
                if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "action":
                    yield from d.args[2:3]
                    yield from (k.value for k in d.keywords if k.arg == "say")
        elif isinstance(f, ast.JoinedStr):
            yield f
        elif isinstance(f, ast.Assign) and any(getattr(t, "attr", None) == "said" for t in f.targets):
            yield f
        elif isinstance(f, ast.Expr) and isinstance(f.value, ast.Call) and f.value.args \
                and all(isinstance(a, ast.JoinedStr) for a in f.value.args):
            yield f                   # told.append(f"..."): a line of a story


def _deletable(st) -> bool:
    if isinstance(st, ast.Expr):
        return isinstance(st.value, ast.Call)
    if isinstance(st, ast.AugAssign):
        return True
    return isinstance(st, ast.Assign) and all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in st.targets)


def _tree(path: str):
    tree = ast.parse((ROOT / path).read_text(), path)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node
    return tree


def mutants(path: str) -> list[tuple[int, str]]:
    return [(line, what) for line, what, _ in _sites(_tree(path))]


def mutated_code(path: str, index: int):
    tree = _tree(path)
    _sites(tree)[index][2]()
    return compile(ast.fix_missing_locations(tree), str(ROOT / path), "exec")


class _Hook(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads one module from a mutated syntax tree instead of its file."""

    def __init__(self, module: str, code):
        self.module, self.code = module, code

    def find_spec(self, name, path=None, target=None):
        if name != self.module:
            return None
        spec = importlib.util.spec_from_loader(name, self, origin=self.code.co_filename)
        spec.has_location = True
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.code, module.__dict__)


# ---- one check (in the child process) ------------------------------------------------------------
def check(args) -> dict:
    """Verdicts of each stage, or {"crashed": why}. The unmutated model when args.index < 0."""
    if args.index >= 0:
        if list(mutants(args.file)[args.index]) != [args.line, args.what]:
            return {"crashed": f"{args.file} changed while the analysis ran: mutant {args.index} is another one"}
        sys.meta_path.insert(0, _Hook(args.file[:-3].replace("/", "."), mutated_code(args.file, args.index)))
    from properties.base import load_catalogue
    from verifier.engines.bfs import search as bfs
    from verifier.engines.bfs.run import run_bfs
    from verifier.engines.random.explore import explore
    from verifier.runtime.budgets import TIME_CAP
    catalogue = list(load_catalogue().values())
    host, harness = bfs.split_catalogue(catalogue)
    asserted = {p.name for p in catalogue if p.asserted}
    out = {}

    def stop_at_kill(search, _frontier):         # a refutation found: no later verdict can matter
        if set(search.found) & asserted and args.index >= 0:
            raise bfs._Stop

    stages = (("host-small", lambda: run_bfs(None, scope="host-small", props=host, budget=args.bfs_budget,
                                                  max_states=args.host_states, progress=stop_at_kill)),
              ("hypothesis", lambda: explore(None, budget=args.bfs_budget, seed=args.seed, chunks=args.chunks)),
              ("composed-small", lambda: run_bfs(None, scope="composed-small", props=harness, budget=args.bfs_budget,
                                                      max_states=args.composed_states, progress=stop_at_kill)))
    for name, run in stages:
        r = run()
        out[name] = {"verdicts": {v.name: v.verdict for v in r.verdicts}, "faults": [f.line() for f in r.faults],
                     "time_cap": TIME_CAP in (r.stopped or ""),
                     "state_cap": bool(re.search(r"\d+ states after", r.stopped or "")),
                     "generated": sorted(a for a, n in r.action_counts.items() if n)
                     + sorted(f"{d}: {f}" for (d, f), n in (r.form_counts or {}).items() if n),
                     # each premise case too: a mutant that stops generating one (a credential interrupt,
                     # a bare elicitation declaration) leaves its property's premise reached but not it
                     "coverage": {"premises": {**{v.name: v.premise for v in r.verdicts if v.premise},
                                               **{f"{v.name} / {c}": n for v in r.verdicts
                                                  for c, n in v.cases.items() if n}},
                                  "actions": dict(r.action_counts)}}
        if args.index >= 0 and (r.faults or any(v.verdict == "refuted" for v in r.verdicts)):
            break
    return out


# ---- the run (in the parent) ---------------------------------------------------------------------
def classify(base: dict, got: dict) -> tuple[str, str]:
    """(outcome, why) of a mutant's checks against the unmutated model's."""
    if "crashed" in got:
        return "crashed", got["crashed"]
    for stage, r in got.items():
        before = base[stage]["verdicts"]
        new = [n for n, v in r["verdicts"].items() if v == "refuted" and before.get(n) != "refuted"]
        if new:
            return "killed", f"{stage}: {', '.join(sorted(new))}"
    for stage, r in got.items():
        if r["faults"]:
            return "crashed", f"{stage}: {r['faults'][0]}"
    for stage, r in got.items():      # work the cap cut short judged nothing: never "vacuous"
        if r.get("time_cap") or base[stage].get("time_cap"):
            return "undetermined", f"{stage}: time cap"
        if r.get("state_cap") and not base[stage].get("state_cap"):
            return "undetermined", f"{stage}: state cap"
    for stage, r in got.items():
        before = base[stage]["verdicts"]
        lost = [n for n, v in r["verdicts"].items() if (v, before.get(n)) in
                (("vacuous", "proved"), ("vacuous", "holds"), ("unreached", "reached"))]
        if lost:
            return "vacuous", f"{stage}: {', '.join(sorted(lost))}"
        never = sorted(set(base[stage].get("generated", ())) - set(r.get("generated", ())))
        if never:                     # a vacuity of the environment: an action or request form lost
            more = f" and {len(never) - 3} more" if len(never) > 3 else ""
            return "vacuous", f"{stage}: never generates {', '.join(never[:3])}{more}"
    from verifier.cli.gate import DEFAULTS, coverage_drops
    for stage, r in got.items():      # the gate's drift rule: a count fallen by more than its factor
        drops = coverage_drops(base[stage].get("coverage"), r.get("coverage"), DEFAULTS["coverage_factor"])
        if drops:
            more = f" and {len(drops) - 1} more" if len(drops) > 1 else ""
            return "vacuous", f"{stage}: {drops[0]}{more}"
    return "survived", ""


def run_child(opts, file: str, index: int, line: int = 0, what: str = "") -> dict:
    cmd = [sys.executable, __file__, "--child", file, str(index), str(line), what, "--seed", str(opts.seed), "--chunks",
           str(opts.chunks), "--bfs-budget", str(opts.bfs_budget), "--host-states", str(opts.host_states),
           "--composed-states", str(opts.composed_states)]
    limit = 3 * opts.bfs_budget + 300       # the stages' caps, and start-up
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, cwd=ROOT,
                              env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"})
    except subprocess.TimeoutExpired:
        return {"crashed": f"outlasted {limit:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"crashed": f"exit {proc.returncode}: {tail[:120]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", nargs="+", default=list(FILES))
    ap.add_argument("--limit", type=int, default=None, help="check a sample of N mutants (drawn with --seed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--chunks", type=int, default=6, help="Hypothesis chunks of examples per mutant")
    ap.add_argument("--bfs-budget", type=float, default=600.0,
                    help="an outer wall-clock cap per stage: the stages are bounded by work (complete searches, "
                         "seeded chunks, a state cap); a stage the cap cuts is undetermined, never vacuous")
    ap.add_argument("--host-states", type=int, default=200_000,
                    help="distinct states at which a mutant's host-small search stops (the model's has 16,687)")
    ap.add_argument("--composed-states", type=int, default=20_000,
                    help="distinct states of the capped composed-small search (a state cap, not a time cap, so "
                         "the same mutant always gets the same verdicts)")
    ap.add_argument("--rerun", metavar="JSON", help="check again only the survivors of an earlier --json run")
    ap.add_argument("--list", action="store_true", help="list the mutants, check none")
    ap.add_argument("--json", help="write every mutant's outcome to this file")
    ap.add_argument("--child", nargs=4, metavar=("FILE", "INDEX", "LINE", "WHAT"), help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if opts.child:
        opts.file, opts.index, opts.line, opts.what = opts.child[0], int(opts.child[1]), int(opts.child[2]), opts.child[3]
        print(json.dumps(check(opts)))
        return 0
    bad = [f for f in opts.files if not (ROOT / f).is_file() or not f.endswith(".py")]
    if bad or (opts.limit is not None and opts.limit < 1) or opts.jobs < 1 or opts.chunks < 1:
        print(f"mutation: bad option: {', '.join(bad) or 'limit, jobs and chunks are at least 1'}", file=sys.stderr)
        return 3
    todo = [(f, i, line, what) for f in opts.files for i, (line, what) in enumerate(mutants(f))]
    if opts.rerun:
        try:
            earlier = [(r["file"], r["line"], r["mutation"], r.get("source")) for r in
                       json.loads(Path(opts.rerun).read_text()) if r["outcome"] == "survived"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"mutation: --rerun {opts.rerun}: not an earlier run's JSON ({e})", file=sys.stderr)
            return 3
        todo = sorted({_nearest(todo, *e) for e in earlier} - {None})
    if opts.limit is not None and opts.limit < len(todo):
        todo = sorted(random.Random(opts.seed).sample(todo, opts.limit))
    if opts.list:
        for f, _, line, what in todo:
            print(f"{f}:{line}: {what}")
        return 0
    started = time.monotonic()
    base = run_child(opts, opts.files[0], -1)
    if "crashed" in base:
        print(f"mutation: the unmutated model does not check: {base['crashed']}", file=sys.stderr)
        return 4
    results = []
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for (f, i, line, what), got in zip(todo, pool.map(lambda t: run_child(opts, *t), todo)):
            outcome, why = classify(base, got)
            results.append({"file": f, "line": line, "mutation": what, "outcome": outcome, "why": why,
                            "source": _line(f, line)})
            print(f"{outcome:8s} {f}:{line}: {what}  {why}", file=sys.stderr, flush=True)
    report(results, time.monotonic() - started)
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


def _line(file: str, line: int) -> str:
    return (ROOT / file).read_text().splitlines()[line - 1].strip()


def _nearest(todo, file, line, what, source=None):
    """The mutant an earlier run's survivor now is: the same edit in the same file on the same
    source line, the nearest one when the file was edited since (within 40 lines)."""
    same = [t for t in todo if t[0] == file and t[3] == what and abs(t[2] - line) <= 40]
    if source is not None:
        same = [t for t in same if _line(file, t[2]) == source]
    return min(same, key=lambda t: abs(t[2] - line)) if same else None


def report(results, seconds: float) -> None:
    kinds = ("killed", "crashed", "vacuous", "undetermined", "survived")
    print(f"{'file':22s} " + " ".join(f"{k:>8s}" for k in kinds) + "    total")
    for f in sorted({r["file"] for r in results}) + ["all"]:
        mine = [r for r in results if f in ("all", r["file"])]
        print(f"{f:22s} " + " ".join(f"{sum(r['outcome'] == k for r in mine):8d}" for k in kinds) + f" {len(mine):8d}")
    caught = sum(r["outcome"] not in ("survived", "undetermined") for r in results)
    judged = sum(r["outcome"] != "undetermined" for r in results)
    print(f"{caught} of {judged} mutants detected ({100 * caught / max(1, judged):.0f}%) in {seconds:.0f} s"
          + (f"; {len(results) - judged} undetermined (a stage cut by its time or state cap)" if judged < len(results) else ""))
    for r in results:
        if r["outcome"] == "survived":
            print(f"survived: {r['file']}:{r['line']}: {r['mutation']}")


if __name__ == "__main__":
    sys.exit(main())
