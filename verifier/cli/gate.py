"""The regression gate: variants re-explored against a recorded manifest.

The manifest records, per variant, the verdict of every property and the shortest known
counterexample length. Exploration runs a fixed number of seeded chunks, so the same code gives
the same verdicts; any difference is drift: a property newly refuted, an expected refutation no
longer found, a counterexample longer than recorded, a variant's own expectation unmet, or a
premise or action count fallen by more than `coverage_factor` from the recorded one (the
exploration no longer exercises what it did: CNL-1's premise falling from 75 hits to 1 while it
still read "holds"). Premise counts of a variant far below the baseline's are reported, not drift.

With `"bfs": true` in the manifest's settings (the built-in manifest has it), each variant is also
searched exhaustively at the default scopes, and its verdicts, shortest lengths, distinct states and
depth are recorded and compared exactly (the search is deterministic). A variant whose flaw the
default scopes leave out names the scopes that hold it and the ids each is for
(`settings.per_variant.<name>.bfs_scopes`, e.g. {"host-rest": ["NTF-2"]}): there those
ids' properties are searched too, until each is answered, and recorded under the scope's spec.

By default the gate runs the baseline and every built-in variant against
`counterexamples/manifest.json`; `--variants DIR|FILE...` runs a spec repository's own amendments
against its own manifest (default `counterexamples/manifest.json` inside the first folder given,
or beside the first file).
"""
from __future__ import annotations

import json
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

from verifier.runtime.exitcodes import EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED, UsageError
from verifier.runtime.files import write_atomic
from verifier.cli.gate_jobs import build_graph, explore_one, graph_jobs, search_plan, variant_of
from verifier.cli.progress import EVERY, Heartbeat

# No wall-clock cap: the work (chunks, complete searches) bounds each variant. A manifest may name one
# (`budget_cap` over a variant's exploration, `bfs_budget_cap` over each of its searches), as `--budget` does.
DEFAULTS = {"seed": 0, "chunks": 6, "examples_per_chunk": 25, "steps": 40,
            "bfs": False,             # a manifest opts in to the exhaustive search ("bfs": true)
            "coverage_factor": 4}     # a premise or action count falling by more than this is flagged
BUILTIN_MANIFEST = "counterexamples/manifest.json"      # the CLI's default for --manifest


def compare_bfs(name: str, recorded: dict | None, got: dict | None) -> list[str]:
    """The exhaustive search is deterministic: its verdicts, lengths and state counts are exact."""
    if got is None:
        return []
    if recorded is None:
        return [f"{name}: no exhaustive-search record in the manifest (record it with `taskmodel gate --record`)"]
    out = []
    for scope, now in got.items():
        was = recorded.get(scope)
        if was is None:
            out.append(f"{name}: bfs at {scope} not in the manifest")
            continue
        if not (now["complete"] or now.get("settled") or now.get("bounded")):
            out.append(f"{name}: bfs at {scope} did not complete ({now['distinct']} states by depth {now['depth']})")
        for key in ("distinct", "depth", "settled", "bounded"):
            if now.get(key) != was.get(key):
                out.append(f"{name}: bfs at {scope}: {key} was {was.get(key)}, now {now[key]}")
        for prop, verdict in now["verdicts"].items():
            if was["verdicts"].get(prop) != verdict:
                out.append(f"{name}: bfs at {scope}: {prop} was {was['verdicts'].get(prop) or 'absent'}, now {verdict}")
            if now["lengths"].get(prop) != was.get("lengths", {}).get(prop):
                out.append(f"{name}: bfs at {scope}: {prop} shortest length was {was.get('lengths', {}).get(prop)}, "
                           f"now {now['lengths'].get(prop)}")
    return out


def own_variants(paths: list[str]) -> dict[str, str]:
    """A spec repository's amendments: every `*.py` directly in each folder (not `_*`, `test_*`,
    `conftest.py`) and every file given -> {variant name: file}; each validated."""
    files = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files += sorted(str(f) for f in path.glob("*.py")
                            if not f.name.startswith(("_", "test_")) and f.name != "conftest.py")
        elif p.endswith(".py") or ".py:" in p:
            files.append(p)
        else:
            raise UsageError(f"taskmodel: {p}: neither a folder nor an amendment file (.py)")
    if not files:
        raise UsageError(f"taskmodel: no amendment file in {', '.join(paths)}")
    table: dict[str, str] = {}
    for f in files:
        name = variant_of(f).name
        if name in table:
            raise UsageError(f"taskmodel: {Path(f).name}: variant name {name!r} is also {Path(table[name]).name}'s")
        table[name] = f
    return table


