"""ISO-1, TTL-4, OWN-4 and PRJ-4 judge all their sentence states: each holds on a baseline story that
reaches the part its check once left out (reaching the premise there), and the planted mutant of
tests/quality/ that only that part shows refutes it on the same story."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from model.actions import load_all
from model.amend import load_file
from model.params import Params
from properties.base import load_catalogue

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

load_all()
load_catalogue()
QUALITY = Path(__file__).resolve().parents[1] / "quality"


class Story(scenario.Scenario):
    names = ("ISO-1", "TTL-4", "OWN-4", "PRJ-4")

    def task(self, action, client, run="run1", **extra):
        return self.do(action, client=client, server="S1", ref=self.task_id(self.run(run)), transport="http",
                       declare=True, header_ok=True, **extra)


def story(mutant=None, **params):
    """A Story on the baseline rules, or on a planted mutant's, under the mutant's parameters."""
    variant = load_file(str(QUALITY / mutant)) if mutant else None
    base = variant.make_params() if variant else Params()
    return Story(rules=variant() if variant else None, params=base.with_(**params))


# ---- ISO-1: the HTTP status ----------------------------------------------------------------------
def _foreign_read(s):
    s.call()                                            # alice's task
    s.task("tasks_get", "C4")                           # mallory names it: unreadable to her
    return s.world.requests[s.last()]


def test_iso1_holds_an_unreadable_task_is_sent_with_a_nonexistent_ones_http_status():
    s = story()
    q = _foreign_read(s)
    assert q.http_status == 200 and q.response["error"]["code"] == -32602
    assert s.premises["ISO-1"] == 1 and s.messages["ISO-1"] == []


def test_iso1_refuses_an_http_status_that_tells_an_existing_task_apart():
    s = story("http_unreadable_task_404.py")
    q = _foreign_read(s)
    assert q.http_status == 404
    (msg,) = s.messages["ISO-1"]
    assert q.id in msg and "mallory" in msg and "HTTP 404" in msg and "HTTP 200" in msg


# ---- TTL-4: every door ---------------------------------------------------------------------------
def _within_ttl(s):
    """alice's task, answered with a finite ttlMs (2 ticks), completed and past its retention (1 tick)
    while the TTL still runs; then read by every door but tasks/get."""
    s.call()
    s.do("answer", request="r1")
    s.do("run_start", run=s.run())
    s.do("run_complete", run=s.run())
    s.do("clock_tick")
    s.task("tasks_cancel", "C1")
    s.task("tasks_update", "C1", key="acme/i-neverissuedneverissued")
    s.do("listen", client="C1", server="S1", declare=True)


def test_ttl4_holds_cancel_update_and_listen_find_the_task_until_its_ttl():
    s = story(retention=1, ttl_live_ticks=2)
    _within_ttl(s)
    assert s.premises["TTL-4"] == 3 and s.messages["TTL-4"] == []


def test_ttl4_refuses_a_cancel_answered_not_found_before_the_ttl():
    s = story("runs_write_doors_ignore_ttl.py", retention=1)
    _within_ttl(s)
    first, *rest = s.messages["TTL-4"]
    assert first.startswith("tasks/cancel r2 by alice for run1 at 1000 ms did not find it") and "2000 ms" in first
    assert any(m.startswith("tasks/update r3") for m in rest)


# ---- OWN-4: a cancellation of a request that owns nothing ------------------------------------------
def _retry_owns_then_first_drops(s):
    """alice's blocking call asks for input; her MRTR retry takes the run over; then the first call's
    connection drops, after its answer arrived."""
    s.call(declare=False)
    s.do("run_start", run=s.run())
    s.do("run_interrupt", run=s.run(), kind="clarification", form=True)
    s.do("answer", request="r1")
    s.do("deliver", request="r1")
    s.do("mrtr_retry", client="C1", answers="r1", response="none", declare=False)
    assert s.world.requests["r2"].owns == s.run()
    s.do("disconnect", request="r1")


def test_own4_judges_a_signal_of_a_request_that_owns_nothing():
    """An answered request is no cancelled one, so none of OWN-4's cases (OWN-3's "a later MRTR retry owns
    the run"); OWN-4's check still judges its signal (the mutant below)."""
    s = Story(names=("OWN-3", "OWN-4"))
    _retry_owns_then_first_drops(s)
    assert s.world.runs[s.run()].status == "waiting-input"
    assert "a later MRTR retry owns the run" in s.reached("OWN-3") and s.premises["OWN-4"] == 0
    assert s.messages == {"OWN-3": [], "OWN-4": []}


def test_own4_refuses_an_answered_requests_disconnect_cancelling_the_retrys_run():
    s = story("disconnect_after_answer_cancels_retrys_run.py")
    _retry_owns_then_first_drops(s)
    (msg,) = s.messages["OWN-4"]
    assert "request r1 (http-disconnect) (which owned no run) also cancelled run1" in msg


# ---- PRJ-4: a bare `elicitation: {}` -----------------------------------------------------------------
def _mallory_asked(s, form):
    s.call(client="C4", declare=False)                  # mallory's client declares `elicitation: {}`
    s.do("run_start", run=s.run())
    s.do("run_interrupt", run=s.run(), kind="clarification", form=form)
    s.do("answer", request="r1")
    return s.world.requests["r1"]


def test_mallorys_client_declares_elicitation_bare():
    q = _mallory_asked(story(), True)
    assert q.message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"] == {}


def test_prj4_holds_a_bare_declaration_gets_form_input_and_is_refused_url_input():
    s = story()
    q = _mallory_asked(s, True)
    (entry,) = q.response["result"]["inputRequests"].values()
    assert entry["params"].get("mode", "form") == "form"
    s2 = story()
    q2 = _mallory_asked(s2, False)                      # a credential: URL mode, which `{}` does not declare
    assert q2.response["error"]["data"]["requiredCapabilities"] == {"elicitation": {"url": {}}}
    for sc in (s, s2):
        assert sc.premises["PRJ-4"] == 1 and sc.messages["PRJ-4"] == []


def test_prj4_refuses_withholding_form_input_from_a_bare_declaration():
    s = story("elicit_bare_declaration_as_none.py")
    q = _mallory_asked(s, True)
    assert q.response["error"]["code"] == -32021
    (msg,) = s.messages["PRJ-4"]
    assert "tools/call r1 of mallory was refused -32021 requiring elicitation ['form']" in msg
