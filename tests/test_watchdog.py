"""The watchdog: a step that outlasts --step-timeout stops the check with exit 4, naming the step."""
import json
import threading
import time

import pytest

from verifier.cli import main
from verifier.runtime.watchdog import StepTimeout, Watchdog, current


def test_a_busy_step_is_interrupted():
    with Watchdog(0.2) as dog:
        assert current() is dog
        started = time.monotonic()
        with pytest.raises(StepTimeout):
            with dog.bounded():
                while True:
                    pass
        assert time.monotonic() - started < 2
        with dog.bounded():              # a quick step is untouched, and the timer is off after it
            pass
        time.sleep(0.3)
    assert current() is not dog


def test_inner_bounds_leave_the_outer_one_running():
    with Watchdog(0.2) as dog:
        with pytest.raises(StepTimeout):
            with dog.bounded(0.3):
                with dog.bounded():
                    pass
                while True:
                    pass


def test_off_the_main_thread_there_is_no_watchdog():
    seen = []

    def work():
        with Watchdog(0.1) as dog:
            seen.append(dog.active)
            with dog.bounded():
                time.sleep(0.2)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == [False]


def test_a_hanging_rule_is_a_fault_naming_the_step(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hang.py").write_text(
        "from model.amend import Amendment\n\n\nclass Hang(Amendment):\n    name = 'hang'\n\n"
        "    def can_cancel(self, world, subject, run):\n        while True:\n            pass\n")
    started = time.process_time()       # CPU time: a busy machine slows the check, not the watchdog
    # the random engine's watchdog (bfs's: tests/test_bfs.py::test_a_rule_that_exits_or_hangs_is_a_fault)
    code = main(["check", "--variant", "hang.py", "--engine", "hypothesis", "--budget", "20", "--examples", "200",
                 "--step-timeout", "0.5", "--json"])
    out, err = capsys.readouterr()
    assert code == 4, err
    (fault,) = json.loads(out)["results"][0]["faults"]
    assert fault["where"] in ("hang.py:8", "hang.py:9") and fault["error"].startswith("StepTimeout")
    assert fault["action"] and fault["steps"][-1]["action"] == fault["action"]
    assert time.process_time() - started < 20


def test_waiting_for_a_core_is_not_a_step_running_long():
    """The limit counts CPU time: a step that uses little CPU but much wall time (as a process
    waiting for a core on a busy machine does) is not interrupted."""
    with Watchdog(0.2) as dog:
        started = time.monotonic()
        with dog.bounded():
            time.sleep(0.6)              # three times the limit of wall time, next to no CPU
        assert time.monotonic() - started >= 0.6


def test_a_step_blocked_without_using_the_cpu_is_stopped_by_the_backstop():
    with Watchdog(0.2, blocked=0.5) as dog:
        started = time.monotonic()
        with pytest.raises(StepTimeout, match="blocked"):
            with dog.bounded():
                time.sleep(30)
        assert time.monotonic() - started < 5


def test_the_default_backstop_is_far_above_the_limit():
    dog = Watchdog(5.0)
    assert dog.backstop(5.0) == 60.0 and dog.backstop(0.5) == 60.0 and dog.backstop(10.0) == 120.0
