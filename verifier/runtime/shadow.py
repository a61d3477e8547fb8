"""The silent amendment: does each rule a variant overrides ever fire, and ever answer otherwise?

`instrument(variant)` derives a class from the variant (and from its `harness_rules`) whose
overriding rules count their calls and, on each call, ask the baseline rule the same question in
shadow and count the answers that differ. An override that never fired, or never answered
differently, is `unexercised`: the exploration did not test the amendment at all.

A shadow call must not disturb the world it looks at. Rules that only read (`PURE`, from reading
`model/rules.py` and `model/harness.py`) are asked on the world itself, and any trace a read-only
rule still leaves (a minted serial, an emitted message, an event) is undone. The others may act
(mint ids, append events, cancel runs, send messages, change a harness record): the baseline is
asked on a deep copy of the world and the arguments, and "differed" compares the answer together
with what the call changed (runs, interrupts, requests, harness records, emitted messages). In
either case the other rules the baseline calls are the variant's own, so "differed" is the answer
of that one rule differing, not of the variant as a whole.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import inspect

from model.harness import HarnessRules
from model.rules import Rules

# Rules that read the state and answer, never change it (their baseline, and what it calls).
PURE = frozenset({
    "lifecycle_fire", "lifecycle_can", "serves_tasks", "discover_result", "openwop_features", "task_id",
    "decode_task_ref", "can_read", "can_cancel", "eligible_approver", "lookup_task", "not_found",
    "missing_capability", "tasks_capability_ok", "header_ok", "method_supported", "removed_method_result",
    "project_status", "input_requests", "status_message", "ttl_ms", "tool_result", "detailed_task",
    "get_task_result", "create_task_result", "elicitation_modes", "missing_elicitation", "missing_elicitation_error",
    "tasks_methods_served", "http_status", "blocking_cancel_result", "durable_on_create", "join_existing_run", "update_key", "update_response", "purge_time",
    "effects_while_cancelling", "owns_on_receipt", "releases_ownership", "cancellation_applies",
    "server_cancelled_on", "listen_ack", "notification", "fork_log", "request_state_verifies",
    # the harness's
    "tasks_offered", "declares_tasks", "plan_call", "auth_binding", "idempotency_key",
    "persists_binding_before_waiting", "resumes_by_polling", "reissues_unanswered_call",
    "outcome_of_cancel_ack", "outcome_of_remote", "local_run_status", "input_response", "binding_credentials",
    "wait_by", "falls_back_to_polling",
})


class Recorder:
    """Calls and differing answers per overridden rule; off while the shadow itself runs."""

    def __init__(self, rules: list[str]):
        self.counts = {r: {"calls": 0, "differed": 0} for r in rules}
        self.enabled = True
        self.depth = 0

    def summary(self) -> dict:
        return {r: dict(c) for r, c in sorted(self.counts.items())}

    def __deepcopy__(self, memo):
        return self                    # a world copied for a shadow call shares the counts


def unexercised(overrides: dict | None) -> list[str]:
    """The overridden rules that never fired or never answered differently from the baseline."""
    return [r for r, c in (overrides or {}).items() if not c["calls"] or not c["differed"]]


def _public(cls: type) -> dict:
    return {n: f for n, f in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}


def overridden(cls: type, base: type) -> list[str]:
    """The rules of `base` that `cls` replaces (also through an intermediate class)."""
    return sorted(n for n, f in _public(base).items() if getattr(cls, n, f) is not f)


def instrument(variant: type):
    """(a subclass of `variant` whose overriding rules are counted and shadowed, its Recorder)."""
    host = overridden(variant, Rules)
    harness_cls = getattr(variant, "harness_rules", None)
    client = overridden(harness_cls, HarnessRules) if harness_cls is not None else []
    rec = Recorder(host + [f"harness.{n}" for n in client])
    attrs = {n: _wrap(n, n, getattr(variant, n), getattr(Rules, n), rec) for n in host}
    if client:
        attrs["harness_rules"] = type(harness_cls.__name__, (harness_cls,), {
            n: _wrap(f"harness.{n}", n, getattr(harness_cls, n), getattr(HarnessRules, n), rec) for n in client})
    return type(variant.__name__, (variant,), attrs), rec


def _wrap(key: str, name: str, override, baseline, rec: Recorder):
    pure = name in PURE

    @functools.wraps(override)
    def rule(self, world, *args):
        if not rec.enabled or rec.depth:
            return override(self, world, *args)
        counts = rec.counts[key]
        counts["calls"] += 1
        if pure:
            rec.depth += 1
            try:
                theirs = _asked(baseline, self, world, args)
            finally:
                rec.depth -= 1
            got = _answer(override, self, world, args, counts)
            if theirs != ("answer", _plain(got)):
                counts["differed"] += 1
            return got
        rec.depth += 1
        try:
            twin = _twin(self, world, args)
            # What the baseline recorded and sent on the copy is what is compared: never undone.
            theirs = _asked(baseline, *twin, undo=False)
            theirs = (theirs, _effects(twin[1]))
        except Exception:              # a world that cannot be copied: the call is only counted
            theirs = None
        finally:
            rec.depth -= 1
        got = _answer(override, self, world, args, counts)
        if theirs is not None and theirs != (("answer", _plain(got)), _effects(world)):
            counts["differed"] += 1
        return got
    return rule


def _answer(override, self, world, args, counts):
    try:
        return override(self, world, *args)
    except BaseException:
        counts["differed"] += 1        # it raised where the baseline answered (a fault, reported as such)
        raise


def _twin(self, world, args):
    """(rules, world, args) of an independent copy to ask the baseline on: `model.snapshot.clone`
    (fast, with the step in progress copied too) when every argument is a record of the world or a
    plain value, else a deep copy."""
    found = [_locator(world, a) for a in args]
    if all(f is not None for f in found):
        from model.snapshot import clone
        twin = clone(world)
        if world.step is not None:
            step = twin.step = copy.copy(world.step)
            for name in ("events", "emitted", "cancelled", "created"):
                setattr(step, name, list(getattr(world.step, name)))
        return twin.rules, twin, tuple(f(twin) for f in found)
    return copy.deepcopy((self, world, args))


def _locator(world, value):
    """How to find `value` in a clone of `world`: a function of the clone, or None when unknown."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return lambda twin: value
    for table in ("runs", "requests", "interrupts"):
        key = getattr(value, "id", None)
        if isinstance(key, str) and getattr(world, table).get(key) is value:
            return lambda twin, table=table, key=key: getattr(twin, table)[key]
    if world.harness is not None:
        for name, c in world.harness.clients.items():
            for store in ("disk_tes", "proc"):
                tes = getattr(c, store) if store == "disk_tes" else getattr(c.proc, "tes", {})
                for op, te in tes.items():
                    if te is value:
                        return (lambda twin, name=name, op=op: twin.harness.clients[name].disk_tes[op]) \
                            if store == "disk_tes" else \
                            (lambda twin, name=name, op=op: twin.harness.clients[name].proc.tes[op])
    return None


