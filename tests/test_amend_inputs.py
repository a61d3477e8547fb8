"""What an amendment declares is checked before any exploration: one line naming the file and line.

Parameters (types, ranges, the P-... choices, the instance's tenants, subjects, clients, servers),
extra lifecycle steps, expectations, kind, the variant's name (it names a folder), how rules are
overridden, and what the file's own code does at import (SystemExit included) or its encoding.
"""
import re

import pytest

from model.amend import AmendmentError, load_file, params_problems
from model.params import Params, Subject
from verifier.cli import main
from verifier.runtime.amendments import load_checked
from verifier.runtime.exitcodes import EXIT_USAGE

HEAD = "from model.amend import Amendment\n\n\nclass A(Amendment):\n    name = 'my-a'\n"


def refused(tmp_path, body: str, head: str = HEAD) -> str:
    path = tmp_path / "amend.py"
    path.write_text(head + body, encoding="utf-8")
    with pytest.raises(AmendmentError) as e:
        load_checked(str(path))
    return str(e.value)


# ---- params ------------------------------------------------------------------------------------
@pytest.mark.parametrize("params, fragment", [
    ("{'max_runs': '3'}", "max_runs '3' must be an integer >= 1"),
    ("{'max_runs': True}", "max_runs True must be an integer >= 1"),
    ("{'max_requests': 0}", "max_requests 0 must be an integer >= 1"),
    ("{'retention': -1}", "retention -1 must be an integer >= 0"),
    ("{'max_effects': -2}", "max_effects -2 must be an integer >= 0"),
    ("{'tick_ms': 0}", "tick_ms 0 must be an integer >= 1"),
    ("{'harness_max_attempts': 0}", "harness_max_attempts 0 must be an integer >= 1"),
    ("{'mint_tasked_len': 3}", "mint_tasked_len 3 must be an integer from 8 to 128"),
    ("{'mint_other_len': 500}", "mint_other_len 500 must be an integer from 8 to 128"),
    ("{'p_approver': 'silence'}", "p_approver 'silence' is not one of ack, error"),
    ("{'p_unauthorized': '403'}", "p_unauthorized '403' is not one of ack, error"),
    ("{'p_keyform': 'projected'}", "p_keyform 'projected' is not one of raw, raw-or-projected"),
    ("{'p_retention': 'never'}", "p_retention 'never' is not one of from-terminal, from-creation"),
    ("{'p_stdio_eof': 'cancel-all'}", "p_stdio_eof 'cancel-all' is not one of cancel-open, nothing"),
    ("{'p_elicit': 'never'}", "p_elicit 'never' is not one of creating-request, each-get"),
    ("{'tenants': ()}", "tenants must be a non-empty tuple"),
    ("{'tenants': ('acme',)}", "subject 'mallory' is in tenant 'beta', which is not among the tenants"),
    ("{'subjects': ()}", "subjects must be a non-empty tuple"),
    ("{'clients': ()}", "clients must be a non-empty tuple"),
    ("{'clients': ('C1', 'C1')}", "clients must be distinct"),
    ("{'servers': (('S1', 'yes'),)}", "servers must be a non-empty tuple of (name, serves Tasks: bool) pairs"),
    ("{'servers': 'S1'}", "servers must be a non-empty tuple"),
    ("{'harness_clients': (('H1', 'zoe'),)}", "harness client 'H1' speaks for 'zoe', which is not a subject"),
    ("{'retension': 3}", "'retension' is not a model parameter"),
    ("[('retention', 3)]", "`params` must be a dict"),
])
def test_bad_params_are_refused_at_their_line(tmp_path, params, fragment):
    msg = refused(tmp_path, f"    changes = 'x'\n    params = {params}\n")
    assert msg.startswith("amend.py:7: "), msg          # the line of `params =`
    assert fragment in msg, msg


