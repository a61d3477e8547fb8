"""`run_bfs`: a check's searches, one scope each, in this process, in worker processes, or split
across workers by shards of one scope's frontier (`partition`); one CheckResult for them all."""
from __future__ import annotations

import functools
import math
import time

from properties.base import load_catalogue

from verifier.engines.bfs import merge
from verifier.engines.bfs import incremental as incremental_search
from verifier.engines.bfs.partition import LocalPool, judge
from verifier.engines.bfs.search import _by_name, _judged, _picklable, plan, result_of
from verifier.runtime import scopes
from verifier.runtime.budgets import NO_CAP


def _search_job(variant, scope, names, rename, until, max_states, max_depth, shadow, incremental=False,
                budget=NO_CAP, por=True, progress=None):
    """One search in a worker process (properties are named, not pickled), until the monotonic
    time `until` (the whole check's deadline: a search that starts late has what is left);
    `progress`, when it pickles, is told of it from the worker."""
    catalogue = load_catalogue()
    props = [catalogue[n] for n in names]
    return _judge(incremental, variant, budget, por)(variant, scope, props, rename, max(0.0, until - time.monotonic()),
                                                     max_states, max_depth, progress, shadow)


def _judge(incremental: bool, variant, budget: float, por: bool = True):
    """A search incremental from the baseline's stored graph when asked (`incremental.judged`, which
    falls back to a search from scratch where it must, and says so). A check with a wall-clock cap
    builds no missing graph: a build the cap cut would be lost whole (the search after it would start
    from nothing with no time left), where the search from scratch it does instead keeps how far it
    got. Without a cap, the baseline's own check builds its graphs as it searches (the build is the
    search, recording what it asked), so that the amendments and the gate after it find them. `por`:
    a search from scratch is reduced where it may be (`ample`); one from the stored graph takes the
    whole graph's transitions."""
    if not incremental:
        return functools.partial(_judged, por=por)
    return functools.partial(incremental_search.judged, por=por, no_build=None if math.isinf(budget) else (
        "a check with a wall-clock cap does not build one (`make verify`'s set-up, the gate and a check "
        "without --budget build it)"))


def _told(progress, result) -> None:
    """A scope's refutations told as soon as its search ends (`progress.found`, where the progress has
    it), not only in the table at the end of every search of the plan."""
    found = getattr(progress, "found", None)
    if found is not None:
        s, verdicts, _ = result
        found(s.scope.name, [v for v in verdicts if v.verdict == "refuted" and v.trace])


def run_bfs(variant=None, scope=None, symmetry=True, jobs=1, budget=60.0, progress=None, props=None,
            max_states=None, max_depth=None, shadow=False, incremental=False, por=True):
    """Exhaustive search of a variant (an Amendment subclass or None) at a scope, or at every scope of
    the plan (`search.plan`), each property's verdicts merged (`merge.joined`); a CheckResult with
    `states` (generated, distinct, depth, complete, per scope) and `faults`. With `incremental`, an
    amendment is searched from the baseline's stored graph (`incremental`), one scope at a time.
    `por`: searches reduced by the partial-order reduction where they may be (`ample`; `--no-por`)."""
    started = time.monotonic()
    catalogue = list(props) if props is not None else list(load_catalogue().values())
    jobs_plan = plan(scope, catalogue)
    if jobs > 1 and len(jobs_plan) == 1 and _by_name(jobs_plan[0][1]):
        sc, ps = jobs_plan[0]
        with LocalPool(jobs) as pool:
            results = [judge(variant, sc, ps, pool, symmetry, budget, max_states, max_depth, progress, shadow)]
            if por:
                results[-1][0].por = "off: a search split across workers (--jobs) is not reduced"
            _told(progress, results[-1])
    elif jobs > 1 and len(jobs_plan) > 1 and _picklable(variant):
        from concurrent.futures import ProcessPoolExecutor, as_completed
        until = started + budget
        with ProcessPoolExecutor(max_workers=min(jobs, len(jobs_plan))) as pool:
            # The composed scope's search, the longest, first, and host-small, which judges most
            # properties, next (under a short cap it must not wait), then the two requests': the
            # others follow on whichever worker is free.
            first = (scopes.DEFAULT_COMPOSED, scopes.DEFAULT_HOST, *scopes.ALSO)
            order = sorted(range(len(jobs_plan)), key=lambda i: first.index(jobs_plan[i][0].name)
                           if jobs_plan[i][0].name in first else len(first))
            told = progress if _picklable(progress) else None
            futs = {i: pool.submit(_search_job, variant, jobs_plan[i][0], [p.name for p in jobs_plan[i][1]],
                                   symmetry, until, max_states, max_depth, shadow, incremental, budget, por, told)
                    for i in order}
            for fut in as_completed(futs.values()):
                _told(progress, fut.result())
            results = [futs[i].result() for i in range(len(jobs_plan))]
    else:
        results = []
        for sc, ps in jobs_plan:
            # Each search does all its work; the cap is one deadline over them all, not shares of it.
            left = max(0.0, started + budget - time.monotonic())
            results.append(_judge(incremental, variant, budget, por)(variant, sc, ps, symmetry, left, max_states,
                                                                     max_depth, progress, shadow))
            _told(progress, results[-1])
    return result_of(variant, merge.joined(results), catalogue, budget, started,
                     work={"max_states": max_states, "max_depth": max_depth, "symmetry": symmetry, "por": por})
