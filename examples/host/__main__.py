"""`python -m examples.host [--transport http|stdio] [--port N] [--log FILE] [--bug NAME ...]`.

Exit codes: 0 served until stopped; 3 bad usage (one line); 4 could not serve (the port taken, ...).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys

from .bugs import Bugs
from .identity import TOKENS


class Parser(argparse.ArgumentParser):
    def error(self, message):
        """Bad usage is one line and exit 3, as every command of the project."""
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(3)


def main(argv=None) -> int:
    p = Parser(prog="python -m examples.host", description=__doc__.splitlines()[0])
    p.add_argument("--transport", choices=("http", "stdio"), default="http")
    p.add_argument("--port", type=int, default=8765, help="HTTP: the loopback port (127.0.0.1 only)")
    p.add_argument("--log", help="write the traffic log (JSON Lines, schemas/traffic-log.schema.json) here")
    p.add_argument("--bug", action="append", default=[], choices=Bugs.names(), metavar="NAME",
                   help=f"plant a bug, named after its model variant: {', '.join(Bugs.names())}")
    p.add_argument("--plain", action="store_true",
                   help="a plain mount serving no Tasks (the model's S2; map it with mapping-plain.json)")
    p.add_argument("--retention", type=float, default=300.0, help="seconds a terminal run stays readable")
    p.add_argument("--token", default=os.environ.get("REFHOST_TOKEN"),
                   help="stdio: the bearer token the session speaks for (default $REFHOST_TOKEN)")
    test = p.add_argument_group("test-only (tests/live/test_conformance.py; never for a real deployment)")
    test.add_argument("--test-token-for", choices=sorted(TOKENS), metavar="SUBJECT",
                      help="a request with no Authorization header acts as SUBJECT (a client that sends no credential)")
    test.add_argument("--suite-fixtures", action="store_true",
                      help="also offer the official MCP conformance suite's fixture tools (examples/host/fixtures.py)")
    a = p.parse_args(argv)
    if a.transport == "stdio" and not a.token:
        p.error("stdio needs --token (or REFHOST_TOKEN): the Subject the session speaks for")
    if not 0 < a.port < 65536 or not a.retention > 0:
        p.error("--port must be 1-65535 and --retention more than 0 seconds")
    from .server import Host
    try:
        host = Host(a.log, Bugs.from_names(a.bug), a.retention, f"Bearer {a.token}" if a.token else None,
                    serves_tasks=not a.plain, test_subject=a.test_token_for, suite_fixtures=a.suite_fixtures)
    except OSError as e:
        p.error(f"cannot write the log {a.log}: {e.strerror}")
    if a.transport == "stdio":
        asyncio.run(host.serve_stdio())
        return 0
    import uvicorn
    server = uvicorn.Server(uvicorn.Config(host.http_app(), host="127.0.0.1", port=a.port, log_level="warning",
                                           lifespan="on"))
    try:
        server.run()
    except SystemExit:          # uvicorn exits when it cannot bind (it has said why, in one line)
        return 4
    return 0 if server.started else 4


if __name__ == "__main__":
    sys.exit(main())
