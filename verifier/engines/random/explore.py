"""Budgeted exploration of one variant with Hypothesis, ending in one honest verdict per property.

Verdicts: holds (within the stated budget, premise reached), refuted (with a shrunk trace that
replays), vacuous (premise never reached: undetermined, never a pass), reached / unreached
(witnesses), known-gap (a gap exhibited) — a gap not exhibited is reported holds.
"""
from __future__ import annotations

import math
import time
from contextlib import contextmanager

from hypothesis import HealthCheck, Phase, Verbosity, seed as hyp_seed, settings
from hypothesis.stateful import run_state_machine_as_test

from model.host import answer_pending
from properties.base import load_catalogue

from verifier.engines.random.machine import STEPS_PER_DRAW, make_machine
from verifier.runtime.budgets import TIME_CAP
from verifier.runtime import interrupt, reuse
from verifier.runtime.checking import Observations, OutOfBudget, Violation, check_liveness, check_step
from verifier.runtime.faults import ModelFault, fault_of
from verifier.engines.random.shorten import shorten
from verifier.runtime.replay import shrink_fault, until
from verifier.runtime.results import CheckResult, PropertyVerdict, vacuity
from verifier.runtime.watchdog import CapReached
from verifier.runtime.worlds import guarded_factory, world_factory


@contextmanager
def seed_only():
    """Hypothesis also draws integers from the literals of the project's own loaded modules: a
    new literal anywhere (or another engine's module loaded first) would change the examples a
    seed gives, and so the gate's verdicts. The exploration's choices come from its seed alone."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:          # a Hypothesis without local constants: nothing to pin
        yield
        return
    found = getattr(providers, "_get_local_constants", None)
    empty = getattr(providers, "Constants", None)
    if found is None or empty is None:
        yield
        return
    providers._get_local_constants = lambda *a, **k: empty()
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = found
        providers.CONSTANTS_CACHE.cache.clear()


def scenario_stories(catalogue) -> dict[str, list]:
    """The scenario stories the catalogue modules ship (`STORIES`): directed test drivers for
    behaviours random steps reach rarely (a call that acts, loses its answer, and is re-issued)."""
    import importlib
    out = {}
    for module in sorted({p.check.__module__ for p in catalogue}):
        for name, story in getattr(importlib.import_module(module), "STORIES", {}).items():
            out[f"{module.rsplit('.', 1)[-1]}:{name}"] = story
    return out


def play_scenarios(make_world, catalogue, asserted, obs, refuted) -> int:
    """Replay every scenario story with every property checked, as the first examples of an
    exploration. A story a variant does not enable is cut where it diverges. Returns how many ran."""
    ran = 0
    for story in scenario_stories(catalogue).values():
        obs.examples += 1
        ran += 1
        try:
            world = make_world()
            for k, (action, args) in enumerate(story):
                try:
                    args = args(world) if callable(args) else args
                except (IndexError, KeyError):
                    break                   # the story names a run or request this variant never made
                except (KeyboardInterrupt, ModelFault):
                    raise
                except BaseException as e:  # the story read the variant's state and that raised
                    raise ModelFault(fault_of(e, world.history, f"the scenario before {action}")) from e
                if args not in world.moves(action):
                    break
                step = world.apply(action, args, check=False)
                check_step(world, step, catalogue, asserted, obs)
                for answered in answer_pending(world, step, story[k + 1][0] if k + 1 < len(story) else None, False):
                    check_step(world, answered, catalogue, asserted, obs)
            check_liveness(world, catalogue, asserted, obs)
        except Violation as v:
            refuted.setdefault(v.prop.name, v)
            asserted.discard(v.prop.name)
        except ModelFault as e:
            obs.fault(e.fault)
            break
    return ran


def explore(variant=None, budget: float = 30.0, seed: int = 0, step_count: int = 40, examples_per_chunk: int = 25,
            props=None, base_params=None, progress=None, shrink_share: float = 0.25,
            chunks: int | None = None, shadow: bool = False, stories: bool = True) -> CheckResult:
    """Explore for `budget` seconds, or for exactly `chunks` chunks of examples when given (the
    gate's deterministic mode: the same seed then gives the same verdicts and traces; a run that
    hits the time budget first says so, and its holding verdicts become undetermined).

    In budget mode the budget bounds the whole call: the search stops early when every asserted
    property is already refuted, and shrinking stops when the budget is spent. A fault (a rule or
    the model raising, or a step outlasting the watchdog) stops the search; it is shrunk by replay
    and reported in `faults`, and what still holds is undetermined. With `shadow`, each rule the
    variant overrides is counted and compared with the baseline's (`verifier.runtime.shadow`). Without
    `stories`, the catalogue's scenario stories are not replayed first (random steps alone)."""
    if variant is None and props is None and base_params is None and chunks is not None and budget == math.inf:
        # the baseline's exploration in chunks, uncapped, is a function of its settings and the code
        # alone: the main job's check and gate both ask for it (`reuse`, where a run opts in)
        r, said = reuse.recalled("exploration", (seed, step_count, examples_per_chunk, chunks, stories),
                                 lambda: _explored(None, budget, seed, step_count, examples_per_chunk, None, None,
                                                   progress, shrink_share, chunks, shadow, stories))
        r.reused = said
        return r
    return _explored(variant, budget, seed, step_count, examples_per_chunk, props, base_params, progress, shrink_share,
                     chunks, shadow, stories)


