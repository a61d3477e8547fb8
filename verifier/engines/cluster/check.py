"""`taskmodel check --engine bfs --cluster ...`: the partitioned exhaustive search on a RayPool."""
from __future__ import annotations

import time


def bfs_on_cluster(variant, args, progress):
    """The bfs engine's result, each scope's levels expanded on the cluster: the result of the
    search in one process (`verifier.engines.bfs.partition`). None when the cluster cannot be had
    (said in one line): the caller searches locally."""
    from properties.base import load_catalogue

    from verifier.engines.bfs import search as bfs, partition
    from verifier.engines.cluster import ray_pool
    pool = ray_pool(args.cluster)
    if pool is None:
        return None
    started = time.monotonic()
    catalogue = list(load_catalogue().values())
    plan = bfs.plan(args.scope, catalogue)
    judged = []
    with pool:
        for i, (scope, props) in enumerate(plan):   # one scope after another, each over every worker
            left = bfs.share(plan, i, started + args.bfs_budget - time.monotonic())
            judged.append(partition.judge(variant, scope, props, pool, not args.no_symmetry, left, None,
                                          args.depth, progress, shadow=True))
    return bfs.result_of(variant, judged, catalogue, args.bfs_budget, started)
