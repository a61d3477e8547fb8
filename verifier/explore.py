"""Budgeted exploration of one variant with Hypothesis, ending in one honest verdict per property.

Verdicts: holds (within the stated budget, premise reached), refuted (with a shrunk trace that
replays), vacuous (premise never reached: undetermined, never a pass), reached / unreached
(witnesses), known-gap (a gap exhibited) — a gap not exhibited is reported holds.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, seed as hyp_seed, settings
from hypothesis.stateful import run_state_machine_as_test

from model.world import World
from properties.base import load_catalogue

from .machine import STEPS_PER_DRAW, Observations, Violation, check_liveness, check_step, make_machine
from .replay import run_trace, shrink


@dataclass
class PropertyVerdict:
    name: str
    ids: tuple
    kind: str
    clause: str
    sentence: str
    verdict: str
    message: str | None = None
    trace: list | None = None          # the Step records of the shortest trace found
    premise: int = 0
    checks: int = 0

    @property
    def length(self) -> int | None:
        return None if self.trace is None else len(self.trace)


@dataclass
class CheckResult:
    variant: str
    engine: str
    seed: int
    budget_s: float
    elapsed_s: float
    bounds: dict
    examples: int
    steps: int
    action_counts: dict
    verdicts: list[PropertyVerdict] = field(default_factory=list)

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.elapsed_s if self.elapsed_s else 0.0

    def by_name(self) -> dict[str, PropertyVerdict]:
        return {v.name: v for v in self.verdicts}


UNDETERMINED = ("vacuous", "unreached", "undetermined")


def world_factory(variant=None, base_params=None):
    """The world a variant (an Amendment subclass, or None for the baseline) explores."""
    from model.amend import Amendment
    params = (variant.make_params(base_params) if variant is not None and issubclass(variant, Amendment)
              else base_params)
    harness_rules = getattr(variant, "harness_rules", None) if variant is not None else None

    def make():
        rules = variant() if variant is not None else None
        return World.composed(params, rules, harness_rules) if hasattr(World, "composed") else World(params, rules)
    return make


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
        world = make_world()
        obs.examples += 1
        ran += 1
        try:
            for action, args in story:
                try:
                    args = args(world) if callable(args) else args
                except (IndexError, KeyError):
                    break                   # the story names a run or request this variant never made
                if args not in world.moves(action):
                    break
                check_step(world, world.apply(action, args, check=False), catalogue, asserted, obs)
            check_liveness(world, catalogue, asserted, obs)
        except Violation as v:
            refuted.setdefault(v.prop.name, v)
            asserted.discard(v.prop.name)
    return ran


def explore(variant=None, budget: float = 30.0, seed: int = 0, step_count: int = 40, examples_per_chunk: int = 25,
            props=None, base_params=None, progress=None, shrink_share: float = 0.25,
            chunks: int | None = None) -> CheckResult:
    """Explore for `budget` seconds, or for exactly `chunks` chunks of examples when given (the
    gate's deterministic mode: the same seed then gives the same verdicts and traces; a run that
    hits the time budget first says so, and its holding verdicts become undetermined)."""
    started = time.monotonic()
    make_world = world_factory(variant, base_params)
    catalogue = props if props is not None else list(load_catalogue().values())
    asserted = {p.name for p in catalogue if p.asserted}
    obs = Observations()
    refuted: dict[str, Violation] = {}
    scenarios = play_scenarios(make_world, catalogue, asserted, obs, refuted)
    search_until = started + budget * (1 - shrink_share) if chunks is None else started + budget
    chunk = 0
    truncated = False
    while time.monotonic() < search_until and (chunks is None or chunk < chunks):
        machine = make_machine(make_world, catalogue, asserted, obs)
        hyp_seed(seed * 100_003 + chunk)(machine)
        chunk += 1
        try:
            run_state_machine_as_test(machine, settings=settings(
                max_examples=examples_per_chunk, stateful_step_count=max(1, step_count // STEPS_PER_DRAW),
                deadline=None, database=None,
                report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
                phases=[Phase.generate], print_blob=False))
        except Violation:
            v = obs.last_failure
            refuted[v.prop.name] = v
            asserted.discard(v.prop.name)
        if progress:
            progress(min(1.0, (time.monotonic() - started) / budget), obs, refuted)

    # Shorten every counterexample and witness further by replay (Hypothesis shrinks per example).
    traces: dict[str, tuple[str, list]] = {n: (v.message, v.history) for n, v in refuted.items()}
    for name, (msg, hist) in obs.observed.items():
        traces.setdefault(name, (msg, hist))
    by_name = {p.name: p for p in catalogue}
    truncated = chunks is not None and chunk < chunks
    for name, (msg, hist) in sorted(traces.items(), key=lambda kv: (len(kv[1][1]), kv[0])):
        if chunks is None and time.monotonic() > started + budget:
            break
        moves = [(s.action, s.args) for s in hist]
        created = [s.created for s in hist]
        small, _ = shrink(make_world, moves, created, catalogue, name)
        out = run_trace(make_world, small, catalogue, name)
        if out.violation is not None and len(out.violation.history) <= len(hist):
            traces[name] = (out.violation.message, out.violation.history)

    verdicts = []
    for p in catalogue:
        msg, hist = traces.get(p.name, (None, None))
        premise = obs.premise_counts.get(p.name, 0)
        if p.asserted:
            verdict = "refuted" if p.name in refuted else ("holds" if premise or p.premise is None else "vacuous")
            if verdict == "holds" and truncated:
                verdict = "undetermined"
        elif p.kind == "witness":
            verdict = "reached" if hist is not None else "unreached"
        else:
            verdict = "known-gap" if hist is not None else ("holds" if premise or p.premise is None else "vacuous")
        verdicts.append(PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict,
                                        msg, hist, premise, obs.checks.get(p.name, 0)))
    params = make_world().params
    return CheckResult(
        variant=getattr(variant, "name", "baseline") if variant else "baseline", engine="hypothesis", seed=seed,
        budget_s=budget, elapsed_s=time.monotonic() - started,
        bounds={**params.sizes(), "steps_per_example": step_count, "examples_per_chunk": examples_per_chunk,
                "chunks": chunk, "scenarios": scenarios}, examples=obs.examples, steps=obs.steps,
        action_counts=dict(sorted(obs.action_counts.items())), verdicts=verdicts)
