"""The exploration engine on planted properties: it finds, shrinks and replays; it reports vacuity."""
from properties.base import Property
from verifier.engines.random.explore import explore
from verifier.runtime.worlds import world_factory
from verifier.runtime.replay import run_trace, shrink


def _prop(name, kind, check, premise=None):
    return Property(name, ("TEST-1",), kind, "test", "a planted property", check, premise)


def no_completion(world, step):
    done = [r.label for r in world.runs.values() if r.status == "completed"]
    return f"{done[0]} completed" if done else None


def test_planted_invariant_is_refuted_with_a_short_replaying_trace():
    p = _prop("never-completes", "invariant", no_completion, premise=lambda w, s: True)
    r = explore(None, budget=20, seed=1, props=[p], chunks=4)
    v = r.by_name()["never-completes"]
    assert v.verdict == "refuted", v
    # the shortest story: a run is created, starts, completes
    assert v.length == 3, [s.note for s in v.trace]
    out = run_trace(world_factory(None), [(s.action, s.args) for s in v.trace], [p], "never-completes")
    assert out.violation is not None and len(out.violation.history) == 3


def test_premise_never_reached_is_vacuous_not_holding():
    p = _prop("never-premise", "invariant", lambda w, s: None, premise=lambda w, s: False)
    r = explore(None, budget=5, seed=0, props=[p], chunks=1)
    assert r.by_name()["never-premise"].verdict == "vacuous"


def test_witness_reached_and_unreached():
    reach = _prop("reach-purge", "witness",
                  lambda w, s: "purged" if any(r.purged for r in w.runs.values()) else None)
    never = _prop("never", "witness", lambda w, s: None)
    r = explore(None, budget=20, seed=0, props=[reach, never], chunks=4)
    assert r.by_name()["reach-purge"].verdict == "reached"
    assert r.by_name()["never"].verdict == "unreached"


CALL = dict(client="C1", server="S1", transport="http", declare=True, tool="flow")


def _two_calls():
    """(world factory, a world after two tasked calls, the second call's run)."""
    make = world_factory(None)
    w = make()
    w.apply("call_tool", CALL)
    w.apply("call_tool", CALL)
    return make, w, list(w.runs)[1]


def test_shrink_translates_ids_after_removing_steps():
    make, w, second = _two_calls()
    w.apply("run_start", {"run": second})
    w.apply("run_complete", {"run": second})
    p = _prop("never-completes", "invariant", no_completion)
    moves = [(s.action, s.args) for s in w.history]
    small, _ = shrink(make, moves, [s.created for s in w.history], [p], "never-completes")
    assert len(small) == 3 and small[0] == ("call_tool", CALL)


def test_shrink_translates_task_references_after_removing_steps():
    """A task is named on the wire by its projected runId (or the %2F form): dropping the call that
    minted an earlier run renames those references too, so the shrunk trace keeps only what matters."""
    from model import identity
    make, w, second = _two_calls()
    for ref in (identity.project(second), identity.project(second).replace("~2F", "%2F")):
        w.apply("tasks_get", dict(client="C1", server="S1", ref=ref, transport="http", declare=True, header_ok=True))
        w.apply("respond", dict(request=w.last_request()))

    def two_reads(world, step):
        n = sum(q.method == "tasks/get" and "result" in (q.response or {}) for q in world.requests.values())
        return "two task reads" if n == 2 else None

    p = _prop("read-twice", "invariant", two_reads)
    moves = [(s.action, s.args) for s in w.history]
    small, _ = shrink(make, moves, [s.created for s in w.history], [p], "read-twice")
    assert [a for a, _ in small] == ["call_tool", "tasks_get", "respond", "tasks_get", "respond"], small


def test_an_exploration_depends_on_its_seed_alone(tmp_path, monkeypatch):
    """Hypothesis draws integers from the literals of loaded local modules; loading one with new
    literals must not change what a seed explores (the gate's verdicts would drift)."""
    import importlib
    import sys

    from model.variants import resolve
    from verifier.engines.random.explore import explore
    v = resolve("detach-on-disconnect")
    before = explore(v, budget=60, chunks=2, examples_per_chunk=10)
    (tmp_path / "lits_for_hypothesis.py").write_text(
        "VALUES = [123457, 987654321, 4242, 1 << 40, 77777, 31337, 2**64 - 5]\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("lits_for_hypothesis")
    after = explore(v, budget=60, chunks=2, examples_per_chunk=10)
    sys.modules.pop("lits_for_hypothesis", None)
    assert (after.steps, after.action_counts) == (before.steps, before.action_counts)


def test_the_guards_skip_only_checks_that_would_find_nothing(monkeypatch):
    """A property that declares what of a step it reads is not run at a step touching none of it
    (`checking.check_step`): the exploration, its verdicts, traces and every count are those of the
    same exploration running every property at every step."""
    from model.variants import resolve
    from properties.base import Property as P
    from verifier.runtime import checking
    calls = {"guarded": 0}
    real = checking.guard_facets

    def counting(world, step):
        calls["guarded"] += 1
        return real(world, step)

    def seen(r):
        return (r.steps, r.action_counts, r.form_counts,
                [(v.name, v.verdict, v.premise, v.checks, v.message, v.length) for v in r.verdicts])

    for variant in (None, resolve("waiting-external-input-required")):
        monkeypatch.setattr(checking, "guard_facets", counting)
        guarded = seen(explore(variant, budget=120, seed=3, chunks=2))
        assert calls["guarded"] > 100
        monkeypatch.setattr(P, "may_read", lambda self, facets, action: True)
        everything = seen(explore(variant, budget=120, seed=3, chunks=2))
        monkeypatch.undo()
        assert guarded == everything


def test_the_swarm_asks_other_actions_moves_only_when_none_of_its_own_is_enabled():
    """`enabled` is the swarm's enabled actions, else every enabled one (weighted): the same as from
    every action's moves, though the others are enumerated only when the swarm has none enabled."""
    import random

    from model.world import World, action_table
    from verifier.engines.random.machine import make_machine
    from verifier.runtime.checking import Observations
    table = action_table()
    names = list(table)
    machine = make_machine(World.composed, [], set(), Observations())()
    rnd, lazy = random.Random(3), 0
    for _ in range(300):
        w = machine.world
        live = [n for n in names if w.moves(n)]
        if not live:
            break
        machine.swarm = rnd.getrandbits(len(names))
        machine._moves, machine._enabled = {}, None
        chosen = [n for n in live if machine.swarm >> names.index(n) & 1] or live
        assert machine.enabled() == [n for n in chosen for _ in range(table[n].weight)]
        lazy += len(machine._moves) < len(names)
        name = rnd.choice(live)
        moves = w.moves(name)
        w.apply(name, moves[rnd.randrange(len(moves))], check=False)
        machine._moves, machine._enabled = {}, None
    assert lazy > 100
