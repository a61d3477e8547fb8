"""The watchdog: no single step of an exploration may run longer than a per-step limit.

A rule that loops or blocks would otherwise hang `taskmodel check` with no answer. `Watchdog` is a
context manager over a whole command; `bounded()` arms a real-time timer (SIGALRM) around one
step, whose handler raises `StepTimeout` in the middle of the stuck code, so it surfaces as a fault
naming the step. Signals reach only the main thread: elsewhere (a worker thread) the watchdog is
off and `bounded()` costs nothing.
"""
from __future__ import annotations

import signal
import threading

DEFAULT_STEP_LIMIT = 5.0      # seconds; a model step takes well under a millisecond


class StepTimeout(BaseException):
    """A step outlasted the limit. A BaseException, so an amendment's `except Exception` cannot
    swallow it."""


class _Bound:
    __slots__ = ("dog", "seconds", "outer")

    def __init__(self, dog: "Watchdog", seconds: float):
        self.dog, self.seconds, self.outer = dog, seconds, False

    def __enter__(self):
        # A bound inside a bound (a drain step inside a replay) leaves the outer timer running.
        self.outer = self.dog.depth == 0
        self.dog.depth += 1
        if self.outer:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        self.dog.depth -= 1
        if self.outer:
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
    def __init__(self, limit: float | None = DEFAULT_STEP_LIMIT):
        self.limit = limit if limit and limit > 0 else None
        self.active = False
        self.depth = 0
        self._previous = None
        self._outer: Watchdog | None = None

    def __enter__(self) -> "Watchdog":
        global _current
        self._outer = _current
        if (self.limit and _current is None and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()):
            self._previous = signal.signal(signal.SIGALRM, self._fire)
            self.active = True
            _current = self
        return self

    def __exit__(self, *exc):
        global _current
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self.active = False
            _current = self._outer
        return False

    def _fire(self, signum, frame):
        raise StepTimeout(f"the step ran longer than the limit of {self.limit:g} s (--step-timeout)")

    def bounded(self, seconds: float | None = None):
        """A context bounding what it encloses by `seconds` (default: the per-step limit)."""
        if not self.active:
            return _OFF
        return _Bound(self, seconds or self.limit)


def current() -> Watchdog:
    """The watchdog of the command running in this process, or an inactive one."""
    return _current if _current is not None else _INACTIVE


_INACTIVE = Watchdog(None)
