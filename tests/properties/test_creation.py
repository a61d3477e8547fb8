"""The creation catalogue (ADV-1, NEG-1..3, CRT-1..4, TASK-1): holds on the baseline, fails on planted mutants."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import model.clients  # noqa: F401  (registers the actions)
import model.host  # noqa: F401
import model.network  # noqa: F401
import model.rest  # noqa: F401
import pytest
from model import identity as ident
from model import wire
from model.lifecycle import TERMINAL
from model.params import Params
from model.rules import Rules
from properties import creation
from properties.base import CATALOGUE, find

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

MODULE = creation.__name__.rsplit(".", 1)[-1]
NAMES = [p.name for p in CATALOGUE.values() if p.area == MODULE]


# ---- scenario helper ---------------------------------------------------------------------------
class Scenario(scenario.Scenario):
    """Apply moves by partial match and check this module's properties after every step."""

    names = NAMES


def task(sc, action, client, ref, server="S1", declare=True, **extra):
    """`client` sends tasks/* `action` for `ref` over HTTP with a matching Mcp-Name."""
    sc.do(action, client=client, server=server, ref=ref, declare=declare, header_ok=True, transport="http", **extra)
    return sc.last()


def cases(story, rid, premise=None) -> dict[str, int]:
    """{case: steps reaching it} of requirement `rid`'s premise over a story (`scenario.story_cases`)."""
    return scenario.story_cases(Scenario(params=Params(max_runs=5)), story, find(rid).name, premise)


answering = scenario.answering


# ---- planted mutants -----------------------------------------------------------------------------
class SecondAdvertisement(Rules):
    def openwop_features(self, world, server):
        f = super().openwop_features(world, server)
        f["mcp"]["tasks"] = self.serves_tasks(world, server)
        return f


class HiddenExtension(Rules):
    def discover_result(self, world, server):
        return wire.discover_result(False)


class FeaturesWithoutExtensions(Rules):
    def openwop_features(self, world, server):
        return {"mcp": {"serverMount": True, "features": ["tools", "mrtr"]}}


class ExtensionsForAnotherExtension(Rules):
    def openwop_features(self, world, server):
        return {"mcp": {"serverMount": True, "features": ["tools", "mrtr", "extensions"]}}


class TaskToNonDeclaring(Rules):
    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if self.serves_tasks(world, q.server) and run.status not in TERMINAL:
            return self.create_task_result(world, run, q)
        return super().answer_tools_call(world, q)


class CapabilityIgnored(Rules):
    def tasks_capability_ok(self, world, q):
        return self.serves_tasks(world, q.server)


class InputRequiredToTasked(Rules):
    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if run.status in ("waiting-approval", "waiting-input"):
            return self.input_required(world, run, q)
        return super().answer_tools_call(world, q)


class AlwaysTask(Rules):
    def answer_tools_call(self, world, q):
        if q.declares_tasks and self.serves_tasks(world, q.server):
            return self.create_task_result(world, world.runs[q.run], q)
        return super().answer_tools_call(world, q)


class AnswerBeforeDurable(Rules):
    def durable_on_create(self, world, run):
        return False

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if q.declares_tasks and self.serves_tasks(world, q.server) and run.status not in TERMINAL:
            return self.create_task_result(world, run, q)
        return super().answer_tools_call(world, q)


class HoldAtApproval(Rules):
    def answer_tools_call(self, world, q):
        if q.declares_tasks and world.runs[q.run].status == "waiting-approval":
            return None
        return super().answer_tools_call(world, q)


class TasksOnlyForTaskedRuns(Rules):
    def lookup_task(self, world, q, ref):
        run = super().lookup_task(world, q, ref)
        return run if run is not None and run.started_by == "tasked-call" else None


# ---- ADV-1 ---------------------------------------------------------------------------------------
def test_adv1_holds_on_baseline():
    sc = Scenario()
    sc.do("discover", server="S1")
    sc.do("discover", server="S2")
    q, run = sc.call()
    sc.do("answer", request=q)
    sc.do("tasks_get", client="C1", server="S1", ref=sc.task_id(run), declare=False, header_ok=True, transport="http")
    assert sc.fired.get("advertised-iff-served", 0) >= 3
    assert "advertised-iff-served" not in sc.violations


def test_adv1_refuses_a_second_advertisement():
    sc = Scenario(SecondAdvertisement())
    sc.do("discover", server="S1")
    (msg,) = sc.violations["advertised-iff-served"]
    assert "S1" in msg and "'tasks'" in msg