def default_manifest(paths: list[str]) -> Path:
    first = Path(paths[0].split(".py:")[0] + ".py" if ".py:" in paths[0] else paths[0])
    return (first if first.is_dir() else first.parent) / "counterexamples" / "manifest.json"


def expectation_problems(name: str, expect: dict, verdicts: dict, searched: dict | None = None) -> list[str]:
    """A variant's own `expect`: refuted ids refuted, unreached witnesses unreached, closed gaps holding.
    A refutation or a reached witness may come from either engine: the exploration's `verdicts` or
    the exhaustive search's at any scope it recorded (`searched`, a manifest's `bfs` record)."""
    from properties.base import load_catalogue
    problems = []
    props = load_catalogue()
    found = {p: v for scope in (searched or {}).values() for p, v in scope["verdicts"].items()
             if v in ("refuted", "reached")}
    for rid, want in expect.items():
        named = [p for p in props.values() if rid in p.ids]
        got = {verdicts.get(p.name) for p in named}
        shown = {found.get(p.name) for p in named}
        ok = {"refuted": "refuted" in got | shown, "unreached": "unreached" in got,
              "holds": bool(got) and got <= {"holds"}, "reached": "reached" in got | shown}[want]
        if not ok and "undetermined" not in got:     # an undetermined verdict is told as such, not as drift
            problems.append(f"{name}: expected {rid} {want}, got {', '.join(sorted(g for g in got if g)) or 'no property'}")
    return problems


def coverage_drops(recorded: dict | None, got: dict | None, factor: float) -> list[str]:
    """Each premise or action count of `recorded` that `got` shows fallen by more than `factor` (to
    zero included): the exploration no longer exercises what it did, so a "holds" means less."""
    if not recorded or got is None:
        return []
    out = []
    for what, label in (("premises", "premise of"), ("actions", "action")):
        now = got.get(what, {})
        for key, was in sorted(recorded.get(what, {}).items()):
            if was and now.get(key, 0) * factor < was:
                out.append(f"{label} {key} exercised {now.get(key, 0)} times, was {was} (a drop of more than {factor}x)")
    return out


def compare(name: str, recorded: dict | None, got: dict) -> list[str]:
    if recorded is None:
        return [f"{name}: not in the manifest (record it with `taskmodel gate --record`)"]
    out = []
    for prop, verdict in got["verdicts"].items():
        was = recorded["verdicts"].get(prop)
        if was != verdict:
            out.append(f"{name}: {prop} was {was or 'absent'}, now {verdict}")
        length, best = got["lengths"].get(prop), recorded.get("lengths", {}).get(prop)
        if length is not None and best is not None and length > best:
            out.append(f"{name}: {prop} counterexample grew from {best} to {length} steps")
    return out


_COUNT = {"type": "integer", "minimum": 0}
_COUNTS = {"type": "object", "additionalProperties": _COUNT}
_NAMES = {"type": "object", "additionalProperties": {"type": "string"}}
_SETTINGS = {
    "seed": {"type": "integer", "minimum": 0}, "chunks": {"type": "integer", "minimum": 1, "maximum": 100_000},
    "examples_per_chunk": {"type": "integer", "minimum": 1, "maximum": 100_000},
    "steps": {"type": "integer", "minimum": 1, "maximum": 1000},
    "budget_cap": {"type": "number", "exclusiveMinimum": 0, "maximum": 86_400}, "bfs": {"type": "boolean"},
    "bfs_budget_cap": {"type": "number", "exclusiveMinimum": 0, "maximum": 86_400},
    "coverage_factor": {"type": "number", "exclusiveMinimum": 0},
}
# The manifest's shape: what the gate reads, with the types it reads them as (`_record` writes it).
MANIFEST_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["settings"],
    "properties": {
        "settings": {"type": "object", "additionalProperties": False, "properties": {
            **_SETTINGS,
            "per_variant": {"type": "object", "additionalProperties": {
                "type": "object", "additionalProperties": False, "properties": {
                    **_SETTINGS,
                    "bfs_scopes": {"type": "object", "additionalProperties": {
                        "type": "array", "items": {"type": "string"}}}}}}}},
        "variants": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["verdicts"], "additionalProperties": False, "properties": {
                "verdicts": _NAMES, "lengths": _COUNTS,
                "coverage": {"type": "object", "additionalProperties": False,
                             "properties": {"premises": _COUNTS, "actions": _COUNTS}},
                "bfs": {"type": "object", "additionalProperties": {
                    "type": "object", "required": ["verdicts"], "properties": {
                        "distinct": _COUNT, "generated": _COUNT, "depth": _COUNT, "complete": {"type": "boolean"},
                        "settled": {"type": "boolean"}, "bounded": {"type": "boolean"},
                        "verdicts": _NAMES, "lengths": _COUNTS}}}}}},
    },
}


