"""What `taskmodel validate` answers, and why.

`conforms`: every exchange was judged and the log is a behaviour of the model; `conforms-partially`:
the log is a behaviour of the model as far as it was judged, but some exchanges were not (listed in
`unjudged`, the first named in `reason`), unless the caller allowed them; `diverges`: the first
event no behaviour explains; `undetermined`: a cap or the budget ran out, or nothing checkable.
Per requirement id, `requirements` says what the log judged: held, broken or unjudged, per case.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from verifier.runtime.exitcodes import EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED

EXIT = {"conforms": EXIT_OK, "conforms-partially": EXIT_UNDETERMINED, "diverges": EXIT_REFUTED,
        "undetermined": EXIT_UNDETERMINED}


@dataclass
class Divergence:
    index: int                 # the event's index among the log's events
    line: int                  # its line in the file
    event: dict
    allowed: list[str]         # what the model could have done there, in words
    requirement: str | None    # the requirement id the observed behaviour breaks, or None
    reason: str                # one line
    also: list[str] = field(default_factory=list)    # other ids the observed behaviour breaks there

    def to_json(self) -> dict:
        return {"index": self.index, "line": self.line, "event": self.event, "allowed": self.allowed,
                "requirement": self.requirement, "also": self.also, "reason": self.reason}


@dataclass
class ValidationResult:
    result: str                              # conforms | conforms-partially | diverges | undetermined
    events: int
    matched: int                             # events matched before the answer (before the divergence)
    variant: str = "baseline"
    properties: list[dict] = field(default_factory=list)     # per property: holds | refuted | vacuous
    requirements: list[dict] = field(default_factory=list)   # per id: held | broken | unjudged, per case
    divergence: Divergence | None = None
    reason: str = ""                         # undetermined or conforms-partially: why
    steps: int = 0                           # model steps along the matched behaviour
    candidates: int = 0                      # model states consistent with the log at its end
    exchanges: dict = field(default_factory=lambda: {"total": 0, "judged": 0, "unjudged": 0, "ignored": 0})
    unjudged: list[dict] = field(default_factory=list)       # the exchanges not judged, in log order
    assumptions: list[str] = field(default_factory=list)     # what the log was read as, undeclared by the host
    profile: str | None = None                               # the mapping's profile (properties/profiles.py)
    out_of_scope: dict = field(default_factory=dict)         # id -> why the profile does not judge it

    @property
    def exit_code(self) -> int:
        return EXIT[self.result]

    @property
    def judged_fraction(self) -> float | None:
        counted = self.exchanges["judged"] + self.exchanges["unjudged"]
        return self.exchanges["judged"] / counted if counted else None

    def to_json(self) -> dict:
        return {"command": "validate", "result": self.result, "variant": self.variant, "events": self.events,
                "matched": self.matched, "steps": self.steps, "candidates": self.candidates,
                "exchanges": {**self.exchanges, "judged_fraction": self.judged_fraction},
                "requirements": self.requirements, "properties": self.properties,
                "divergence": self.divergence.to_json() if self.divergence else None,
                "unjudged": self.unjudged, "assumptions": self.assumptions,
                **({"profile": self.profile, "out_of_scope": self.out_of_scope} if self.profile else {}),
                **({"reason": self.reason} if self.reason else {}), "exit_code": self.exit_code}
