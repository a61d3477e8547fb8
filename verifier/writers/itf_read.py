"""Reading a trace of this tool strictly, as a stream (`taskmodel replay`).

A trace file is read twice, one state at a time, so memory holds one state whatever the file's
length: first to check all of it (the ITF structure of Apalache's ADR-015 as `itf.build` writes it,
the action names, the property it names, and every value of every recorded state), then to replay
it state by state, stopping at the first divergence. Any problem is a `TraceError` naming the place
(`states[3].runs`); the command prefixes the file. A file above `MAX_BYTES`, or one value above
`MAX_VALUE`, is refused: the tool's own traces are under a megabyte.
"""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from model.amend import params_problems
from model.world import action_table
from properties.base import find, load_catalogue

from verifier.runtime import scopes
from verifier.runtime.strict_json import DECODER, MAX_DEPTH, too_deep
from verifier.writers.itf import VARS

MAX_BYTES = 256 * 2 ** 20       # a trace file's size
MAX_VALUE = 16 * 2 ** 20        # one state, or any other top-level value, as JSON text
CHUNK = 2 ** 20
TOP = {"#meta", "params", "vars", "states", "loop"}
STATE_KEYS = {"#meta", *VARS}
BIGINT = re.compile(r"-?[0-9]+")
TAGS = ("#bigint", "#tup", "#set", "#map")


class TraceError(ValueError):
    """A malformed trace: one line naming the place."""


@dataclass
class Header:
    meta: dict
    steps: int                  # states after the initial one


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


class _Json:
    """The JSON text of a file, read in chunks: the top-level object's members, an array's items."""

    def __init__(self, f):
        self.f, self.buf, self.pos, self.eof, self.line = f, "", 0, False, 1

    def _more(self, n: int = CHUNK) -> bool:
        if self.eof:
            return False
        got = self.f.read(n)
        if not got:
            self.eof = True
            return False
        if self.pos > CHUNK:            # drop what was read, counting its lines for messages
            self.line += self.buf.count("\n", 0, self.pos)
            self.buf, self.pos = self.buf[self.pos:], 0
        self.buf += got
        return True

    def where(self, pos: int | None = None) -> str:
        return f"line {self.line + self.buf.count(chr(10), 0, self.pos if pos is None else pos)}"

    def peek(self) -> str:
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buf) or not self._more():
                return self.buf[self.pos:self.pos + 1]

    def take(self, chars: str, what: str) -> str:
        c = self.peek()
        if not c or c not in chars:
            raise TraceError(f"{self.where()}: not JSON: expected {what}")
        self.pos += 1
        return c

    def value(self, place: str):
        """The next JSON value; a read that may have cut it short is completed before it is judged."""
        self.peek()
        want = CHUNK
        while True:
            try:
                value, end = DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as e:
                if self.eof or (e.pos < len(self.buf) - 64 and not e.msg.startswith("Unterminated string")):
                    raise TraceError(f"{place}: not JSON: {e.msg} ({self.where(e.pos)})") from None
                end = None
            except RecursionError:
                raise TraceError(f"{place}: nested deeper than {MAX_DEPTH} levels") from None
            except ValueError as e:     # NaN, Infinity, an integer of more digits than Python converts
                raise TraceError(f"{place}: {str(e).split(': ')[0]}") from None
            # A value ending near the buffer's end may be cut short (a number): read on first.
            if end is None or end > len(self.buf) - 64:
                if len(self.buf) - self.pos > MAX_VALUE:
                    raise TraceError(f"{place}: a value longer than {MAX_VALUE // 2 ** 20} MB")
                if self._more(want) or end is None:     # at the end of the file: judged as it is
                    want *= 2
                    continue
            self.pos = end
            if too_deep(value):
                raise TraceError(f"{place}: nested deeper than {MAX_DEPTH} levels")
            return value

    def members(self):
        """The member names of the top-level object, each value left for the caller to read."""
        c = self.peek()
        if c != "{":
            kind = {"[": "an array", '"': "a string", "t": "a boolean", "f": "a boolean", "n": "null",
                    "": "an empty file"}.get(c, "a number" if c in "-0123456789" else None)
            raise TraceError(f"a trace is a JSON object, not {kind}" if kind else "not JSON")
        self.pos += 1
        if self.peek() == "}":
            self.pos += 1
        else:
            while True:
                if self.peek() != '"':
                    raise TraceError(f"{self.where()}: not JSON: expected a member name")
                key = self.value("a member name")
                self.take(":", "':'")
                yield key
                if self.take(",}", "',' or '}'") == "}":
                    break
        if self.peek():
            raise TraceError(f"{self.where()}: not JSON: more after the trace's object")

    def items(self, place: str):
        """The items of the array that comes next, one at a time."""
        if self.peek() != "[":
            raise TraceError(f"{place}: must be an array, not {_kind(self.value(place))}")
        self.pos += 1
        if self.peek() == "]":
            self.pos += 1
            return
        i = 0
        while True:
            yield self.value(f"{place}[{i}]")
            i += 1
            if self.take(",]", "',' or ']'") == "]":
                return


