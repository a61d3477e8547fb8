"""The silent amendment: an override that never fires, or never answers otherwise than the baseline,
is `unexercised` (undetermined, exit 2), and counting it never changes what the exploration sees."""
import json

from model.amend import Amendment
from model.variants import resolve
from verifier.engines.bfs.run import run_bfs
from verifier.cli import main
from verifier.engines.random.explore import explore
from verifier.runtime.shadow import PURE, instrument, unexercised

HEAD = "from model.amend import Amendment\n\n\nclass A(Amendment):\n    name = 'a'\n"


class DefersToTheBaseline(Amendment):
    """Acting rules (they append events, send messages, cancel runs) overridden by their baseline."""
    name = "defers-to-the-baseline"

    def resolve(self, world, interrupt, subject, action, via, content=None):
        return super().resolve(world, interrupt, subject, action, via, content)

    def tasks_cancel(self, world, q, run):
        return super().tasks_cancel(world, q, run)

    def on_request_cancelled(self, world, q, cause):
        return super().on_request_cancelled(world, q, cause)


class ResolvesTwice(DefersToTheBaseline):
    name = "resolves-twice"

    def resolve(self, world, interrupt, subject, action, via, content=None):
        done = super().resolve(world, interrupt, subject, action, via, content)
        if done:
            world.append(world.runs[interrupt.run], {"type": "interrupt.resolved", "again": True})
        return done


def _check(capsys, tmp_path, monkeypatch, body):
    """A short check by work budgets (states a scope, examples), so that what it sees never depends on the load."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(HEAD + body)
    code = main(["check", "--variant", "a.py", "--max-states", "3000", "--examples", "50", "--json"])
    out, err = capsys.readouterr()
    assert out.startswith("{"), (code, err)
    return code, json.loads(out)["results"][0]


def test_an_override_that_answers_as_the_baseline_is_unexercised(capsys, tmp_path, monkeypatch):
    code, r = _check(capsys, tmp_path, monkeypatch,
                     "    def can_read(self, world, subject, run):\n"
                     "        return super().can_read(world, subject, run)\n")
    assert r["overrides"]["can_read"]["calls"] > 0 and r["overrides"]["can_read"]["differed"] == 0
    assert r["unexercised"] == ["can_read"] and code == 2


def test_an_override_that_never_fires_is_unexercised(capsys, tmp_path, monkeypatch):
    # The baseline never serves a removed method, so their result is never asked for.
    code, r = _check(capsys, tmp_path, monkeypatch,
                     "    def removed_method_result(self, world, q):\n        return {'tasks': []}\n")
    assert r["overrides"] == {"removed_method_result": {"calls": 0, "differed": 0}}
    assert r["unexercised"] == ["removed_method_result"] and code == 2


def test_an_acting_override_is_compared_on_a_copy():
    """detach-on-disconnect's rule acts (the baseline cancels a run): its answers differ, and the
    shadow calls leave the exploration exactly as it is without them."""
    v = resolve("detach-on-disconnect")
    assert "on_request_cancelled" not in PURE
    plain = explore(v, budget=60, seed=3, chunks=2)
    shadowed = explore(v, budget=60, seed=3, chunks=2, shadow=True)
    assert shadowed.overrides["on_request_cancelled"]["differed"] > 0 and not unexercised(shadowed.overrides)
    assert [(x.name, x.verdict, x.length) for x in plain.verdicts] == \
           [(x.name, x.verdict, x.length) for x in shadowed.verdicts]
    assert plain.steps == shadowed.steps and plain.action_counts == shadowed.action_counts


def test_a_reading_override_leaves_the_exploration_as_it_is():
    v = resolve("paused-projects-cancelled")
    plain = explore(v, budget=60, seed=1, chunks=2)
    shadowed = explore(v, budget=60, seed=1, chunks=2, shadow=True)
    assert shadowed.overrides["project_status"]["calls"] > 0
    assert [(x.name, x.verdict, x.length) for x in plain.verdicts] == \
           [(x.name, x.verdict, x.length) for x in shadowed.verdicts]


def test_harness_rules_are_counted_too():
    v = resolve("cancel-ack-means-no-effect")
    cls, rec = instrument(v)
    assert [r for r in rec.counts if r.startswith("harness.")] == ["harness.outcome_of_cancel_ack"]
    assert issubclass(cls.harness_rules, v.harness_rules) and cls.name == v.name


def test_every_builtin_rule_is_classified():
    from model.harness import HarnessRules
    from model.rules import Rules
    from verifier.runtime.shadow import _public
    acting = {"mint_run_id", "mint_interrupt_id", "input_required", "answer_tools_call", "resolve", "do_resolve",
              "cancel_run", "tasks_cancel", "on_tasks_get", "on_ttl_elapsed", "on_request_cancelled",
              "on_response_lost", "on_disconnect_after_response", "after_step", "record_remote_status"}
    names = set(_public(Rules)) | set(_public(HarnessRules))
    assert names == (PURE & names) | acting, names - PURE - acting


def test_acting_overrides_that_defer_to_the_baseline_answer_as_it_under_both_engines():
    """What the baseline records and sends on its copy is compared, never undone first: an
    override that only calls super() differs on no call, one that appends an event does."""
    for engine in (lambda v: explore(v, seed=0, chunks=3, examples_per_chunk=25, shadow=True),
                   lambda v: run_bfs(v, scope="host-small", budget=600, shadow=True)):
        same = engine(DefersToTheBaseline).overrides
        assert all(c["calls"] for c in same.values()) and not any(c["differed"] for c in same.values()), same
        assert sorted(unexercised(same)) == ["on_request_cancelled", "resolve", "tasks_cancel"]
        other = engine(ResolvesTwice).overrides
        assert other["resolve"]["differed"] > 0 and "resolve" not in unexercised(other), other
