"""Amendments as the verifier loads them: the model's own checks (`model.amend.validate`), then
their `expect` against the requirement catalogue, which the model does not know."""
from __future__ import annotations

from model.amend import AmendmentError, expect_problem, load_file
from model.variants import resolve
from properties.requirements import REQUIREMENTS


def catalogue_kinds() -> dict[str, str]:
    """Requirement id -> kind (S, T, L, W, G): the ids an `expect` may name."""
    return {rid: kind for rid, (kind, _source) in REQUIREMENTS.items()}


def checked(cls):
    """`cls` (an amendment class, or None), refused with its file and line when its `expect` names an
    id the catalogue lacks or a verdict its kind cannot meet."""
    if cls is not None:
        problem = expect_problem(cls, catalogue_kinds())
        if problem:
            raise AmendmentError(problem)
    return cls


def load_checked(spec: str):
    """`path.py[:Class]` -> the amendment class, checked (`model.amend.load_file`, then `checked`)."""
    return checked(load_file(spec))


def resolve_checked(spec: str):
    """A built-in variant's name or an amendment file -> its class, checked."""
    return checked(resolve(spec))
