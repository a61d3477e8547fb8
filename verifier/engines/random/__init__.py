"""The random engine: stateful Hypothesis exploration of the default instance (`explore`), over a
state machine generated from the model's action table (`machine`).

Imports: the model, the properties and `verifier.runtime`; returns a `CheckResult`.
"""
