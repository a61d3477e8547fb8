"""The amendment API: a variant of the model is a `Rules` subclass that replaces named rules.

A spec author writes a small Python file:

    from model.amend import Amendment

    class GraceWindow(Amendment):
        name = "my-grace-window"
        changes = "an MRTR retry's disconnect cancels the run only after a grace period"
        expect = {"OWN-2": "refuted"}

        def on_request_cancelled(self, world, q, cause):
            ...

and runs `taskmodel check --variant path/to/file.py[:GraceWindow]`. Everything the class declares
(rules, parameters, lifecycle steps, expectations, its name) is checked before any exploration;
a mistake is refused with the file and line.
"""
from __future__ import annotations

import ast
import hashlib
import inspect
import re
import sys
from dataclasses import fields
from pathlib import Path

from .lifecycle import RUN_STATUSES, RUN_TRANSITIONS
from .params import Params, Subject
from .rules import Rules

KINDS = ("rejected-alternative", "open-question", "negative-example", "map-sabotage", "mutant",
         "client-mutant", "strengthening", "amendment")
EXPECTATIONS = ("refuted", "unreached", "holds", "reached")
# The expectations a requirement of each kind can meet: a witness is never refuted, a gap never
# "refuted" either (it shows as known-gap, or holds once a strengthening closes it).
EXPECTABLE = {"S": ("refuted", "holds"), "T": ("refuted", "holds"), "L": ("refuted", "holds"),
              "W": ("reached", "unreached"), "G": ("holds",)}

# The values each P-... parameter may take (model/params.py, requirements.md).
CHOICES = {
    "p_approver": ("ack", "error"), "p_unauthorized": ("ack", "error"), "p_keyform": ("raw", "raw-or-projected"),
    "p_retention": ("from-terminal", "from-creation"), "p_stdio_eof": ("cancel-open", "nothing"),
    "p_elicit": ("creating-request", "each-get"), "harness_wait": ("either", "poll", "listen"),
}
# Integer parameters and their least sensible value: a model with no request or run explores nothing.
MINIMUM = {"max_requests": 1, "max_runs": 1, "max_effects": 0, "max_time": 0, "retention": 0, "tick_ms": 1,
           "harness_max_runs": 0, "harness_max_requests": 0, "harness_max_crashes": 0, "harness_max_attempts": 1}
# P-MINT: the identity grammar allows at most 128 characters; below 8 the model's deterministic
# minting may repeat an id within one exploration.
MINT_RANGE = (8, 128)
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
RUN_TRIGGERS = tuple(dict.fromkeys(t["trigger"] for t in RUN_TRANSITIONS))


class AmendmentError(Exception):
    """A malformed amendment: the message names the file and line."""


def rule_names() -> dict[str, inspect.Signature]:
    """Every rule an amendment may replace, with the signature it must keep."""
    return {n: inspect.signature(f) for n, f in inspect.getmembers(Rules, inspect.isfunction) if not n.startswith("_")}


class Amendment(Rules):
    name: str = ""
    changes: str = ""
    kind: str = "amendment"
    expect: dict[str, str] = {}     # requirement id -> refuted | unreached | holds (gaps a strengthening closes)
    params: dict = {}               # Params fields to change (the P-... parameters and sizes)
    harness_rules = None            # a HarnessRules subclass, for client-side amendments
    source: str = ""                # the RFC clause or row this variant comes from
    _origin: tuple[Path, str] | None = None     # (file, sha256) of an author's file, set by load_file

    @classmethod
    def make_params(cls, base: Params | None = None) -> Params:
        return (base or Params()).with_(**cls.params)


def origin(cls) -> tuple[Path, str] | None:
    """The file an author's amendment was loaded from and the sha256 of its bytes; None for a built-in."""
    return vars(cls).get("_origin")


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ---- where a mistake is -----------------------------------------------------------------------------
def _where(obj, attr: str | None = None) -> str:
    """`file:line` of a function or class; with `attr`, the line that assigns it in the class body."""
    try:
        file = inspect.getsourcefile(obj)
        line = inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return getattr(obj, "__qualname__", "?")
    if attr is not None:
        line = _assignment_line(Path(file), obj.__name__, line, attr) or line
    return f"{Path(file).name}:{line}"


