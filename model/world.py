"""The world: the whole system state, the step record, and the one way to change it (`apply`)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import chain

from . import identity, lifecycle
from .before import KEPT, READERS, before as views_before, carry, kept, kept_now, past, small
from .facts import Facts
from .params import Params
from .state import Interrupt, Request, RequestState, Run, Step

EPOCH = datetime(2026, 7, 28, tzinfo=timezone.utc)


_TABLE = None


def action_table():
    """The action table, loaded once (every participant's module registers its actions on import)."""
    global _TABLE
    if _TABLE is None:
        from .actions import load_all
        _TABLE = load_all()
    return _TABLE


class ModelError(Exception):
    """A move that is not enabled was applied (a replay diverged, or a bug in an engine)."""


class World:
    """The whole system. `harness=True` composes the client harness (model.harness) with the host
    over the same network; `harness_rules` are its rules, an instance or a subclass of
    model.harness.HarnessRules (the baseline by default; giving them implies `harness=True`)."""

    def __init__(self, params: Params | None = None, rules=None, harness: bool = False, harness_rules=None):
        from .rules import Rules  # rules import world helpers only at call time
        self.params = params or Params()
        self.rules = rules if rules is not None else Rules()
        self.clock = 0
        self.runs: dict[str, Run] = {}
        self.interrupts: dict[str, Interrupt] = {}
        self.requests: dict[str, Request] = {}
        self.request_states: dict[str, RequestState] = {}
        self.stdio_open: set[tuple[str, str]] = {(c, s) for c in self.params.clients for s, _ in self.params.servers
                                                 if self.params.stdio}
        self.notified: dict[tuple[str, str], dict] = {}   # (listen requestId, runId) -> the view last published
        self.last_sent: dict[tuple[str, str], dict] = {}  # (listen requestId, runId) -> the last notifications/tasks params
        # The subscriptions/listen requests, in the order sent: the epilogue publishes to these alone,
        # so that it reads no other request (a send that is no listen is independent of it).
        self.listens: tuple[str, ...] = ()
        self.effects = 0
        self.serial = 0
        self.history: list[Step] = []
        self.depth = 0           # steps taken since the initial state (a clone keeps it, not the history)
        self.step: Step | None = None
        self.facts = Facts()     # derived facts properties keep between steps (by property id)
        self._labels: dict[str, str] = {}   # ids never change meaning, so their labels are cached
        self._memo: dict[str, tuple] = {}
        self.harness = None      # the client harness, when composed (model.harness)
        if harness or harness_rules is not None:
            from .harness import Harness
            self.harness = Harness(self, harness_rules)

    @classmethod
    def composed(cls, params: Params | None = None, rules=None, harness_rules=None) -> "World":
        """The host and the client harness over one lossy network (`composed_world`)."""
        return cls(params, rules, harness=True, harness_rules=harness_rules)

    # ---- ids and time -------------------------------------------------------------------------
    def next_serial(self) -> int:
        self.serial += 1
        return self.serial

    def timestamp(self, tick: int | None = None) -> str:
        t = EPOCH + timedelta(milliseconds=(self.clock if tick is None else tick) * self.params.tick_ms)
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    # ---- what a step records ------------------------------------------------------------------
    def append(self, run: Run, event: dict) -> None:
        event = {"seq": len(run.log), "at": self.clock, **event}
        run.updated_at = self.clock         # first: a run shared with other states refuses it (`seal`)
        run.log.append(event)
        if self.step is not None:
            self.step.events.append((run.id, event))

    def emit(self, request_id: str | None, message: dict) -> None:
        if self.step is not None:
            self.step.emitted.append((request_id, message))
        if request_id is not None and message.get("method") == "notifications/cancelled":
            named = self.requests.get((message.get("params") or {}).get("requestId"))
            if named is not None:
                named.host_cancelled = True

    def set_status(self, run: Run, trigger: str) -> None:
        run.status = self.rules.lifecycle_fire("run", run.status, trigger)
        run.updated_at = self.clock
        if run.status in lifecycle.TERMINAL:
            run.terminal_at = self.clock

    def set_phase(self, q: Request, trigger: str) -> None:
        q.phase = lifecycle.fire("request", q.phase, trigger)

    # ---- queries ------------------------------------------------------------------------------
    def open_requests(self, server: str | None = None):
        reqs = self.requests
        if small(self):                 # read whole (see `model.before.kept`)
            OPEN = lifecycle.OPEN_PHASES
            return [q for q in reqs.values() if q.phase in OPEN and (server is None or q.server == server)]
        return [reqs[k] for k in self.open_ids() if server is None or reqs[k].server == server]

    def open_ids(self) -> tuple[str, ...]:
        """The ids of the requests still open (received or streaming), in the order they were sent."""
        # kept from step to step (`model.before.kept`): a long session's world (the trace
        # validator's) is not read whole at every step
        return kept(self, "open", _open_whole)

    def owning_ids(self) -> frozenset[str]:
        """The ids of the requests that own a run now."""
        return kept(self, "owning", _owning_whole)

    def owning_at_start(self) -> frozenset[str]:
        """`owning_ids` of the state the step being taken started from, for a move that reads it
        before writing any request: the kept value, where there is one (during a step `owning_ids`
        reads the whole table, the records being half written)."""
        got = kept_now(self, "owning") if self.step is not None and not small(self) else None
        return _owning_whole(self) if got is None else got

    def owner_of(self, run_id: str) -> list[Request]:
        return [q for q in self.requests.values() if q.owns == run_id]

    def label(self, some_id: str) -> str:
        """The short story name of a run, interrupt or task reference (the id itself otherwise)."""
        got = self._labels.get(some_id)
        if got is not None:
            return got
        got = self._label(some_id)
        self._labels[some_id] = got
        return got

    def _label(self, some_id: str) -> str:
        if some_id in self.runs:
            return self.runs[some_id].label
        if some_id in self.interrupts:
            return self.interrupts[some_id].label
        raw = identity.unproject(some_id)          # a task id names its run's id: read that run first
        for r in chain([self.runs[raw]] if raw in self.runs else (), self.runs.values()):
            tid = self.rules.task_id(self, r)
            if some_id == tid:
                return f"task of {r.label}"
            if some_id == tid.replace("~2F", "%2F"):
                return f"task of {r.label} (%2F form)"
        return some_id

    def memo(self, name: str, key, build):
        """A value that depends only on `key` (a summary of the state it reads), rebuilt when it changes.
        Enabled-move lists of the clients change rarely; this keeps the explorer fast."""
        got = self._memo.get(name)
        if got is not None and got[0] == key:
            return got[1]
        value = build()
        self._memo[name] = (key, value)
        return value

    def last_request(self) -> str:
        return f"r{len(self.requests)}"

    def live_runs(self):
        return [r for r in self.runs.values() if not r.purged]

    # ---- stepping -----------------------------------------------------------------------------
    def moves(self, action_name: str) -> list[dict]:
        return action_table()[action_name].moves(self)

    def enabled(self, action_name: str, args: dict) -> bool:
        return args in self.moves(action_name)

    def apply(self, action_name: str, args: dict | None = None, check: bool = True, say: bool = True,
              writes=None) -> Step:
        """Take one protocol action. With `check`, refuse a move that is not enabled. Without `say`,
        the step is not described (`Step.note` stays empty): an exhaustive search takes a step on
        every transition and describes only the ones it reports, when it replays them. `writes`: the
        records the move may write (`model.footprint.writes_of`, every other one shared and sealed),
        so that the step records what they held before it alone (`model.before`)."""
        action = action_table()[action_name]
        args = dict(args or {})
        if check and args not in action.moves(self):
            raise ModelError(f"{action_name}({args}) is not enabled in this state")
        step = Step(index=self.depth, action=action_name, args=args, actor=action.actor)
        views = views_before(self, writes) if writes is not None else None
        if views is not None:
            step.pre_status, step.pre_phase, step.pre_owner = views
        else:
            step.pre_status = {rid: r.status for rid, r in self.runs.items()}
            step.pre_phase = {qid: q.phase for qid, q in self.requests.items()}
            step.pre_owner = {qid: q.owns for qid, q in self.requests.items()}
        self.step = step
        sizes = (len(self.requests), len(self.runs), len(self.interrupts))
        try:
            action.apply(self, **args)
            self.rules.after_step(self)
        finally:
            self.step = None
        for table, before in zip((self.requests, self.runs, self.interrupts), sizes):
            if len(table) > before:
                step.created.extend(past(table, before))
        if say:
            step.note = action.say(self, args)
        self.history.append(step)
        self.depth += 1
        if views is not None:
            carry(self, step)
        return step


def _open_whole(world) -> tuple[str, ...]:
    OPEN = lifecycle.OPEN_PHASES
    return tuple(k for k, q in world.requests.items() if q.phase in OPEN)


def _open_after(world, was: tuple, step) -> tuple | None:
    """The open requests' ids after `step`, from those before it (`was`); None where a request the step
    wrote opened again (no lifecycle does: read whole)."""
    OPEN, requests, pre = lifecycle.OPEN_PHASES, world.requests, step.pre_phase
    keep = None
    for k in pre.changed():
        now = requests[k].phase in OPEN
        if now != (pre.saved[k] in OPEN):
            if now:
                return None
            keep = dict.fromkeys(was) if keep is None else keep
            keep.pop(k, None)
    made = [k for k in pre.made() if requests[k].phase in OPEN]
    if made:
        keep = dict.fromkeys(was) if keep is None else keep
        keep.update(dict.fromkeys(made))
    return was if keep is None else tuple(keep)


KEPT["open"] = _open_after


def _owning_whole(world) -> frozenset[str]:
    return frozenset(k for k, q in world.requests.items() if q.owns is not None)


def _owning_after(world, was: frozenset, step) -> frozenset:
    """The owning requests' ids after `step`, from those before it (`was`) and the requests it wrote."""
    pre, requests, out = step.pre_owner, world.requests, None
    for k in (*pre.changed(), *pre.made()):
        if (requests[k].owns is not None) != (k in was):
            out = set(was) if out is None else out
            (out.add if requests[k].owns is not None else out.discard)(k)
    return was if out is None else frozenset(out)


KEPT["owning"] = _owning_after
READERS.extend([World.open_ids, World.owning_ids])


def composed_world(params: Params | None = None, rules=None, harness_rules=None) -> World:
    """The host and the client harness over one lossy network; `composed_world()` is the composed
    baseline. `harness_rules` is a HarnessRules instance or subclass (default: the baseline)."""
    return World(params, rules, harness=True, harness_rules=harness_rules)
