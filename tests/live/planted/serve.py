"""`python -m tests.live.planted.serve [host flags]`: the reference host with the planted bug named by
$PLANTED (tests/live/planted/), for a bug reached over stdio, where the host is a child process."""
from __future__ import annotations

import os
import sys

from examples.host import __main__ as host_main
from examples.host import server

from . import PLANTED


def main() -> int:
    bug = PLANTED[os.environ["PLANTED"]]
    init = server.Host.__init__

    def planted_init(self, *args, **kw):
        init(self, *args, **kw)
        bug.plant(self)
    server.Host.__init__ = planted_init
    return host_main.main()


if __name__ == "__main__":
    sys.exit(main())
