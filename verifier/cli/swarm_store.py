"""The swarm's shared example database: Hypothesis's, on a Redis server or in a folder.

Each counterexample is saved under the key `swarm:<variant>:<property>` as its ITF trace (the
bytes `taskmodel replay` reads, scope included), so any machine with the database replays it,
whichever engine found it (an exhaustive-style search has no Hypothesis choice sequence to store).
A key holds a set: two searches that find the same trace store it once.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

KEY_PREFIX = b"taskmodel:"     # beside Hypothesis's own keys in a shared Redis


def key(variant: str, prop: str) -> bytes:
    return f"swarm:{variant}:{prop}".encode()


def open_database(url: str | None, folder: Path):
    """(the database, where it is): Redis at `url` (or $TASKMODEL_REDIS) when it answers, else a
    folder database at `folder`, said in one line."""
    from hypothesis.database import DirectoryBasedExampleDatabase
    url = url or os.environ.get("TASKMODEL_REDIS")
    why = "no Redis given (--redis URL or TASKMODEL_REDIS)"
    if url:
        try:
            import redis
            from hypothesis.extra.redis import RedisExampleDatabase
        except ImportError:
            why = "the redis client is not installed (pip install '.[cluster]')"
        else:
            try:
                client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=10)
                client.ping()
                return RedisExampleDatabase(client, key_prefix=KEY_PREFIX), url
            except (redis.exceptions.RedisError, ValueError) as e:
                why = f"Redis at {url} does not answer ({str(e).splitlines()[0] if str(e) else type(e).__name__})"
    print(f"taskmodel: swarm: {why}; counterexamples stored in the folder database {folder}", file=sys.stderr)
    return DirectoryBasedExampleDatabase(str(folder)), str(folder)
