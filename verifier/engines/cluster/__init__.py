"""Beyond one machine: the verifier's work as Ray tasks (`--cluster auto|ADDRESS`).

`auto` starts a local Ray cluster over this machine's cores for the command and stops it after;
an address (`HOST:PORT` of a `ray start --head`, or `ray://HOST:PORT`) joins an existing cluster,
whose nodes joined it with `ray start --address HOST:PORT`. `RayPool` has the interface of
`verifier.engines.bfs.partition.LocalPool`: `map(fn, items)` runs `fn` on each item as one Ray task and
returns the results in order, so an engine written against a pool runs on either unchanged.

A task whose worker dies (killed, its node lost) is run again by Ray (`max_retries`): a killed
worker loses no work. An exception the task itself raises is not retried: it is the engine's
answer (a fault), as it would be in a local process.

Without Ray installed, or with no cluster reachable, `open_pool` says so in one line and the
command runs in local processes.
"""
from __future__ import annotations

import os
import socket
import sys

from verifier.runtime.exitcodes import UsageError

MAX_RETRIES = 5          # reruns of a task whose worker died; a task that kills its worker every time fails
CONNECT_TIMEOUT = 3.0    # seconds to reach a cluster's address before running locally instead
# Workers start with the driver's hash seed: the gate's verdicts and traces must not depend on the
# string hashing of the process that happened to run them (the Makefile's gate sets it too).
HASH_SEED_DEFAULT = "0"


class ClusterUnavailable(Exception):
    """Ray is not installed, or no cluster answers at the address: run locally (said in one line)."""


def _host_port(address: str) -> tuple[str, str]:
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"taskmodel: --cluster {address}: neither auto nor HOST:PORT")
    return host, port


def _reachable(address: str) -> None:
    """Refuse an address nothing listens on, at once (Ray itself retries for a minute)."""
    host, port = _host_port(address)
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as e:
        raise ClusterUnavailable(f"no Ray cluster reachable at {address} ({e.strerror or e})") from None


def _loopback(address: str) -> bool:
    return _host_port(address)[0] in ("127.0.0.1", "localhost", "::1")


def connect(address_or_auto: str, workers: int | None = None):
    """Start (`auto`) or join (an address) a Ray cluster from this process; returns the `ray` module."""
    if address_or_auto != "auto":
        _host_port(address_or_auto)          # bad input whether or not Ray is installed
    try:
        import ray
    except ImportError:
        raise ClusterUnavailable("Ray is not installed (pip install '.[cluster]')") from None
    import logging
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")       # no usage report from a verifier run
    runtime_env = {"env_vars": {"PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", HASH_SEED_DEFAULT)}}
    quiet = dict(log_to_driver=False, logging_level=logging.ERROR, runtime_env=runtime_env)
    if ray.is_initialized():
        ray.shutdown()
    _news_to_stderr()
    if address_or_auto == "auto":
        ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False, **quiet)
        return ray
    _reachable(address_or_auto)
    extra = {"_node_ip_address": "127.0.0.1"} if _loopback(address_or_auto) else {}
    try:
        ray.init(address=address_or_auto, **extra, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ClusterUnavailable(f"cannot join the Ray cluster at {address_or_auto} "
                                 f"({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
    return ray


def _news_to_stderr() -> None:
    """The driver prints the cluster's news (a worker died, its task is retried) on stdout, where
    `--json` keeps one object: it goes to stderr, the log, instead. (Ray has no switch for it.)"""
    from ray._private import worker
    show = getattr(worker, "print_to_stdstream", None)
    if show is None or getattr(show, "to_stderr", False):
        return

    def to_stderr(data, ignore_prefix):
        show({**data, "is_err": True}, ignore_prefix)
    to_stderr.to_stderr = True
    worker.print_to_stdstream = to_stderr


class RayPool:
    """`map(fn, items)` over a Ray cluster: each item one task (retried when its worker dies), at
    most `workers` in flight (default: the cluster's CPUs), results in the order of `items`."""

    def __init__(self, address_or_auto: str, workers: int | None = None):
        self.ray = connect(address_or_auto, workers)
        self.address = address_or_auto
        self.workers = workers or max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self._tasks = {}

    def _remote(self, fn):
        task = self._tasks.get(fn)
        if task is None:
            task = self._tasks[fn] = self.ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(fn)
        return task

    def map(self, fn, items: list) -> list:
        ray, task = self.ray, self._remote(fn)
        items = list(items)
        refs, pending, nxt = [None] * len(items), {}, 0
        while nxt < len(items) or pending:
            while nxt < len(items) and len(pending) < self.workers:
                refs[nxt] = task.remote(items[nxt])
                pending[refs[nxt]] = nxt
                nxt += 1
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                del pending[ref]
        try:
            return ray.get(refs)
        except ray.exceptions.RayTaskError as e:   # the task's own exception, as a local pool raises it
            raise (e.cause if isinstance(e.cause, BaseException) else e) from None

    def close(self) -> None:
        if self.ray.is_initialized():
            self.ray.shutdown()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def ray_pool(cluster: str, workers: int | None = None) -> RayPool | None:
    """A RayPool for `--cluster`, or None (said in one line on stderr) when Ray or the cluster
    cannot be had: the caller then runs in local processes."""
    try:
        return RayPool(cluster, workers)
    except ClusterUnavailable as e:
        print(f"taskmodel: --cluster {cluster}: {e}; running locally", file=sys.stderr)
        return None


def open_pool(cluster: str | None, workers: int | None = None):
    """A RayPool for `--cluster`, else (no flag, no Ray, no cluster) the local processes' pool."""
    got = ray_pool(cluster, workers) if cluster else None
    if got is not None:
        return got
    from verifier.engines.bfs.partition import LocalPool
    return LocalPool(workers or os.cpu_count() or 1)