def test_adv1_refuses_a_second_advertisement_seen_without_discover():
    sc = Scenario(SecondAdvertisement())
    q, run = sc.call()
    sc.do("answer", request=q)                      # serving evidence; nobody asked server/discover
    (msg,) = sc.violations["advertised-iff-served"]
    assert "S1" in msg and "'tasks'" in msg


def test_adv1_refuses_serving_without_advertising():
    sc = Scenario(HiddenExtension())
    q, run = sc.call()
    sc.do("answer", request=q)
    msg = sc.violations["advertised-iff-served"][0]
    assert "S1 does not advertise" in msg and q in msg


def test_adv1_refuses_features_not_listing_extensions():
    sc = Scenario(FeaturesWithoutExtensions())
    sc.do("discover", server="S1")
    msg = sc.violations["advertised-iff-served"][0]
    assert "mcp.features[]" in msg and "S1" in msg


def test_adv1_lets_a_plain_mount_list_extensions_for_another_extension():
    sc = Scenario(ExtensionsForAnotherExtension())
    sc.do("discover", server="S2")
    assert sc.fired.get("advertised-iff-served", 0) == 1
    assert "advertised-iff-served" not in sc.violations


# ---- NEG-1 ---------------------------------------------------------------------------------------
def test_neg1_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call(declare=False)
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.do("answer", request=q)                      # InputRequiredResult to the non-declaring call
    assert sc.fired["task-only-to-declaring-request"] == 1
    assert "task-only-to-declaring-request" not in sc.violations


def test_neg1_refuses_a_task_to_a_non_declaring_call():
    sc = Scenario(TaskToNonDeclaring())
    sc.call(client="C1", declare=True)      # an earlier declaring request of the same client
    q, run = sc.call(client="C1", declare=False)
    sc.do("answer", request=q)
    msg = sc.violations["task-only-to-declaring-request"][0]
    assert q in msg and sc.world.label(run) in msg and "declared on r1 only" in msg


# ---- NEG-2 ---------------------------------------------------------------------------------------
def test_neg2_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    tid = sc.task_id(run)
    for action, fabricated in (("tasks_get", "not-a-run-id"), ("tasks_cancel", "acme~2FAAAAAAAAAAAAAAAAAAAAAAAAnotissued")):
        sc.do(action, client="C1", server="S1", ref=tid, declare=False, header_ok=True)
        sc.do(action, client="C4", server="S1", ref=fabricated, declare=False)
    assert sc.fired["undeclared-tasks-method-refused"] == 4
    assert "undeclared-tasks-method-refused" not in sc.violations


def test_neg2_refuses_serving_an_undeclared_cancel():
    sc = Scenario(CapabilityIgnored())
    q, run = sc.call()
    sc.do("tasks_cancel", client="C1", server="S1", ref=sc.task_id(run), declare=False, header_ok=True)
    msg = sc.violations["undeclared-tasks-method-refused"][0]
    assert "tasks/cancel r2" in msg and "alice" in msg and "not -32021" in msg


def _neg2_story(sc):
    """Undeclared tasks/* on S1 naming alice's task, by alice (readable), mallory (another tenant's) and
    dave (his tenant's, unreadable to him: no case); and ids naming no run (none): a fabricated one, a
    malformed one, alice's under mallory's tenant."""
    q, run = sc.call()
    tid = sc.task_id(run)
    key = dict(key=model.clients.NEVER_ISSUED, response="accept")
    for client in ("C1", "C4", "C5"):
        task(sc, "tasks_get", client, tid, declare=False)
        task(sc, "tasks_update", client, tid, declare=False, **key)
    for client in ("C1", "C4"):
        task(sc, "tasks_cancel", client, tid, declare=False)
    fabricated, malformed = model.clients.FABRICATED
    task(sc, "tasks_get", "C1", fabricated, declare=False)
    task(sc, "tasks_update", "C1", malformed, declare=False, **key)
    task(sc, "tasks_cancel", "C1", ident.project(f"beta/{ident.opaque(run)}"), declare=False)
    assert "undeclared-tasks-method-refused" not in sc.violations


def test_neg2_premise_names_the_task_each_undeclared_request_names():
    assert cases(_neg2_story, "NEG-2") == dict.fromkeys(creation.NEG2_CASES, 1)


# ---- NEG-3 ---------------------------------------------------------------------------------------
def test_neg3_holds_on_baseline():
    sc = Scenario()
    sc.call()
    sc.do("listen", client="C1", server="S1", declare=False)
    assert sc.fired["undeclared-task-listen-refused"] == 1
    assert "undeclared-task-listen-refused" not in sc.violations


