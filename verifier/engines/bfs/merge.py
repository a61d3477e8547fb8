"""One verdict per property from the searches of a check's plan, each of which judged it.

Without `--scope`, a check searches every scope of its plan (`scopes.plan_specs`: each side's default,
the scopes every check searches beside it, the homes and the coverage scopes), and each judges every
property of its side. A property's verdicts there are merged into one, at its primary scope (its
home, else its side's default):
- a trace found at any scope answers it (a refutation, a gap shown, a witness reached): the shortest;
- a proof needs evidence: its premise reached, and every case its requirement enumerates
  (`Property.cases`), at complete searches. A search that proved it at its scope holds both; where no
  one scope reached every case, the cases reached over the plan's complete searches are summed, and
  the property is proved when together they reached every one (bounded by depth where a case was
  reached only at a scope bounded by depth). Otherwise it stays vacuous, naming the cases no scope
  reached;
- a search that did not finish judged nothing there: its part is named in the message.
Every merged verdict lists the scopes that judged it (`judged_at`).
"""
from __future__ import annotations

from dataclasses import replace

from verifier.runtime import scopes

FOUND = ("refuted", "known-gap", "reached")          # a trace: an answer wherever it was found
PROOFS = ("proved", "proved-bounded")                # the latter at a scope bounded by depth
COMPLETE = (*PROOFS, "vacuous", "unreached")         # verdicts of searches that finished


def primary(name: str, ids, entries) -> int:
    """The index in `entries` [(search, verdict)] of the property's primary scope: its home, else the
    first (its side's default)."""
    spec = scopes.home(ids)
    want = scopes.parse(spec).name if spec else None
    return next((i for i, (s, _) in enumerate(entries) if s.scope.name == want), 0)


def joined(results) -> list:
    """`results` [(search, verdicts, overrides' counts)], one per scope, with each property's verdicts
    merged into one at its primary scope; the other searches keep their states and counts."""
    by: dict = {}
    for s, verdicts, _ in results:
        for v in verdicts:
            by.setdefault(v.name, []).append((s, v))
    keep = {}
    for name, entries in by.items():
        i = primary(name, entries[0][1].ids, entries)
        keep[id(entries[i][1])] = merged([entries[i], *entries[:i], *entries[i + 1:]])
    return [(s, [keep[id(v)] for v in verdicts if id(v) in keep], counts) for s, verdicts, counts in results]


def merged(entries):
    """One verdict from [(search, verdict)] of one property, its primary scope first."""
    v = entries[0][1]
    judged = [s.scope.name for s, _ in entries]
    premise = sum(o.premise for _, o in entries)
    checks = sum(o.checks for _, o in entries)
    cases = {c: sum(o.cases.get(c, 0) for _, o in entries) for c in v.cases}
    found = [(s, o) for s, o in entries if o.verdict in FOUND]
    if found:
        best = min(found, key=lambda e: e[1].length if e[1].length is not None else 0)[1]
        return _with(best, premise, checks, cases, judged)
    cut = "".join(f"; at scope {s.scope.name}: {o.message}" for s, o in entries if o.verdict not in COMPLETE)
    if v.verdict not in COMPLETE or v.kind == "witness":
        return _with(v, premise, checks, cases, judged, (v.message or "") + _others(entries, v) + cut)
    proofs = [(s, o) for s, o in entries if o.verdict in PROOFS]
    if proofs:
        s, best = next(((s, o) for s, o in proofs if o.verdict == "proved"), proofs[0])
        return _with(best, premise, checks, cases, judged, (best.message or "") + _others(entries, best) + cut)
    missing = [c for c, n in cases.items() if not n]
    if not premise or missing:
        what = "premise never reached" if not premise else \
            f"premise case{'s' * (len(missing) > 1)} never reached: {'; '.join(missing)}"
        return _with(v, premise, checks, cases, judged, f"{what} at any of {len(judged)} scopes searched whole "
                                                        f"({', '.join(judged)})" + cut)
    # every case reached, but no one scope reached them all: the complete searches together prove it
    whole = {c for s, o in entries if not s.bounded for c, n in o.cases.items() if n}
    reached = [s for s, o in entries if o.premise]
    out = _with(v, premise, checks, cases, judged,
                f"its premise's cases reached across {len(reached)} scopes searched whole "
                f"({', '.join(f'{s.scope.name}: {s.distinct} states' for s in reached)}), no violation at any"
                + _others(entries, None, reached) + cut)
    out.verdict = "proved" if whole >= set(cases) else "proved-bounded"
    return out


def _others(entries, v, named=()) -> str:
    """"; and at N more scopes (M states)": the other complete searches that judged it too."""
    rest = [s for s, o in entries if o is not v and o.verdict in COMPLETE and s not in named]
    if not rest:
        return ""
    bounded = sum(1 for s in rest if s.bounded)
    return (f"; and at {len(rest)} more scope{'s' * (len(rest) > 1)} ({sum(s.distinct for s in rest)} states"
            + (f"; {bounded} bounded by depth" if bounded else "") + ")")


def _with(v, premise, checks, cases, judged, message=None):
    out = replace(v, premise=premise, checks=checks, cases=cases, judged_at=judged,
                  message=v.message if message is None else message)
    for k in ("loop", "scope", "bounded"):          # set on the verdict after it was made
        if hasattr(v, k):
            setattr(out, k, getattr(v, k))
    return out