class TraceFile:
    """A trace file of this tool (or its `text`): `check()` it whole, then `states()` streams it again."""

    def __init__(self, path: Path | str | None = None, text: str | None = None):
        self.path, self.text = Path(path) if path is not None else None, text

    def _open(self):
        if self.text is not None:
            return io.StringIO(self.text)
        size = self.path.stat().st_size
        if size > MAX_BYTES:
            raise TraceError(f"{size:,} bytes, more than the {MAX_BYTES:,} a trace file may hold")
        return open(self.path, encoding="utf-8")

    def check(self) -> Header:
        """Everything the replay reads, checked before it starts; OSError and UnicodeDecodeError pass."""
        seen: dict = {}
        count = 0
        with self._open() as f:
            j = _Json(f)
            for key in j.members():
                if key in seen:
                    raise TraceError(f"{key!r} appears twice")
                if key not in TOP:
                    raise TraceError(f"{key!r} is not a member of an ITF trace ({', '.join(sorted(TOP))})")
                if key == "states":
                    for i, state in enumerate(j.items("states")):
                        _check_state(state, i)
                        count += 1
                    seen[key] = count
                else:
                    seen[key] = j.value(key)
        for key in ("#meta", "vars", "states"):
            if key not in seen:
                raise TraceError(f"no {key!r}: not an ITF trace")
        if not count:
            raise TraceError("states: a trace has at least its initial state")
        vars_ = seen["vars"]
        if not isinstance(vars_, list) or not all(isinstance(v, str) for v in vars_) or sorted(vars_) != sorted(VARS):
            raise TraceError(f"vars: must be the variables {', '.join(VARS)}, not {json.dumps(vars_)[:80]}")
        if seen.get("params", []) != []:
            raise TraceError("params: this tool's traces have no parameters (an empty array)")
        loop = seen.get("loop")
        if "loop" in seen and (type(loop) is not int or not 0 <= loop < count):
            raise TraceError(f"loop: must be the index of one of the {count} states, not {json.dumps(loop)[:40]}")
        return Header(_checked_meta(seen["#meta"]), count - 1)

    def states(self):
        """The recorded states, in order (after `check()`)."""
        with self._open() as f:
            j = _Json(f)
            for key in j.members():
                if key == "states":
                    yield from j.items("states")
                else:
                    j.value(key)


def _checked_meta(meta) -> dict:
    if not isinstance(meta, dict):
        raise TraceError(f"#meta: must be an object, not {_kind(meta)}")
    for key in ("variant", "property"):
        if not isinstance(meta.get(key), str):
            raise TraceError(f"#meta.{key}: must be a name, not {_kind(meta.get(key))}")
    load_catalogue()
    try:
        find(meta["property"])
    except KeyError:
        raise TraceError(f"#meta.property: {meta['property']!r} names no property of the catalogue") from None
    ids = meta.get("ids", [])
    if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids):
        raise TraceError("#meta.ids: must be an array of requirement ids")
    amendment = meta.get("amendment", {})
    if not isinstance(amendment, dict) or not isinstance(amendment.get("sha256", ""), str):
        raise TraceError("#meta.amendment: must be an object with a `sha256` string")
    scope = meta.get("scope")
    if scope is not None:
        if not isinstance(scope, str):
            raise TraceError(f"#meta.scope: must be a scope's name, not {_kind(scope)}")
        try:
            problems = params_problems(scopes.parse(scope).params())
        except (scopes.ScopeError, RecursionError, MemoryError, TypeError, ValueError) as e:
            raise TraceError(f"#meta.scope: {str(e) or type(e).__name__}") from None
        if problems:
            raise TraceError(f"#meta.scope: {problems[0]}")
    return meta


