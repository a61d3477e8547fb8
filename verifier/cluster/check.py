"""`taskmodel check --engine bfs --cluster ...`: the partitioned exhaustive search on a RayPool."""
from __future__ import annotations

import sys


def bfs_on_cluster(variant, args, progress):
    """The bfs engine's result from the partitioned search on the cluster, or None when the
    partitioned search or the cluster cannot be had (said in one line): the caller searches locally."""
    try:
        from ..engines.partition import search_partitioned
    except ImportError:
        print(f"taskmodel: --cluster {args.cluster}: the partitioned exhaustive search is not in this build; "
              f"searching locally", file=sys.stderr)
        return None
    from . import ray_pool
    pool = ray_pool(args.cluster)
    if pool is None:
        return None
    with pool:
        return search_partitioned(variant, args.scope, pool)
