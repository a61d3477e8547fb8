"""The projection catalogue (PRJ-1, PRJ-2, PRJ-3): holds on the baseline, fails on planted mutants."""
from __future__ import annotations

import importlib.util
from pathlib import Path


import model.clients  # noqa: F401  (registers the actions)
import model.host  # noqa: F401
import model.network  # noqa: F401
import model.rest  # noqa: F401
import pytest
from model import wire
from model.params import Params
from model.projection import STATUS_PROJECTION
from model.rules import Rules
from properties import projection
from properties.base import CATALOGUE, find
from verifier.engines.bfs.search import _judged
from verifier.runtime import scopes

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

MODULE = projection.__name__.rsplit(".", 1)[-1]
NAMES = [p.name for p in CATALOGUE.values() if p.area == MODULE]
ROOMY = Params(max_requests=40, max_runs=6)
PRJ1, PRJ2, PRJ3 = "status-projection-total", "input-requests-match-open-interrupts", "task-status-follows-diagram"
PRJ4 = "input-only-to-declared-elicitation"


# ---- scenario helper ---------------------------------------------------------------------------
class Scenario(scenario.Scenario):
    """Apply moves by partial match and check this module's properties after every step."""

    names, params = NAMES, ROOMY

    def get(self, run, client="C1"):
        self.do("tasks_get", client=client, server="S1", ref=self.task_id(run), declare=True, header_ok=True,
                transport="http")
        return self.response(self.last())["result"]


def cases(story, name, premise=None, rules=None, params=ROOMY) -> dict[str, int]:
    """{case: steps reaching it} of property `name`'s premise over a story, on `rules` at `params`
    (`scenario.story_cases`)."""
    return scenario.story_cases(Scenario(rules, params), story, name, premise)


answering = scenario.answering


def tour(sc):
    """One run through every status but failed, reading its task at each; a second run fails."""
    q, run = sc.call()
    shown = [sc.get(run)["status"]]
    for action, args in [("run_start", {}), ("run_interrupt", dict(kind="approval", form=True)),
                         ("rest_resolve", dict(subject="bob", response="accept")),
                         ("run_interrupt", dict(kind="external-event", form=True)), ("external_event", {}),
                         ("operator_pause", {}), ("operator_resume", {}),
                         ("run_interrupt", dict(kind="clarification", form=False)),
                         ("rest_cancel", dict(subject="alice")), ("run_finish_cancel", {})]:
        if action in ("rest_resolve", "external_event"):
            args = dict(args, interrupt=sc.world.runs[run].interrupts[-1])
        else:
            args = dict(args, run=run)
        sc.do(action, **args)
        shown.append(sc.get(run)["status"])
    q2, run2 = sc.call()
    sc.do("run_start", run=run2)
    sc.do("run_fail", run=run2)
    failed = sc.get(run2)
    return run, shown, failed


# ---- planted mutants -----------------------------------------------------------------------------
class WaitingExternalInputRequired(Rules):
    def project_status(self, world, run):
        return ("input_required", None) if run.status == "waiting-external" else super().project_status(world, run)


class MissingWaitingExternalRow(Rules):
    def project_status(self, world, run):
        table = {k: v for k, v in STATUS_PROJECTION.items() if k != "waiting-external"}
        return table[run.status]


class FailedIsNotAnError(Rules):
    def tool_result(self, world, run):
        if run.status == "failed":
            return wire.call_tool_result(False, "run failed")
        return super().tool_result(world, run)


class CreateResultCarriesInputRequests(Rules):
    def create_task_result(self, world, run, q):
        res = super().create_task_result(world, run, q)
        if res["status"] == "input_required":
            res = {**res, "inputRequests": self.input_requests(world, run, q)}
        return res


class EmptyInputRequests(Rules):
    def input_requests(self, world, run, q):
        return {}


class CredentialInFormMode(Rules):
    def input_requests(self, world, run, q):
        return {i.id: wire.elicitation_input_request("password?", {"type": "object", "properties": {
            "password": {"type": "string"}}}) for i in run.open_interrupts(world) if i.kind != "external-event"}


class PausedProjectsCancelled(Rules):
    def project_status(self, world, run):
        return ("cancelled", None) if run.status == "paused" else super().project_status(world, run)


# ---- PRJ-1 ---------------------------------------------------------------------------------------
def test_prj1_holds_on_baseline():
    sc = Scenario()
    run, shown, failed = tour(sc)
    assert shown == ["working", "working", "input_required", "working", "working", "working", "working", "working",
                     "input_required", "working", "cancelled"]
    assert failed["status"] == "completed" and failed["result"]["isError"] is True
    assert sc.fired[PRJ1] >= 20
    assert PRJ1 not in sc.violations


def test_prj1_refuses_waiting_external_as_input_required():
    sc = Scenario(WaitingExternalInputRequired())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="external-event", form=True)
    msg = sc.violations[PRJ1][0]
    assert "waiting-external" in msg and "'input_required'" in msg and sc.world.label(run) in msg


