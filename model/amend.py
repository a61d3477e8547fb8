"""The amendment API: a variant of the model is a `Rules` subclass that replaces named rules.

A spec author writes a small Python file:

    from model.amend import Amendment

    class GraceWindow(Amendment):
        name = "my-grace-window"
        changes = "an MRTR retry's disconnect cancels the run only after a grace period"
        expect = {"OWN-2": "refuted"}

        def on_request_cancelled(self, world, q, cause):
            ...

and runs `taskmodel check --variant path/to/file.py[:GraceWindow]`. Overriding a name that is not a
rule, or a rule with other parameters, is refused with the file and line.
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import fields
from pathlib import Path

from .params import Params
from .rules import Rules

KINDS = ("rejected-alternative", "open-question", "negative-example", "map-sabotage", "mutant",
         "client-mutant", "strengthening", "amendment")
EXPECTATIONS = ("refuted", "unreached", "holds", "reached")


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

    @classmethod
    def make_params(cls, base: Params | None = None) -> Params:
        return (base or Params()).with_(**cls.params)


def _where(obj) -> str:
    try:
        return f"{Path(inspect.getsourcefile(obj)).name}:{inspect.getsourcelines(obj)[1]}"
    except (OSError, TypeError):
        return getattr(obj, "__qualname__", "?")


def validate(cls: type, catalogue_ids: set[str] | None = None) -> None:
    """Refuse unknown rule names, changed signatures, unknown parameters and expectations."""
    rules = rule_names()
    if not cls.name:
        raise AmendmentError(f"{_where(cls)}: amendment {cls.__name__} has no `name`")
    for attr, value in vars(cls).items():
        if attr.startswith("_") or not inspect.isfunction(value):
            continue
        if attr not in rules:
            raise AmendmentError(f"{_where(value)}: {attr!r} is not a rule of the model "
                                 f"(see `taskmodel rules`)")
        want = list(rules[attr].parameters)
        got = list(inspect.signature(value).parameters)
        if got != want:
            raise AmendmentError(f"{_where(value)}: rule {attr!r} takes ({', '.join(want)}), not ({', '.join(got)})")
    known = {f.name for f in fields(Params)}
    for key in cls.params:
        if key not in known:
            raise AmendmentError(f"{_where(cls)}: {key!r} is not a model parameter")
    for rid, verdict in cls.expect.items():
        if verdict not in EXPECTATIONS:
            raise AmendmentError(f"{_where(cls)}: expectation {verdict!r} for {rid} is not one of {EXPECTATIONS}")
        if catalogue_ids is not None and rid not in catalogue_ids:
            raise AmendmentError(f"{_where(cls)}: {rid!r} is not a requirement id of the catalogue")


def load_file(spec: str) -> type:
    """`path.py` or `path.py:ClassName` -> the amendment class, validated."""
    path_text, _, cls_name = spec.partition(":") if not Path(spec).exists() else (spec, "", "")
    path = Path(path_text)
    if not path.is_file():
        raise AmendmentError(f"{path_text}: no such amendment file")
    text = path.read_text(encoding="utf-8")
    try:
        code = compile(text, str(path), "exec")
    except SyntaxError as e:
        raise AmendmentError(f"{path.name}:{e.lineno}: syntax error: {e.msg}") from None
    mod_name = f"amendment_{abs(hash(str(path.resolve())))}"
    module = type(sys)(mod_name)
    module.__file__ = str(path)
    sys.modules[mod_name] = module
    try:
        exec(code, module.__dict__)
    except Exception as e:  # an amendment's own import-time error, reported with its line
        tb = e.__traceback__
        line = "?"
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(path):
                line = tb.tb_lineno
            tb = tb.tb_next
        raise AmendmentError(f"{path.name}:{line}: {type(e).__name__}: {e}") from None
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
    validate(found[0])
    return found[0]
