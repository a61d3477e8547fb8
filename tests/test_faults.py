"""A rule (or any model code) that raises is a fault: exit 4 with the amendment's file and line, the
exception in one line and the steps that led to it; never a refutation, never a traceback."""
import json

import pytest

from properties.base import Property
from verifier.cli import main
from verifier.engines.random.explore import explore
from verifier.runtime.worlds import world_factory
from verifier.runtime.faults import Fault, locate, one_line

HEAD = "import sys\nfrom model.amend import Amendment\n\n\nclass A(Amendment):\n    name = 'a'\n"


def _check(capsys, tmp_path, monkeypatch, body, *extra):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(HEAD + body)
    code = main(["check", "--variant", "a.py", "--engine", "hypothesis", "--examples", "50", *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("body, error", [
    ("    def can_cancel(self, world, subject, run):\n        raise KeyError('boom')\n", "KeyError: 'boom'"),
    ("    def can_read(self, world, subject, run):\n        sys.exit(0)\n", "SystemExit: 0"),
    ("    def status_message(self, world, run):\n        return next(iter(()))\n", "StopIteration"),
])
def test_a_rule_that_raises_is_a_fault_with_file_line_and_steps(capsys, tmp_path, monkeypatch, body, error):
    code, out, err = _check(capsys, tmp_path, monkeypatch, body, "--json")
    assert code == 4, err
    data = json.loads(out)
    (fault,) = data["results"][0]["faults"]
    assert fault["where"] == "a.py:8" and fault["error"].startswith(error)
    assert fault["steps"] and fault["length"] == len(fault["steps"])
    assert not any(p["verdict"] == "refuted" for p in data["results"][0]["properties"])
    assert "Traceback" not in out + err


def test_the_table_names_the_fault_and_debug_shows_the_traceback(capsys, tmp_path, monkeypatch):
    body = "    def can_cancel(self, world, subject, run):\n        raise KeyError('boom')\n"
    code, out, err = _check(capsys, tmp_path, monkeypatch, body)
    assert code == 4 and "fault at a.py:8: KeyError: 'boom'" in out and "Traceback" not in out + err
    code, out, _ = _check(capsys, tmp_path, monkeypatch, body, "--debug")
    assert code == 4 and "Traceback" in out


def test_a_refutation_found_before_a_fault_is_kept():
    """A planted invariant refuted within three steps; the amendment's rule raises only in the
    fair drain (no eligible approver can be judged). The refutation stays, the fault is beside it."""
    from model.amend import Amendment

    class DrainRaises(Amendment):
        name = "drain-raises"

        def eligible_approver(self, world, subject, interrupt):
            if world.step is None:          # asked outside any step: only the drain does
                return next(iter(()))
            return super().eligible_approver(world, subject, interrupt)

    def no_completion(world, step):
        done = [r.label for r in world.runs.values() if r.status == "completed"]
        return f"{done[0]} completed" if done else None

    live = Property("answered", ("LIV-X",), "liveness", "test", "planted", lambda w, s: None)
    inv = Property("never-completes", ("TEST-1",), "invariant", "test", "planted", no_completion)
    r = explore(DrainRaises, budget=20, seed=1, props=[inv, live], chunks=3)
    assert r.by_name()["never-completes"].verdict == "refuted"
    assert all(f.where.startswith("tests/test_faults.py:") and "StopIteration" in f.error for f in r.faults)


def test_a_check_that_raises_is_a_fault_not_a_refutation():
    def broken(world, step):
        return world.runs["no-such-run"].status

    p = Property("broken", ("TEST-1",), "invariant", "test", "planted", broken)
    r = explore(None, budget=10, props=[p], chunks=1)
    assert r.by_name()["broken"].verdict == "undetermined"
    (f,) = r.faults
    assert f.action == "the check of broken" and f.error.startswith("KeyError") and f.where.startswith("tests/")
    assert len(f.history) == 1                     # shrunk by replay to the first step that checks it


def test_faults_are_shrunk_by_replay():
    from model.amend import Amendment

    class LateRaise(Amendment):
        name = "late-raise"

        def cancel_run(self, world, run, reason, cause):
            raise RuntimeError("cancel")

    r = explore(LateRaise, budget=20, seed=0, chunks=2)
    (f,) = r.faults
    assert f.error == "RuntimeError: cancel" and f.where.startswith("tests/test_faults.py:")
    assert len(f.history) <= 4, f.history


def test_locate_prefers_the_amendment_over_the_model():
    from model.amend import Amendment

    class CallsSuper(Amendment):
        name = "calls-super"

        def task_id(self, world, run):
            return super().task_id(world, None)      # the baseline then fails on None

    world = world_factory(CallsSuper)()
    world.apply("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow"))
    with pytest.raises(AttributeError) as e:
        world.rules.task_id(world, next(iter(world.runs.values())))
    assert locate(e.value).startswith("tests/test_faults.py:")


def test_one_line_and_the_record():
    assert one_line(ValueError("a\nb")) == "ValueError: a"
    assert one_line(StopIteration()) == "StopIteration"
    f = Fault("x.py:3", "KeyError: 'k'", [("call_tool", {"client": "C1"})], "call_tool")
    assert f.line() == "x.py:3: KeyError: 'k' during call_tool"
    assert f.to_json()["steps"] == [{"action": "call_tool", "args": {"client": "C1"}}]


def test_a_message_breaking_the_wire_schema_is_a_fault_naming_the_field():
    """A builder refuses a message with an odd value where it is built: there is no message for a
    wire property to judge, so it is a fault that names the message, the field and the value."""
    from model.amend import Amendment

    class BogusStatus(Amendment):
        name = "bogus-status"

        def project_status(self, world, run):
            return ("bogus", None)

    r = explore(BogusStatus, budget=20, seed=0, chunks=1)
    (f,) = r.faults
    assert "breaks the wire schema: status" in f.error and "'bogus'" in f.error, f.error
