"""The identity catalogue (ID-1, ID-2, AUTH-1, ISO-1, ISO-2, gap ID-G4): holds on the baseline, fails on mutants."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import model.clients  # noqa: F401  (registers the actions)
import model.host  # noqa: F401
import model.network  # noqa: F401
import model.rest  # noqa: F401
from model import identity as ident
from model import wire
from model.params import Params
from model.rules import Rules
from properties import identity
from properties.base import CATALOGUE

_spec = importlib.util.spec_from_file_location("scenario", Path(__file__).with_name("scenario.py"))
scenario = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenario)

MODULE = identity.__name__.rsplit(".", 1)[-1]
NAMES = [p.name for p in CATALOGUE.values() if p.area == MODULE]


# ---- scenario helper ---------------------------------------------------------------------------
class Scenario(scenario.Scenario):
    """Apply moves by partial match and check this module's properties after every step."""

    names = NAMES


def get(sc, client, ref, declare=True, header_ok=True, action="tasks_get", **extra):
    sc.do(action, client=client, server="S1", ref=ref, declare=declare, header_ok=header_ok, transport="http", **extra)
    return sc.last()


def approval_task(sc):
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="approval", form=True)
    sc.do("answer", request=q)
    return q, run, sc.world.runs[run].interrupts[0]


def purged_run(sc):
    q, run = sc.call()
    sc.do("run_start", run=run)
    sc.do("run_complete", run=run)
    for _ in range(sc.world.params.retention):
        sc.do("clock_tick")
    sc.do("purge", run=run)
    return run


# ---- planted mutants -----------------------------------------------------------------------------
class ShortTaskId(Rules):
    def task_id(self, world, run):
        return "t-42"


class DoubleProjection(Rules):
    def task_id(self, world, run):
        return ident.project(ident.project(run.id))


class NoPercentForm(Rules):
    def decode_task_ref(self, world, ref):
        return None if "%2F" in ref else super().decode_task_ref(world, ref)


class IdAsCredential(Rules):
    def can_read(self, world, subject, run):
        return run.durable and not run.purged


class ReadOnlyCallerCancels(Rules):
    def can_cancel(self, world, subject, run):
        return self.can_read(world, subject, run)


class UpdateSkipsApproverCheck(Rules):
    def eligible_approver(self, world, subject, interrupt):
        return world.params.subject(subject).tenant == world.runs[interrupt.run].tenant


class ForeignInternalError(Rules):
    def not_found(self, world, q, reason):
        raw = self.decode_task_ref(world, q.task_ref)
        run = world.runs.get(raw) if raw else None
        if run is not None and run.tenant != world.params.subject(q.subject).tenant:
            return wire.error_response(q.id, wire.INTERNAL_ERROR, "Forbidden", None)
        return super().not_found(world, q, reason)


class PurgedExpiredMessage(Rules):
    def not_found(self, world, q, reason):
        raw = self.decode_task_ref(world, q.task_ref)
        run = world.runs.get(raw) if raw else None
        if run is not None and run.purged:
            return wire.error_response(q.id, wire.INVALID_PARAMS, "Task expired", None)
        return super().not_found(world, q, reason)


class ListenAcksForeign(Rules):
    def listen_ack(self, world, q, refs):
        out = []
        for ref in refs:
            raw = self.decode_task_ref(world, ref)
            if raw in world.runs:
                out.append(raw)
        return out


# ---- ID-1 ----------------------------------------------------------------------------------------
def test_id1_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    sc.do("answer", request=q)
    tid = sc.task_id(run)
    get(sc, "C1", tid)
    get(sc, "C1", tid.replace("~2F", "%2F"))
    sc.do("listen", client="C1", server="S1", declare=True)
    assert sc.fired["task-id-is-projected-run-id"] == 4
    assert "task-id-is-projected-run-id" not in sc.violations
    assert "result" in sc.response("r3")


def test_id1_refuses_t42():
    sc = Scenario(ShortTaskId())
    q, run = sc.call()
    sc.do("answer", request=q)
    msg = sc.violations["task-id-is-projected-run-id"][0]
    assert "'t-42'" in msg and q in msg


def test_id1_refuses_an_opaque_segment_under_128_bits():
    sc = Scenario(params=Params(mint_tasked_len=16))
    q, run = sc.call()
    sc.do("answer", request=q)
    msg = sc.violations["task-id-is-projected-run-id"][0]
    assert "16 characters" in msg and sc.world.label(run) in msg


def test_id1_refuses_a_double_projection():
    sc = Scenario(DoubleProjection())
    q, run = sc.call()
    sc.do("answer", request=q)
    msg = sc.violations["task-id-is-projected-run-id"][0]
    assert "~7E2F" in msg and q in msg


