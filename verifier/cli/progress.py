"""Progress on stderr while a command works: with no wall-clock cap by default, a long wait must be
seen to be work. One line every few seconds, in TLC's manner (states found, distinct, queued), from
whichever process does the work: a worker prints its own search's lines (these printers pickle).
On a terminal the random engine's bar shows its progress instead of lines.
"""
from __future__ import annotations

import sys
import time

EVERY = 5.0         # seconds between two lines of one printer


class Heartbeat:
    """At most one line every `every` seconds; none on a terminal where a bar shows the progress."""

    def __init__(self, every: float = EVERY, bar: bool = False):
        self.tty = sys.stderr.isatty()
        self.quiet = bar and self.tty
        self.every = every
        self.last = time.monotonic()

    def beat(self, text: str) -> None:
        now = time.monotonic()
        if not self.quiet and now - self.last >= self.every:
            self.last = now
            say(text)


def say(text: str) -> None:
    try:
        print(f"taskmodel: {text}", file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):       # stderr closed: the work goes on unseen
        pass


class SearchProgress:
    """An exhaustive search's (or the baseline graph's build's) lines: `progress(search, queued)`."""

    def __init__(self, variant: str):
        self.variant = variant
        self.beat = Heartbeat()

    def found(self, scope: str, verdicts) -> None:
        """A scope's refutations, told as its search ends."""
        for v in verdicts:
            say(f"bfs {self.variant} at {scope}: {v.name} ({', '.join(v.ids)}) {v.verdict} in {len(v.trace)} steps")

    def __call__(self, s, queued: int) -> None:
        what = f" ({s.how})" if s.how else ""
        self.beat.beat(f"bfs {self.variant} at {s.scope.name}{what}: {s.generated} states generated, {s.distinct} "
                       f"distinct, {queued} queued, depth {s.depth}, {s.distinct / max(s.elapsed, 1e-9):.0f} states/s")
