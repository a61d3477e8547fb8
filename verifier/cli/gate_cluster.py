"""The gate's variants on a pool of workers (`taskmodel gate --cluster ...`).

Each variant is independent tasks: its seeded exploration (`gate_jobs.explore_one` without the
exhaustive search) and, when the manifest records it, its exhaustive search at each scope of its
plan (`gate_jobs.search_plan`: the default scopes, then its own). All are deterministic, so the
variant's record merged from them is the one a local gate process computes, and the manifest
written is byte for byte the local gate's. The
exploration's chunks stay in one task: a chunk checks only the properties earlier chunks have not
refuted, so the chunks of one seed are not independent.
"""
from __future__ import annotations

from verifier.runtime.worlds import portable_spec


def _part(item):
    """One task: ("explore", spec, settings, None), or ("search", spec, settings, scope name)."""
    import time

    from verifier.cli import gate_jobs
    kind, spec, settings, scope = item
    if kind == "explore":
        return gate_jobs.explore_one(spec, {**settings, "bfs": False})
    t = time.monotonic()
    return {"bfs": gate_jobs.search_one(gate_jobs.variant_of(spec), settings, only=scope),
            "elapsed": round(time.monotonic() - t, 2)}


def explore_all(pool, order: list[str], specs: dict, settings: dict) -> dict:
    """{variant name as given: the record `gate_jobs.explore_one` returns}, computed on `pool`. The
    composed scope's searches (the largest) go first, then the explorations longest first, then
    the host scope's searches."""
    from verifier.cli import gate_jobs
    from verifier.runtime import scopes
    searched = [n for n in order if settings[n].get("bfs")]
    plans = {n: [sc.name for sc, _ in gate_jobs.search_plan(gate_jobs.variant_of(specs[n]), settings[n])] for n in searched}
    composed = [n for n in searched if scopes.DEFAULT_COMPOSED in plans[n]]
    others = [(n, sc) for n in searched for sc in plans[n] if sc != scopes.DEFAULT_COMPOSED]
    items = [("search", portable_spec(specs[n]), settings[n], scopes.DEFAULT_COMPOSED) for n in composed]
    items += [("explore", portable_spec(specs[n]), settings[n], None) for n in order]
    items += [("search", portable_spec(specs[n]), settings[n], sc) for n, sc in others]
    names = composed + order + [n for n, _ in others]
    results = pool.map(_part, items)
    done = {n: got for (kind, *_), n, got in zip(items, names, results) if kind == "explore"}
    for (kind, *_), n, got in zip(items, names, results):
        if kind == "search":
            done[n].setdefault("bfs", {}).update(got["bfs"])
            done[n]["elapsed"] = round(done[n]["elapsed"] + got["elapsed"], 2)
    for n in searched:          # the scopes in the order a local gate process searches them
        done[n]["bfs"] = {k: done[n]["bfs"][k] for k in plans[n] if k in done[n]["bfs"]}
    return done
