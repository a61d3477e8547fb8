"""The watchdog: no single step of an exploration may use more than a per-step limit of CPU time.

A rule that loops or blocks would otherwise hang `taskmodel check` with no answer. `Watchdog` is a
context manager over a whole command; `bounded()` arms a timer around one step whose handler raises
`StepTimeout` in the middle of the stuck code, so it surfaces as a fault naming the step.

The limit counts the process's CPU time (ITIMER_PROF), not wall time: a process that waits for a
core on a busy machine uses none, so load never turns a quick step into a fault. A step that
blocks without using the CPU (a rule that sleeps or reads a pipe) is caught by a wall-clock
backstop far above the limit (`BLOCKED_FACTOR` times it, at least `BLOCKED_MIN` s), which no
ordinary load reaches for a step that takes well under a millisecond of CPU. Signals reach only the
main thread: elsewhere (a worker thread) the watchdog is off and `bounded()` costs nothing.

With a `deadline` (the command's `--budget`), the same wall-clock timer fires at the deadline too,
so a step that blocks across it raises `CapReached`, naming what was running: an engine reports the
work it cut `undetermined (time cap)`. The steps after the deadline (the traces an engine replays to
tell its verdicts, then those written) share `GRACE` seconds of wall time, plenty for steps that
take microseconds; a step that blocks spends it, and every step after it raises `CapReached` at
once. The writers get a grace of their own (`renew_grace`). A forked worker inherits the deadline
with the watchdog, and has its own grace.
"""
from __future__ import annotations

import signal
import threading
import time

from verifier.runtime.faults import running

DEFAULT_STEP_LIMIT = 5.0      # CPU seconds; a model step takes well under a millisecond
BLOCKED_FACTOR = 12           # the wall-clock backstop, in multiples of the limit...
BLOCKED_MIN = 60.0            # ...and never below this many seconds
GRACE = 0.5                   # wall seconds the steps after the deadline share
REFIRE = 0.1                  # wall seconds after which a wall-clock timeout lost where Python
                              # ignores exceptions is raised again


class CapReached(BaseException):
    """The command's wall-clock cap passed while a step ran. Not a fault: the work it cut short is
    undetermined (time cap). A BaseException, so an amendment's `except Exception` cannot swallow it."""


class StepTimeout(BaseException):
    """A step outlasted the limit. A BaseException, so an amendment's `except Exception` cannot
    swallow it."""


class _Bound:
    __slots__ = ("dog", "seconds", "outer", "entered")

    def __init__(self, dog: "Watchdog", seconds: float):
        self.dog, self.seconds, self.outer, self.entered = dog, seconds, False, 0.0

    def __enter__(self):
        # A bound inside a bound (a drain step inside a replay) leaves the outer timers running.
        self.outer = self.dog.depth == 0
        if self.outer:
            wall = self.dog.wall(self.seconds)      # raises CapReached when the grace is spent
            self.entered = time.monotonic()
            # Re-fired every further `seconds` of CPU: a StepTimeout raised where Python ignores
            # exceptions (a garbage-collection callback) is raised again instead of lost.
            signal.setitimer(signal.ITIMER_PROF, self.seconds, self.seconds)
            signal.setitimer(signal.ITIMER_REAL, wall, REFIRE)
        self.dog.depth += 1
        return self

    def __exit__(self, *exc):
        self.dog.depth -= 1
        if self.outer:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if self.dog.deadline is not None:
                self.dog.spent(self.entered)
        return False


class _Off:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_OFF = _Off()
_current: "Watchdog | None" = None


class Watchdog:
    def __init__(self, limit: float | None = DEFAULT_STEP_LIMIT, blocked: float | None = None,
                 deadline: float | None = None):
        self.limit = limit if limit and limit > 0 else None
        self.blocked = blocked           # the wall-clock backstop in seconds (default: see backstop)
        self.deadline = deadline         # the monotonic time of the command's cap, or None: no cap
        self.after = 0.0                 # wall seconds spent in steps after the deadline
        self.cut = ""                    # what the cap stopped last
        self.active = False
        self.depth = 0
        self._previous: tuple = ()
        self._outer: Watchdog | None = None

    def __enter__(self) -> "Watchdog":
        global _current
        self._outer = _current
        if (self.limit and _current is None and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()):
            self._previous = (signal.signal(signal.SIGPROF, self._spent), signal.signal(signal.SIGALRM, self._stuck))
            self.active = True
            _current = self
        return self

    def __exit__(self, *exc):
        global _current
        if self.active:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGPROF, self._previous[0])
            signal.signal(signal.SIGALRM, self._previous[1])
            self.active = False
            _current = self._outer
        return False

    def backstop(self, seconds: float) -> float:
        return self.blocked if self.blocked else max(BLOCKED_MIN, BLOCKED_FACTOR * seconds)

    def wall(self, seconds: float) -> float:
        """The wall-clock timer of a step: the backstop, or the cap's deadline (past it, what is left
        of the grace) when that comes first."""
        backstop = self.backstop(seconds)
        if self.deadline is None:
            return backstop
        left = self.deadline - time.monotonic()
        if left <= 0:
            left = GRACE - self.after
            if left <= 0:
                raise CapReached(self.cut or "the cap passed")
        return min(backstop, left)

    def spent(self, entered: float) -> None:
        """Count the wall time a step that began at `entered` spent past the deadline."""
        now = time.monotonic()
        if now > self.deadline:
            self.after += now - max(entered, self.deadline)

    def renew_grace(self) -> None:
        """A grace of their own for the steps from here on (the writers', after the engines')."""
        self.after = 0.0

    def _spent(self, signum, frame):
        raise StepTimeout(f"the step used more than the limit of {self.limit:g} s of CPU time (--step-timeout)")

    def _stuck(self, signum, frame):
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.cut = f"the cap passed while {running(frame)} ran"
            raise CapReached(self.cut)
        raise StepTimeout(f"the step was blocked for {self.backstop(self.limit):g} s of wall time without "
                          f"finishing (a rule waiting on something outside the model)")

    def bounded(self, seconds: float | None = None):
        """A context bounding what it encloses by `seconds` of CPU (default: the per-step limit)."""
        if not self.active:
            return _OFF
        return _Bound(self, seconds or self.limit)


def current() -> Watchdog:
    """The watchdog of the command running in this process, or an inactive one."""
    return _current if _current is not None else _INACTIVE


_INACTIVE = Watchdog(None)
