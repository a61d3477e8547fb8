"""The exhaustive engine: breadth-first search at a stated scope.

`search` expands states and checks every property on every transition; `fair` finds fair cycles
for the liveness properties; `partition` splits one scope's levels across worker processes by
shards of the frontier; `run` plans a check's searches (a scope each) and gathers one
`CheckResult`. The scopes themselves are stated in `verifier.runtime.scopes`, where the reproducer
reads them too.

Imports: the model, the properties and `verifier.runtime`.
"""