def _check_state(state, i: int) -> None:
    place = f"states[{i}]"
    if not isinstance(state, dict):
        raise TraceError(f"{place}: a state is an object, not {_kind(state)}")
    missing, extra = sorted(STATE_KEYS - set(state)), sorted(set(state) - STATE_KEYS)
    if missing:
        raise TraceError(f"{place}: no {missing[0]!r}")
    if extra:
        raise TraceError(f"{place}: {extra[0][:60]!r} is not a variable of this tool's traces")
    meta = state["#meta"]
    if not isinstance(meta, dict):
        raise TraceError(f"{place}.#meta: must be an object, not {_kind(meta)}")
    if "index" in meta and (type(meta["index"]) is not int or meta["index"] != i):
        raise TraceError(f"{place}.#meta.index: must be {i}, not {json.dumps(meta['index'])[:40]}")
    for key in ("note", "actor"):
        if key in meta and not isinstance(meta[key], str):
            raise TraceError(f"{place}.#meta.{key}: must be a string, not {_kind(meta[key])}")
    changes = meta.get("changes", [])
    if not isinstance(changes, list) or not all(isinstance(c, str) for c in changes):
        raise TraceError(f"{place}.#meta.changes: must be an array of strings")
    if i:
        action = meta.get("action")
        if not isinstance(action, str):
            raise TraceError(f"{place}.#meta.action: must be an action's name, not {_kind(action)}")
        if action not in action_table():
            raise TraceError(f"{place}.#meta.action: {action[:60]!r} is not an action of the model")
        args = meta.get("args", {})
        if not isinstance(args, dict):
            raise TraceError(f"{place}.#meta.args: must be an object, not {_kind(args)}")
        for k, v in args.items():
            if not isinstance(v, (str, bool, int)):
                raise TraceError(f"{place}.#meta.args.{k}: must be a string, a boolean or an integer, not {_kind(v)}")
    for var in VARS:
        problem = value_problem(state[var])
        if problem:
            where, what = problem
            raise TraceError(f"{place}.{var}{where}: {what}")


def value_problem(v, where: str = "") -> tuple[str, str] | None:
    """(where, what) of the first value of `v` that is not an ITF value this tool writes: a boolean,
    a string, an integer (`#bigint`, or a plain JSON integer), an array, a `#tup`, a `#set`, a `#map`
    of [key, value] pairs, or a record (an object without `#` members); else None. `#unserializable`
    and plain numbers other than integers are refused: no model state holds one."""
    if isinstance(v, (bool, str, int)):
        return None
    if isinstance(v, list):
        for i, x in enumerate(v):
            got = value_problem(x, f"{where}[{i}]")
            if got:
                return got
        return None
    if not isinstance(v, dict):
        return where, f"{_kind(v)} is not an ITF value"
    tags = [k for k in v if k.startswith("#")]
    if not tags:
        for k, x in v.items():
            got = value_problem(x, f"{where}.{k}")
            if got:
                return got
        return None
    if len(v) != 1 or tags[0] not in TAGS:
        return where, f"{', '.join(sorted(v))[:60]} is not an ITF value ({', '.join(TAGS)} or a record)"
    tag, body = tags[0], v[tags[0]]
    if tag == "#bigint":
        return None if isinstance(body, str) and BIGINT.fullmatch(body) else \
            (where, f"#bigint holds {_kind(body)} {json.dumps(body)[:30]}, not a string of digits")
    if not isinstance(body, list):
        return where, f"{tag} holds {_kind(body)}, not an array"
    for i, x in enumerate(body):
        if tag == "#map":
            if not (isinstance(x, list) and len(x) == 2):
                return f"{where}#map[{i}]", "a #map entry is a [key, value] pair"
            got = value_problem(x[0], f"{where}#map[{i}][0]") or value_problem(x[1], f"{where}[{json.dumps(x[0])[:40]}]")
        else:
            got = value_problem(x, f"{where}{tag}[{i}]")
        if got:
            return got
    return None
