"""One variant's work for the gate, as the manifest records it: its seeded exploration and its
exhaustive searches. The gate runs them in local processes (`gate`) or on a cluster
(`gate_cluster`); both import them from here."""
from __future__ import annotations

import time

from verifier.runtime import scopes
from verifier.runtime.budgets import NO_CAP
from verifier.runtime.exitcodes import UsageError
from verifier.runtime.watchdog import Watchdog


def capped(seconds: float | None) -> Watchdog:
    """The watchdog of one exploration or search of the gate's: each step bounded as `check` bounds
    it, and a cap (`budget_cap`, `bfs_budget_cap`: opt-in) from now on, which a blocked step too meets."""
    return Watchdog(deadline=None if seconds is None else time.monotonic() + seconds)


def variant_of(spec: str):
    """A variant by what the gate was given: "baseline", a built-in's name, or an amendment file."""
    from model.amend import AmendmentError

    from verifier.runtime.amendments import load_checked

    from verifier.writers.reproduce import variant_class
    if not spec.endswith(".py") and ".py:" not in spec:
        return variant_class(spec)
    try:
        return load_checked(spec)
    except AmendmentError as e:
        raise UsageError(f"taskmodel: {e}") from None


def explore_one(spec: str, settings: dict) -> dict:
    from verifier.engines.random.explore import explore
    v = variant_of(spec)
    cap = settings.get("budget_cap")
    t = time.monotonic()
    with capped(cap):
        r = explore(v, budget=NO_CAP if cap is None else cap, seed=settings["seed"], step_count=settings["steps"],
                    examples_per_chunk=settings["examples_per_chunk"], chunks=settings["chunks"])
    # this run's seconds: an exploration read back (`runtime.reuse`) took almost none of them
    got = {"variant": getattr(v, "name", "baseline"), "elapsed": round(time.monotonic() - t, 2), "steps": r.steps,
           **({"reused": r.reused} if r.reused else {}),
           "verdicts": {x.name: x.verdict for x in r.verdicts},
           "lengths": {x.name: x.length for x in r.verdicts if x.length is not None},
           "traces": {x.name: [(s.action, s.args) for s in x.trace] for x in r.verdicts if x.trace is not None},
           "messages": {x.name: x.message for x in r.verdicts if x.message},
           "coverage": {"premises": {x.name: x.premise for x in r.verdicts if x.premise},
                        "actions": {a: n for a, n in sorted(r.action_counts.items()) if n}}}
    if settings.get("bfs"):
        t = time.monotonic()
        got["bfs"] = search_one(v, settings)
        got["elapsed"] = round(got["elapsed"] + time.monotonic() - t, 2)
    return got


def search_one(v, settings: dict, only: str | None = None) -> dict:
    """The exhaustive search at the default scopes, as the manifest records it (as tlaplus/Examples'
    manifest does: verdicts, distinct states, depth): the baseline as `check` judges it, and a
    variant at host-small, and at composed-small for the client variants, with the properties `check`
    judges there, then, at each of the variant's own `bfs_scopes`, the properties of the ids named for it; each
    recorded under the scope's spec (`only`: at the scope of that name alone)."""
    out = {}
    cap = settings.get("bfs_budget_cap")
    for scope, props in search_plan(v, settings):
        if only is not None and scope.name != only:
            continue
        with capped(cap):
            out[scope.name] = _searched(v, scope, props, settings, NO_CAP if cap is None else cap)
    return out


