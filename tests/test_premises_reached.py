"""Every property's premise is reached by the random engine on the baseline, on each of five seeds.

A premise never reached reads `vacuous` (or, for a gap, `holds` on nothing): on a compliant amendment
that verdict must be the rare case, so the environment, its weights and its focus reads
(`model.clients`) reach every premise at the engine's default work budget whatever the seed. The
default test run explores a smaller stated budget (FAST_EXAMPLES per seed, where every premise is
already reached); `--slow` explores the full default budget (`budgets.DEFAULT_EXAMPLES`).
"""
from __future__ import annotations

import pytest

from properties.base import load_catalogue
from verifier.engines.random.explore import explore
from verifier.runtime.budgets import DEFAULT_EXAMPLES, EXAMPLES_PER_CHUNK, chunks_for

SEEDS = range(5)
FAST_EXAMPLES = 300
CAP = 3_600.0       # an outer bound only: a run it cuts short fails the test (stopped)


def unreached_premises(seed: int, examples: int) -> list[str]:
    r = explore(None, budget=CAP, seed=seed, chunks=chunks_for(examples), examples_per_chunk=EXAMPLES_PER_CHUNK)
    assert not r.faults, [f.line() for f in r.faults]
    assert not r.stopped, r.stopped
    with_premise = {p.name for p in load_catalogue().values() if p.premise is not None}
    assert with_premise, "no property states a premise"
    return sorted(v.name for v in r.verdicts if v.name in with_premise and v.premise == 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_premise_is_reached_at_a_small_budget(seed):
    assert unreached_premises(seed, FAST_EXAMPLES) == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_every_premise_is_reached_at_the_default_budget(seed):
    assert unreached_premises(seed, DEFAULT_EXAMPLES) == []
