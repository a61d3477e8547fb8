"""`taskmodel check --engine bfs --cluster ...`: the partitioned exhaustive search on a RayPool."""
from __future__ import annotations

import time


def bfs_on_cluster(variant, cluster: str, scope=None, symmetry=True, budget=60.0, max_states=None, max_depth=None,
                   progress=None):
    """The bfs engine's result, each scope's levels expanded on the cluster: the result of the
    search in one process (`verifier.engines.bfs.partition`). None when the cluster cannot be had
    (said in one line): the caller searches locally."""
    from properties.base import load_catalogue

    from verifier.engines.bfs import merge, partition
    from verifier.engines.bfs import search as bfs
    from verifier.engines.cluster import ray_pool
    pool = ray_pool(cluster)
    if pool is None:
        return None
    started = time.monotonic()
    catalogue = list(load_catalogue().values())
    judged = []
    with pool:
        for sc, props in bfs.plan(scope, catalogue):   # one scope after another, each over every worker
            left = max(0.0, started + budget - time.monotonic())
            judged.append(partition.judge(variant, sc, props, pool, symmetry, left, max_states, max_depth,
                                          progress, shadow=True))
    return bfs.result_of(variant, merge.joined(judged), catalogue, budget, started,
                         work={"max_states": max_states, "max_depth": max_depth, "symmetry": symmetry})
