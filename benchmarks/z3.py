"""The Z3 engine's benchmark: k-induction proof times on the baseline, and for every variant the
encoding can describe the BMC depth and time of the shortest counterexample of each safety id it is
expected to refute, beside Hypothesis's time and shrunk length for the same variant (optional); a
variant or id the encoding cannot see is listed with the reason.

    .venv/bin/python benchmarks/z3.py [--depth 6] [--timeout 300] [--only NAME ...] [--hypothesis]
                                      [--full] [--builtins] [--coverage]

--full       also run every variant's whole Z3 check (every id: proved, bounded or refuted)
--hypothesis also run the exploration of benchmarks/variants.py once per variant (seed 0, 60 s cap)
--builtins   list every built-in variant with whether the encoding can describe it
--coverage   every (variant, safety id) the gate's manifest records as refuted: BMC's depth and time
             beside the shrunk length the gate recorded, or why the encoding cannot reproduce it

Targets (issue 5): every baseline safety id proved for all depths within 60 s in total; every variant
that breaks a safety id refuted by BMC with a trace no longer than Hypothesis's. The host's ids and the
harness's (on the composed instance, HARNESS_PARAMS) are timed apart, and their sum printed.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This file is named z3.py: keep its own folder off the path so `import z3` finds the solver.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from verifier.engines.z3 import HARNESS_PARAMS, Z3_PARAMS, check, default_ids, encoding_for
from verifier.engines.z3.encoding import UnsupportedVariant
from verifier.engines.z3.induction import invariants_for, invariants_proved, prove
from verifier.engines.z3.properties import PROPS, why_not_encoded
from verifier.engines.z3.variants import supported_variants


def baseline(timeout: float) -> None:
    from verifier.engines.z3 import induction
    host = _baseline(False, timeout)
    harness = _baseline(True, timeout)
    print(f"\nOne after the other: {host + harness:.1f}s (host {host:.1f}s, harness {harness:.1f}s)")
    induction._CACHE.clear()
    start = time.time()
    verdicts = check(timeout=timeout)
    proved = sum(v.verdict == "proved" for v in verdicts)
    print(f"check() of every baseline id, the two encodings in two processes: {proved}/{len(verdicts)} proved "
          f"in {time.time() - start:.1f}s (target 60s)")


def _baseline(composed: bool, timeout: float) -> float:
    P = HARNESS_PARAMS if composed else Z3_PARAMS
    if composed:
        print(f"\nThe harness's ids on the composed instance: {len(P.harness_clients)} harness client, "
              f"{P.harness_max_runs} local run, {P.harness_max_requests} harness requests, {P.harness_max_crashes} "
              f"crash, {P.harness_max_attempts} attempts; plain clients only retry (max_requests {P.max_requests}), "
              f"{P.max_runs} run and interrupt beside the calls', clock to {P.max_time}")
    else:
        print(f"Baseline at the stated size: {P.max_requests} requests (+4 for MRTR retries), "
              f"{P.max_runs} runs (+1 per creating call), {P.max_runs} interrupts, "
              f"{len(P.tenants)} tenants, {len(P.clients)} clients, {len(P.servers)} servers, clock to {P.max_time}")
    enc = encoding_for(None, None, composed)
    start = time.time()
    rep = invariants_proved(enc, start + timeout)
    print(f"  {len(rep.proved)}/{len(invariants_for(enc))} strengthening invariants proved inductive in {rep.seconds:.1f}s")
    ids = [r for r in default_ids() if r in PROPS and PROPS[r].composed == composed]
    res = prove(enc, ids, start + timeout)
    print(f"  {'id':8} {'verdict':13} {'k':>2} {'seconds':>8}")
    for rid in ids:
        v = res[rid]
        print(f"  {rid:8} {v.verdict:13} {v.k if v.k else '-':>2} {v.seconds:8.2f}")
    total = time.time() - start
    proved = sum(v.verdict == "proved" for v in res.values())
    print(f"  {proved}/{len(ids)} encoded ids proved for all depths; total {total:.1f}s")
    return total


def _hypothesis(name: str):
    spec = importlib.util.spec_from_file_location("variants_bench", ROOT / "benchmarks" / "variants.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        return mod.first_counterexample(name, 0, 60.0)
    except Exception as e:  # the exploration is another engineer's; report, do not fail the Z3 numbers
        return f"error: {type(e).__name__}: {e}"


def every_variant() -> dict:
    """name -> (class, "built-in" or "reference"): every built-in variant, then the reference
    implementations of rule-table rows no built-in has."""
    from model.variants import builtins
    out = {name: (cls, "built-in") for name, cls in sorted(builtins().items())}
    for name, (cls, how) in supported_variants().items():
        out.setdefault(name, (cls, how))
    return out


def variants(only, depth: int, timeout: float, full: bool, hypothesis: bool) -> None:
    print(f"\nVariants: BMC depth (= steps of the shortest counterexample) and time, up to depth {depth}")
    print(f"  {'variant':38} {'impl':9} {'id':7} {'verdict':11} {'depth':>5} {'seconds':>8}  hypothesis")
    for name, (cls, how) in every_variant().items():
        if only and name not in only:
            continue
        refutes = [r for r, e in getattr(cls, "expect", {}).items() if e == "refuted"]
        expected = [r for r in refutes if r in PROPS]
        for r in refutes:
            if r not in PROPS:
                print(f"  {name:38} {how:9} {r:7} {'-':11} {'-':>5} {'-':>8}  {why_not_encoded(r)}")
        try:
            for composed in {PROPS[r].composed for r in expected} or {False}:
                encoding_for(cls, None, composed)
        except UnsupportedVariant as e:
            print(f"  {name:38} {how:9} {'-':7} the encoding cannot describe it: {e}")
            continue
        hyp = _hypothesis(name) if hypothesis and how == "built-in" else None
        hyp_text = ""
        if isinstance(hyp, tuple) and hyp[0] is not None:
            hyp_text = f"{hyp[0]:.1f}s, shrunk to {hyp[3]} steps ({hyp[1]})"
        elif hyp is not None:
            hyp_text = str(hyp)
        if not expected:
            if not refutes:
                print(f"  {name:38} {how:9} {'-':7} (expects no refutation)")
            continue
        verdicts = check(cls, ids=expected, depth=depth, timeout=timeout, induction=False)
        for v in verdicts:
            print(f"  {name:38} {how:9} {v.ids[0]:7} {v.verdict:11} {v.depth if v.depth is not None else '-':>5} "
                  f"{v.seconds:8.2f}  {hyp_text}")
            if v.verdict == "tool-error":
                print(f"      {v.message}")
        if full:
            t0 = time.time()
            every = check(cls, depth=depth, timeout=timeout)
            counts = {}
            for v in every:
                counts[v.verdict] = counts.get(v.verdict, 0) + 1
            refuted = ", ".join(f"{v.ids[0]}@{v.depth}" for v in every if v.verdict == "refuted")
            print(f"      whole check {time.time() - t0:.1f}s: {counts}; refuted {refuted or 'nothing'}")


def builtins_table() -> None:
    from model.variants import builtins
    print("\nBuilt-in variants the encoding can describe (z3_flags, the rule-flag tables, or content-only rules),"
          " on the host encoding and on the composed one:")
    for name, cls in sorted(builtins().items()):
        said = []
        for composed in (False, True):
            try:
                encoding_for(cls, None, composed)
                said.append("yes")
            except UnsupportedVariant as e:
                said.append(f"no: {e}")
        print(f"  {name:40} host {said[0]}; composed {said[1]}")


def coverage(timeout: float) -> None:
    from verifier.engines.z3.bmc import bmc
    from verifier.engines.z3.coverage import pairs
    ps = pairs()
    print(f"\nThe gate's refutations of safety ids ({len(ps)} pairs): BMC up to the gate's shrunk length")
    print(f"  {'variant':38} {'id':7} {'verdict':11} {'depth':>5} {'gate':>4} {'seconds':>8}")
    done = longer = 0
    start = time.time()
    for p in ps:
        if not p.encoded:
            print(f"  {p.variant:38} {p.id:7} {'not-encoded':11} {'-':>5} {p.hypothesis_length or '-':>4}  {p.reason[:90]}")
            continue
        from model.variants import builtins
        enc = encoding_for(builtins()[p.variant], None, PROPS[p.id].composed)
        limit = p.hypothesis_length or 8
        v = bmc(enc, [p.id], limit, time.time() + timeout, p.variant)[p.id]
        done += v.verdict == "refuted"
        longer += v.verdict == "refuted" and v.depth > limit
        print(f"  {p.variant:38} {p.id:7} {v.verdict:11} {v.depth if v.depth else '-':>5} {limit:>4} {v.seconds:8.2f}")
    encoded = sum(p.encoded for p in ps)
    variants = {p.variant for p in ps}
    reproduced = {p.variant for p in ps if p.encoded}
    print(f"  {done}/{encoded} encoded pairs refuted by BMC ({longer} longer than the gate's), {encoded}/{len(ps)} "
          f"pairs encoded; {len(reproduced)}/{len(variants)} variants reproduced; {time.time() - start:.0f}s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--hypothesis", action="store_true")
    ap.add_argument("--builtins", action="store_true")
    ap.add_argument("--skip-baseline", action="store_true")
    ap.add_argument("--coverage", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    if not args.skip_baseline:
        baseline(args.timeout)
    if args.coverage:
        coverage(args.timeout)
        return
    variants(set(args.only) if args.only else None, args.depth, args.timeout, args.full, args.hypothesis)
    if args.builtins:
        builtins_table()


if __name__ == "__main__":
    main()
