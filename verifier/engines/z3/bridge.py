"""The Z3 engine's verdicts in the shape of an exploration result, for one verdict table."""
from __future__ import annotations

import time

from properties.requirements import REQUIREMENTS

from verifier.runtime.results import CheckResult, PropertyVerdict


def formula_kind(rid: str) -> str:
    """What the Z3 formula of `rid` constrains: one state ("invariant"), one step ("step"), or nothing."""
    from verifier.engines.z3.properties import PROPS
    return PROPS[rid].kind if rid in PROPS else "not encoded"


def harness_bounds(P) -> str:
    """The composed instance the HNS ids are judged on, as one bounds entry."""
    sizes = {k: v for k, v in P.sizes().items() if k in ("max_requests", "max_runs", "max_effects", "max_time")}
    sizes |= {"harness_clients": len(P.harness_clients), "harness_max_runs": P.harness_max_runs,
              "harness_max_requests": P.harness_max_requests, "harness_max_crashes": P.harness_max_crashes,
              "harness_max_attempts": P.harness_max_attempts}
    return " ".join(f"{k}={v}" for k, v in sizes.items())


def z3_check(variant, depth: int, timeout: float, rlimit: int | None = None) -> CheckResult:
    """The Z3 engine's CheckResult: bounded by `depth` and `rlimit` resource units per query (the
    work budget), with `timeout` seconds as the outer cap."""
    from verifier.engines import z3 as engine
    from verifier.engines.z3 import encoding as E
    from verifier.engines.z3.concrete import NOT_ENCODED_FORMS, NOT_ENCODED_MOVES
    from model.stories import play
    from verifier.runtime.replay import run_trace
    from verifier.runtime.worlds import world_factory
    from properties.base import load_catalogue
    started = time.monotonic()
    from verifier.engines.z3.bmc import query_rlimit
    with query_rlimit(rlimit):
        verdicts = engine.check(rules=variant, depth=depth, timeout=timeout)
    catalogue = list(load_catalogue().values())
    out = []
    for v in verdicts:
        trace = None
        if v.verdict == "refuted" and v.steps:
            make = world_factory(variant)      # the encoding's answers are atomic: the model's follow at once
            steps = [(a, args) for a, args, _, _ in play(make(), v.steps, strict=False, windows=False)]
            replay = run_trace(make, steps, catalogue, v.catalogue_property)
            trace = replay.violation.history if replay.violation else None
        rid = v.ids[0]
        detail = (f"k={v.k}" if v.k is not None else f"depth {v.depth}" if v.depth is not None else "")
        out.append(PropertyVerdict(
            name=f"z3:{'+'.join(v.ids)}", ids=tuple(v.ids), kind=formula_kind(rid), clause=REQUIREMENTS.get(rid, ("", ""))[1],
            sentence="Z3 bounded model checking and k-induction over the encoded transition relation",
            verdict=v.verdict, message=f"{detail}; {v.message}".strip("; ") or None, trace=trace))
    return CheckResult(variant=getattr(variant, "name", "baseline") if variant else "baseline", engine="z3",
                       seed=0, budget_s=timeout, elapsed_s=time.monotonic() - started,
                       bounds={"depth": depth, **engine.Z3_PARAMS.sizes(), "harness ids": harness_bounds(engine.HARNESS_PARAMS),
                               "request forms not encoded": "; ".join(NOT_ENCODED_FORMS.values()),
                               "moves not encoded": "; ".join([*E.NOT_ENCODED_ACTIONS.values(),
                                                               *(m[0] for m in NOT_ENCODED_MOVES.values())]),
                               "answers": "tasks/*, subscriptions/listen and server/discover answered at receipt "
                                          "(the window between receipt and answer is not encoded)"},
                       examples=0, steps=0,
                       action_counts={}, verdicts=out, work={"depth": depth, "rlimit per query": rlimit})
