"""How a host's bytes are read as the model's: the binding a mapping's `profile` and `host` choose.

RFC 0198's host (no profile) is read as the model writes: runIds `tenant/opaque` projected into
taskIds, keys that are raw interruptIds, a failed run read `completed` with `isError`. A plain MCP
Tasks server (`"profile": "ext-tasks"`, properties/profiles.py) writes the extension as SEP-2663
states it, and the binding reads it so, without a second copy of any rule:

- ids are opaque: a taskId, an inputRequests key or a requestState of any form is bound whole to the
  model's id the first time both are seen in the same place, and never rebound (`ids.Bindings`);
- SEP-2663 §error-semantics splits the model's failed run in two: a tool error reads `completed` with
  `isError` (as RFC 0198 reads every failure), a protocol error reads `failed` with an `error`. The
  wire does not say which the run was, so either reading of a failed run is the model's failed run;
- input rounds without `requestState`: a tool that asks by returning `InputRequiredResult` is re-run
  from the top once answered. As a task, that is the model's interrupt (its key bound on first
  sight, answered by `tasks/update`); on a blocking call it is an `InputRequiredResult` carrying no
  state, whose retry (`inputResponses`, no `requestState`) is a new call: its keys are the tool's own
  names, the same each round, so they are compared by method and mode only;
- a host that declares `listen: false` serves no `subscriptions/listen`: its listen requests are
  passed over (counted ignored) and what only a listen stream shows is unjudged;
- `visibility`: `creator` (each principal sees only the tasks it created) needs each token's
  Subject in a tenant of its own, as the model's tenants are the unit of visibility; `tenant` (the
  model's own rule) lets principals of one tenant read each other's tasks.
"""
from __future__ import annotations

from dataclasses import dataclass

from properties.profiles import judged

from verifier.validate.log import LogError

TOKENLESS_SUBJECT = ("tokenless", "stdio")


@dataclass(frozen=True)
class Binding:
    profile: str | None = None
    opaque: bool = False            # ids bound whole on first sight, of any form
    split_failure: bool = False     # a failed run reads completed+isError or failed+error
    stateless_rounds: bool = False  # InputRequiredResult without requestState; a retry is a new call

    def in_scope(self, rid: str) -> bool:
        return self.profile is None or rid in judged(self.profile)

    def fold(self, observed, model):
        """The observed and model shapes as this binding compares them (`observe.unify`)."""
        if self.split_failure:
            observed = _fold_failed(observed)
        if self.stateless_rounds and _stateless_round(observed):
            return _fold_round(observed), _fold_round(model)
        return observed, model


PLAIN = Binding()


def binding_of(mapping: dict) -> Binding:
    profile = mapping.get("profile")
    if profile is None:
        return PLAIN
    return Binding(profile, opaque=True, split_failure=True, stateless_rounds=True)


def apply_profile(mapping: dict, name: str = "mapping") -> dict:
    """The mapping as the validator reads it: a host that serves no listen has its listens passed over;
    a creator-only host's principals each in a tenant of their own (else a LogError)."""
    host = mapping.get("host") or {}
    if host.get("visibility") == "creator":
        from model.params import Params
        tenant = {s.name: s.tenant for s in Params().subjects}
        subjects = set((mapping.get("tokens") or {}).values()) | {mapping[k] for k in TOKENLESS_SUBJECT if k in mapping}
        tenants = [tenant[s] for s in sorted(subjects)]
        if len(set(tenants)) != len(tenants):
            raise LogError(f"{name}: mapping host.visibility creator: the Subjects {', '.join(sorted(subjects))} "
                           "share a tenant; "
                           "each principal of a creator-only host must map to a Subject of its own tenant "
                           "(alice and mallory)")
    if host.get("listen") is False:
        mapping = {**mapping, "ignore": [*(mapping.get("ignore") or ()), "subscriptions/listen"]}
    return mapping


def _fold_failed(s):
    """SEP-2663's failed task (a protocol error) read as the model's failed run, completed with isError."""
    if type(s) is not tuple:
        return s
    if len(s) == 8 and s[0] == "task" and s[2] == "failed" and s[6] is not None:
        keys = tuple(sorted({"result" if k == "error" else k for k in s[7]}))
        return (*s[:2], "completed", s[3], s[4], True, None, keys)
    return tuple(_fold_failed(x) for x in s)


def _stateless_round(s) -> bool:
    return type(s) is tuple and s[:2] == ("result", "input_required") and s[3] == ("$lit", "None")


def _fold_round(s):
    """An InputRequiredResult compared by its requests' methods and modes: keys and state left out."""
    if type(s) is not tuple or s[:2] != ("result", "input_required") or type(s[2]) is not tuple:
        return s
    return ("result", "input_required", tuple(sorted(entry[1:] for entry in s[2])), "stateless")