def test_prj1_refuses_a_deleted_row_even_unread():
    sc = Scenario(MissingWaitingExternalRow())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="external-event", form=True)
    (msg,) = sc.violations[PRJ1]
    assert "no row for run status waiting-external" in msg and sc.world.label(run) in msg


def test_prj1_refuses_a_failed_run_without_is_error():
    sc = Scenario(FailedIsNotAnError())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_fail", run=run)
    sc.get(run)
    msg = sc.violations[PRJ1][0]
    assert "failed" in msg and "isError=False" in msg and sc.last() in msg


def _prj1_story(sc):
    """The tour, and a third run that completes, read."""
    tour(sc)
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_complete", run=run)
    sc.get(run)


def test_prj1_premise_names_each_status_projected():
    assert {c for c, n in cases(_prj1_story, PRJ1).items() if n} == set(projection.STATUS_ROWS)
    assert not cases(tour, PRJ1)["completed"]                           # no run of the tour completes


def test_prj1_premise_answers_the_status_a_step_shows_or_enters():
    sc = Scenario()
    q, run = sc.call()
    premise = find(PRJ1).premise
    assert premise(sc.world, sc.do("run_start", run=run)) == ("running",)
    assert premise(sc.world, sc.do("operator_pause", run=run)) == ("paused",)
    sc.get(run)
    assert premise(sc.world, sc.world.history[-1]) == ("paused",)           # the tasks/get shows it
    assert premise(sc.world, sc.do("stream_event", request=q)) == ()         # neither shows nor enters one


# ---- PRJ-2 ---------------------------------------------------------------------------------------
def _prj2_story(sc):
    """alice listens to her tasked run, which waits on a credential and then on a form interrupt too;
    she reads it after each."""
    q, run = sc.call()
    sc.do("listen", client="C1", server="S1", declare=True)
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="clarification", form=False)      # notified: one open, a credential
    sc.do("answer", request=q)                                              # CreateTaskResult, input_required
    sc.get(run)
    sc.do("run_interrupt", run=run, kind="clarification", form=True)       # another node: two open
    sc.get(run)


def test_prj2_premise_names_where_input_required_shows_and_what_is_open():
    assert cases(_prj2_story, PRJ2) == {"in a tasks/get result": 2, "in notifications/tasks": 2,
                                        "one open interrupt": 2, "two open at once": 2, "a credential interrupt": 4,
                                        "a CreateTaskResult of a waiting run": 1}


def test_prj2_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="clarification", form=False)      # a credential: URL mode
    sc.do("answer", request=q)                                              # CreateTaskResult, input_required
    view = sc.get(run)
    (key,) = view["inputRequests"]
    assert key == sc.world.runs[run].interrupts[0] and view["inputRequests"][key]["params"]["mode"] == "url"
    q2, run2 = sc.call(declare=False)
    sc.do("run_start", run=run2)
    sc.do("run_interrupt", run=run2, kind="approval", form=True)
    sc.do("answer", request=q2)                      # MRTR InputRequiredResult: judged, no case of the sentence
    assert sc.fired[PRJ2] == 2
    assert PRJ2 not in sc.violations


def test_prj2_refuses_input_requests_on_create():
    sc = Scenario(CreateResultCarriesInputRequests())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.do("answer", request=q)
    (msg,) = sc.violations[PRJ2]
    assert q in msg and "CreateTaskResult" in msg and "inputRequests" in msg


def test_prj2_refuses_empty_input_requests():
    sc = Scenario(EmptyInputRequests())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.get(run)
    msg = sc.violations[PRJ2][0]
    assert sc.last() in msg and sc.world.label(run) in msg and "inputRequests {}" in msg


def test_prj2_refuses_a_credential_in_form_mode():
    sc = Scenario(CredentialInFormMode())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="clarification", form=False)
    sc.get(run)
    msg = sc.violations[PRJ2][0]
    assert "credential interrupt i1" in msg and "form mode" in msg


def test_prj2_refuses_a_missing_entry():
    sc = Scenario()
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    step = sc.do("answer", request=q)
    # tamper: the world log shows a second open interrupt the host never asked for
    sc.world.runs[run].log.append({"type": "interrupt.requested", "interruptId": "acme/i-extra00000000000000",
                                   "kind": "approval", "approvers": None})
    sc.get(run)
    msg = sc.violations[PRJ2][0]
    assert "acme/i-extra00000000000000" in msg and "open interrupts" in msg
    assert step is not None


# ---- PRJ-4 ---------------------------------------------------------------------------------------
def _prj4_doors(client, form):
    """`client` meets input of one mode through each door: a listen on its tasked run, a tasks/get of
    it, and a blocking call answered while its run waits."""
    def story(sc):
        q, run = sc.call(client=client)
        sc.do("listen", client=client, server="S1", declare=True)
        sc.do("run_start", run=run)
        sc.do("run_interrupt", run=run, kind="clarification", form=form)   # notifications/tasks
        sc.do("tasks_get", client=client, server="S1", ref=sc.task_id(run), declare=True, header_ok=True,
              transport="http")
        q2, run2 = sc.call(client=client, declare=False)
        sc.do("run_start", run=run2)
        sc.do("run_interrupt", run=run2, kind="clarification", form=form)
        sc.do("answer", request=q2)                                         # MRTR InputRequiredResult
    return story