def test_neg3_refuses_acknowledging_an_undeclared_listen():
    sc = Scenario(CapabilityIgnored())
    sc.call()
    sc.do("listen", client="C2", server="S1", declare=False)
    msg = sc.violations["undeclared-task-listen-refused"][0]
    assert "r2" in msg and "bob" in msg and "notifications/subscriptions/acknowledged" in msg


# ---- NEG-4 ---------------------------------------------------------------------------------------
def _neg4_story(sc):
    """alice's tasks/* to the plain mount S2, declaring and not, naming her run there; and one to S1."""
    q, run = sc.call(server="S2")
    tid = sc.task_id(run)
    for declare in (True, False):
        task(sc, "tasks_get", "C1", tid, server="S2", declare=declare)
        task(sc, "tasks_update", "C1", tid, server="S2", declare=declare, key=model.clients.NEVER_ISSUED,
             response="accept")
        task(sc, "tasks_cancel", "C1", tid, server="S2", declare=declare)
    task(sc, "tasks_get", "C1", model.clients.FABRICATED[0])         # S1 serves the extension: no case
    assert "plain-mount-knows-no-tasks-methods" not in sc.violations


def test_neg4_premise_names_each_method_declaring_and_not():
    assert cases(_neg4_story, "NEG-4") == dict.fromkeys(creation.NEG4_CASES, 1)


# ---- CRT-1 ---------------------------------------------------------------------------------------
def _tasked_approval(sc):
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.do("answer", request=q)
    return q, run


def test_crt1_holds_on_baseline():
    sc = Scenario()
    _tasked_approval(sc)
    assert sc.fired["declaring-call-gets-task"] == 1
    assert "declaring-call-gets-task" not in sc.violations


def test_crt1_refuses_input_required_to_a_declaring_call():
    sc = Scenario(InputRequiredToTasked())
    q, run = _tasked_approval(sc)
    msg = sc.violations["declaring-call-gets-task"][0]
    assert q in msg and "InputRequiredResult" in msg and "waiting-approval" in msg and sc.world.label(run) in msg


def _crt1_story(sc):
    """Six declaring calls, each answered while its run is pending, running, paused, waiting on an
    external event, waiting for an approval, cancelling (alice's REST cancelRun)."""
    for before in (None, (), ("operator_pause", {}), ("run_interrupt", dict(kind="external-event")),
                   ("run_interrupt", dict(kind="approval", form=True)), ("rest_cancel", dict(subject="alice"))):
        q, run = sc.call()
        if before is not None:
            sc.do("run_start", run=run)
        if before:
            sc.do(before[0], run=run, **before[1])
        sc.do("answer", request=q)
    assert "declaring-call-gets-task" not in sc.violations


def test_crt1_premise_names_the_status_the_run_was_answered_in():
    assert cases(_crt1_story, "CRT-1") == dict.fromkeys(creation.CRT1_CASES, 1)


# ---- CRT-2 (witness) -----------------------------------------------------------------------------
def _finished_before_answer(sc):
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_complete", run=run)
    sc.do("answer", request=q)
    return q, run


def test_crt2_reached_on_baseline():
    sc = Scenario()
    q, run = _finished_before_answer(sc)
    assert sc.fired["finished-run-plain-result"] == 1
    (msg,) = sc.violations["finished-run-plain-result"]
    assert q in msg and "isError=False" in msg and "completed" in msg


def test_crt2_unreached_when_every_declaring_call_gets_a_task():
    sc = Scenario(AlwaysTask())
    _finished_before_answer(sc)
    assert sc.fired["finished-run-plain-result"] == 1
    assert "finished-run-plain-result" not in sc.violations


# ---- CRT-3 ---------------------------------------------------------------------------------------
def test_crt3_holds_on_baseline():
    sc = Scenario()
    _tasked_approval(sc)
    assert sc.fired["task-durable-when-created"] == 1
    assert "task-durable-when-created" not in sc.violations


def test_crt3_refuses_a_task_before_it_is_durable():
    sc = Scenario(AnswerBeforeDurable())
    q, run = sc.call()
    sc.do("answer", request=q)
    msg = sc.violations["task-durable-when-created"][0]
    assert q in msg and sc.world.label(run) in msg and "not yet durably readable" in msg


# ---- CRT-4 ---------------------------------------------------------------------------------------
def test_crt4_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="clarification", form=True)
    sc.do("clock_tick")
    assert sc.fired["declaring-call-never-held-at-input"] == 2
    assert "declaring-call-never-held-at-input" not in sc.violations


def test_crt4_refuses_holding_a_declaring_call_at_an_approval():
    sc = Scenario(HoldAtApproval())
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    msg = sc.violations["declaring-call-never-held-at-input"][0]
    assert q in msg and "waiting-approval" in msg and sc.world.label(run) in msg