def test_params_problems_is_empty_for_the_defaults_and_lists_every_problem():
    assert params_problems(Params()) == []
    bad = Params().with_(retention=-1, p_approver="maybe", subjects=(Subject("zed", "nowhere", frozenset()),))
    assert params_problems(bad) == [
        "p_approver 'maybe' is not one of ack, error", "retention -1 must be an integer >= 0",
        "subject 'zed' is in tenant 'nowhere', which is not among the tenants",
        "harness client 'H1' speaks for 'alice', which is not a subject",
        "harness client 'H2' speaks for 'bob', which is not a subject"]


# ---- lifecycle, expectations, kind ----------------------------------------------------------------
@pytest.mark.parametrize("body, fragment", [
    ("    lifecycle_extra = ({'trigger': 'complete', 'source': ['cancelling'], 'dest': 'done'},)\n",
     "'done' is not a run status"),
    ("    lifecycle_extra = ({'trigger': 'explode', 'source': ['running'], 'dest': 'failed'},)\n",
     "trigger 'explode' is not one of"),
    ("    lifecycle_extra = ({'trigger': 'complete', 'source': 'cancelling', 'dest': 'completed'},)\n",
     "must be a non-empty list of statuses"),
    ("    lifecycle_extra = ({'trigger': 'complete', 'dest': 'completed'},)\n", "is not a {'trigger', 'source', 'dest'}"),
    ("    expect = {'OWN-99': 'refuted'}\n", "'OWN-99' is not a requirement id"),
    ("    expect = {'OWN-2': 'broken'}\n", "expectation 'broken' for OWN-2 is not one of"),
    ("    expect = {'CRT-2': 'refuted'}\n", "CRT-2 is a W id: it can be expected reached or unreached"),
    ("    expect = {'ID-G4': 'refuted'}\n", "ID-G4 is a G id"),
    ("    expect = ['OWN-2']\n", "`expect` must be a dict"),
    ("    kind = 'wish'\n", "kind 'wish' is not one of"),
    ("    harness_rules = object\n", "`harness_rules` must be a subclass of model.harness.HarnessRules"),
])
def test_bad_declarations_are_refused_at_their_line(tmp_path, body, fragment):
    msg = refused(tmp_path, body)
    assert msg.startswith("amend.py:6: ") and fragment in msg, msg


# ---- the name: a folder, never a path ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["", "../escape", "a/b", "..", ".hidden", "x" * 101, "baseline", "a b", "détaché"])
def test_unsafe_names_are_refused(tmp_path, name):
    msg = refused(tmp_path, "", head=f"from model.amend import Amendment\n\n\nclass A(Amendment):\n    name = {name!r}\n")
    assert re.match(r"amend\.py:\d+: ", msg), msg
    assert "no `name`" in msg if not name else "is not a variant name" in msg


def test_a_builtin_name_is_refused_for_an_authors_file(tmp_path):
    msg = refused(tmp_path, "", head="from model.amend import Amendment\n\n\nclass A(Amendment):\n"
                                     "    name = 'detach-on-disconnect'\n")
    assert msg == "amend.py:5: name 'detach-on-disconnect' is a built-in variant's; choose another"


# ---- rule overrides must be plain methods -----------------------------------------------------------
@pytest.mark.parametrize("body, line, what", [
    ("    @staticmethod\n    def on_request_cancelled(world, q, cause):\n        return None\n", 6, "staticmethod"),
    ("    @classmethod\n    def on_request_cancelled(cls, world, q, cause):\n        return None\n", 6, "classmethod"),
    ("    @property\n    def can_read(self):\n        return True\n", 6, "property"),
    ("    on_request_cancelled = None\n", 6, "a NoneType constant"),
    ("    can_read = lambda self, world, subject, run: True\n", None, None),
])
def test_rule_overrides_that_are_not_plain_methods(tmp_path, body, line, what):
    path = tmp_path / "amend.py"
    path.write_text(HEAD + body, encoding="utf-8")
    if what is None:            # a lambda is a plain function with the rule's parameters
        assert load_file(str(path)).name == "my-a"
        return
    with pytest.raises(AmendmentError) as e:
        load_file(str(path))
    msg = str(e.value)
    assert msg.startswith(f"amend.py:{line}: rule ") and msg.endswith(f"`, not {what}"), msg
    assert "must be a plain method `def " in msg and "(self, world, " in msg, msg