def _searched(v, scope, props, settings: dict, seconds: float) -> dict:
    """One search of `search_one`'s, as the manifest records it."""
    from verifier.engines.bfs import incremental, search as bfs
    # from the baseline's stored graph: at the default scopes, built by `graph_jobs` before this
    # search starts (never within its cap); elsewhere, where one is stored (a bfs check of the
    # baseline stores its homes'): a home's or an own scope's search is one variant's, which
    # building a graph would not repay
    if settings.get("incremental"):
        s, verdicts, _ = incremental.judged(v, scope, props, True, seconds, None, None, None,
                                            no_build="the gate's graph job did not store one"
                                            if scope.name in scopes.DEFAULTS else "the gate builds none here")
    else:
        s, verdicts, _ = bfs._judged(v, scope, props, True, seconds, None, None, None)
    return {"distinct": s.distinct, "generated": s.generated, "depth": s.depth, "complete": s.complete,
            # an own scope's search ends once each of its properties is answered, or at the scope's
            # depth bound: a finished search all the same
            **({"settled": True} if s.settled else {}), **({"bounded": True} if s.bounded else {}),
            "verdicts": {x.name: x.verdict for x in verdicts},
            "lengths": {x.name: x.length for x in verdicts if x.length is not None}}


def graph_jobs(classes: dict, settings: dict) -> dict:
    """{store key: (scope, property names, the variants whose search uses it)} for the default scopes'
    stored graphs (`classes`, `settings`: by variant name)."""
    from verifier.engines.bfs import incremental
    out = {}
    for name, v in classes.items():
        if not settings[name].get("bfs"):
            continue
        for scope, props in search_plan(v, settings[name]):
            if scope.name in scopes.DEFAULTS and incremental.scratch_reason(v, scope, True) is None:
                key = incremental.store_key(scope, props, True)
                out.setdefault(key, (scope, [p.name for p in props], []))[2].append(name)
    return out


def build_graph(scope, names: list[str]) -> None:
    """The baseline's graph at `scope` for the named properties, built and stored if it is not."""
    from properties.base import load_catalogue

    from verifier.engines.bfs import incremental
    from verifier.cli.progress import SearchProgress
    catalogue = load_catalogue()
    incremental.stored(scope, [catalogue[n] for n in names], True, progress=SearchProgress("baseline"))


def search_plan(v, settings: dict) -> list:
    """[(scope, properties)] the gate searches a variant at: the default scopes (with the properties
    `check` judges there), then its own (`settings["bfs_scopes"]`: {scope spec: [requirement ids]},
    each id one the variant expects refuted). The baseline: `bfs.plan`'s, every scope of the check's plan with every
    property of its side, so that the manifest records where each is proved. A variant is searched at its side's
    default scopes alone (the whole plan, times every built-in, would take the gate several times as long): where
    its flaw needs more, its own `bfs_scopes` name the scope."""
    from properties.base import load_catalogue

    from verifier.engines.bfs import search as bfs
    from verifier.runtime import scopes
    catalogue = list(load_catalogue().values())
    if v is None:       # the baseline as `check` judges it
        return bfs.plan(None, catalogue)
    # the default scopes with the properties `check` judges there, so that the gate's search is the
    # check's and both use one stored graph (`bfs.incremental`)
    default = {sc.name: (sc, ps) for sc, ps in bfs.plan(None, catalogue)}
    plan = [default[scopes.DEFAULT_HOST]]
    if getattr(v, "harness_rules", None) is not None:
        plan.append(default[scopes.DEFAULT_COMPOSED])
    refuted = {rid for rid, want in dict(getattr(v, "expect", None) or {}).items() if want == "refuted"}
    for spec, ids in (settings.get("bfs_scopes") or {}).items():
        try:
            scope = scopes.parse(spec)
        except scopes.ScopeError as e:
            raise UsageError(f"taskmodel: manifest setting bfs_scopes: {e}") from None
        props = [p for p in catalogue if set(p.ids) & set(ids)]    # judged at this scope, whichever side
        if not ids or not set(ids) <= refuted or not props:
            raise UsageError(f"taskmodel: manifest setting bfs_scopes: {spec!r}: {ids} are not ids the variant "
                             f"expects refuted")
        if scope.name in {sc.name for sc, _ in plan}:
            raise UsageError(f"taskmodel: manifest setting bfs_scopes: {spec!r} is already searched")
        plan.append((scope, props))
    return plan
