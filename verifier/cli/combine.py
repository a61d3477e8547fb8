"""The main job's one answer: the verdict per requirement id over every engine that ran.

    python -m verifier.cli.combine RESULT.json [RESULT.json ...]

Each file is a `check --json` result (one engine or several). An id is refuted when some engine
refutes it; undetermined only when no engine judged it (each engine's own table still shows what it
could not judge: Z3's ids it does not encode, the exhaustive search's vacuous ones at its scopes).
An id whose requirement enumerates premise cases is judged only by an engine that counts them (the
random and exhaustive engines hold or prove it only once every case was reached): a Z3 proof says
nothing of which cases its encoding reaches, so alone it leaves such an id undetermined.
Exit: 1 refuted, 4 a fault with nothing refuted, 2 an id no engine judged, else 0.
"""
from __future__ import annotations

import json
import sys

from verifier.runtime.exitcodes import EXIT_FAULT, EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED, EXIT_USAGE

JUDGED = ("holds", "proved", "proved-bounded", "reached", "known-gap")
COUNTS_CASES = ("hypothesis", "bfs", "swarm")      # engines that count premise cases


def combine(payloads: list[dict]) -> tuple[dict[str, dict[str, list[str]]], bool]:
    """({id: {engine: [verdicts]}}, whether any engine met a fault)."""
    by_id: dict[str, dict[str, list[str]]] = {}
    faulted = False
    with_cases = set()
    for payload in payloads:
        for r in payload.get("results", []):
            faulted = faulted or bool(r.get("faults"))
            for p in r.get("properties", []):
                for rid in p["ids"]:
                    by_id.setdefault(rid, {}).setdefault(r["engine"], []).append(p["verdict"])
                    if p.get("cases"):
                        with_cases.add(rid)
    for rid in with_cases:          # a proof that counted no case is no evidence for them
        for engine in [e for e in by_id[rid] if e not in COUNTS_CASES]:
            by_id[rid][engine] = [v if v not in JUDGED else f"{v} (no case counted)" for v in by_id[rid][engine]]
    return by_id, faulted


def verdict_of(engines: dict[str, list[str]]) -> str:
    got = [v for vs in engines.values() for v in vs]
    if "refuted" in got:
        return "refuted"
    if any(v == "unreached" for v in got) and not any(v == "reached" for v in got):
        return "undetermined"          # a witness no engine exhibited
    if any(v in JUDGED for v in got):
        return "judged"
    return "undetermined"


def exit_code(by_id: dict, faulted: bool) -> int:
    final = {rid: verdict_of(e) for rid, e in by_id.items()}
    if "refuted" in final.values():
        return EXIT_REFUTED
    if faulted:
        return EXIT_FAULT
    return EXIT_UNDETERMINED if "undetermined" in final.values() else EXIT_OK


def main(argv: list[str]) -> int:
    payloads = []
    for path in argv:
        try:
            with open(path, encoding="utf-8") as f:
                payloads.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"combine: {path}: {e}", file=sys.stderr)
            return EXIT_USAGE
    by_id, faulted = combine(payloads)
    open_ids = sorted(rid for rid, e in by_id.items() if verdict_of(e) != "judged")
    for rid in open_ids:
        seen = "; ".join(f"{eng} {', '.join(sorted(set(vs)))}" for eng, vs in sorted(by_id[rid].items()))
        print(f"{rid}: {verdict_of(by_id[rid])} ({seen})")
    code = exit_code(by_id, faulted)
    print(f"combined over {len(payloads)} results: {len(by_id) - len(open_ids)} of {len(by_id)} ids judged; "
          f"exit {code}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
