"""A fault: an exception raised at run time by an amendment's rule or by the model itself.

A fault is not a verdict on the protocol: an engine that meets one stops treating that path as a
behaviour, records where it happened (the amendment file and line, else the model's) with the
exception in one line and the protocol steps that led to it, and the command exits 4.
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Fault:
    where: str                  # "file.py:LINE" of the innermost frame in an amendment or the model
    error: str                  # "KeyError: 'x'", one line
    history: list = field(default_factory=list)   # the Step records up to and including the faulting one
    action: str | None = None   # the protocol action being taken, when known

    def line(self) -> str:
        at = f" during {self.action}" if self.action else ""
        return f"{self.where}: {self.error}{at}"


class ModelFault(Exception):
    """Raised by an engine when a step or a check faulted; carries the Fault."""

    def __init__(self, fault: Fault):
        super().__init__(fault.line())
        self.fault = fault


def locate(exc: BaseException) -> str:
    """The innermost frame outside the engines: an amendment's file, else the model's or catalogue's."""
    frames = traceback.extract_tb(exc.__traceback__)
    best = None
    for fr in frames:
        path = Path(fr.filename)
        try:
            rel = path.resolve().relative_to(_ROOT)
            inside = rel.parts[0] in ("model", "properties")
        except ValueError:
            rel, inside = path, "site-packages" not in path.parts and path.suffix == ".py" and "lib" not in path.parts[:-1]
        if inside or (best is None and not str(rel).startswith("verifier")):
            best = f"{rel.as_posix() if isinstance(rel, Path) and not rel.is_absolute() else path.name}:{fr.lineno}"
    return best or (f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?")


def one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
