"""The watchdog: a step that outlasts --step-timeout stops the check with exit 4, naming the step."""
import json
import threading
import time

import pytest

from verifier.cli import main
from verifier.runtime.watchdog import GRACE, CapReached, StepTimeout, Watchdog, current


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


def test_a_step_blocked_across_the_cap_is_stopped_there_naming_what_ran():
    def nap():
        time.sleep(30)
    with Watchdog(5.0, deadline=time.monotonic() + 0.3) as dog:
        started = time.monotonic()
        with pytest.raises(CapReached, match="nap"):
            with dog.bounded():
                nap()
        assert time.monotonic() - started < 2


def test_the_steps_after_the_cap_share_a_grace_and_the_writers_get_their_own():
    with Watchdog(5.0, deadline=time.monotonic() - 1) as dog:
        for _ in range(100):         # quick steps after the deadline spend next to nothing of it
            with dog.bounded():
                pass
        started = time.monotonic()
        with pytest.raises(CapReached):
            with dog.bounded():      # a blocked one spends it all...
                time.sleep(30)
        assert time.monotonic() - started < GRACE + 1
        with pytest.raises(CapReached):
            with dog.bounded():      # ...and the next is refused at once
                pass
        dog.renew_grace()
        with dog.bounded():
            pass


def test_without_a_cap_a_blocked_step_meets_only_the_backstop():
    with Watchdog(0.2, blocked=0.5) as dog:
        assert dog.deadline is None
        with pytest.raises(StepTimeout, match="blocked"):
            with dog.bounded():
                time.sleep(30)


SLEEPY = ("import time\nfrom model.amend import Amendment\n\n\nclass Sleepy(Amendment):\n    name = 'sleepy'\n\n"
          "    def on_request_cancelled(self, world, q, cause):\n        time.sleep(30)\n"
          "        return super().on_request_cancelled(world, q, cause)\n")


@pytest.mark.parametrize("engine", [["--engine", "hypothesis"], ["--engine", "bfs"], []],
                         ids=["hypothesis", "bfs", "amendment-default"])
def test_a_rule_that_sleeps_is_stopped_by_the_budget_and_named(capsys, tmp_path, monkeypatch, engine):
    """Sleeping uses no CPU: only the wall-clock cap stops it, at the cap, as undetermined (time cap)
    naming the rule, never a fault; the graph store is not built under so short a cap."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TASKMODEL_GRAPH_CACHE", str(tmp_path / "graphs"))
    (tmp_path / "sleepy.py").write_text(SLEEPY)
    started = time.monotonic()
    code = main(["check", "--variant", "sleepy.py", *engine, "--budget", "3", "--json"])
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 2, err
    got = json.loads(out)
    assert elapsed < 30
    for r in got["results"]:
        assert not r["faults"] and r["budget"]["seconds"] == 3
        assert "time cap" in r["stopped"] and "on_request_cancelled (sleepy.py:9)" in r["stopped"], r["stopped"]
    verdicts = {p["verdict"] for r in got["results"] for p in r["properties"]}
    assert "undetermined" in verdicts and not verdicts & {"holds", "proved", "refuted"}