def _assignment_line(file: Path, cls_name: str, cls_line: int, attr: str) -> int | None:
    try:
        tree = ast.parse(file.read_text(encoding="utf-8-sig"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls_name and \
                cls_line in (node.lineno, *(d.lineno for d in node.decorator_list)):
            for stmt in node.body:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                    [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
                if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                    return stmt.lineno
    return None


# ---- what an amendment declares -----------------------------------------------------------------
def params_problems(params: Params) -> list[str]:
    """Every value of `params` the model cannot run with (types, ranges, the P-... choices)."""
    out = []
    for key, allowed in CHOICES.items():
        if getattr(params, key) not in allowed:
            out.append(f"{key} {getattr(params, key)!r} is not one of {', '.join(allowed)}")
    for key, least in MINIMUM.items():
        value = getattr(params, key)
        if not _is_int(value) or value < least:
            out.append(f"{key} {value!r} must be an integer >= {least}")
    for key in ("mint_tasked_len", "mint_other_len"):
        value = getattr(params, key)
        if not _is_int(value) or not MINT_RANGE[0] <= value <= MINT_RANGE[1]:
            out.append(f"{key} {value!r} must be an integer from {MINT_RANGE[0]} to {MINT_RANGE[1]}")
    if not _is_int(params.http_error_status) or not 100 <= params.http_error_status <= 599:
        out.append(f"http_error_status {params.http_error_status!r} must be an HTTP status from 100 to 599")
    if params.ttl_live_ticks is not None and (not _is_int(params.ttl_live_ticks) or params.ttl_live_ticks < 0):
        out.append(f"ttl_live_ticks {params.ttl_live_ticks!r} must be None or an integer >= 0")
    for key in ("stdio", "http_disconnects", "harness_short_ops", "harness_long_ops", "harness_other_ops",
                "harness_cancels"):
        if not isinstance(getattr(params, key), bool):
            out.append(f"{key} {getattr(params, key)!r} must be True or False")
    tenants = _names(params.tenants, "tenants", out)
    clients = _names(params.clients, "clients", out)
    subjects = params.subjects
    if not isinstance(subjects, tuple) or not subjects or not all(isinstance(s, Subject) for s in subjects):
        out.append("subjects must be a non-empty tuple of model.params.Subject")
        subjects = ()
    for s in subjects:
        if s.tenant not in tenants:
            out.append(f"subject {s.name!r} is in tenant {s.tenant!r}, which is not among the tenants")
        if not isinstance(s.scopes, frozenset) or not all(isinstance(x, str) for x in s.scopes):
            out.append(f"subject {s.name!r}: scopes must be a frozenset of strings")
    if len({s.name for s in subjects}) != len(subjects):
        out.append("subjects must have distinct names")
    servers = params.servers
    if not isinstance(servers, tuple) or not servers or not all(
            isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0] and isinstance(x[1], bool)
            for x in servers):
        out.append("servers must be a non-empty tuple of (name, serves Tasks: bool) pairs")
    elif len({x[0] for x in servers}) != len(servers):
        out.append("servers must have distinct names")
    harness = params.harness_clients
    if not isinstance(harness, tuple) or not all(isinstance(x, tuple) and len(x) == 2 for x in harness):
        out.append("harness_clients must be a tuple of (client, subject) pairs")
    else:
        for client, subject in harness:
            if subject not in {s.name for s in subjects}:
                out.append(f"harness client {client!r} speaks for {subject!r}, which is not a subject")
            if client in clients:
                out.append(f"harness client {client!r} is also a plain client")
    return out


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _names(value, what: str, out: list[str]) -> tuple:
    if not isinstance(value, tuple) or not value or not all(isinstance(x, str) and x for x in value):
        out.append(f"{what} must be a non-empty tuple of non-empty names")
        return ()
    if len(set(value)) != len(value):
        out.append(f"{what} must be distinct")
    return value


def _params_problem(cls) -> str | None:
    if not isinstance(cls.params, dict):
        return "`params` must be a dict of model parameters"
    known = {f.name for f in fields(Params)}
    for key in cls.params:
        if key not in known:
            return f"{key!r} is not a model parameter"
    try:
        problems = params_problems(cls.make_params())
    except (TypeError, AttributeError, ValueError) as e:
        return f"params: {e}"
    return f"params: {problems[0]}" if problems else None


def _lifecycle_problem(extra) -> str | None:
    if not isinstance(extra, (tuple, list)):
        return "`lifecycle_extra` must be a tuple of transitions"
    for t in extra:
        if not isinstance(t, dict) or set(t) != {"trigger", "source", "dest"}:
            return f"lifecycle_extra: {t!r} is not a {{'trigger', 'source', 'dest'}} transition"
        if t["trigger"] not in RUN_TRIGGERS:
            return f"lifecycle_extra: trigger {t['trigger']!r} is not one of {', '.join(RUN_TRIGGERS)}"
        if not isinstance(t["source"], (list, tuple)) or not t["source"]:
            return f"lifecycle_extra: the source of {t['trigger']!r} must be a non-empty list of statuses"
        for status in (*t["source"], t["dest"]):
            if status not in RUN_STATUSES:
                return f"lifecycle_extra: {status!r} is not a run status ({', '.join(RUN_STATUSES)})"
    return None


def _expect_problem(expect, ids: dict[str, str] | None) -> str | None:
    """What is wrong with `expect`: its shape always; with `ids` (requirement id -> kind, from the
    catalogue, which the verifier passes) also the ids it names and what each kind can meet."""
    if not isinstance(expect, dict):
        return "`expect` must be a dict {requirement id: verdict}"
    for rid, verdict in expect.items():
        if verdict not in EXPECTATIONS:
            return f"expectation {verdict!r} for {rid} is not one of {EXPECTATIONS}"
        if ids is None:
            continue
        if rid not in ids:
            return f"{rid!r} is not a requirement id of the catalogue"
        if ids[rid] and verdict not in EXPECTABLE[ids[rid]]:
            return (f"{rid} is a {ids[rid]} id: it can be expected {' or '.join(EXPECTABLE[ids[rid]])}, "
                    f"never {verdict!r}")
    return None


def expect_problem(cls, ids: dict[str, str]) -> str | None:
    """An amendment's `expect` judged against the catalogue's ids (id -> kind), with its file and
    line; None when it is sound. The model knows no catalogue: the verifier asks this where it loads
    an amendment."""
    problem = _expect_problem(cls.expect, ids)
    return f"{_where(cls, 'expect')}: {problem}" if problem else None


def _rule_problem(cls, rules: dict) -> str | None:
    for attr, value in vars(cls).items():
        if attr.startswith("_"):
            continue
        wrapped = isinstance(value, (staticmethod, classmethod, property))
        if attr in rules and not inspect.isfunction(value):
            what = type(value).__name__ if wrapped else f"a {type(value).__name__} constant"
            inner = getattr(value, "__func__", None) or getattr(value, "fget", None)
            where = _where(inner) if inspect.isfunction(inner) else _where(cls, attr)
            params = ", ".join(rules[attr].parameters)
            return f"{where}: rule {attr!r} must be a plain method `def {attr}({params})`, not {what}"
        if not (inspect.isfunction(value) or wrapped):
            continue
        func = value if inspect.isfunction(value) else getattr(value, "__func__", None) or value.fget
        if attr not in rules:
            return f"{_where(func)}: {attr!r} is not a rule of the model (see `taskmodel rules`)"
        want, got = rules[attr].parameters.values(), inspect.signature(value)
        if [(p.name, p.kind) for p in got.parameters.values()] != [(p.name, p.kind) for p in want]:
            return f"{_where(value)}: rule {attr!r} takes ({', '.join(p.name for p in want)}), not {got}"
        # Called, such a rule returns a coroutine or a generator, never its answer: the model would
        # act on that object and the verdicts would be about a rule that never ran.
        inner = inspect.unwrap(value)
        for test, what in ((inspect.iscoroutinefunction, "an async def"),
                           (inspect.isasyncgenfunction, "an async generator"),
                           (inspect.isgeneratorfunction, "a generator (it yields)")):
            if test(inner):
                return f"{_where(value)}: rule {attr!r} must be a plain method that returns its answer, not {what}"
    return None


def validate(cls: type, catalogue_ids: dict[str, str] | None = None) -> None:
    """Refuse, with file and line, anything an amendment declares that the model cannot run or the
    gate cannot judge. `catalogue_ids` (requirement id -> kind) are the ids `expect` may name; without
    them only its shape is checked (`expect_problem` judges the ids where the verifier loads it)."""
    name = cls.name
    if not name:
        raise AmendmentError(f"{_where(cls)}: amendment {cls.__name__} has no `name`")
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name) or name == "baseline":
        raise AmendmentError(f"{_where(cls, 'name')}: name {name!r} is not a variant name "
                             f"(letters, digits, '-', '_', '.'; not 'baseline'; it names a folder, never a path)")
    if cls.kind not in KINDS:
        raise AmendmentError(f"{_where(cls, 'kind')}: kind {cls.kind!r} is not one of {', '.join(KINDS)}")
    for attr in ("changes", "source"):
        if not isinstance(getattr(cls, attr), str):
            raise AmendmentError(f"{_where(cls, attr)}: `{attr}` must be a string")
    problem = _rule_problem(cls, rule_names())
    if problem:
        raise AmendmentError(problem)
    for attr, check in (("params", lambda: _params_problem(cls)),
                        ("lifecycle_extra", lambda: _lifecycle_problem(cls.lifecycle_extra)),
                        ("expect", lambda: _expect_problem(cls.expect, catalogue_ids)),
                        ("harness_rules", lambda: _harness_problem(cls.harness_rules))):
        problem = check()
        if problem:
            raise AmendmentError(f"{_where(cls, attr)}: {problem}")
    problem = _harness_rule_problem(cls.harness_rules)
    if problem:
        raise AmendmentError(problem)


def _harness_problem(harness_rules) -> str | None:
    from .harness import HarnessRules
    if harness_rules is None or (inspect.isclass(harness_rules) and issubclass(harness_rules, HarnessRules)):
        return None
    return "`harness_rules` must be a subclass of model.harness.HarnessRules"


def _harness_rule_problem(harness_rules) -> str | None:
    """The harness's rules are overridden as the host's are: plain methods with the baseline's signature."""
    from .harness import HarnessRules
    if harness_rules is None:
        return None
    rules = {n: inspect.signature(f) for n, f in inspect.getmembers(HarnessRules, inspect.isfunction)
             if not n.startswith("_")}
    for cls in harness_rules.__mro__:
        if cls is HarnessRules:
            break
        problem = _rule_problem(cls, rules)
        if problem:
            return problem
    return None


# ---- an author's file ---------------------------------------------------------------------------
def load_file(spec: str) -> type:
    """`path.py` or `path.py:ClassName` -> the amendment class, validated; its file and hash recorded."""
    path_text, _, cls_name = spec.partition(":") if not Path(spec).exists() else (spec, "", "")
    path = Path(path_text)
    if not path.is_file():
        raise AmendmentError(f"{path_text}: no such amendment file")
    from .variants import builtins
    table = builtins()
    for builtin in table.values():       # a built-in named by its file is that built-in
        if Path(inspect.getsourcefile(builtin)).resolve() == path.resolve() and cls_name in ("", builtin.__name__):
            return builtin
    try:
        data = path.read_bytes()
        text = data.decode("utf-8-sig")
    except OSError as e:
        raise AmendmentError(f"{path.name}: cannot be read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise AmendmentError(f"{path.name}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    try:
        code = compile(text, str(path), "exec")
    except SyntaxError as e:
        raise AmendmentError(f"{path.name}:{e.lineno}: syntax error: {e.msg}") from None
    except ValueError as e:     # e.g. a NUL byte in the source
        raise AmendmentError(f"{path.name}: not Python source ({e})") from None
    digest = hashlib.sha256(data).hexdigest()
    mod_name = f"amendment_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]}"
    module = type(sys)(mod_name)
    module.__file__ = str(path)
    sys.modules[mod_name] = module
    try:
        exec(code, module.__dict__)
    except BaseException as e:  # noqa: B036 -- SystemExit, KeyboardInterrupt and the rest: the file's own doing
        raise AmendmentError(f"{path.name}:{_raising_line(e, path)}: {type(e).__name__}: {_text(e)}") from None
    found = [v for v in vars(module).values()
             if inspect.isclass(v) and issubclass(v, Amendment) and v is not Amendment and v.__module__ == mod_name]
    if cls_name:
        found = [v for v in found if v.__name__ == cls_name]
        if not found:
            raise AmendmentError(f"{path.name}: no amendment class {cls_name!r}")
    if not found:
        raise AmendmentError(f"{path.name}: defines no subclass of model.amend.Amendment")
    if len(found) > 1:
        names = ", ".join(v.__name__ for v in found)
        raise AmendmentError(f"{path.name}: several amendments ({names}); name one as {path.name}:Name")
    cls = found[0]
    validate(cls)
    if cls.name in table:
        raise AmendmentError(f"{_where(cls, 'name')}: name {cls.name!r} is a built-in variant's; choose another")
    cls._origin = (path, digest)
    return cls


def _text(e: BaseException) -> str:
    """The message of an exception the file raised: its own `__str__` may raise too."""
    try:
        return str(e)
    except Exception as inner:  # noqa: BLE001 -- whatever the file's __str__ raises, it is the file's doing
        return f"(its message could not be made: {type(inner).__name__})"


def _raising_line(e: BaseException, path: Path):
    tb, line = e.__traceback__, "?"
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == str(path):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