def manifest_path(args) -> Path:
    """The manifest this run reads (and, with --record, writes)."""
    own = getattr(args, "variants", None)
    if own and args.manifest == BUILTIN_MANIFEST:
        return default_manifest(own)
    return Path(args.manifest)


def _load_manifest(path: Path, record: bool) -> dict:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    from verifier.runtime.strict_json import JsonProblem, loads
    if not path.exists():
        if not record:
            raise UsageError(f"taskmodel: {path}: no manifest (record one with `taskmodel gate --record`)")
        return {"settings": dict(DEFAULTS), "variants": {}}
    try:
        manifest = loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, JsonProblem) as e:
        raise UsageError(f"taskmodel: {path}: not a gate manifest ({e})") from None
    error = best_match(Draft202012Validator(MANIFEST_SCHEMA).iter_errors(manifest))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the top level"
        raise UsageError(f"taskmodel: {path}: not a gate manifest: at {where}: {error.message}"[:300])
    if "variants" not in manifest and not record:       # a manifest of settings alone is one to record
        raise UsageError(f"taskmodel: {path}: no variants recorded (record them with `taskmodel gate --record`)")
    manifest["settings"] = {**DEFAULTS, **manifest["settings"]}
    manifest.setdefault("variants", {})
    return manifest


def unknown_name(manifest: dict, variants) -> str | None:
    """Where the manifest's records name a variant this gate has not (`variants`) or a property the
    catalogue has not, with the name; None when they name none. Such records are another gate's, or
    older than the code: they are refused (or, with --record, recorded again)."""
    from properties.base import load_catalogue
    props = set(load_catalogue())
    for name, rec in manifest["variants"].items():
        if name not in variants:
            return f"variants: {name!r} is not a variant of this gate"
        tables = {"verdicts": rec["verdicts"], "lengths": rec.get("lengths", {}),
                  "coverage/premises": rec.get("coverage", {}).get("premises", {})}
        for scope, got in rec.get("bfs", {}).items():
            tables |= {f"bfs/{scope}/verdicts": got["verdicts"], f"bfs/{scope}/lengths": got.get("lengths", {})}
        for where, table in tables.items():
            prop = next((p for p in table if p not in props), None)
            if prop is not None:
                return f"variants/{name}/{where}: {prop!r} is not a property of the catalogue"
    return None


def _explore_local(pool, order: list, specs: dict, mine: dict, graphs: dict, jobs: int) -> dict:
    """Each variant's exploration in `pool` (`jobs` workers); the stored graphs (`graphs`) are built
    first, and a variant whose search uses one starts once it is stored, so that no search spends its
    cap waiting for a graph or building one. A variant is handed to a worker only when one is free:
    of those ready, the one using the most graphs (a client variant's composed search is the
    longest work) and then the first in `order`, so that the longest do not all wait at the end."""
    needs = {n: set() for n in order}
    for key, (_, _, users) in graphs.items():
        for n in users:
            needs[n].add(key)
    rank = sorted(order, key=lambda n: -len(needs[n]))         # stable: `order` within each count
    builds = {pool.submit(build_graph, scope, names): key for key, (scope, names, _) in graphs.items()}
    built, futures, running = set(), {}, set(builds)
    beat = Heartbeat()
    while True:
        for n in rank:
            if len(running) >= jobs:
                break
            if n not in futures and needs[n] <= built:
                futures[n] = pool.submit(explore_one, specs[n], mine[n])
                running.add(futures[n])
        if not running:
            break
        finished, running = wait(running, timeout=EVERY, return_when=FIRST_COMPLETED)
        for f in finished:
            f.result()          # a build's or a variant's error is raised here
            if f in builds:
                built.add(builds[f])
        done = sum(f.done() for f in futures.values())
        at_work = [n for n, f in futures.items() if f in running] + [
            f"the baseline's graph at {getattr(graphs[k][0], 'name', graphs[k][0])}" for f, k in builds.items()
            if f in running]
        beat.beat(f"gate: {done} of {len(order)} variants done" +
                  (f", {len(built)} of {len(graphs)} stored graphs built" if graphs else "") +
                  (f"; at work: {', '.join(at_work)}" if at_work else ""))
    return {n: f.result() for n, f in futures.items()}