def test_id1_refuses_a_host_that_rejects_the_percent_form():
    sc = Scenario(NoPercentForm())
    q, run = sc.call()
    r = get(sc, "C1", sc.task_id(run).replace("~2F", "%2F"))
    msg = sc.violations["task-id-is-projected-run-id"][0]
    assert r in msg and "%2F form" in msg and "-32602" in msg


# ---- ID-2 ----------------------------------------------------------------------------------------
def test_id2_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    tid = sc.task_id(run)
    get(sc, "C4", tid)                                   # mallory (tenant beta) holds acme's id
    get(sc, "C4", tid, action="tasks_cancel")
    assert sc.fired["task-id-not-a-credential"] == 2
    assert "task-id-not-a-credential" not in sc.violations
    assert sc.world.runs[run].status == "pending"


def test_id2_refuses_an_id_that_acts_as_a_credential():
    sc = Scenario(IdAsCredential())
    q, run = sc.call()
    r = get(sc, "C4", sc.task_id(run))
    msg = sc.violations["task-id-not-a-credential"][0]
    assert r in msg and "mallory" in msg and sc.world.label(run) in msg and "tenant acme" in msg


# ---- AUTH-1 --------------------------------------------------------------------------------------
def test_auth1_holds_on_baseline():
    sc = Scenario()
    q, run, i = approval_task(sc)
    tid = sc.task_id(run)
    get(sc, "C3", tid, action="tasks_cancel")                             # carol: read only
    get(sc, "C1", tid, action="tasks_update", key=i, response="accept")   # alice: not the approver
    get(sc, "C2", tid, action="tasks_update", key=i, response="accept")   # bob: the approver
    assert sc.fired["task-methods-authorized-per-subject"] == 2
    assert "task-methods-authorized-per-subject" not in sc.violations
    assert sc.world.runs[run].status == "running"


def test_auth1_holds_with_error_parameters():
    sc = Scenario(params=Params(p_unauthorized="error", p_approver="error"))
    q, run, i = approval_task(sc)
    tid = sc.task_id(run)
    r1 = get(sc, "C3", tid, action="tasks_cancel")
    r2 = get(sc, "C1", tid, action="tasks_update", key=i, response="accept")
    assert sc.response(r1)["error"]["code"] == sc.response(r2)["error"]["code"] == -32602
    assert "task-methods-authorized-per-subject" not in sc.violations


def test_auth1_refuses_a_read_only_caller_cancelling():
    sc = Scenario(ReadOnlyCallerCancels())
    q, run = sc.call()
    r = get(sc, "C3", sc.task_id(run), action="tasks_cancel")
    msg = sc.violations["task-methods-authorized-per-subject"][0]
    assert r in msg and "carol" in msg and "runs:cancel" in msg and "pending->cancelling" in msg


def test_auth1_refuses_resolution_by_a_non_approver():
    sc = Scenario(UpdateSkipsApproverCheck())
    q, run, i = approval_task(sc)
    r = get(sc, "C1", sc.task_id(run), action="tasks_update", key=i, response="accept")
    msg = sc.violations["task-methods-authorized-per-subject"][0]
    assert r in msg and "alice" in msg and sc.world.label(i) in msg


# ---- ISO-1 ---------------------------------------------------------------------------------------
def test_iso1_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    gone = purged_run(sc)
    refs = [sc.task_id(run), sc.task_id(gone), "not-a-run-id", "acme~2FAAAAAAAAAAAAAAAAAAAAAAAAnotissued"]
    answers = []
    for client, ref in [("C4", refs[0]), ("C1", refs[1]), ("C1", refs[2]), ("C1", refs[3])]:
        answers.append(sc.response(get(sc, client, ref)))
    assert sc.fired["unreadable-task-indistinguishable"] == 3     # foreign, purged, malformed (not the plain unknown)
    assert "unreadable-task-indistinguishable" not in sc.violations
    assert len({str(a["error"]) for a in answers}) == 1


def test_iso1_refuses_an_internal_error_for_a_foreign_task():
    sc = Scenario(ForeignInternalError())
    q, run = sc.call()
    r = get(sc, "C4", sc.task_id(run))
    msg = sc.violations["unreadable-task-indistinguishable"][0]
    assert r in msg and "mallory" in msg and "tenant acme" in msg and "-32603" in msg


def test_iso1_refuses_a_purged_task_told_apart():
    sc = Scenario(PurgedExpiredMessage())
    gone = purged_run(sc)
    r = get(sc, "C1", sc.task_id(gone))
    msg = sc.violations["unreadable-task-indistinguishable"][0]
    assert r in msg and "purged" in msg and "Task expired" in msg and "Task not found" in msg


