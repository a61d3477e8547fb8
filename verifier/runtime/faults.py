"""A fault: an exception raised at run time by an amendment's rule or by the model itself.

A fault is not a verdict on the protocol: an engine that meets one stops treating that path as a
behaviour, records where it happened (the amendment file and line, else the model's) with the
exception in one line and the protocol steps that led to it, and the command exits 4.
"""
from __future__ import annotations

import sys
import sysconfig
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from model.world import ModelError

_ROOT = Path(__file__).resolve().parents[2]
_MODEL = ("model", "properties")
_WIDTH = 200                 # the longest exception text a one-line report keeps
_LIBRARIES = tuple({str(Path(p).resolve()) for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                                                     sys.prefix, sys.base_prefix)})


@dataclass
class Fault:
    where: str                  # "file.py:LINE" of the innermost frame in an amendment, else the model
    error: str                  # "KeyError: 'x'", one line
    history: list = field(default_factory=list)   # the (action, args) moves up to and including the faulting one
    action: str | None = None   # what was being done: a protocol action, or "the check of <property>"
    notes: list = field(default_factory=list)     # the steps before it, told in protocol words
    trace: str = field(default="", repr=False, compare=False)   # the Python traceback, for --debug

    def line(self) -> str:
        at = f" during {self.action}" if self.action else ""
        return f"{self.where}: {self.error}{at}"

    def signature(self) -> tuple:
        """What makes two faults the same one: the place and the kind of exception."""
        return self.where, self.error.split(":", 1)[0]

    def to_json(self) -> dict:
        return {"where": self.where, "error": self.error, "action": self.action, "length": len(self.history),
                "steps": [{"action": a, "args": dict(args)} for a, args in self.history], "notes": list(self.notes)}


class ModelFault(ModelError):
    """Raised when a step, an enabled-move computation or a check faulted; carries the Fault. A
    ModelError, so a replay that meets it stops there (the move could not be taken) instead of crashing."""

    def __init__(self, fault: Fault):
        super().__init__(fault.line())
        self.fault = fault


def _rank(path: Path) -> tuple[int, str]:
    """2 an amendment (a built-in variant, a test's, or any file outside the tool and the libraries),
    1 the model or the catalogue, 0 the engines and the libraries; with the name to show."""
    try:
        rel = path.resolve().relative_to(_ROOT)
    except (ValueError, OSError):
        library = path.suffix != ".py" or str(path).startswith(_LIBRARIES) or "site-packages" in path.parts \
            or "dist-packages" in path.parts
        return (0 if library else 2), path.name
    if rel.parts[:2] == ("model", "variants"):
        return 2, rel.as_posix()
    if rel.parts[0] in _MODEL:
        return 1, rel.as_posix()
    if rel.parts[0] in ("verifier", ".venv"):
        return 0, rel.as_posix()
    return 2, rel.as_posix()


def locate(exc: BaseException) -> str:
    """The innermost frame of an amendment, else of the model or the catalogue, else the innermost."""
    return _best(traceback.extract_tb(exc.__traceback__))


def running(frame) -> str:
    """What the code at `frame` (a signal handler's) is running, as `locate` names a fault's place:
    "function (file:line)" of the innermost frame of an amendment, else of the model, else the innermost."""
    return _best(traceback.extract_stack(frame), named=True)


def _best(frames, named: bool = False) -> str:
    best: dict[int, str] = {}
    for fr in frames:
        rank, name = _rank(Path(fr.filename))
        best[rank] = f"{fr.name} ({name}:{fr.lineno})" if named else f"{name}:{fr.lineno}"
    for rank in (2, 1, 0):
        if rank in best:
            return best[rank]
    return "?"


def text_of(exc: BaseException) -> str:
    """str(exc), or what stood in its way: an amendment's exception may raise in its own `__str__`."""
    try:
        return str(exc)
    except Exception as e:  # noqa: BLE001 -- whatever its __str__ raises
        return f"(its message could not be made: {type(e).__name__})"


def one_line(exc: BaseException) -> str:
    lines = text_of(exc).strip().splitlines()
    text = lines[0].strip() if lines else ""
    errors = getattr(exc, "errors", None)
    if callable(errors) and hasattr(exc, "title"):
        # A wire builder refused the message (model.wire validates what it builds): say which field.
        first = errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        text = f"the {exc.title} built breaks the wire schema: {where}: {first.get('msg')} (got {first.get('input')!r})"
    if len(text) > _WIDTH:
        text = text[:_WIDTH - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def fault_of(exc: BaseException, history, action: str | None, args: dict | None = None) -> Fault:
    """The Fault of `exc`, raised while doing `action` (with `args`, a protocol move) after `history`
    (the Step records before it)."""
    moves = [(s.action, dict(s.args)) for s in history]
    if args is not None:
        moves.append((action, dict(args)))
    return Fault(locate(exc), one_line(exc), moves, action, [s.note for s in history],
                 "".join(traceback.format_exception(exc)))
