"""Ctrl-C honoured wherever it lands.

Python runs a signal handler between bytecodes, so the KeyboardInterrupt it raises can land where
exceptions are ignored (a garbage-collection callback, a `__del__`) and be lost. `honoured()`
installs, for a command's duration, a SIGINT handler that first sets a flag and then raises; the
engines' loops call `check()` between steps, which raises again while the flag is set, and the
command line answers 130 whenever it is set. The command passes the signal on to the worker
processes it started (`kill -INT` reaches it alone; a terminal's Ctrl-C reaches them all). In a
forked worker the handler only sets the flag: the worker's next `check()` ends its task with
KeyboardInterrupt, which its pool hands back to the command, and an idle worker is left to be shut
down without a traceback.

Where Python ignores such an exception it prints "Exception ignored in ... KeyboardInterrupt" with a
traceback: for the command's own signals (an interrupt, the watchdog's timers, which fire again)
that text says nothing, and `honoured()` keeps it off stderr (`sys.unraisablehook`).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from contextlib import contextmanager

from verifier.runtime.watchdog import CapReached, StepTimeout

SIGNALLED = (KeyboardInterrupt, CapReached, StepTimeout)    # what the command's own signal handlers raise

_requested = False
_owner: int | None = None       # the process that installed the handler


def requested() -> bool:
    return _requested


def check() -> None:
    """Raise KeyboardInterrupt when an interrupt arrived (cheap: one global read)."""
    if _requested:
        raise KeyboardInterrupt


def _handler(signum, frame):
    global _requested
    _requested = True
    if os.getpid() == _owner:
        _forward()
        raise KeyboardInterrupt


def _forward() -> None:
    try:
        workers = multiprocessing.active_children()
    except Exception:           # noqa: BLE001 -- a pool changing its workers at this instant: they are told at exit
        return
    for worker in workers:
        try:
            os.kill(worker.pid, signal.SIGINT)
        except (OSError, TypeError):        # gone already, or not yet started (no pid)
            pass


@contextmanager
def honoured():
    """The command's SIGINT handler (on the main thread; elsewhere signals never arrive)."""
    global _requested, _owner
    _requested = False
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous, _owner = signal.signal(signal.SIGINT, _handler), os.getpid()
    hook = sys.unraisablehook

    def unraisable(u):
        if not isinstance(u.exc_value, SIGNALLED):
            hook(u)
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = hook