def _asked(baseline, self, world, args, undo: bool = True):
    """The baseline's answer; with `undo`, the traces a read-only call may still leave undone."""
    mark = _marks(world)
    try:
        return "answer", _plain(baseline(self, world, *args))
    except Exception as e:             # the baseline cannot answer in the variant's state: they differ
        return "raised", type(e).__name__
    finally:
        if undo:
            _undo(world, mark)


def _marks(world):
    step = world.step
    return (world.serial, len(world.request_states), None if step is None else (len(step.events), len(step.emitted)))


def _undo(world, mark) -> None:
    serial, states, lens = mark
    world.serial = serial
    for key in list(world.request_states)[states:]:
        del world.request_states[key]
    if lens is not None and world.step is not None:
        del world.step.events[lens[0]:]
        del world.step.emitted[lens[1]:]


def _effects(world):
    """What an acting rule may have changed, comparable across a world and its copy: the state
    (`model.snapshot.state_tuple`) and what the step in progress recorded and sent."""
    from model.snapshot import state_tuple
    step = world.step
    return state_tuple(world), None if step is None else (step.events, step.emitted, step.cancelled)


def _plain(value, depth: int = 0):
    """A value made comparable: records by their fields, collections element by element."""
    if depth > 12:
        return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,) + tuple(_plain(getattr(value, f.name), depth + 1)
                                               for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return tuple(sorted(((repr(k), _plain(v, depth + 1)) for k, v in value.items()), key=lambda kv: kv[0]))
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v, depth + 1) for v in value)
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(repr(v) for v in value))
    return value
