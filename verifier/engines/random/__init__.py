"""The random engine: stateful Hypothesis exploration of the default instance (`explore`), over a
state machine generated from the model's action table (`machine`); each counterexample shortened
before it is shown (`shorten`: the shrinker, then the exhaustive engine's search from the initial
state, `verifier.engines.bfs.shortest`).

Imports: the model, the properties, `verifier.runtime` and the bfs engine it builds on; returns a
`CheckResult`.
"""
