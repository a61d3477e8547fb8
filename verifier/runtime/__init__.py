"""The services every engine, writer and command shares, and the result types.

`exitcodes` (the contract's codes and `UsageError`), `files` (atomic writes, and outputs checked
before the work), `strict_json` (JSON input read strictly), `interrupt` (Ctrl-C honoured wherever
it lands), `faults` (an error at run time located in an amendment or the model), `watchdog` (a
step that runs too long), `shadow` (an override's calls compared with the baseline's rule),
`schemas` (messages against the official schemas), `scopes` (the exhaustive engine's stated
instance sizes, which the reproducer names too), `worlds` (the world a variant runs in),
`amendments` (an amendment's `expect` against the catalogue), `checking` (the catalogue judged
after each step), `replay` (traces replayed and shrunk), `results` (CheckResult, the JSON envelope
and the exit-code rules).

Imports: the model, the properties and this package only.
"""