def run_gate(args) -> int:
    own = getattr(args, "variants", None)
    if own:
        specs = own_variants(own)
    else:
        from model.variants import builtins
        specs = {n: n for n in ["baseline", *sorted(builtins())]}
    path = manifest_path(args)
    manifest = _load_manifest(path, args.record)
    # Files named one by one gate those alone: the manifest's records of their folder's other
    # amendments are neither refused nor dropped. A whole folder (or the built-ins) is the gate's
    # every variant, so a record naming another is another gate's, or stale.
    whole = not own or all(Path(p).is_dir() for p in own)
    tuned = next((n for n in manifest["settings"].get("per_variant", {}) if n not in specs), None)
    if tuned is not None and whole:
        raise UsageError(f"taskmodel: {path}: settings/per_variant: {tuned!r} is not a variant of this gate")
    unknown = unknown_name(manifest, specs if whole else {**{n: n for n in manifest["variants"]}, **specs})
    if unknown and not args.record:
        raise UsageError(f"taskmodel: {path}: {unknown} (record the manifest again with `taskmodel gate --record`)")
    if args.record and whole:       # what no variant of this gate records is not recorded again
        manifest["variants"] = {n: rec for n, rec in manifest["variants"].items() if n in specs}
    settings = manifest["settings"]
    names = list(specs)
    if args.only is not None:
        unknown = [n for n in args.only if n not in names]
        if unknown:
            raise UsageError(f"taskmodel: unknown variant {unknown[0]!r}")
        names = [n for n in names if n in args.only]
    # A variant whose expected refutation needs a longer search gets its own settings
    # (`settings["per_variant"][name]`, e.g. more chunks); the longest start first.
    mine = {n: {**settings, **settings.get("per_variant", {}).get(n, {}),
                "incremental": getattr(args, "incremental", False)} for n in names}
    if args.budget is not None:     # this run's cap, not the manifest's: never recorded
        for n in names:
            mine[n].update(budget_cap=args.budget, bfs_budget_cap=args.budget)
    order = sorted(names, key=lambda n: -mine[n]["chunks"] * mine[n]["steps"])
    classes = {n: variant_of(specs[n]) for n in names}
    for n in names:             # each variant's own scopes, refused here rather than in a worker
        if mine[n].get("bfs"):
            try:
                search_plan(classes[n], mine[n])
            except UsageError as e:
                raise UsageError(f"taskmodel: {path}: {n}: {str(e).removeprefix('taskmodel: ')}") from None
    started = time.monotonic()
    cluster = None
    if getattr(args, "cluster", None):
        from verifier.engines.cluster import ray_pool
        cluster = ray_pool(args.cluster)
    if cluster is not None:
        from verifier.cli.gate_cluster import explore_all
        with cluster:
            done = explore_all(cluster, order, specs, mine)
    else:
        graphs = graph_jobs(classes, mine) if getattr(args, "incremental", False) else {}
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            done = _explore_local(pool, order, specs, mine, graphs, args.jobs)
    results = [done[n] for n in names]
    problems, undetermined, starved = [], [], []
    for got in results:
        name = got["variant"]
        problems += expectation_problems(name, dict(getattr(classes[name], "expect", {})), got["verdicts"], got.get("bfs"))
        if not args.record:
            problems += compare(name, manifest["variants"].get(name), got)
            problems += compare_bfs(name, manifest["variants"].get(name, {}).get("bfs"), got.get("bfs"))
            # A model change that starves what an exploration exercised is drift; a variant that
            # exercises far less than the baseline is flagged (its "holds" rests on less).
            factor = settings["coverage_factor"]
            problems += [f"{name}: coverage: {d}" for d in coverage_drops(
                manifest["variants"].get(name, {}).get("coverage"), got["coverage"], factor)]
            if name != "baseline":
                starved += [f"{name}: {d} on the baseline" for d in coverage_drops(
                    manifest["variants"].get("baseline", {}).get("coverage", {}), got["coverage"], factor)
                    if d.startswith("premise")]
        undetermined += [f"{name}: {p} {v}" for p, v in got["verdicts"].items()
                         if v == "undetermined" or (name == "baseline" and v in ("vacuous", "unreached"))]
        print(f"{name:42s} {got['elapsed']:7.1f} s  {got['steps']:6d} steps  "
              f"{sum(v == 'refuted' for v in got['verdicts'].values())} refuted"
              + ("  (its exploration's result read back: the same work ran before)" if got.get("reused") else ""))
    elapsed = time.monotonic() - started
    for p in problems:
        print(f"DRIFT {p}")
    for u in undetermined:
        print(f"UNDETERMINED {u}")
    if starved:
        print(f"COVERAGE {len(starved)} premise counts of variants fell by more than "
              f"{settings['coverage_factor']}x from the baseline's (listed with --verbose)")
        for c in starved if getattr(args, "verbose", False) else ():
            print(f"COVERAGE {c}")
    where = f"{cluster.workers} Ray workers" if cluster is not None else f"{args.jobs} jobs"
    print(f"gate: {len(results)} variants in {elapsed:.0f} s on {where}; "
          f"{len(problems)} drift, {len(undetermined)} undetermined")
    refusal = _refusal(args, problems, results)
    if refusal:
        print(f"taskmodel: {refusal}", file=sys.stderr)
        return EXIT_REFUTED if problems else EXIT_UNDETERMINED
    if args.record or args.write:
        _record(path, manifest, results, classes, update_manifest=args.record)
    if problems:
        return EXIT_REFUTED
    return EXIT_UNDETERMINED if undetermined else EXIT_OK