def _explored(variant, budget, seed, step_count, examples_per_chunk, props, base_params, progress, shrink_share,
              chunks, shadow, stories) -> CheckResult:
    """`explore`, done."""
    started = time.monotonic()
    recorder = None
    if shadow and variant is not None:
        from verifier.runtime.shadow import instrument
        variant_run, recorder = instrument(variant)
    else:
        variant_run = variant
    make_world = guarded_factory(lambda: world_factory(variant_run, base_params)())
    catalogue = props if props is not None else list(load_catalogue().values())
    asserted = {p.name for p in catalogue if p.asserted}
    obs = Observations(deadline=started + budget)     # in chunk mode, the outer cap only
    refuted: dict[str, Violation] = {}
    cut = None          # the watchdog's CapReached: the cap passed in the middle of a step, which it names
    try:
        scenarios = play_scenarios(make_world, catalogue, asserted, obs, refuted) if stories else 0
    except CapReached as e:
        scenarios, cut = obs.examples, e
    search_until = started + budget * (1 - shrink_share) if chunks is None else started + budget
    chunk, capped = 0, False
    stopped = "a fault" if obs.faults else ""
    while not stopped and not cut and time.monotonic() < search_until and (chunks is None or chunk < chunks):
        interrupt.check()
        if chunks is None and not asserted and any(p.asserted for p in catalogue):
            stopped = "every asserted property is refuted"
            break
        machine = make_machine(make_world, catalogue, asserted, obs)
        hyp_seed(seed * 100_003 + chunk)(machine)
        chunk += 1
        try:
            with seed_only():
                run_state_machine_as_test(machine, settings=settings(
                    max_examples=examples_per_chunk, stateful_step_count=max(1, step_count // STEPS_PER_DRAW),
                    deadline=None, database=None,
                    report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
                    phases=[Phase.generate], print_blob=False, verbosity=Verbosity.quiet))
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            # The first failure of the chunk was recorded where it happened; Hypothesis re-raises it
            # (or, when its replay differs, a Flaky error about it).
            v, obs.last_failure = obs.last_failure, None
            if v is not None:
                refuted[v.prop.name] = v
                asserted.discard(v.prop.name)
            if obs.faults:
                stopped = "a fault"
            elif v is None and (isinstance(e, (OutOfBudget, CapReached)) or
                                (obs.deadline is not None and time.monotonic() > obs.deadline)):
                capped, cut = True, e if isinstance(e, CapReached) else None
                break
            elif v is None:             # an error of the engine itself: a fault, never a verdict
                obs.fault(fault_of(e, [], "the exploration"))
                stopped = "a fault"
        if progress:
            done = chunk / chunks if chunks else (time.monotonic() - started) / budget
            progress(min(1.0, done), obs, refuted)
    if recorder is not None:
        recorder.enabled = False        # replays while shrinking are not behaviours to count

    # Shorten every counterexample and witness further by replay (Hypothesis shrinks per example).
    traces: dict[str, tuple[str, list]] = {n: (v.message, v.history) for n, v in refuted.items()}
    for name, (msg, hist) in obs.observed.items():
        traces.setdefault(name, (msg, hist))
    truncated = chunks is not None and (capped or chunk < chunks) and not stopped
    if truncated:
        done = chunk - 1 if capped else chunk
        stopped = f"{TIME_CAP}: {done} of {chunks} chunks ({obs.examples} examples) before the cap"
        stopped += f" ({cut})" if cut else ""
    replay_world = until(make_world, started + budget)
    loops, shortened = {}, {}
    for name, (msg, hist) in sorted(traces.items(), key=lambda kv: (len(kv[1][1]), kv[0])):
        try:
            got = shorten(make_world, replay_world, variant_run, base_params, catalogue, name, hist)
        except (OutOfBudget, CapReached):   # the cap is reached: the traces found so far stand as found
            if chunks is not None and not stopped:
                stopped = f"{TIME_CAP} while shrinking: some traces are as found, not shortest"
            break
        except ModelFault:
            continue                    # a shorter candidate faulted where it drained: keep this one
        if got is not None:
            traces[name], loops[name] = (got[0], got[1]), got[2]
            if got[3] is not None:
                shortened[name] = got[3]
    faults = [shrink_fault(make_world, f, catalogue, started + budget) for f in obs.faults]

    verdicts = []
    for p in catalogue:
        msg, hist = traces.get(p.name, (None, None))
        premise = obs.premise_counts.get(p.name, 0)
        empty = vacuity(p, obs.premise_counts)
        if p.asserted:
            verdict = "refuted" if p.name in refuted else ("holds" if empty is None else "vacuous")
            if verdict == "holds" and faults:
                verdict = "undetermined"
        elif p.kind == "witness":
            verdict = "reached" if hist is not None else ("unreached" if not faults else "undetermined")
        else:
            verdict = "known-gap" if hist is not None else ("holds" if empty is None else "vacuous")
            if verdict == "holds" and faults:
                verdict = "undetermined"
        if verdict == "vacuous":
            msg = f"{empty} in {obs.examples} examples"
        # A run the cap cut short has not done its planned work: what it has not found yet, a
        # premise case it has not reached yet included, the rest of the work might have.
        if truncated and verdict in ("holds", "vacuous", "unreached"):
            msg = stopped + (f"; {msg}" if verdict == "vacuous" else "")
            verdict = "undetermined"
        verdicts.append(PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict,
                                        msg, hist, premise, obs.checks.get(p.name, 0),
                                        p.case_counts(obs.premise_counts)))
        verdicts[-1].loop = loops.get(p.name)
    params = _params(variant, base_params)
    return CheckResult(
        variant=getattr(variant, "name", "baseline") if variant else "baseline", engine="hypothesis", seed=seed,
        budget_s=budget, elapsed_s=time.monotonic() - started,
        bounds={**params.sizes(), "steps_per_example": step_count, "examples_per_chunk": examples_per_chunk,
                "chunks": chunk, "scenarios": scenarios, "cut": obs.cut, "shortened": shortened},
        examples=obs.examples - scenarios, steps=obs.steps,
        action_counts=dict(sorted(obs.action_counts.items())), form_counts=dict(obs.form_counts),
        verdicts=verdicts, faults=faults,
        overrides=recorder.summary() if recorder is not None else None, stopped=stopped,
        work=({"examples": chunks * examples_per_chunk, "chunks": chunks, "examples_per_chunk": examples_per_chunk,
               "steps_per_example": step_count, "seed": seed} if chunks is not None else None))


def _params(variant, base_params):
    from model.amend import Amendment
    from model.params import Params
    try:
        if variant is not None and issubclass(variant, Amendment):
            return variant.make_params(base_params)
    except Exception:                   # the fault this raises is reported by the exploration
        pass
    return base_params or Params()


