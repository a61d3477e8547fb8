"""The built-in variants: the RFC's rejected alternatives and negative examples, map sabotages,
planted mutants, client mutants, and the strengthenings that close the known gaps.

One small module per variant, each written with the public amendment API (`model.amend`).
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import lru_cache

from ..amend import Amendment, AmendmentError, load_file, validate


def builtins() -> dict[str, type]:
    """Every built-in variant by name (a fresh dict: callers may change theirs)."""
    return dict(_builtins())


@lru_cache(maxsize=1)       # the modules do not change within a process; each is validated once
def _builtins() -> dict[str, type]:
    found: dict[str, type] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, Amendment) and value is not Amendment \
                    and value.__module__ == module.__name__:
                if value.name in found:
                    raise AmendmentError(f"{info.name}.py: variant name {value.name!r} is used twice")
                validate(value)
                found[value.name] = value
    return found


def resolve(spec: str) -> type:
    """A built-in variant by name, or an author's amendment file `path.py[:Class]`."""
    table = builtins()
    if spec in table:
        return table[spec]
    if spec.endswith(".py") or ".py:" in spec or "/" in spec:
        return load_file(spec)
    raise AmendmentError(f"unknown variant {spec!r} (see `taskmodel list`)")