@pytest.mark.parametrize("client, form, declared, bare", [
    ("C1", True, "form", ()), ("C1", False, "url", ()), ("C4", True, "bare {}", ("mallory",)),
    ("C4", False, "bare {}", ("mallory",)), ("C3", True, "none", ()), ("C3", False, "none", ()),
    ("C1", True, "bare {}", ("alice",))])
def test_prj4_premise_names_the_declaration_each_door_meets(client, form, declared, bare):
    """alice declares form and url, mallory a bare `{}` (alice too where `Params.elicitation_bare` says so),
    carol nothing: whether the host sends the input, refuses it or withholds the notification, each door
    is a case of the declaration that counts."""
    got = cases(_prj4_doors(client, form), PRJ4, params=ROOMY.with_(elicitation_bare=bare))
    assert got == {c: int(c.startswith(f"{declared}, ")) for c in projection.PRJ4_CASES}


# host-small without an MRTR retry or a disconnect: complete in about a second
READS = "host-small,retry_reserve=0,http_disconnects=False"


def _searched(names):
    """{name: verdict} of the complete search at READS judging these properties alone."""
    _, verdicts, _ = _judged(None, scopes.parse(READS), [find(n) for n in names], True, 300, None, None, None)
    return {v.name: v for v in verdicts}


def test_an_environment_that_never_asks_a_credential_leaves_credential_cases_unreached(monkeypatch):
    """Issue 52's surviving mutant: with the condition choosing an interrupt's form negated, approval and
    clarification interrupts are never generated in credential (URL) form."""
    url = {c for c in projection.PRJ4_CASES if c.startswith("url, ")}
    base = _searched([PRJ2, PRJ4])
    assert "a credential interrupt" not in base[PRJ2].unreached_cases and url.isdisjoint(base[PRJ4].unreached_cases)
    monkeypatch.setattr(model.host, "_forms", lambda kind: (True, False) if kind == "external-event" else (True,))
    got = _searched([PRJ2, PRJ4])
    assert "a credential interrupt" in got[PRJ2].unreached_cases and url <= set(got[PRJ4].unreached_cases)
    assert got[PRJ2].verdict == got[PRJ4].verdict == "vacuous"


# ---- premise cases: a planted misclassification shows ---------------------------------------------
CASE_STORIES = {PRJ1: _prj1_story, PRJ2: _prj2_story, PRJ4: _prj4_doors("C1", True)}


@pytest.mark.parametrize("name", CASE_STORIES)
def test_a_premise_answering_another_case_is_told_by_its_story(name):
    right = cases(CASE_STORIES[name], name)
    first = next(c for c, n in right.items() if n)
    second = next(c for c in find(name).cases if c != first)
    got = cases(CASE_STORIES[name], name, answering(name, first, second))
    assert got[first] == 0 < right[first] and got != right, got


# ---- PRJ-3 ---------------------------------------------------------------------------------------
def test_prj3_holds_on_baseline():
    sc = Scenario()
    tour(sc)
    assert sc.fired[PRJ3] >= 20
    assert PRJ3 not in sc.violations


def test_prj3_refuses_leaving_a_terminal_status():
    sc = Scenario(PausedProjectsCancelled())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("operator_pause", run=run)
    assert PRJ3 not in sc.violations                     # working -> cancelled is an edge
    sc.do("operator_resume", run=run)
    (msg,) = sc.violations[PRJ3]
    assert sc.world.label(run) in msg and "paused -> running" in msg and "cancelled -> working" in msg


def test_prj3_refuses_showing_a_client_a_task_leave_a_terminal_status():
    sc = Scenario(PausedProjectsCancelled())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("operator_pause", run=run)
    assert sc.get(run)["status"] == "cancelled"
    sc.do("operator_resume", run=run)
    sc.violations.clear()
    sc.get(run)
    (msg,) = sc.violations[PRJ3]
    assert sc.last() in msg and "'working'" in msg and "'cancelled' (terminal)" in msg


# ---- the baseline, at random ---------------------------------------------------------------------
def test_baseline_random_walks_hold():
    fired: dict[str, int] = {}
    for seed in range(20):
        sc = scenario.random_walk(Scenario(params=Params()), 200 + seed, 60)
        bad = {n: m for n, m in sc.violations.items() if CATALOGUE[n].asserted}
        assert not bad, (seed, bad)
        for n, c in sc.fired.items():
            fired[n] = fired.get(n, 0) + c
    assert fired.get(PRJ1) and fired.get(PRJ3)


def test_kinds_fit_ids():
    assert {CATALOGUE[n].kind for n in NAMES} <= {"invariant", "step"}
    assert sorted(CATALOGUE[n].ids[0] for n in NAMES) == ["PRJ-1", "PRJ-2", "PRJ-3", "PRJ-4"]
    assert all(CATALOGUE[n].premise is not None for n in NAMES)
