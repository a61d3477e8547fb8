"""`taskmodel check --engine bfs --cluster ...`: the partitioned exhaustive search on a RayPool."""
from __future__ import annotations

import time


def bfs_on_cluster(variant, cluster: str, scope=None, symmetry=True, budget=60.0, max_states=None, max_depth=None,
                   progress=None):
    """The bfs engine's result, each scope's levels expanded on the cluster: the result of the
    search in one process (`verifier.engines.bfs.partition`). None when the cluster cannot be had
    (said in one line): the caller searches locally."""
    from properties.base import load_catalogue

    from verifier.engines.bfs import coverage, partition
    from verifier.engines.bfs import search as bfs
    from verifier.engines.cluster import ray_pool
    pool = ray_pool(cluster)
    if pool is None:
        return None
    started = time.monotonic()
    catalogue = list(load_catalogue().values())
    plan = bfs.plan(scope, catalogue)
    judged = []
    with pool:
        for sc, props in plan:   # one scope after another, each over every worker
            left = max(0.0, started + budget - time.monotonic())
            judged.append(partition.judge(variant, sc, props, pool, symmetry, left, max_states, max_depth,
                                          progress, shadow=True))
        judge = lambda *a: partition.judge(a[0], a[1], a[2], pool, *a[3:])     # noqa: E731
        also = coverage.also_jobs(plan) if scope is None else []
        if also:
            judged = coverage.merged(judged, coverage.searched(judge, variant, also, symmetry, started, budget,
                                                               max_states, max_depth, progress))
        idle = coverage.idle_overrides(judged) if scope is None and variant is not None else []
        if idle:
            judged = coverage.merged(judged, coverage.searched(judge, variant, coverage.coverage_jobs(plan, idle), symmetry,
                                                               started, budget, max_states, max_depth, progress))
    return bfs.result_of(variant, judged, catalogue, budget, started,
                         work={"max_states": max_states, "max_depth": max_depth, "symmetry": symmetry})
