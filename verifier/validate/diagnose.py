"""After a divergence: which requirement the observed behaviour breaks, if the model can say."""
from __future__ import annotations


def explain(res, events, mapping, variant, at, budget: float) -> None:
    """Fill `res.divergence.requirement` (and its reason) when a requirement explains the divergence."""
