"""Counterexamples recorded from the real model into a test's folder (the committed ones stay as they are)."""
from __future__ import annotations

from pathlib import Path

from properties.base import load_catalogue
from verifier.writers import counterexamples
from verifier.runtime.results import PropertyVerdict
from verifier.runtime.worlds import world_factory
from verifier.writers.reproduce import reproduce, variant_class

# A lost response (baseline e2e-orphan-task): the host answers, the connection drops before it arrives.
LOST = ("baseline", "e2e-orphan-task", [("harness_start", {"client": "H1", "server": "S1", "long": False}),
                                         ("answer", {"request": "r1"}), ("disconnect", {"request": "r1"})])


def record(root: Path, variant: str, prop: str, steps, loop: int | None = None) -> Path:
    """Replay `steps`, write the counterexample folder under `root`; `loop` marks it a lasso."""
    out = reproduce(variant, prop, steps)
    assert out.violation is not None, out.reason
    p = load_catalogue()[prop]
    verdict = {"gap": "known-gap", "witness": "reached"}.get(p.kind, "refuted")
    v = PropertyVerdict(p.name, p.ids, p.kind, p.clause, p.sentence, verdict, out.violation.message,
                        out.violation.history)
    if loop is not None:
        v.loop = loop
    cls = variant_class(variant)
    return counterexamples.write(Path(root), cls, v, world_factory(cls), 0)
