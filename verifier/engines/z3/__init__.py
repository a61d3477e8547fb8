"""The Z3 engine: bounded model checking and k-induction over an encoding of the model's transition
relation, with every counterexample replayed in the executable model (docs/z3.md).

    from verifier.engines.z3 import check
    verdicts = check()                                   # the baseline, every host safety id
    verdicts = check(rules=SomeVariant(), depth=8, timeout=60, ids=["OWN-2"])

`check` returns one `Z3Verdict` per requirement id: `proved` (k-induction, with k), `proved-bounded`
(no counterexample within `depth` steps), `refuted` (with the replayed steps), `undetermined`
(timeout, unknown, not encoded, a variant the encoding cannot describe) or `tool-error` (a Z3
counterexample that does not replay, reported with the diverging step). Only `proved` holds for all
depths; `proved-bounded` and `undetermined` never count as holding.
"""
from __future__ import annotations

import time

from verifier.engines.z3.bmc import Z3Verdict, bmc
from verifier.engines.z3.encoding import Z3_PARAMS, Encoding, UnsupportedVariant
from verifier.engines.z3.harness import HARNESS_PARAMS, ComposedEncoding
from verifier.engines.z3.properties import ENCODED_TRACE_IDS, PROPS, safety_ids, why_not_encoded

__all__ = ["check", "Z3Verdict", "Z3_PARAMS", "HARNESS_PARAMS", "default_ids", "instance_for", "encoding_for"]

DEFAULT_DEPTH = 6
DEFAULT_TIMEOUT = 300.0


def default_ids() -> list[str]:
    """The safety ids, plus the trace ids whose step part is encoded (OWN-2, OWN-3, RPL-1, HNS-3, HNS-4)."""
    ids = safety_ids()
    return ids + [r for r in ENCODED_TRACE_IDS if r not in ids]


def instance_for(rules=None, params=None, composed: bool = False):
    """(params, rules) of the Z3 instance: the stated size (Z3_PARAMS, or HARNESS_PARAMS for the
    composed encoding of the harness's ids) with the variant's own parameter changes, and its rules
    with their z3_flags (or the rule-flag table's row)."""
    from verifier.engines.z3.variants import make_rules
    base = params if params is not None else (HARNESS_PARAMS if composed else Z3_PARAMS)
    base = base.with_(atomic_answers=True)      # the encoding answers tasks/*, listen, discover at receipt
    if rules is None:
        return base, None
    if isinstance(rules, type):
        cls = rules
        rules = make_rules(cls)
    else:
        cls = type(rules)
        if getattr(rules, "z3_flags", None) is None:
            from verifier.engines.z3.variants import flags_for
            rules.z3_flags = flags_for(rules)
    if params is None and hasattr(cls, "make_params"):
        base = cls.make_params(base).with_(atomic_answers=True)
    return base, rules


def encoding_for(rules=None, params=None, composed: bool = False) -> Encoding:
    """The encoding that judges a variant's host ids (composed=False) or its harness's (True)."""
    p, r = instance_for(rules, params, composed)
    return ComposedEncoding(p, r) if composed else Encoding(p, r)


def check(rules=None, params=None, depth: int = DEFAULT_DEPTH, timeout: float = DEFAULT_TIMEOUT,
          ids=None, induction: bool = True, progress=None, jobs: int = 2) -> list[Z3Verdict]:
    """Z3 verdicts for `ids` (default: every safety id, and the trace ids whose step part is encoded)
    on `rules`. The host's ids are judged on `Encoding`, the harness's (HNS) on `ComposedEncoding`.

    rules:   None for the baseline, a Rules/Amendment instance or class (its `z3_flags`, or the row
             of `verifier.engines.z3.variants.Z3_RULE_TABLE` for its name, describes its rule changes; a client
             variant's `harness_rules` are described by `HARNESS_RULE_TABLE`).
    params:  the instance; default `Z3_PARAMS` (HNS ids: `HARNESS_PARAMS`) with the variant's own
             parameter changes.
    depth:   BMC searches counterexamples of 1..depth steps.
    timeout: wall-clock seconds for the whole check (k-induction, then BMC for what it did not prove).
    induction: try k-induction first (only `proved` means for all depths); BMC then searches
             counterexamples for the ids it did not prove.
    jobs:    with 2 (the default) and ids on both encodings, the harness's are judged in a forked
             process beside the host's (the two share nothing but the deadline).
    """
    start = time.time()
    deadline = start + timeout
    wanted = list(ids) if ids is not None else default_ids()
    variant = getattr(rules, "name", None) or (rules.__name__ if isinstance(rules, type) else None) or "baseline"
    if rules is not None and getattr(rules, "name", "") == "baseline":
        variant = "baseline"
    out: dict[str, Z3Verdict] = {}
    for rid in wanted:
        if rid not in PROPS:
            out[rid] = Z3Verdict((rid,), "undetermined", message=f"not encoded: {why_not_encoded(rid)}",
                                 variant=variant)
    groups = {c: [r for r in wanted if r in PROPS and PROPS[r].composed == c] for c in (False, True)}

    def judge(composed) -> dict:
        encoded = groups[composed]
        try:
            enc = encoding_for(rules, params, composed)
        except UnsupportedVariant as e:
            return {rid: Z3Verdict((rid,), "undetermined", message=f"variant not encoded: {e}", variant=variant)
                    for rid in encoded}
        return _judge(enc, encoded, deadline, variant, induction, depth, progress)

    if jobs > 1 and all(groups.values()):
        out.update(in_parallel(lambda: judge(False), lambda: judge(True), groups[True], variant))
    else:
        for composed in (False, True):
            if groups[composed]:
                out.update(judge(composed))
    return [out[rid] for rid in wanted]


def in_parallel(here, there, there_ids, variant) -> dict:
    """here() in this process and there() in a forked one, at the same time; their verdicts merged. A
    child that dies or raises leaves its ids as tool errors, with what happened."""
    import multiprocessing
    import traceback
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)

    def child():
        try:
            send.send(("ok", there()))
        except BaseException as e:  # reported by the parent as the ids' verdict, never swallowed
            send.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}"))
        finally:
            send.close()

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    try:
        out = dict(here())
    except KeyboardInterrupt:
        proc.terminate()            # its answer is no longer wanted
        raise
    finally:
        try:
            status, value = receive.recv()
        except EOFError:
            status, value = "error", f"the process judging {', '.join(there_ids)} ended with code {proc.exitcode}"
        proc.join()
    if status == "ok":
        out.update(value)
    else:
        out.update({rid: Z3Verdict((rid,), "tool-error", message=f"the Z3 check failed: {value}", variant=variant)
                    for rid in there_ids})
    return out


def _judge(enc, encoded, deadline, variant, induction, depth, progress) -> dict:
    """k-induction, then BMC for what it did not prove, on one encoding."""
    from verifier.engines.z3.induction import prove
    out: dict[str, Z3Verdict] = {}
    if encoded:
        todo = list(encoded)
        notes: dict[str, str] = {}
        if induction:
            proofs = prove(enc, todo, deadline, variant)
            for rid, v in proofs.items():
                if v.verdict == "proved":
                    out[rid] = v
                else:
                    notes[rid] = v.message
            todo = [rid for rid in todo if rid not in out]
        if todo:
            found = bmc(enc, todo, depth, deadline, variant, on_depth=progress)
            for rid, v in found.items():
                if rid in notes and v.verdict in ("proved-bounded", "undetermined"):
                    v.message = f"{v.message}; {notes[rid]}"
                out[rid] = v
    return out
