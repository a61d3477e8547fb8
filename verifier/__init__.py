"""The verifier around the model, in rooms layered bottom to top (docs/architecture.md):

- `runtime`: services the engines share and the result types: the watchdog, faults, shadow
  comparison of overridden rules, atomic files, exit codes, the worlds a variant runs in, the
  stated scopes, checking the catalogue step by step, replay, and the JSON envelope;
- `engines`: one package per engine (`random`, `bfs`, `z3`, `cluster`) behind
  `verifier.engines.run`, and the traffic validator (`validate`); each returns a result and never
  prints, exits or parses arguments;
- `writers`: what people read: ITF traces, stories, counterexample folders, reproducers,
  diagrams, the report, the falsifiability table, traffic logs of model behaviours; a writer takes
  results and traces and never runs an engine;
- `cli`: parses, calls engines and writers, prints and chooses the exit code.

A module imports only from its own layer or those below it (the model and the properties lie
below them all); `tests/test_layers.py` holds the rule.
"""
