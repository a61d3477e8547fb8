"""Writing a Z3 counterexample through the project's counterexample writer (ITF trace, story,
sequence diagram, reproducer), after replaying it once more in the executable model."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from model.world import World

from . import Z3_PARAMS, Z3Verdict, instance_for


@dataclass
class _Found:
    """The shape `verifier.counterexamples.write` reads from a verdict."""
    name: str
    ids: tuple
    kind: str
    verdict: str
    clause: str
    sentence: str
    message: str
    trace: list = field(default_factory=list)


def write(verdict: Z3Verdict, root, variant_cls=None, params=None) -> Path:
    """Write a refuted verdict's trace under root/<variant>/<property>/; returns the folder."""
    from properties.base import load_catalogue
    from verifier import counterexamples
    if verdict.verdict != "refuted":
        raise ValueError(f"only a refuted verdict has a counterexample (got {verdict.verdict})")
    p, rules = instance_for(variant_cls, params)
    p = p or Z3_PARAMS

    def make():
        return World(p, type(rules)() if rules is not None else None)
    world = make()
    for action, args in verdict.steps:
        world.apply(action, dict(args), check=True)
    prop = load_catalogue()[verdict.catalogue_property]
    found = _Found(prop.name, tuple(prop.ids), prop.kind, "refuted", prop.clause, prop.sentence,
                   f"{verdict.message} (Z3 BMC, shortest: {len(verdict.steps)} steps)", list(world.history))
    return counterexamples.write(Path(root), variant_cls, found, make, 0)