@pytest.mark.parametrize("rule, what", [
    ("    async def can_read(self, world, subject, run):\n        return True\n", "not an async def"),
    ("    def can_read(self, world, subject, run):\n        yield True\n", "not a generator (it yields)"),
    ("    async def can_read(self, world, subject, run):\n        yield True\n", "not an async generator"),
    ("    def after_step(self, world):\n        yield from ()\n", "not a generator (it yields)"),
])
def test_a_rule_that_never_runs_when_called_is_refused(tmp_path, rule, what):
    """Called, an async or generator rule returns a coroutine or a generator: the model would act on
    that object, and every verdict would be about a rule that never ran."""
    msg = refused(tmp_path, rule)
    assert msg.startswith("amend.py:6: rule ") and msg.endswith(what), msg


@pytest.mark.parametrize("signature, shown", [
    ("self, world, subject, *run", "(self, world, subject, *run)"),
    ("self, world, subject, run, **kw", "(self, world, subject, run, **kw)"),
    ("self, world, run", "(self, world, run)"),
    ("self, world, subject, *, run", "(self, world, subject, *, run)"),
])
def test_a_rule_with_another_signature_is_refused(tmp_path, signature, shown):
    msg = refused(tmp_path, f"    def can_read({signature}):\n        return True\n")
    assert msg == f"amend.py:6: rule 'can_read' takes (self, world, subject, run), not {shown}", msg


def test_a_harness_rule_is_checked_as_a_host_rule_is(tmp_path):
    head = ("from model.amend import Amendment\nfrom model.harness import HarnessRules\n\n\n"
            "class H(HarnessRules):\n    async def tasks_offered(self, world, client, server):\n        return True\n\n\n"
            "class A(Amendment):\n    name = 'my-a'\n    harness_rules = H\n")
    msg = refused(tmp_path, "", head=head)
    assert msg.startswith("amend.py:6: rule 'tasks_offered' must be a plain method") and "async def" in msg, msg


def test_a_public_staticmethod_that_is_no_rule_is_refused(tmp_path):
    msg = refused(tmp_path, "    @staticmethod\n    def helper():\n        return 1\n")
    assert msg.startswith("amend.py:6: 'helper' is not a rule"), msg


# ---- the file itself: import-time exits, encodings --------------------------------------------------------
@pytest.mark.parametrize("stmt", ["raise SystemExit(5)", "raise KeyboardInterrupt", "raise GeneratorExit('x')",
                                  "import sys; sys.exit('bye')", "raise ValueError('nope')"])
def test_import_time_exits_are_one_line_and_exit_3(tmp_path, capsys, stmt):
    path = tmp_path / "amend.py"
    path.write_text(f"from model.amend import Amendment\n\n{stmt}\n", encoding="utf-8")
    code = main(["check", "--variant", str(path), "--budget", "1"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("taskmodel: amend.py:3: "), err


def test_source_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + (HEAD + "    changes = 'café'\n").encode("utf-8"))
    cls = load_file(str(path))
    assert cls.name == "my-a" and cls.changes == "café"


def test_undecodable_source_is_one_line_naming_the_file(tmp_path, capsys):
    path = tmp_path / "latin.py"
    path.write_bytes(HEAD.encode() + b"    changes = 'caf\xe9'\n")
    code = main(["check", "--variant", str(path), "--budget", "1"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert err.strip() == f"taskmodel: latin.py: not UTF-8 text (byte 0xe9 at offset {len(HEAD) + 18})", err


def test_a_bom_file_reports_the_right_line(tmp_path):
    path = tmp_path / "amend.py"
    path.write_bytes(b"\xef\xbb\xbf" + (HEAD + "    params = {'retention': -1}\n").encode())
    with pytest.raises(AmendmentError, match=r"^amend\.py:6: params: retention -1"):
        load_file(str(path))


def test_a_builtin_named_by_its_own_file_is_that_builtin():
    from model.variants import builtins
    assert load_file("model/variants/keep_uq4.py") is builtins()["keep-uq4"]
