"""The gate's variants on a pool of workers (`taskmodel gate --cluster ...`).

Each variant is two independent tasks: its seeded exploration (`gate._explore_one` without the
exhaustive search) and, when the manifest records it, its exhaustive search at the default scopes
(`gate._search_one`). Both are deterministic, so the variant's record merged from them is the one a
local gate process computes, and the manifest written is byte for byte the local gate's. The
exploration's chunks stay in one task: a chunk checks only the properties earlier chunks have not
refuted, so the chunks of one seed are not independent.
"""
from __future__ import annotations

from pathlib import Path


def _spec(spec: str) -> str:
    """An amendment file by its absolute path (a worker's current folder is not the driver's)."""
    if ".py:" in spec:
        file, _, cls = spec.partition(".py:")
        return f"{Path(file + '.py').resolve()}:{cls}"
    return str(Path(spec).resolve()) if spec.endswith(".py") else spec


def _part(item):
    """One task: ("explore", spec, settings) or ("search", spec, settings)."""
    import time

    from .. import gate
    kind, spec, settings = item
    if kind == "explore":
        return gate._explore_one(spec, {**settings, "bfs": False})
    t = time.monotonic()
    return {"bfs": gate._search_one(gate._variant(spec), settings), "elapsed": round(time.monotonic() - t, 2)}


def explore_all(pool, order: list[str], specs: dict, settings: dict) -> dict:
    """{variant name as given: the record `gate._explore_one` returns}, computed on `pool`."""
    items = [("explore", _spec(specs[n]), settings[n]) for n in order]
    items += [("search", _spec(specs[n]), settings[n]) for n in order if settings[n].get("bfs")]
    results = pool.map(_part, items)
    done = dict(zip(order, results[:len(order)]))
    searched = [n for n in order if settings[n].get("bfs")]
    for n, got in zip(searched, results[len(order):]):
        done[n]["bfs"] = got["bfs"]
        done[n]["elapsed"] = round(done[n]["elapsed"] + got["elapsed"], 2)
    return done
