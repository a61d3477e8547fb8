"""What `taskmodel validate` answers: conforms, diverges or undetermined, and why."""
from __future__ import annotations

from dataclasses import dataclass, field

from verifier.runtime.exitcodes import EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED
from verifier.validate.outside import summary

EXIT = {"conforms": EXIT_OK, "diverges": EXIT_REFUTED, "undetermined": EXIT_UNDETERMINED}


@dataclass
class Divergence:
    index: int                 # the event's index among the log's events
    line: int                  # its line in the file
    event: dict
    allowed: list[str]         # what the model could have done there, in words
    requirement: str | None    # the requirement id the observed behaviour breaks, or None
    reason: str                # one line

    def to_json(self) -> dict:
        return {"index": self.index, "line": self.line, "event": self.event, "allowed": self.allowed,
                "requirement": self.requirement, "reason": self.reason}


@dataclass
class ValidationResult:
    result: str                              # conforms | diverges | undetermined
    events: int
    matched: int                             # events matched before the answer
    variant: str = "baseline"
    properties: list[dict] = field(default_factory=list)   # {"id", "property", "verdict"}
    divergence: Divergence | None = None
    reason: str = ""                         # undetermined: why (a cap, a budget, nothing checkable)
    steps: int = 0                           # model steps along the matched behaviour
    candidates: int = 0                      # model states consistent with the log at its end
    unmodelled: list[dict] = field(default_factory=list)   # exchanges no model client sends: not judged

    @property
    def unjudged(self) -> str:
        return summary(self.unmodelled) if self.unmodelled else ""

    @property
    def exit_code(self) -> int:
        return EXIT[self.result]

    def to_json(self) -> dict:
        return {"command": "validate", "result": self.result, "variant": self.variant, "events": self.events,
                "matched": self.matched, "steps": self.steps, "candidates": self.candidates,
                "properties": self.properties,
                "divergence": self.divergence.to_json() if self.divergence else None,
                "unmodelled": self.unmodelled, **({"unjudged": self.unjudged} if self.unmodelled else {}),
                **({"reason": self.reason} if self.reason else {}), "exit_code": self.exit_code}
