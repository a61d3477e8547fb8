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
    weight: int = 1          # how often the explorer picks it among enabled actions (see WEIGHTS)
    footprint: object = None  # what a move reads and writes (model.footprint.Footprint)
    # (world, run ids) -> its moves on those runs alone, in `moves`' order: for an action whose moves
    # each name a run and may be many (a search about a few runs reads them alone)
    moves_on: Callable | None = None


class Product:
    """The moves of an action whose arguments vary independently: a lazy cartesian product.

    Large argument spaces (a client may send any task reference with any flags) are never
    materialised: `len` is cheap, and the i-th move is decoded in mixed radix.
    """
    __slots__ = ("axes", "_len", "extra")

    def __init__(self, axes: list[tuple[str, list]], extra: dict | None = None):
        self.axes = axes
        self.extra = extra or {}
        n = 1
        for _, values in axes:
            n *= len(values)
        self._len = n

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __getitem__(self, i: int) -> dict:
        if not 0 <= i < self._len:
            raise IndexError(i)
        out = dict(self.extra)
        for k, values in reversed(self.axes):
            i, r = divmod(i, len(values))
            if k.startswith("*"):
                out.update(values[r])     # an axis of argument groups that vary together
            else:
                out[k] = values[r]
        return out

    def __iter__(self):
        return (self[i] for i in range(self._len))

    def __contains__(self, args: dict) -> bool:
        keys = set(self.extra)
        for k, vs in self.axes:
            keys |= set(vs[0]) if k.startswith("*") and vs else {k}
        if set(args) != keys or any(args[k] != v for k, v in self.extra.items()):
            return False
        for k, vs in self.axes:
            if k.startswith("*"):
                if not any(all(args[a] == b for a, b in group.items()) for group in vs):
                    return False
            elif args[k] not in vs:
                return False
        return True


class Union:
    """Several products side by side (e.g. one per task reference)."""
    __slots__ = ("parts", "_len")

    def __init__(self, parts):
        self.parts = [p for p in parts if len(p)]
        self._len = sum(len(p) for p in self.parts)

    def __len__(self):
        return self._len

    def __bool__(self):
        return self._len > 0

    def __getitem__(self, i):
        for p in self.parts:
            if i < len(p):
                return p[i]
            i -= len(p)
        raise IndexError(i)

    def __iter__(self):
        for p in self.parts:
            yield from p

    def __contains__(self, args):
        return any(args in p for p in self.parts)


# Exploration weights: the steps of the long protocol stories (a call, its answer, the interrupt,
# the retry, the drop) are picked more often than the one-step probes. Unlisted actions weigh 1.
WEIGHTS = {"call_tool": 4, "answer": 4, "respond": 4, "deliver": 4, "mrtr_retry": 4, "run_interrupt": 3, "run_start": 3,
           "tasks_update": 3, "disconnect": 3, "tasks_get": 2, "tasks_cancel": 2, "run_complete": 2,
           "run_effect": 2, "stdio_cancel": 2, "rest_resolve": 2, "stream_event": 2, "operator_pause": 3,
           "operator_resume": 3}


# The order of the action table: by the module that defines each action, then by its place in that
# module. The table's order is what the engines' choices index into (the random explorer's enabled
# list and its swarm bits, a search's successors), so it is fixed here and kept as actions register,
# never the order the modules happened to be imported in (a process that imported `model.network` or
# `model.rest` first registered their actions first, and the same seed explored other examples).
MODULE_ORDER = ("model.host", "model.clients", "model.network", "model.harness", "model.rest")


def _table_key(a: Action):
    module = getattr(a.apply, "__module__", None) or ""
    code = getattr(a.apply, "__code__", None)
    rank = MODULE_ORDER.index(module) if module in MODULE_ORDER else len(MODULE_ORDER)
    return rank, module, code.co_firstlineno if code is not None else 0, a.name


def action(actor: str, moves: Callable, say: Callable, weight: int | None = None, footprint=None, moves_on=None):
    def register(fn):
        w = weight if weight is not None else WEIGHTS.get(fn.__name__, 1)
        ACTIONS[fn.__name__] = Action(fn.__name__, actor, moves, fn, say, (fn.__doc__ or "").strip(), w, footprint,
                                      moves_on)
        ordered = sorted(ACTIONS.values(), key=_table_key)
        if [a.name for a in ordered] != list(ACTIONS):      # registered out of the fixed order: re-seat it
            ACTIONS.clear()
            ACTIONS.update((a.name, a) for a in ordered)
        return fn
    return register

# Host steps that only act on the outside world or make runs no message names: a recorded log
# without run events shows none of them (the validator never needs them to explain a message).
SILENT = frozenset({"run_effect", "run_compensate", "run_spawn"})


def load_all() -> dict[str, Action]:
    """The action table, in its fixed order (`MODULE_ORDER`), whatever order its modules were imported in."""
    from . import clients, harness, host, network, rest  # noqa: F401  (registration by import)
    return ACTIONS