# ---- TASK-1 --------------------------------------------------------------------------------------
def _three_origins(sc):
    qt, tasked = sc.call(declare=True)
    qb, blocking = sc.call(declare=False)
    sc.do("rest_create", subject="alice", server="S1")
    rest = [r for r in sc.world.runs if r not in (tasked, blocking)][0]
    for run in (tasked, blocking, rest):
        sc.do("tasks_get", client="C3", server="S1", ref=sc.task_id(run), declare=True, header_ok=True,
              transport="http")
    return tasked, blocking, rest


def test_task1_holds_on_baseline():
    sc = Scenario()
    _three_origins(sc)
    assert sc.fired["every-readable-run-is-a-task"] >= 6
    assert "every-readable-run-is-a-task" not in sc.violations


def test_task1_refuses_runs_not_addressable_as_tasks():
    sc = Scenario(TasksOnlyForTaskedRuns())
    q, blocking = sc.call(declare=False)
    msg = sc.violations["every-readable-run-is-a-task"][0]
    assert sc.world.label(blocking) in msg and "blocking-call" in msg and "alice" in msg


def test_task1_refuses_a_not_found_answer_to_a_reader():
    sc = Scenario(TasksOnlyForTaskedRuns())
    sc.do("rest_create", subject="alice", server="S1")
    (rest,) = sc.world.runs
    sc.violations.clear()
    sc.do("tasks_get", client="C3", server="S1", ref=sc.task_id(rest), declare=True, header_ok=True, transport="http")
    msg = sc.violations["every-readable-run-is-a-task"][0]
    assert "tasks/get r1" in msg and "carol" in msg and "error -32602" in msg and "rest" in msg


def _task1_story(sc):
    """A run of each origin: a tasked call, a blocking call, REST, a child, and a fork of a run whose
    approval bob resolved over REST; each probed once, as it is created."""
    q, run = sc.call()
    sc.call(declare=False)
    sc.do("rest_create", subject="alice", server="S1")
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.do("rest_resolve", subject="bob", interrupt=sc.world.runs[run].interrupts[0], response="accept")
    sc.do("run_spawn", run=run)
    sc.do("fork", run=run)
    assert "every-readable-run-is-a-task" not in sc.violations


def test_task1_premise_names_how_each_run_was_started():
    assert cases(_task1_story, "TASK-1") == dict.fromkeys(creation.TASK1_CASES, 1)


# ---- premise cases: a planted misclassification shows ---------------------------------------------
CASE_STORIES = {"NEG-2": _neg2_story, "NEG-4": _neg4_story, "CRT-1": _crt1_story, "TASK-1": _task1_story}


@pytest.mark.parametrize("rid", CASE_STORIES)
def test_a_premise_answering_another_case_is_told_by_its_story(rid):
    first, second = find(rid).cases[:2]
    got = cases(CASE_STORIES[rid], rid, answering(rid, first, second))
    assert got[first] == 0 and got[second] == 2, got


# ---- the baseline, at random ---------------------------------------------------------------------
def test_baseline_random_walks_hold():
    fired: dict[str, int] = {}
    for seed in range(12):
        sc = scenario.random_walk(Scenario(), seed, 60)
        bad = {n: m for n, m in sc.violations.items() if CATALOGUE[n].asserted}
        assert not bad, (seed, bad)
        for n, c in sc.fired.items():
            fired[n] = fired.get(n, 0) + c
    asserted = [n for n in NAMES if CATALOGUE[n].asserted]
    reached = [n for n in asserted if fired.get(n)]
    assert len(reached) >= len(asserted) - 2, sorted(set(asserted) - set(reached))


def test_every_property_has_a_premise_and_its_kind_fits_its_id():
    for name in NAMES:
        p = CATALOGUE[name]
        assert p.premise is not None, name
        assert p.sentence and p.clause
    kinds = {CATALOGUE[n].ids[0]: CATALOGUE[n].kind for n in NAMES}
    assert kinds["CRT-2"] == "witness"
    assert {kinds[i] for i in ("ADV-1", "NEG-1", "NEG-2", "NEG-3", "CRT-1", "CRT-3", "CRT-4", "TASK-1")} <= {"invariant", "step"}


@pytest.mark.parametrize("params", [Params(), Params(p_unauthorized="error", p_approver="error")])
def test_random_walks_hold_under_parameters(params):
    sc = scenario.random_walk(Scenario(params=params), 99, 80)
    assert not {n: m for n, m in sc.violations.items() if CATALOGUE[n].asserted}
