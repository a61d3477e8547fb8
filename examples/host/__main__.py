"""`python -m examples.host [--transport http|stdio] [--port N] [--log FILE] [--bug NAME ...]`."""
from __future__ import annotations

import argparse
import asyncio
import os
import sys

from .bugs import Bugs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m examples.host", description=__doc__)
    p.add_argument("--transport", choices=("http", "stdio"), default="http")
    p.add_argument("--port", type=int, default=8765, help="HTTP: the loopback port (127.0.0.1 only)")
    p.add_argument("--log", help="write the traffic log (JSON Lines, schemas/traffic-log.schema.json) here")
    p.add_argument("--bug", action="append", default=[], choices=Bugs.names(), metavar="NAME",
                   help=f"plant a bug, named after its model variant: {', '.join(Bugs.names())}")
    p.add_argument("--retention", type=float, default=300.0, help="seconds a terminal run stays readable")
    p.add_argument("--token", default=os.environ.get("REFHOST_TOKEN"),
                   help="stdio: the bearer token the session speaks for (default $REFHOST_TOKEN)")
    a = p.parse_args(argv)
    from .server import Host
    if a.transport == "stdio" and not a.token:
        print("error: stdio needs --token (or REFHOST_TOKEN): the session's Subject", file=sys.stderr)
        return 3
    host = Host(a.log, Bugs.from_names(a.bug), a.retention, f"Bearer {a.token}" if a.token else None)
    if a.transport == "stdio":
        asyncio.run(host.serve_stdio())
        return 0
    import uvicorn
    uvicorn.run(host.http_app(), host="127.0.0.1", port=a.port, log_level="warning", lifespan="on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