def _refusal(args, problems: list[str], results: list[dict]) -> str | None:
    """Why this run may not write: a counterexample is never removed because a run that
    disagrees with the manifest (shorter, cut by its budget) did not find it again."""
    if args.record:
        cut = sum(v == "undetermined" for got in results for v in got["verdicts"].values())
        if cut:
            return (f"gate --record: {cut} verdicts undetermined (the budget ran out before the planned "
                    f"chunks); nothing recorded")
    elif args.write and problems:
        return (f"gate --write: {len(problems)} drift from the manifest; nothing written "
                f"(fix the drift, or record the new verdicts with --record)")
    return None


def _record(path: Path, manifest: dict, results: list[dict], classes: dict,
            update_manifest: bool = True) -> None:
    from properties.base import load_catalogue

    from verifier.writers import counterexamples
    from verifier.runtime.results import PropertyVerdict
    from verifier.runtime.worlds import world_factory
    from verifier.runtime.replay import run_trace
    catalogue = list(load_catalogue().values())
    root = path.parent
    for got in results:
        name = got["variant"]
        if update_manifest:
            manifest["variants"][name] = {"verdicts": got["verdicts"], "lengths": got["lengths"],
                                          "coverage": got["coverage"],
                                          **({"bfs": got["bfs"]} if "bfs" in got else {})}
        variant = classes[name]
        make = world_factory(variant)
        keep = set()
        for prop, verdict in got["verdicts"].items():
            # Refutations of every variant; known gaps once, on the baseline (a variant that does not
            # touch a gap shows the same story again).
            if not (verdict == "refuted" or (verdict == "known-gap" and name == "baseline")):
                continue
            out = run_trace(make, got["traces"][prop], catalogue, prop)
            if out.violation is None:
                raise RuntimeError(f"{name}/{prop}: the recorded trace does not replay ({out.reason})")
            p = next(x for x in catalogue if x.name == prop)
            pv = PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict, out.violation.message,
                                 out.violation.history)
            counterexamples.write(root, variant, pv, make, manifest["settings"]["seed"])
            keep.add(prop)
        counterexamples.prune(root, name, keep)
    if update_manifest:
        manifest["variants"] = dict(sorted(manifest["variants"].items()))
        write_atomic(path, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
