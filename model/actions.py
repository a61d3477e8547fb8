"""The action table: every protocol step the system can take, by participant.

Each action has an actor, `moves(world)` listing the argument sets it is enabled with, `apply`,
and `say` telling the step in protocol words. Engines derive everything from this table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

ACTIONS: dict[str, "Action"] = {}


@dataclass(frozen=True)
class Action:
    name: str
    actor: str               # client | network | host | rest | clock | harness
    moves: Callable
    apply: Callable
    say: Callable
    doc: str = ""


def action(actor: str, moves: Callable, say: Callable):
    def register(fn):
        ACTIONS[fn.__name__] = Action(fn.__name__, actor, moves, fn, say, (fn.__doc__ or "").strip())
        return fn
    return register


def load_all() -> dict[str, Action]:
    from . import clients, host, network, rest  # noqa: F401  (registration by import)
    return ACTIONS