# ---- ISO-2 ---------------------------------------------------------------------------------------
def test_iso2_holds_on_baseline():
    sc = Scenario()
    q, run = sc.call()
    sc.do("listen", client="C4", server="S1", declare=True)       # mallory asks for acme's task
    sc.do("listen", client="C1", server="S1", declare=True)
    sc.do("run_start", run=run)                                   # alice's stream is notified
    assert sc.fired["listen-omits-unreadable"] == 3
    assert "listen-omits-unreadable" not in sc.violations
    ack = [m for k, m in sc.world.history[2].emitted if "method" in m][0]        # the host's respond to r2
    assert ack["params"]["notifications"]["taskIds"] == []


def test_iso2_refuses_acknowledging_a_foreign_task():
    sc = Scenario(ListenAcksForeign())
    q, run = sc.call()
    sc.do("listen", client="C4", server="S1", declare=True)
    msg = sc.violations["listen-omits-unreadable"][0]
    assert "r2" in msg and "mallory" in msg and sc.world.label(run) in msg and "tenant acme" in msg


def test_iso2_refuses_notifying_a_foreign_listener():
    sc = Scenario(IdAsCredential())
    q, run = sc.call()
    sc.do("listen", client="C4", server="S1", declare=True)
    sc.violations.clear()
    sc.do("run_start", run=run)
    sc.do("run_interrupt", run=run, kind="clarification", form=True)
    msg = sc.violations["listen-omits-unreadable"][0]
    assert "notifications/tasks" in msg and "mallory" in msg and sc.world.label(run) in msg


# ---- ID-G4 (gap) ---------------------------------------------------------------------------------
def test_idg4_exhibited_on_baseline():
    sc = Scenario()
    sc.do("rest_create", subject="alice", server="S1")
    (run,) = sc.world.runs
    r = get(sc, "C1", sc.task_id(run))
    assert sc.fired["short-opaque-task-resolves"] == 1
    (msg,) = sc.violations["short-opaque-task-resolves"]
    assert r in msg and "started by rest" in msg and "16 characters" in msg


def test_idg4_closed_by_every_run_128_bits():
    sc = Scenario(params=Params(mint_other_len=22))
    sc.do("rest_create", subject="alice", server="S1")
    (run,) = sc.world.runs
    get(sc, "C1", sc.task_id(run))
    assert sc.fired["short-opaque-task-resolves"] == 1
    assert "short-opaque-task-resolves" not in sc.violations


# ---- the baseline, at random ---------------------------------------------------------------------
def test_baseline_random_walks_hold():
    fired: dict[str, int] = {}
    for seed in range(20):
        sc = scenario.random_walk(Scenario(), 100 + seed, 60)
        bad = {n: m for n, m in sc.violations.items() if CATALOGUE[n].asserted}
        assert not bad, (seed, bad)
        for n, c in sc.fired.items():
            fired[n] = fired.get(n, 0) + c
    asserted = [n for n in NAMES if CATALOGUE[n].asserted]
    reached = [n for n in asserted if fired.get(n)]
    assert len(reached) >= len(asserted) - 1, sorted(set(asserted) - set(reached))


def test_kinds_fit_ids():
    kinds = {CATALOGUE[n].ids[0]: CATALOGUE[n].kind for n in NAMES}
    assert kinds["ID-G4"] == "gap"
    assert {kinds[i] for i in ("ID-1", "ID-2", "AUTH-1", "ISO-1", "ISO-2")} <= {"invariant", "step"}
    assert all(CATALOGUE[n].premise is not None for n in NAMES)


# ---- the directed story ---------------------------------------------------------------------------
def _play_story(rules=None):
    """identity.STORIES["foreign-listener"] move by move: (premises reached, messages of failed checks)."""
    from model.stories import play
    from model.world import World
    world = World(Params(), rules)
    premised, failed = set(), {}
    for _, _, step, _ in play(world, identity.STORIES["foreign-listener"]):
        for p in CATALOGUE.values():
            if p.area != MODULE or p.kind in ("liveness", "gap"):
                continue
            if p.premise(world, step):
                premised.update(p.ids)
            msg = p.check(world, step)
            if msg:
                failed.setdefault(p.ids[0], msg)
    return premised, failed


def test_the_foreign_listener_story_holds_on_the_baseline_and_reaches_its_premises():
    premised, failed = _play_story()
    assert failed == {}
    assert {"ISO-1", "ISO-2", "ID-2"} <= premised


def test_the_foreign_listener_story_finds_a_listen_that_acks_a_foreign_task():
    from model.variants import builtins
    _, failed = _play_story(builtins()["listen-acks-foreign"]())
    assert "of mallory" in failed["ISO-2"] and "(tenant acme)" in failed["ISO-2"], failed["ISO-2"]
