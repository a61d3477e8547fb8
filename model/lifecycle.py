"""The lifecycles, as `transitions` machines: the one definition of the legal status steps.

The model fires every status change through `fire`, which asks the machine itself for the
transition, so the diagrams (built from the same specs) cannot drift from what the model does.
"""
from __future__ import annotations

from functools import lru_cache

from transitions import Machine

# RunSnapshot.status, the ten values of openwop-run-snapshot.schema.json, in lifecycle order.
RUN_STATUSES = (
    "pending", "running", "paused", "waiting-approval", "waiting-input", "waiting-external",
    "cancelling", "completed", "failed", "cancelled",
)
TERMINAL = frozenset({"completed", "failed", "cancelled"})
WAITING = ("waiting-approval", "waiting-input", "waiting-external")
CANCELLABLE = ("pending", "running", "paused", *WAITING)

# Each trigger is named after the protocol action that takes it.
RUN_TRANSITIONS = (
    {"trigger": "start", "source": "pending", "dest": "running"},
    {"trigger": "request_approval", "source": "running", "dest": "waiting-approval"},
    {"trigger": "request_input", "source": "running", "dest": "waiting-input"},
    {"trigger": "await_external", "source": "running", "dest": "waiting-external"},
    {"trigger": "resolve_interrupt", "source": list(WAITING), "dest": "running"},
    {"trigger": "pause", "source": "running", "dest": "paused"},
    {"trigger": "resume", "source": "paused", "dest": "running"},
    {"trigger": "accept_cancel", "source": list(CANCELLABLE), "dest": "cancelling"},
    {"trigger": "finish_cancel", "source": "cancelling", "dest": "cancelled"},
    {"trigger": "complete", "source": "running", "dest": "completed"},
    {"trigger": "fail", "source": "running", "dest": "failed"},
)

# A request's life on the wire. `sent` is the RFC's cut: the whole final response left the host.
REQUEST_PHASES = ("received", "streaming", "sent", "delivered", "lost", "cancelled")
OPEN_PHASES = frozenset({"received", "streaming"})
REQUEST_TRANSITIONS = (
    {"trigger": "stream_event", "source": ["received", "streaming"], "dest": "streaming"},
    {"trigger": "send_response", "source": ["received", "streaming"], "dest": "sent"},
    {"trigger": "cancel_request", "source": ["received", "streaming"], "dest": "cancelled"},
    {"trigger": "deliver", "source": "sent", "dest": "delivered"},
    {"trigger": "drop_in_flight", "source": "sent", "dest": "lost"},
)

# The harness's tool-execution record (model.harness): the local authority over one remote call.
# WAITING_EXTERNAL is `waiting_external`; `unknown` is "effect unknown: reconcile" (HNS-4).
TOOL_EXECUTION_STATES = (
    "planned", "calling", "input_required", "handle_received", "waiting_external",
    "completed", "failed", "cancelled", "refused", "unknown",
)
TOOL_EXECUTION_TERMINAL = frozenset({"completed", "failed", "cancelled", "refused", "unknown"})
_TE_ACTIVE = ["calling", "input_required", "handle_received", "waiting_external"]
TOOL_EXECUTION_TRANSITIONS = (
    {"trigger": "send_call", "source": "planned", "dest": "calling"},
    {"trigger": "refuse", "source": "planned", "dest": "refused"},
    {"trigger": "receive_handle", "source": "calling", "dest": "handle_received"},
    {"trigger": "enter_wait", "source": "handle_received", "dest": "waiting_external"},
    {"trigger": "receive_input_required", "source": "calling", "dest": "input_required"},
    {"trigger": "retry_input", "source": "input_required", "dest": "calling"},
    # A step the lifecycle allows; HNS-3 forbids it for an operation whose binding was persisted.
    {"trigger": "reissue", "source": ["input_required", "handle_received", "waiting_external"], "dest": "calling"},
    {"trigger": "complete", "source": _TE_ACTIVE, "dest": "completed"},
    {"trigger": "fail", "source": _TE_ACTIVE, "dest": "failed"},
    {"trigger": "remote_cancelled", "source": _TE_ACTIVE, "dest": "cancelled"},
    {"trigger": "fact_unobtainable", "source": _TE_ACTIVE, "dest": "unknown"},
)

LIFECYCLES = {
    "run": {"states": RUN_STATUSES, "transitions": RUN_TRANSITIONS, "initial": "pending"},
    "request": {"states": REQUEST_PHASES, "transitions": REQUEST_TRANSITIONS, "initial": "received"},
    "tool_execution": {"states": TOOL_EXECUTION_STATES, "transitions": TOOL_EXECUTION_TRANSITIONS,
                       "initial": "planned"},
}


class IllegalStep(Exception):
    """A status step the lifecycle does not allow; the model never takes one."""


def build_machine(name: str, machine_class=Machine, **extra) -> Machine:
    spec = LIFECYCLES[name]
    return machine_class(
        model=None, states=list(spec["states"]), transitions=[dict(t) for t in spec["transitions"]],
        initial=spec["initial"], auto_transitions=False, **extra,
    )


MACHINES = {name: build_machine(name) for name in LIFECYCLES}


@lru_cache(maxsize=None)
def _dest(name: str, status: str, trigger: str) -> str | None:
    found = MACHINES[name].get_transitions(trigger=trigger, source=status)
    return found[0].dest if found else None


def can_fire(name: str, status: str, trigger: str) -> bool:
    return _dest(name, status, trigger) is not None


def fire(name: str, status: str, trigger: str) -> str:
    dest = _dest(name, status, trigger)
    if dest is None:
        raise IllegalStep(f"{name} lifecycle has no {trigger!r} from {status!r}")
    return dest


def triggers(name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t["trigger"] for t in LIFECYCLES[name]["transitions"]))
