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
"""
from __future__ import annotations

import signal
import threading

DEFAULT_STEP_LIMIT = 5.0      # CPU seconds; a model step takes well under a millisecond
BLOCKED_FACTOR = 12           # the wall-clock backstop, in multiples of the limit...
BLOCKED_MIN = 60.0            # ...and never below this many seconds


class StepTimeout(BaseException):
    """A step outlasted the limit. A BaseException, so an amendment's `except Exception` cannot
    swallow it."""


class _Bound:
    __slots__ = ("dog", "seconds", "outer")

    def __init__(self, dog: "Watchdog", seconds: float):
        self.dog, self.seconds, self.outer = dog, seconds, False

    def __enter__(self):
        # A bound inside a bound (a drain step inside a replay) leaves the outer timers running.
        self.outer = self.dog.depth == 0
        self.dog.depth += 1
        if self.outer:
            # Re-fired every further `seconds` of CPU: a StepTimeout raised where Python ignores
            # exceptions (a garbage-collection callback) is raised again instead of lost.
            signal.setitimer(signal.ITIMER_PROF, self.seconds, self.seconds)
            signal.setitimer(signal.ITIMER_REAL, self.dog.backstop(self.seconds))
        return self

    def __exit__(self, *exc):
        self.dog.depth -= 1
        if self.outer:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
        return False


class _Off:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_OFF = _Off()
_current: "Watchdog | None" = None


class Watchdog:
    def __init__(self, limit: float | None = DEFAULT_STEP_LIMIT, blocked: float | None = None):
        self.limit = limit if limit and limit > 0 else None
        self.blocked = blocked           # the wall-clock backstop in seconds (default: see backstop)
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

    def _spent(self, signum, frame):
        raise StepTimeout(f"the step used more than the limit of {self.limit:g} s of CPU time (--step-timeout)")

    def _stuck(self, signum, frame):
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
