"""Survivors of the mutation analysis of model/harness.py (docs/mutation.md) that HNS-4 now kills.

- a re-issue that leaves the dropped call it replaces among the requests in flight: once the cancel
  intent makes the call no longer re-issuable, that stale drop is taken for the re-issue's and the
  record ends "effect unknown" while the re-issued call is still open (the fact is still obtainable);
- `if q.retry_of is not None` negated in reading a tools/call error: an MRTR retry refused after a
  cancel intent (its interrupt was answered elsewhere) is recorded failed, a fact nobody read.

Each story holds on the baseline (with the fair drain); each mutant, loaded by the mutation
analysis's import hook in a process of its own, refutes HNS-4 on its story.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from model.fairness import drain
from model.world import composed_world
from properties.base import CATALOGUE
from properties.harness import STORIES, play

ROOT = Path(__file__).resolve().parents[1]
HNS4 = "harness-cancel-is-intent"
CHECKED = [p for p in CATALOGUE.values() if p.area == "harness" or p.name == "bound-task-outcome-recorded"]

# Runs in a child process: the story, then the fair drain, with every harness property checked at each
# step until one reports; prints {property: message}.
CHILD = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("mutation", "benchmarks/mutation.py")   # not on sys.path:
mutation = importlib.util.module_from_spec(spec)                                    # benchmarks/z3.py would
spec.loader.exec_module(mutation)                                                   # shadow the z3 package
source, kind, story = sys.argv[1:4]
if source:
    found = [i for i, (line, what) in enumerate(mutation.mutants("model/harness.py"))
             if what.startswith(kind) and mutation._line("model/harness.py", line) == source]
    assert len(found) == 1, found
    sys.meta_path.insert(0, mutation._Hook("model.harness", mutation.mutated_code("model/harness.py", found[0])))
from model import stories
from model.fairness import drain
from model.world import composed_world
from properties.base import CATALOGUE
from properties.harness import STORIES
props = [p for p in CATALOGUE.values() if p.area == "harness"]
world, messages = composed_world(), {}
class Refuted(Exception):
    pass
def look(step):
    for p in props:
        msg = p.check(world, step)
        if msg:
            messages.setdefault(p.name, msg)
    if messages:
        raise Refuted        # as an engine does: the behaviour ends at its first refutation
try:
    for _, _, step, _ in stories.play(world, STORIES[story]):
        look(step)
    drain(world, on_step=look)
except Refuted:
    pass
print(json.dumps(messages))
"""


def _child(source: str, kind: str, story: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, source, kind, story], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


STORY_CASES = ["harness-cancels-a-reissued-call", "harness-cancels-before-a-refused-retry"]


@pytest.mark.parametrize("story", STORY_CASES)
def test_the_story_holds_on_the_baseline_through_the_fair_drain(story):
    world, messages, premises = composed_world(), {}, {}

    def look(w, step):
        for p in CHECKED:
            if p.kind != "liveness":
                if p.premise is not None and p.premise(w, step):
                    premises[p.name] = premises.get(p.name, 0) + 1
                msg = p.check(w, step)
                if msg:
                    messages.setdefault(p.name, msg)
        return False
    play(world, STORIES[story], until=look)
    assert len(world.history) == len(STORIES[story]), "every step of the story is enabled on the baseline"
    drain(world, on_step=lambda s: look(world, s))
    for p in CHECKED:
        if p.kind == "liveness":
            msg = p.check(world, None)
            if msg:
                messages.setdefault(p.name, msg)
    assert messages == {}
    if story == "harness-cancels-before-a-refused-retry":
        assert premises.get(HNS4), "the refused retry ends the cancelled record: HNS-4's premise"
        assert world.harness.execution("H1", "op1").status == "unknown"


MUTANTS = [
    # (the mutated statement, the mutation kind, the story, what HNS-4's message names)
    ("c.proc.inflight.pop(old, None)", "deleted", "harness-cancels-a-reissued-call",
     ("H1 recorded op1 'unknown' after its cancel intent without the remote fact",)),
    ("if q.retry_of is not None:", "negated", "harness-cancels-before-a-refused-retry",
     ("H1 recorded op1 'failed' after its cancel intent without the remote fact", "r2: unobtainable")),
]


def test_the_stories_hold_on_the_unmutated_model_in_a_child_process_too():
    for story in STORY_CASES:
        assert _child("", "", story) == {}


@pytest.mark.parametrize("source,kind,story,values", MUTANTS, ids=[m[0] for m in MUTANTS])
def test_the_surviving_mutant_is_refuted_on_hns4(source, kind, story, values):
    messages = _child(source, kind, story)
    assert HNS4 in messages, messages
    for value in values:
        assert value in messages[HNS4], (value, messages[HNS4])
