"""What people read, written from results and traces: `itf` (ITF traces, and `itf_read` reading
one back strictly, as a stream), `story` (a trace told
as protocol steps), `counterexamples` (a folder per counterexample), `reproduce` (the reproducer a
folder's test calls), `falsifiability` (the table of variants and the ids they break),
`traffic` (a model behaviour as a traffic log), `diagrams` and `report`.

A writer replays a trace through `verifier.runtime` when it needs a world, and never runs or
imports an engine.
"""
