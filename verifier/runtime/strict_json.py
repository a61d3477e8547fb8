"""JSON input read strictly: what RFC 8259 allows, within a stated depth, never a crash.

Python's `json` also reads `NaN`, `Infinity` and numbers beyond a float (as infinity), and a deeply
nested document makes it, or whatever walks the value after it, exceed the recursion limit. Every
file the tool reads (traces, traffic logs, mapping files, gate manifests) goes through here, and
each problem is one `JsonProblem` line the caller prefixes with the file and the place.
"""
from __future__ import annotations

import json
import math

MAX_DEPTH = 100     # levels of nested arrays and objects; the tool's own files use about ten


class JsonProblem(ValueError):
    """Not JSON, a non-finite number, or nested too deeply (one line)."""


def _constant(name: str):
    raise JsonProblem(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonProblem(f"{text} is beyond the range of a number")
    return value


DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_finite)


def loads(text: str, max_depth: int = MAX_DEPTH):
    """`text` as one JSON value; a JsonProblem saying what is wrong (with the line and column)."""
    try:
        value = DECODER.decode(text)
    except json.JSONDecodeError as e:
        raise JsonProblem(f"not JSON: {e.msg} (line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise JsonProblem(f"nested deeper than {max_depth} levels") from None
    except JsonProblem:
        raise
    except ValueError as e:         # an integer of more digits than Python converts
        raise JsonProblem(f"not JSON: {str(e).split(':')[0]}") from None
    if too_deep(value, max_depth):
        raise JsonProblem(f"nested deeper than {max_depth} levels")
    return value


def too_deep(value, max_depth: int = MAX_DEPTH) -> bool:
    """True when arrays and objects nest more than `max_depth` levels (walked without recursion)."""
    todo = [(value, 1)]
    while todo:
        v, depth = todo.pop()
        if isinstance(v, dict):
            items = v.values()
        elif isinstance(v, list):
            items = v
        else:
            continue
        if depth > max_depth:
            return True
        todo.extend((x, depth + 1) for x in items if isinstance(x, (dict, list)))
    return False
