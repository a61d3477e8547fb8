"""The Z3 encoding of the model's transition relation, written beside the executable model.

One state is a flat dict `{key: value}`: a key is a field name with its slot, `("r_status", 2)`,
`("q_acked", 1, 0)`, or a global, `("clock",)`. The same Python code computes an action's guard
and successor state over two value domains:

- Z3 terms, which gives the symbolic transition relation used by BMC and k-induction;
- plain Python ints and bools, which is how the cross-check runs the *same* definition on
  concrete states abstracted from the executable model (`abstract(world)`), field by field.

Every action of `model.actions.ACTIONS` (the client harness's in `ComposedEncoding`, verifier.engines.z3.harness)
is one case of the relation, named after the executable action, with its arguments as bounded integer
choices (`Args`). A Z3
model decodes to `(action, args)` pairs that `World.apply` accepts (`decode_args`), and a concrete
step encodes back (`encode_args`).

What is abstracted (docs/z3.md says why it is sound per property):
- ids are slots: runs, interrupts and requests are numbered in creation order (the executable
  model's `run1, i1, r1` labels), task references are (run slot, wire form: the run's taskId or
  its %2F form) or a fabricated id; how taskIds are spelled and read is a rule flag (`task_id`,
  `decode_task_ref`, `lookup_task`);
- a run's log is its length (`r_log`) plus the few facts the properties read (compensated,
  cancel reason, resolutions per interrupt), not its events;
- a response is its kind (`RESP`), the task status it carries and the few content facts the
  properties read (ttlMs in ticks, flatness, inputRequests keys, a leaking statusMessage, ...);
- message bodies otherwise, and notifications on listen streams beyond the last one's staleness,
  are not represented (docs/z3.md lists what each formula leaves out).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import z3

from model import lifecycle
from model.lifecycle import RUN_STATUSES, REQUEST_PHASES, RUN_TRANSITIONS
from model.identity import MIN_OPAQUE_128_BITS
from model.params import SUBJECTS, Params
from model.projection import STATUS_PROJECTION

# ---- value domains ----------------------------------------------------------------------------------

# Symbolic integers are 8-bit vectors compared signed (slots, enumerations, clock ticks and the small
# counters all fit; -1 is "none"); bit-blasting them makes the bounded searches fast.
WIDTH = 8


def num(v):
    """A symbolic integer constant of the encoding's sort."""
    return z3.BitVecVal(v, WIDTH)


def sym_int(name: str):
    return z3.BitVec(name, WIDTH)


def sym_case(name: str):
    """The variable naming the ground case of a step (there are a few hundred)."""
    return z3.BitVec(name, 16)


def value_of(v):
    """A Python value of a constant in a Z3 model (signed for integers)."""
    if z3.is_bool(v):
        return z3.is_true(v)
    return v.as_signed_long()


def lift(x):
    """A Z3 term of a value of either domain."""
    if is_sym(x):
        return x
    if isinstance(x, bool):
        return z3.BoolVal(x)
    return num(x)


def is_sym(x) -> bool:
    return isinstance(x, z3.ExprRef)


def AND(*xs):
    out = []
    for x in xs:
        if x is True:
            continue
        if x is False:
            return False
        if not is_sym(x):
            if x:
                continue
            return False
        out.append(x)
    if not out:
        return True
    return out[0] if len(out) == 1 else z3.And(*out)


def OR(*xs):
    out = []
    for x in xs:
        if x is False:
            continue
        if x is True:
            return True
        if not is_sym(x):
            if x:
                return True
            continue
        out.append(x)
    if not out:
        return False
    return out[0] if len(out) == 1 else z3.Or(*out)


def NOT(x):
    return z3.Not(x) if is_sym(x) else (not x)


def IMPLIES(a, b):
    return OR(NOT(a), b)


def EQ(a, b):
    if not is_sym(a) and not is_sym(b):
        return a == b
    if is_sym(a) and is_sym(b) and a.eq(b):
        return True
    return a == b


def ITE(c, a, b):
    if not is_sym(c):
        return a if c else b
    if a is b or (is_sym(a) and is_sym(b) and a.eq(b)):
        return a
    if not is_sym(a) and not is_sym(b) and a == b and type(a) is type(b):
        return a
    return z3.If(c, lift(a), lift(b))


def COUNT(*conds):
    """How many of the conditions hold."""
    total = 0
    for c in conds:
        total = ADD(total, ITE(c, 1, 0)) if is_sym(c) else total + (1 if c else 0)
    return total


def IN(x, values):
    if not is_sym(x):
        return x in values
    return OR(*[x == v for v in values])


def LE(a, b):
    return a <= b


def LT(a, b):
    return a < b


def ADD(a, b):
    return a + b


def BITAND(a, b):
    return a & b


# ---- enumerations -----------------------------------------------------------------------------------

ST = {s: i for i, s in enumerate(RUN_STATUSES)}
TERMINAL = tuple(ST[s] for s in lifecycle.TERMINAL)
WAITING = tuple(ST[s] for s in lifecycle.WAITING)
PH = {p: i for i, p in enumerate(REQUEST_PHASES)}
OPEN = (PH["received"], PH["streaming"])
METHODS = ("tools/call", "tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen",
           "server/discover", "tasks/list", "tasks/result")
M = {m: i for i, m in enumerate(METHODS)}
TASK_METHODS = (M["tasks/get"], M["tasks/update"], M["tasks/cancel"])
TOOLS = ("flow", "task-only", "bad-args")
RESPONSES = ("accept", "decline", "cancel")
BY = ("tasked-call", "blocking-call", "rest", "child", "fork")
REASONS = (None, "mcp-request-cancelled", "tasks-cancel", "rest-cancel", "parent-cancelled", "declined")
KINDS = ("approval", "clarification", "external-event")
RESOLUTIONS = ("accept", "decline", "cancel", "external")
VIAS = ("tasks/update", "mrtr", "rest", "external")
TASK_STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TS = {s: i for i, s in enumerate(TASK_STATUSES)}
# The kinds of a request's response (the few fields of a wire message the properties read).
RESP_KINDS = ("none", "create-task", "call-ok", "call-error", "input-required", "not-found", "invalid-args",
              "invalid-request-state", "missing-capability", "header-mismatch", "method-not-found", "ack",
              "get", "discover", "other", "internal-error", "invalid-params-other")
RESP = {k: i for i, k in enumerate(RESP_KINDS)}
ERRORS = tuple(RESP[k] for k in ("not-found", "invalid-args", "invalid-request-state", "missing-capability",
                                 "header-mismatch", "method-not-found", "internal-error", "invalid-params-other"))
FAB_REFS = ("acme~2FAAAAAAAAAAAAAAAAAAAAAAAAnotissued", "not-a-run-id")   # model.clients.task_refs
NEVER_ISSUED_KEY = "acme/i-neverissuedneverissued"                  # model.clients._update_extra
CALL_TOOLS = (0, 1)            # model.clients.TOOLS: the tools call_tool may name (bad-args has its own action)
RETRY_RESERVE = 4              # model.clients._retry_moves: retries may use this many requests over max_requests
EXTERNAL = -2                                                      # resolver "external"
# An inputRequests map as a bitmask of interrupt slots (-1: the result carries none); a key naming no
# interrupt sets this bit, which no supported rule produces.
FOREIGN_KEY = 1 << 6

# ---- the rule-flag contract -------------------------------------------------------------------------

BASELINE_FLAGS = {
    "serves_tasks": "params",                 # | "none": no server serves the Tasks extension
    "answer_tools_call": "baseline",          # | "task-without-declaration": tasked whenever served |
                                              #   "input-required-first" | "server-chooses" (held at an approval,
                                              #   InputRequiredResult at an input) | "input-required-at-waiting-
                                              #   external" | "task-before-durable" | "always-task" (every
                                              #   declaring call on a serving host, even a finished run's) |
                                              #   "never" (no tools/call is ever answered)
    "blocking_cancel_result": "baseline",     # | "no-error": a cancelled run's CallToolResult isError false
    "tasks_cancel": "baseline",               # | "ack-only": acknowledged, nothing cancelled |
                                              #   "append-on-terminal": a terminal run gets an event |
                                              #   "ack-carries-status": the acknowledgement is not empty
    "get_task_result": "baseline",            # | "result-type-task": tasks/get answered resultType "task"
    "create_task_result": "baseline",         # | "carries-input-requests": never flat
    "method_supported": "baseline",           # | "tasks-list-served": tasks/list answered with a result
    "update_response": "baseline",            # | "conflict-error": a lost race answered -32603
    "do_resolve": "baseline",                 # | "decline-cancels-run"
    "header_ok": "baseline",                  # | "unchecked"
    "tasks_capability_ok": "baseline",        # | "get-without-declaration" | "listen-without-declaration"
    "listen_ack": "baseline",                 # | "no-authorization": every unpurged run on the server
    "not_found": "baseline",                  # | "foreign-403": -32603 for another tenant's run |
                                              #   "purged-expired": another -32602 message for a purged run
    "durable_on_create": True,                # | False: a called run is readable only after `persist`
    "can_cancel": "baseline",                 # | "read-suffices": read rights are enough to cancel
    "lookup_task": "baseline",                # | "no-authorization": a taskId alone finds the run |
                                              #   "only-tasked-call": only runs a tasked call started are tasks |
                                              #   "handle-any-tenant": a reference equal to a run's taskId finds it
                                              #   (durable, not purged) for a caller with runs:read in any tenant
    "task_id": "projected",                   # | "counter": `t-42`, `t-43`, ... in run creation order |
                                              #   "opaque-handle": `h-` and the run's opaque segment
    "decode_task_ref": "unproject",           # | "task-id-table": a reference names the run whose taskId it is
    "project_status": None,                   # | {run status: task status} rows overriding the §D table
    "resolve": "baseline",                    # | "no-at-most-once" | "skip-approver-check" |
                                              #   "rest-ignores-other-surfaces" (REST re-resolves an interrupt
                                              #   another surface resolved, while the run is not finished) |
                                              #   "content-grants-approval" (an accept's content adds its sender
                                              #   to an approval's approvers, open or not)
    "on_tasks_get": "nothing",                # | "append": a read appends one event to the run's log
    "ttl_ms": "to-purge",                     # | ("fixed", ticks, "retention" or "retention-1"): every task's
                                              #   ttlMs is that many ticks after its creation
    "on_ttl_elapsed": "nothing",              # | "fail-run": a run neither terminal nor cancelling is failed
                                              #   when its TTL elapses
    "effects_while_cancelling": True,         # | False: no compensation after acceptance
    "releases_ownership": ("sent", "cancelled"),   # the events that end ownership, of: sent, cancelled,
                                                   # stream_event, delivered, lost, receipt (the harness's
                                                   # checkpoint: never taken in the host-only encoding)
    "on_request_cancelled": "cancel-run",     # | "nothing" | "ignore-http" | "cancel-callers-runs" (also every
                                              #   non-terminal run of the caller's Subject on that server) |
                                              #   ("grace-for-retry", ticks): an owning retry's run is cancelled by
                                              #   the after_step sweep once that many ticks have passed
    "after_step": "publish",                  # | "grace-sweep": also cancel runs whose grace deadline passed
    "notification": "baseline",               # | "stale-on-change": a notifications/tasks sent because the status
                                              #   changed carries the status message of the status before
    "status_message": "baseline",             # | "tool-output": a task's statusMessage is its tool output text
    "fork_log": "baseline",                   # | "reprompt": the fork raises each recorded interrupt again
    "discover_result": "baseline",            # (read: the discover answer lists the extension iff served)
    "openwop_features": "baseline",           # | "mcp-tasks-flag": the OpenWOP advertisement also names Tasks
    "cancel_run": "baseline",                 # | "notify-open-calls": every accepted cancel (cascade included)
                                              #   sends notifications/cancelled to the open tools/call on that run
    "on_response_lost": "baseline",           # | "cancel-tasked-run": a lost CreateTaskResult cancels its run
    "on_disconnect_after_response": "nothing",     # | "cancel-run": cancels the run of a tools/call |
                                                   #   "cancel-tasked-run": only one answered CreateTaskResult |
                                                   #   "cancel-owned": a request still owning its run cancels it
    "cancellation_applies": "all",            # | "stdio-only": an HTTP disconnect does not cancel
}
FLAG_VALUES = {
    "serves_tasks": ("params", "none"),
    "answer_tools_call": ("baseline", "task-without-declaration", "input-required-first", "server-chooses",
                          "input-required-at-waiting-external", "task-before-durable", "always-task", "never"),
    "blocking_cancel_result": ("baseline", "no-error"),
    "tasks_cancel": ("baseline", "ack-only", "append-on-terminal", "ack-carries-status"),
    "get_task_result": ("baseline", "result-type-task"),
    "create_task_result": ("baseline", "carries-input-requests"),
    "method_supported": ("baseline", "tasks-list-served"),
    "update_response": ("baseline", "conflict-error"),
    "do_resolve": ("baseline", "decline-cancels-run"),
    "header_ok": ("baseline", "unchecked"),
    "tasks_capability_ok": ("baseline", "get-without-declaration", "listen-without-declaration"),
    "listen_ack": ("baseline", "no-authorization"),
    "not_found": ("baseline", "foreign-403", "purged-expired"),
    "durable_on_create": (True, False),
    "can_cancel": ("baseline", "read-suffices"),
    "lookup_task": ("baseline", "no-authorization", "only-tasked-call", "handle-any-tenant"),
    "task_id": ("projected", "counter", "opaque-handle"),
    "decode_task_ref": ("unproject", "task-id-table"),
    "resolve": ("baseline", "no-at-most-once", "skip-approver-check", "rest-ignores-other-surfaces",
                "content-grants-approval"),
    "on_tasks_get": ("nothing", "append"),
    "on_ttl_elapsed": ("nothing", "fail-run"),
    "effects_while_cancelling": (True, False),
    "after_step": ("publish", "grace-sweep"),
    "cancel_run": ("baseline", "notify-open-calls"),
    "fork_log": ("baseline", "reprompt"),
    "status_message": ("baseline", "tool-output"),
    "notification": ("baseline", "stale-on-change"),
    "discover_result": ("baseline",),
    "openwop_features": ("baseline", "mcp-tasks-flag"),
    "on_disconnect_after_response": ("nothing", "cancel-run", "cancel-tasked-run", "cancel-owned"),
    "on_response_lost": ("baseline", "cancel-tasked-run"),
    "cancellation_applies": ("all", "stdio-only"),
}
RELEASE_EVENTS = ("sent", "cancelled", "stream_event", "delivered", "lost", "receipt")
ON_REQUEST_CANCELLED = ("cancel-run", "nothing", "ignore-http", "cancel-callers-runs", "only-declaring")

# Rules whose override changes only message content that no encoded property reads: a variant may
# override them without a flag (the Z3 verdicts on the encoded ids stay valid).
CONTENT_ONLY_RULES = frozenset({
    "mint_interrupt_id", "missing_capability", "server_cancelled_on",
    "removed_method_result",
    "http_status",     # the encoding abstracts no HTTP status (WIRE-5 is not encoded)
})
# Rules the encoding reads through a flag (by the same name) or through `lifecycle_extra` data.
FLAGGED_RULES = frozenset(BASELINE_FLAGS) | {"lifecycle_fire", "lifecycle_can"}

SUPPORTED_PARAMS = {
    "p_approver": ("ack", "error"), "p_unauthorized": ("ack", "error"), "p_keyform": ("raw", "raw-or-projected"),
    "p_retention": ("from-terminal", "from-creation"), "p_stdio_eof": ("cancel-open", "nothing"),
    "p_elicit": ("creating-request", "each-get"),
    "call_parents": (False,),       # a call's run is never a child here: the encoding's calls name no parent
}

# Actions of the executable model the encoding has no case for: its verdicts are judged without them
# (stated in every result's bounds), and the cross-checks walk the model without them.
NOT_ENCODED_ACTIONS = {"tasks_update_two": "a tasks/update answering two or three keys at once",
                       # the random engine's focus steps (model.clients): moves tasks_get, tasks_update,
                       # tasks_cancel, listen, rest_cancel and run_interrupt also take, so no behaviour is left
                       # out (beyond max_requests only within Params.focus_reserve)
                       "read_waiting_external": "a focus read of a run waiting on an external event",
                       "read_near_expiry": "a focus tasks/get within a tick of createdAt + ttlMs",
                       "await_external": "a focus run_interrupt on an external event"}

# The stated instance size of the Z3 checks (a Params like any other; slots follow from it).
Z3_PARAMS = Params(max_requests=3, max_runs=2, max_effects=2, max_time=3, retention=2, atomic_answers=True,
                   subjects=SUBJECTS[:4], clients=("C1", "C2", "C3", "C4"),    # dave (no runs:read) left out
                   call_parents=False)


class UnsupportedVariant(Exception):
    """The rules override something the encoding does not model (no flag describes it)."""


def overridden_rules(rules) -> set[str]:
    from model.rules import Rules
    out = set()
    for name, base in vars(Rules).items():
        if callable(base) and not name.startswith("__"):
            mine = getattr(type(rules), name, None)
            if mine is not base:
                out.add(name)
    return out


def rule_flags(rules) -> dict:
    """The flags for `rules`: BASELINE_FLAGS updated by the variant's `z3_flags` (validated)."""
    flags = dict(BASELINE_FLAGS)
    declared = dict(getattr(rules, "z3_flags", {}) or {})
    for k, v in declared.items():
        if k not in BASELINE_FLAGS:
            raise UnsupportedVariant(f"z3_flags names {k!r}, which is not a rule the Z3 encoding knows")
        if k in FLAG_VALUES and v not in FLAG_VALUES[k]:
            raise UnsupportedVariant(f"z3_flags[{k!r}] = {v!r}; the encoding supports {FLAG_VALUES[k]}")
        flags[k] = v
    unknown = overridden_rules(rules) - set(declared) - CONTENT_ONLY_RULES - {"lifecycle_fire", "lifecycle_can"}
    if unknown:
        raise UnsupportedVariant(
            f"{type(rules).__name__} overrides {', '.join(sorted(unknown))} without a z3_flags entry; "
            "the Z3 encoding cannot model an arbitrary rule (docs/z3.md, the rule-flag contract)")
    rel = tuple(flags["releases_ownership"])
    if any(e not in RELEASE_EVENTS for e in rel):
        raise UnsupportedVariant(f"releases_ownership events {rel} not among {RELEASE_EVENTS}")
    if flags["project_status"] is not None:
        rows = dict(flags["project_status"])
        bad = [s for s, t in rows.items() if s not in ST or t not in TS]
        if bad:
            raise UnsupportedVariant(f"project_status rows {bad} are not run status -> task status")
    ttl = flags["ttl_ms"]
    if ttl != "to-purge" and not (isinstance(ttl, tuple) and len(ttl) == 2 and ttl[0] == "fixed"
                                  and (isinstance(ttl[1], int) or ttl[1] in ("retention", "retention-1"))):
        raise UnsupportedVariant(f"ttl_ms {ttl!r} is neither 'to-purge' nor ('fixed', ticks)")
    orc = flags["on_request_cancelled"]
    if orc not in ON_REQUEST_CANCELLED and not (isinstance(orc, tuple) and len(orc) == 2
                                                and orc[0] == "grace-for-retry" and isinstance(orc[1], int)):
        raise UnsupportedVariant(f"on_request_cancelled {orc!r}: the encoding supports {ON_REQUEST_CANCELLED} "
                                 "and ('grace-for-retry', ticks)")
    if (flags["after_step"] == "grace-sweep") != isinstance(orc, tuple):
        raise UnsupportedVariant("a grace window needs both on_request_cancelled ('grace-for-retry', ticks) and "
                                 "after_step 'grace-sweep'")
    return flags


# ---- arguments ----------------------------------------------------------------------------------------

ARG_FIELDS = ("client", "server", "transport", "declare", "tool", "req", "run", "intr", "kind", "form",
              "resp", "ref_run", "ref_form", "header", "key", "subject", "method", "op", "long")
BOOL_ARGS = ("declare", "form", "header", "long")


@dataclass
class Args:
    client: object = 0
    server: object = 0
    transport: object = 0
    declare: object = False
    tool: object = 0
    req: object = 0
    run: object = 0
    intr: object = 0
    kind: object = 0
    form: object = False
    resp: object = 0
    ref_run: object = -1
    ref_form: object = 0
    header: object = True
    key: object = -1
    subject: object = 0
    method: object = 0
    op: object = 0            # a harness operation (and its local run)
    long: object = False      # harness_start: the work needs a durable handle

    @classmethod
    def symbolic(cls, tag: str) -> "Args":
        return cls(**{f: (z3.Bool if f in BOOL_ARGS else sym_int)(f"a_{f}@{tag}") for f in ARG_FIELDS})


# ---- the encoding -------------------------------------------------------------------------------------


@dataclass
class Sizes:
    runs: int
    interrupts: int
    requests: int
    clients: int
    servers: int
    subjects: int
    hclients: int = 0       # harness clients (a composed encoding: verifier.engines.z3.harness)
    hops: int = 0           # harness operations, one per local run


class Encoding:
    """The transition relation of `World(params, rules)` at the instance size `params` states."""

    def __init__(self, params: Params | None = None, rules=None):
        from model.rules import Rules
        self.params = params or Z3_PARAMS
        self.rules = rules if rules is not None else Rules()
        self.flags = rule_flags(self.rules)
        for p, allowed in SUPPORTED_PARAMS.items():
            if getattr(self.params, p) not in allowed:
                raise UnsupportedVariant(f"parameter {p}={getattr(self.params, p)!r} is not encoded")
        P = self.params
        self.sizes = self.instance_sizes(P)
        if (1 << self.sizes.interrupts) > FOREIGN_KEY:
            raise UnsupportedVariant(f"{self.sizes.interrupts} interrupt slots do not fit an inputRequests bitmask")
        self.subj_of_client = [P.subjects.index(P.client_subject(c)) for c in self.client_names()]
        names = [s.name for s in P.subjects]
        tenants = list(dict.fromkeys([s.tenant for s in P.subjects] + list(P.tenants)))
        self.tenant_of = [tenants.index(s.tenant) for s in P.subjects]
        self.scope_read = [("runs:read" in s.scopes) for s in P.subjects]
        self.scope_cancel = [("runs:cancel" in s.scopes) for s in P.subjects]
        self.scope_respond = [("approvals:respond" in s.scopes) for s in P.subjects]
        self.bob = names.index("bob") if "bob" in names else -1      # host.run_interrupt: approvers ("bob",)
        self.carol = names.index("carol") if "carol" in names else -1  # clients.new_request: no elicitation
        self.mallory = names.index("mallory") if "mallory" in names else -1   # a bare `elicitation: {}`: form
        none = self.flags["serves_tasks"] == "none"
        self.serves = [False if none else bool(s) for _, s in P.servers]
        self.params_serves = [bool(s) for _, s in P.servers]      # model.clients.task_refs reads Params
        names_s = [x for x, _ in P.servers]
        self.server_s1 = names_s.index("S1") if "S1" in names_s else -1   # model.clients._bad_call_moves
        proj = dict(STATUS_PROJECTION)
        self.projection = {st: TS[proj[st][0]] for st in RUN_STATUSES}
        self.projection_error = {st: proj[st][1] for st in RUN_STATUSES}
        if self.flags["project_status"] is not None:
            for st, ts in dict(self.flags["project_status"]).items():
                self.projection[st] = TS[ts]
        self.baseline_projection = {ST[st]: TS[STATUS_PROJECTION[st][0]] for st in RUN_STATUSES}
        self.lifecycle_extra = tuple(getattr(self.rules, "lifecycle_extra", ()) or ())
        self.releases = frozenset(self.flags["releases_ownership"])
        table = executable_actions()
        self.actions = self.encoded_actions()
        missing = [a for a, act in table.items() if (act.actor != "harness" or self.sizes.hclients)
                   and a not in self.actions and not (a == "respond" and P.atomic_answers)
                   and a not in NOT_ENCODED_ACTIONS]
        if not P.atomic_answers:
            raise UnsupportedVariant("answers after receipt (atomic_answers False) are not encoded")
        if missing:
            raise UnsupportedVariant(f"actions {missing} of the executable model have no Z3 case")
        self.index = {a: i for i, a in enumerate(self.actions)}
        self._instances = None

    def instance_sizes(self, P) -> Sizes:
        return Sizes(runs=P.max_runs + P.max_requests, interrupts=P.max_runs, requests=P.max_requests + RETRY_RESERVE,
                     clients=len(P.clients), servers=len(P.servers), subjects=len(P.subjects))

    def client_names(self) -> list:
        """The request clients by index: the plain clients, then (composed) the harness clients."""
        return list(self.params.clients)

    def encoded_actions(self) -> tuple:
        return tuple(ENCODED_ACTIONS)

    def harness_fields(self) -> dict:
        """{key: (sort, initial value)} of the harness's state (none without a harness)."""
        return {}

    def world(self):
        """A fresh executable World this encoding describes."""
        from model.world import World
        return World(self.params, self.rules)

    # ---- fields -------------------------------------------------------------------------------
    def field_types(self) -> dict:
        """Every state key with its sort ('int' or 'bool')."""
        Z = self.sizes
        out = {("n_runs",): "int", ("n_ints",): "int", ("n_reqs",): "int", ("clock",): "int", ("effects",): "int"}
        for c in range(Z.clients):
            for s in range(Z.servers):
                out[("stdio_open", c, s)] = "bool"
        for k in range(Z.runs):
            for f, t in RUN_FIELDS.items():
                out[(f, k)] = t
        for j in range(Z.interrupts):
            for f, t in INT_FIELDS.items():
                out[(f, j)] = t
            for x in range(Z.subjects):
                out[("i_grant", j, x)] = "bool"
        for q in range(Z.requests):
            for f, t in REQ_FIELDS.items():
                out[(f, q)] = t
            for k in range(Z.runs):
                out[("q_acked", q, k)] = "bool"
                out[("q_stale", q, k)] = "bool"
        out.update({key: sort for key, (sort, _) in self.harness_fields().items()})
        return out

    def initial(self) -> dict:
        """The initial state (a `World(params, rules)` before any step), concretely."""
        s = {("n_runs",): 0, ("n_ints",): 0, ("n_reqs",): 0, ("clock",): 0, ("effects",): 0}
        Z = self.sizes
        for c in range(Z.clients):
            for v in range(Z.servers):
                s[("stdio_open", c, v)] = True
        for k in range(Z.runs):
            for f, d in RUN_DEFAULTS.items():
                s[(f, k)] = d
        for j in range(Z.interrupts):
            for f, d in INT_DEFAULTS.items():
                s[(f, j)] = d
            for x in range(Z.subjects):
                s[("i_grant", j, x)] = False
        for q in range(Z.requests):
            for f, d in REQ_DEFAULTS.items():
                s[(f, q)] = d
            for k in range(Z.runs):
                s[("q_acked", q, k)] = False
                s[("q_stale", q, k)] = False
        s.update({key: v for key, (_, v) in self.harness_fields().items()})
        return s

    def symbolic_state(self, tag: str) -> dict:
        return {key: (z3.Bool if t == "bool" else sym_int)(_name(key, tag)) for key, t in self.field_types().items()}

    # ---- selection and update by (possibly symbolic) slot ---------------------------------------
    def n(self, f: str) -> int:
        Z = self.sizes
        if f[0] == "h":
            return {"hq": Z.requests, "ho": Z.hops, "hd": Z.hops, "hc": Z.hclients}[f[:2]]
        return {"r": Z.runs, "i": Z.interrupts, "q": Z.requests}[f[0]]

    def sel(self, s, f, idx, default=0):
        n = self.n(f)
        if not is_sym(idx):
            return s[(f, idx)] if 0 <= idx < n else default
        v = default
        for j in reversed(range(n)):
            v = ITE(idx == j, s[(f, j)], v)
        return v

    def put(self, t, f, idx, val, cond=True):
        n = self.n(f)
        if not is_sym(idx) and not is_sym(cond):
            if cond and 0 <= idx < n:
                t[(f, idx)] = val
            return
        for j in range(n):
            t[(f, j)] = ITE(AND(cond, EQ(idx, j)), val, t[(f, j)])

    def set_g(self, t, key, val, cond=True):
        t[key] = ITE(cond, val, t[key])

    def valid(self, s, f, idx):
        count = {"r": ("n_runs",), "i": ("n_ints",), "q": ("n_reqs",)}[f[0]]
        return AND(LE(0, idx), LT(idx, s[count]), LT(idx, self.n(f)))

    # ---- subjects ---------------------------------------------------------------------------------
    def _tab(self, table, idx, default=False):
        if not is_sym(idx):
            return table[idx] if 0 <= idx < len(table) else default
        v = default
        for j in reversed(range(len(table))):
            v = ITE(idx == j, table[j], v)
        return v

    def subject_of(self, client):
        return self._tab(self.subj_of_client, client, 0)

    def tenant(self, subj):
        return self._tab(self.tenant_of, subj, -1)

    def run_tenant(self, s, k):
        return self.tenant(self.sel(s, "r_owner", k))

    def serves_tasks(self, server):
        return self._tab(self.serves, server, False)

    def can_read(self, s, subj, k):
        return AND(EQ(self.tenant(subj), self.run_tenant(s, k)), self._tab(self.scope_read, subj),
                   self.sel(s, "r_durable", k, False), NOT(self.sel(s, "r_purged", k, True)))

    def can_cancel(self, s, subj, k):
        if self.flags["can_cancel"] == "read-suffices":
            return self.can_read(s, subj, k)
        return AND(self.can_read(s, subj, k), self._tab(self.scope_cancel, subj))

    def eligible(self, s, subj, i, recorded=False):
        """Rules.eligible_approver (subj may be EXTERNAL: never eligible); `recorded` judges from the
        approvers the log recorded, ignoring any a variant added later."""
        k = self.sel(s, "i_run", i, -1)
        kind = self.sel(s, "i_kind", i, 0)
        return AND(LE(0, subj), EQ(self.tenant(subj), self.run_tenant(s, k)), self._tab(self.scope_respond, subj),
                   OR(NOT(EQ(kind, KINDS.index("approval"))), EQ(subj, self.bob),
                      False if recorded else self.granted(s, i, subj)))

    def granted(self, s, i, subj):
        """subj was added to interrupt i's approvers after it was requested (only a variant does that)."""
        out = False
        for j in range(self.sizes.interrupts):
            for x in range(self.sizes.subjects):
                out = OR(out, AND(EQ(i, j), EQ(subj, x), s[("i_grant", j, x)]))
        return out

    def _reads_taskid_strings(self):
        """The host finds a task by its exact taskId string (a table), not by decoding a runId."""
        return self.flags["lookup_task"] == "handle-any-tenant" or self.flags["decode_task_ref"] == "task-id-table"

    def names(self, form):
        """The host's reading of a reference to run slot k in wire form `form` (0: the run's taskId,
        1: its %2F form; a Python int, or a term) finds run k."""
        if self._reads_taskid_strings():
            return EQ(form, 0)
        return self.flags["task_id"] == "projected"      # unproject reads a projected runId, either form

    def names_projected(self):
        """The host's reading of a run's projected runId finds that run (TASK-1's probe)."""
        return self.flags["task_id"] == "projected" if self._reads_taskid_strings() else True

    def ids_projected(self):
        """Every taskId the host sends is its run's projected runId (Rules.task_id)."""
        return self.flags["task_id"] == "projected"

    def long_id(self, by):
        """A run started `by` (its r_by) has an opaque segment of 128 bits (Rules.mint_run_id's length)."""
        tasked = self.params.mint_tasked_len >= MIN_OPAQUE_128_BITS
        other = self.params.mint_other_len >= MIN_OPAQUE_128_BITS
        if tasked == other:
            return tasked
        in_tasked = IN(by, (BY.index("tasked-call"), BY.index("blocking-call")))
        return in_tasked if tasked else NOT(in_tasked)

    def lookup(self, s, subj, k, names):
        """Rules.lookup_task for a reference to run slot k on its own server (the client sends it there),
        `names` saying whether the host's reading of the reference finds run k (`names(form)`)."""
        mode = self.flags["lookup_task"]
        if mode == "no-authorization":
            return AND(LE(0, k), names, self.sel(s, "r_durable", k, False), NOT(self.sel(s, "r_purged", k, True)))
        if mode == "handle-any-tenant":
            return AND(LE(0, k), names, self.sel(s, "r_durable", k, False), NOT(self.sel(s, "r_purged", k, True)),
                       self._tab(self.scope_read, subj))
        found = AND(LE(0, k), names, self.can_read(s, subj, k))
        if mode == "only-tasked-call":
            found = AND(found, EQ(self.sel(s, "r_by", k), BY.index("tasked-call")))
        return found

    def ttl_ticks(self, s, k):
        """Rules.ttl_ms in ticks, -1 for null."""
        ttl = self.flags["ttl_ms"]
        if ttl == "to-purge":
            return ITE(EQ(self.sel(s, "r_terminal", k, -1), -1), -1,
                       ADD(self.purge_time(s, k), -self.sel(s, "r_created", k, 0)))
        return self.fixed_ttl(ttl)

    def leaks(self, s, k):
        """A task view of run k has a statusMessage quoting a run internal: under "tool-output" the tool's
        text, which is an internal once the run finished (its CallToolResult)."""
        if self.flags["status_message"] == "baseline":
            return False
        return IN(self.sel(s, "r_status", k), TERMINAL)

    def fixed_ttl(self, ttl) -> int:
        return {"retention": self.params.retention, "retention-1": max(0, self.params.retention - 1)}.get(ttl[1], ttl[1])

    def project(self, status):
        """Rules.project_status with the variant's rows: the task status index."""
        return self._tab([self.projection[st] for st in RUN_STATUSES], status, 0)

    # ---- lifecycle --------------------------------------------------------------------------------
    def dest_table(self, trigger: str) -> dict:
        out = {}
        for st in RUN_STATUSES:
            for t in self.lifecycle_extra:
                if t["trigger"] == trigger and st in t["source"]:
                    out.setdefault(ST[st], ST[t["dest"]])
            if ST[st] not in out and lifecycle.can_fire("run", st, trigger):
                out[ST[st]] = ST[lifecycle.fire("run", st, trigger)]
        return out

    def can_fire(self, status, trigger):
        return IN(status, tuple(self.dest_table(trigger)))

    def set_status(self, t, k, trigger, cond=True):
        table = self.dest_table(trigger)
        cur = self.sel(t, "r_status", k)
        new = cur
        for src, dst in table.items():
            new = ITE(EQ(cur, src), dst, new)
        t[("_crash",)] = OR(t[("_crash",)], AND(cond, NOT(IN(cur, tuple(table)))))
        self.put(t, "r_status", k, new, cond)
        self.put(t, "r_upd", k, t[("clock",)], cond)
        self.put(t, "r_terminal", k, t[("clock",)], AND(cond, IN(new, TERMINAL)))

    def append(self, t, k, cond=True, count=1):
        self.put(t, "r_log", k, ADD(self.sel(t, "r_log", k), count), cond)
        self.put(t, "r_upd", k, t[("clock",)], cond)

    # ---- shared host mechanics ----------------------------------------------------------------------
    def create_run(self, t, cond, server, owner, by_idx, parent=-1, creq=-1, elicit=2, durable=True,
                   fork=False, log=1, restres=False):
        k = t[("n_runs",)]
        t[("_crash",)] = OR(t[("_crash",)], AND(cond, NOT(LT(k, self.sizes.runs))))
        vals = {"r_status": ST["pending"], "r_server": server, "r_owner": owner, "r_by": by_idx,
                "r_parent": parent, "r_created": t[("clock",)], "r_terminal": -1, "r_durable": durable,
                "r_purged": False, "r_creq": creq, "r_elicit": elicit, "r_fork": fork, "r_reason": 0,
                "r_comp": False, "r_log": log, "r_restres": restres, "r_grace": -1, "r_rpt": False,
                "r_upd": t[("clock",)]}
        for f, v in vals.items():
            self.put(t, f, k, v, cond)
        self.set_g(t, ("n_runs",), ADD(k, 1), cond)
        return k

    def new_request(self, t, cond, client, server, transport, method, declare, **fields):
        q = t[("n_reqs",)]
        vals = dict(REQ_DEFAULTS)
        vals.update({"q_client": client, "q_server": server, "q_tr": transport, "q_method": M[method],
                     "q_decl": declare})
        vals.update(fields)
        t[("_crash",)] = OR(t[("_crash",)], AND(cond, NOT(LT(q, self.sizes.requests))))
        for f, v in vals.items():
            self.put(t, f, q, v, cond)
        for j in range(self.sizes.requests):
            for k in range(self.sizes.runs):
                t[("q_acked", j, k)] = ITE(AND(cond, EQ(q, j)), False, t[("q_acked", j, k)])
                t[("q_stale", j, k)] = ITE(AND(cond, EQ(q, j)), False, t[("q_stale", j, k)])
        self.set_g(t, ("n_reqs",), ADD(q, 1), cond)
        return q

    def send(self, t, q, resp, cond=True, rstat=-1):
        """host.send: the whole final response; the RFC's cut."""
        ph = self.sel(t, "q_phase", q)
        t[("_crash",)] = OR(t[("_crash",)], AND(cond, NOT(IN(ph, OPEN))))
        self.put(t, "q_resp", q, resp, cond)
        self.put(t, "q_rstat", q, rstat, cond)
        self.put(t, "q_phase", q, PH["sent"], cond)
        self.release(t, q, "sent", cond)

    def release(self, t, q, event, cond=True):
        if event in self.releases:
            self.put(t, "q_owns", q, -1, AND(cond, NOT(EQ(self.sel(t, "q_owns", q), -1))))

    def cancel_run(self, t, root, reason, cond=True):
        """Rules.cancel_run with its cascade: every descendant still cancellable is cancelled, also
        below a child that already finished; the cascade stops at a child already cancelling."""
        R = self.sizes.runs
        pre_status = [t[("r_status", x)] for x in range(R)]
        pre_parent = [t[("r_parent", x)] for x in range(R)]
        accepted, below = [], []
        for x in range(R):
            st = pre_status[x]
            cancellable = AND(LT(x, t[("n_runs",)]), NOT(IN(st, (ST["cancelling"],) + TERMINAL)))
            via = OR(*[AND(EQ(pre_parent[x], p), below[p]) for p in range(x)])
            acc = AND(cancellable, OR(AND(cond, EQ(root, x)), via))
            accepted.append(acc)
            below.append(OR(acc, AND(via, LT(x, t[("n_runs",)]), IN(st, TERMINAL))))
        for x in range(R):
            cx = accepted[x]
            if cx is False:
                continue
            if self.flags["cancel_run"] == "notify-open-calls":
                for j in range(self.sizes.requests):
                    call = AND(cx, LT(j, t[("n_reqs",)]), EQ(t[("q_method", j)], M["tools/call"]),
                               IN(t[("q_phase", j)], OPEN), EQ(t[("q_run", j)], x))
                    t[("q_hcan", j)] = OR(t[("q_hcan", j)], call)
            self.set_status(t, x, "accept_cancel", cx)
            t[("r_reason", x)] = ITE(cx, ITE(AND(cond, EQ(root, x)), REASONS.index(reason),
                                             REASONS.index("parent-cancelled")), t[("r_reason", x)])
            t[("r_log", x)] = ITE(cx, ADD(t[("r_log", x)], 1), t[("r_log", x)])
        return OR(*[AND(EQ(root, x), accepted[x]) for x in range(R)])

    def resolve(self, t, i, subj, action, via, cond=True):
        """Rules.resolve then do_resolve; returns whether it resolved."""
        k = self.sel(t, "i_run", i, -1)
        status = self.sel(t, "r_status", k)
        mode = self.flags["resolve"]
        if mode == "content-grants-approval" and via in ("tasks/update", "mrtr"):
            # the accept's content {"approved": true} adds its sender to an approval's approvers, before any check
            grant = AND(cond, EQ(action, RESOLUTIONS.index("accept")),
                        EQ(self.sel(t, "i_kind", i, -1), KINDS.index("approval")), NOT(EQ(subj, self.bob)))
            for j in range(self.sizes.interrupts):
                for x in range(self.sizes.subjects):
                    t[("i_grant", j, x)] = ITE(AND(grant, EQ(i, j), EQ(subj, x)), True, t[("i_grant", j, x)])
        guard_open = AND(self.sel(t, "i_open", i, False), IN(status, WAITING))
        approver = True if via == "external" else self.eligible(t, subj, i)
        if mode == "no-at-most-once":
            ok = AND(cond, approver)
        elif mode == "skip-approver-check":
            ok = AND(cond, guard_open)
        elif mode == "rest-ignores-other-surfaces" and via == "rest":
            late = AND(NOT(EQ(self.sel(t, "i_via", i, -1), VIAS.index("rest"))), NOT(self.sel(t, "i_open", i, True)),
                       NOT(IN(status, TERMINAL + (ST["cancelling"],))), approver)
            ok = AND(cond, OR(late, AND(guard_open, approver)))
        else:
            ok = AND(cond, guard_open, approver)
        self.put(t, "i_open", i, False, ok)
        self.put(t, "i_by", i, subj, ok)
        self.put(t, "i_res", i, action, ok)
        self.put(t, "i_via", i, VIAS.index(via), ok)
        self.put(t, "i_nres", i, ADD(self.sel(t, "i_nres", i, 0), 1), ok)
        self.append(t, k, ok)
        if via == "rest":
            self.put(t, "r_restres", k, True, ok)
        still_open = OR(*[AND(LT(j, t[("n_ints",)]), EQ(t[("i_run", j)], k), t[("i_open", j)])
                          for j in range(self.sizes.interrupts)])
        status_now = self.sel(t, "r_status", k)
        self.set_status(t, k, "resolve_interrupt", AND(ok, IN(status_now, WAITING), NOT(still_open)))
        if self.flags["do_resolve"] == "decline-cancels-run":
            self.cancel_run(t, k, "declined", AND(ok, EQ(action, RESOLUTIONS.index("decline"))))
        return ok

    def on_request_cancelled(self, t, q, cause, cond=True):
        mode = self.flags["on_request_cancelled"]
        if mode == "nothing" or (mode == "ignore-http" and cause == "http-disconnect"):
            return
        if isinstance(mode, tuple):                    # ("grace-for-retry", ticks)
            owns = self.sel(t, "q_owns", q, -1)
            retry = AND(cond, self.sel(t, "q_retry", q, False), NOT(EQ(owns, -1)))
            pending = AND(retry, NOT(IN(self.sel(t, "r_status", owns), TERMINAL)), EQ(self.sel(t, "r_grace", owns, 0), -1))
            self.put(t, "r_grace", owns, ADD(t[("clock",)], mode[1]), pending)
            cond = AND(cond, NOT(retry))
            mode = "cancel-run"
        if mode == "only-declaring":
            cond = AND(cond, self.sel(t, "q_decl", q, False))
        owns = self.sel(t, "q_owns", q, -1)
        c = AND(cond, NOT(EQ(owns, -1)), NOT(IN(self.sel(t, "r_status", owns), TERMINAL)))
        self.cancel_run(t, owns, "mcp-request-cancelled", c)
        if mode == "cancel-callers-runs":
            subj = self.subject_of(self.sel(t, "q_client", q))
            for k in range(self.sizes.runs):
                ck = AND(cond, LT(k, t[("n_runs",)]), EQ(t[("r_owner", k)], subj),
                         EQ(t[("r_server", k)], self.sel(t, "q_server", q)), NOT(IN(t[("r_status", k)], TERMINAL)))
                self.cancel_run(t, k, "mcp-request-cancelled", ck)

    def cancel_request(self, t, q, cause, cond=True):
        """network.cancel_request."""
        applies = not (self.flags["cancellation_applies"] == "stdio-only" and cause == "http-disconnect")
        c = AND(cond, IN(self.sel(t, "q_phase", q), OPEN), applies)
        self.put(t, "q_phase", q, PH["cancelled"], c)
        self.on_request_cancelled(t, q, cause, c)
        self.release(t, q, "cancelled", c)

    def tool_ok(self, status):
        """Rules.tool_result of a finished run with this status has isError false."""
        ok = (ST["completed"], ST["cancelled"]) if self.flags["blocking_cancel_result"] == "no-error" else (ST["completed"],)
        return IN(status, ok)

    def first_open_interrupt(self, s, k):
        """(exists, slot) of the run's first open interrupt, in creation order."""
        v, found = -1, False
        for j in reversed(range(self.sizes.interrupts)):
            here = AND(LT(j, s[("n_ints",)]), EQ(s[("i_run", j)], k), s[("i_open", j)])
            v = ITE(here, j, v)
            found = OR(found, here)
        return found, v

    def input_keys(self, s, k):
        """Rules.input_requests of run slot k as a bitmask: one key per open client-answerable interrupt."""
        mask = 0
        for j in range(self.sizes.interrupts):
            here = AND(LT(j, s[("n_ints",)]), EQ(s[("i_run", j)], k), s[("i_open", j)],
                       NOT(EQ(s[("i_kind", j)], KINDS.index("external-event"))))
            mask = ADD(mask, ITE(here, 1 << j, 0))
        return mask

    def elicit_level(self, subj):
        """The elicitation a Subject's client declares (model.clients.new_request): 0 none (carol), 1 form
        only, implicitly (mallory's bare `elicitation: {}`), 2 form and url."""
        return ITE(EQ(subj, self.carol), 0, ITE(EQ(subj, self.mallory), 1, 2))

    def missing_input(self, s, k, level):
        """Rules.missing_elicitation: an open client-answerable interrupt of run k needs a mode (form, or
        url for a credential) that elicitation level `level` does not declare (PRJ-4)."""
        out = False
        for j in range(self.sizes.interrupts):
            here = AND(LT(j, s[("n_ints",)]), EQ(s[("i_run", j)], k), s[("i_open", j)],
                       NOT(EQ(s[("i_kind", j)], KINDS.index("external-event"))))
            out = OR(out, AND(here, ITE(s[("i_form", j)], LT(level, 1), LT(level, 2))))
        return out

    def answer_result(self, s, q):
        """Rules.answer_tools_call: (has an answer, response kind, task status, requestState interrupt)."""
        k = self.sel(s, "q_run", q, -1)
        status = self.sel(s, "r_status", k)
        durable = self.sel(s, "r_durable", k, False)
        server = self.sel(s, "q_server", q)
        serves = self.serves_tasks(server)
        if self.flags["answer_tools_call"] == "task-without-declaration":
            tasked = serves
        else:
            tasked = AND(self.sel(s, "q_decl", q, False), serves)
        terminal = IN(status, TERMINAL)
        tool = ITE(self.tool_ok(status), RESP["call-ok"], RESP["call-error"])
        found, i0 = self.first_open_interrupt(s, k)
        if self.params.p_elicit == "each-get":
            level = self.elicit_level(self.subject_of(self.sel(s, "q_client", q)))
        else:
            level = self.sel(s, "r_elicit", k, 0)
        asks = AND(NOT(tasked), NOT(terminal), IN(status, (ST["waiting-approval"], ST["waiting-input"])))
        has = AND(durable, OR(tasked, terminal, AND(asks, found)))
        input_kind = ITE(self.missing_input(s, k, level), RESP["missing-capability"], RESP["input-required"])  # PRJ-4
        kind = ITE(terminal, tool, ITE(tasked, RESP["create-task"], input_kind))
        mode = self.flags["answer_tools_call"]
        asking = (ST["waiting-approval"], ST["waiting-input"])
        if mode == "input-required-first":           # an InputRequiredResult whenever the run asks
            pre = AND(durable, IN(status, asking))
            has, kind = ITE(pre, found, has), ITE(pre, input_kind, kind)
        elif mode == "server-chooses":               # held at an approval, InputRequiredResult at an input
            pre = AND(durable, tasked, NOT(terminal))
            has = ITE(AND(pre, EQ(status, ST["waiting-approval"])), False,
                      ITE(AND(pre, EQ(status, ST["waiting-input"])), found, has))
            kind = ITE(AND(pre, EQ(status, ST["waiting-input"])), input_kind, kind)
        elif mode == "input-required-at-waiting-external":
            pre = AND(durable, EQ(status, ST["waiting-external"]), NOT(tasked))
            has, kind = ITE(pre, found, has), ITE(pre, input_kind, kind)
        elif mode == "task-before-durable":          # CreateTaskResult before the run is readable
            pre = AND(NOT(durable), tasked, NOT(terminal))
            has, kind = ITE(pre, True, has), ITE(pre, RESP["create-task"], kind)
        elif mode == "always-task":                  # a task even for a finished run; a purged one is not found
            pre = AND(durable, tasked)
            has = ITE(pre, True, has)
            kind = ITE(pre, ITE(self.sel(s, "r_purged", k, False), RESP["not-found"], RESP["create-task"]), kind)
        elif mode == "never":
            has = False
        rstat = ITE(EQ(kind, RESP["create-task"]), self.project(status), -1)
        rs = ITE(EQ(kind, RESP["input-required"]), i0, -1)
        return has, kind, rstat, rs

    # ---- the actions ------------------------------------------------------------------------------
    def step(self, s, action: str, A: Args):
        """(guard, successor) of `action` with arguments A from state s."""
        t = dict(s)
        t[("_crash",)] = False
        g = getattr(self, "act_" + action)(s, A, t)
        if self.flags["after_step"] == "grace-sweep" and action != "clock_tick":
            self.grace_sweep(t)
        self.publish(s, t)
        g = AND(g, NOT(t.pop(("_crash",))))
        return g, t

    def publish(self, s, t):
        """Rules.after_step's notifications/tasks, as far as NTF-3 reads them: per listen and acknowledged
        run, whether the last one sent differs from what tasks/get returns now. A view changes with the
        status or lastUpdatedAt; it is sent again to a streaming listener that can read the run."""
        for j in range(self.sizes.requests):
            streaming = AND(LT(j, t[("n_reqs",)]), EQ(t[("q_phase", j)], PH["streaming"]))
            subj = self.subject_of(t[("q_client", j)])
            for k in range(self.sizes.runs):
                moved = NOT(EQ(s[("r_status", k)], t[("r_status", k)]))
                changed = OR(moved, NOT(EQ(s[("r_upd", k)], t[("r_upd", k)])))
                stale = AND(moved, self.flags["notification"] == "stale-on-change")
                live = AND(streaming, t[("q_acked", j, k)], self.can_read(t, subj, k))
                t[("q_stale", j, k)] = AND(live, ITE(changed, stale, s[("q_stale", j, k)]))

    def grace_sweep(self, t):
        """The grace window's sweeper (after every step but the clock's own tick): a run whose grace
        deadline has passed is cancelled, unless it finished meanwhile."""
        for k in range(self.sizes.runs):
            due = AND(LT(k, t[("n_runs",)]), NOT(EQ(t[("r_grace", k)], -1)), LE(t[("r_grace", k)], t[("clock",)]))
            t[("r_grace", k)] = ITE(due, -1, t[("r_grace", k)])
            self.cancel_run(t, k, "mcp-request-cancelled", AND(due, NOT(IN(t[("r_status", k)], TERMINAL))))

    def _run_guard(self, s, A, *statuses):
        return AND(self.valid(s, "r", A.run), IN(self.sel(s, "r_status", A.run), tuple(ST[x] for x in statuses)),
                   NOT(self.sel(s, "r_purged", A.run, True)))

    def _budget(self, s):
        return LT(s[("n_reqs",)], self.params.max_requests)

    def _client_server(self, s, A):
        return AND(LE(0, A.client), LT(A.client, self.sizes.clients), LE(0, A.server), LT(A.server, self.sizes.servers))

    def _transport_ok(self, s, A):
        open_ = self._stdio(s, A.client, A.server)
        return OR(EQ(A.transport, 0), AND(EQ(A.transport, 1), open_))

    def _stdio(self, s, c, v):
        if not is_sym(c) and not is_sym(v):
            return s.get(("stdio_open", c, v), False)
        out = False
        for ci in range(self.sizes.clients):
            for vi in range(self.sizes.servers):
                out = ITE(AND(EQ(c, ci), EQ(v, vi)), s[("stdio_open", ci, vi)], out)
        return out

    # host
    def act_answer(self, s, A, t):
        q = A.req
        has, kind, rstat, rs = self.answer_result(s, q)
        self.put(t, "q_ttl", q, self.ttl_ticks(s, self.sel(s, "q_run", q, -1)), EQ(kind, RESP["create-task"]))
        self.put(t, "q_leak", q, self.leaks(s, self.sel(s, "q_run", q, -1)), EQ(kind, RESP["create-task"]))
        carries = EQ(kind, RESP["input-required"])
        if self.flags["create_task_result"] == "carries-input-requests":
            self.put(t, "q_flat", q, False, EQ(kind, RESP["create-task"]))
            carries = OR(carries, EQ(kind, RESP["create-task"]))      # whatever its status, even empty
        self.put(t, "q_ikeys", q, ITE(carries, self.input_keys(s, self.sel(s, "q_run", q, -1)), -1))
        g = AND(self.valid(s, "q", q), EQ(self.sel(s, "q_method", q), M["tools/call"]),
                IN(self.sel(s, "q_phase", q), OPEN), NOT(EQ(self.sel(s, "q_run", q, -1), -1)), has)
        self.put(t, "q_rs_int", q, rs, EQ(kind, RESP["input-required"]))
        self.put(t, "q_rs_used", q, False, EQ(kind, RESP["input-required"]))
        self.send(t, q, kind, True, rstat)
        return g

    def act_stream_event(self, s, A, t):
        q = A.req
        g = AND(self.valid(s, "q", q), EQ(self.sel(s, "q_method", q), M["tools/call"]), EQ(self.sel(s, "q_tr", q), 0),
                EQ(self.sel(s, "q_phase", q), PH["received"]), NOT(EQ(self.sel(s, "q_run", q, -1), -1)))
        self.put(t, "q_phase", q, PH["streaming"])
        self.release(t, q, "stream_event")
        return g

    def act_run_start(self, s, A, t):
        g = self._run_guard(s, A, "pending")
        self.set_status(t, A.run, "start")
        self.append(t, A.run)
        return g

    def act_run_effect(self, s, A, t):
        g = AND(LT(s[("effects",)], self.params.max_effects), self._run_guard(s, A, "running"))
        t[("effects",)] = ADD(s[("effects",)], 1)
        self.append(t, A.run)
        return g

    def act_run_compensate(self, s, A, t):
        g = AND(LT(s[("effects",)], self.params.max_effects), self._run_guard(s, A, "cancelling"),
                bool(self.flags["effects_while_cancelling"]), NOT(self.sel(s, "r_comp", A.run, True)))
        t[("effects",)] = ADD(s[("effects",)], 1)
        self.append(t, A.run)
        self.put(t, "r_comp", A.run, True)
        return g

    def act_run_interrupt(self, s, A, t):
        j = s[("n_ints",)]
        g = AND(LT(j, self.params.max_runs), LT(j, self.sizes.interrupts), self._run_guard(s, A, "running"),
                LE(0, A.kind), LT(A.kind, 3), OR(NOT(EQ(A.kind, 2)), A.form))
        for f, v in (("i_run", A.run), ("i_kind", A.kind), ("i_form", A.form), ("i_open", True), ("i_by", -1),
                     ("i_res", -1), ("i_via", -1), ("i_nres", 0)):
            self.put(t, f, j, v)
        t[("n_ints",)] = ADD(j, 1)
        for kind, trig in (("approval", "request_approval"), ("clarification", "request_input"),
                           ("external-event", "await_external")):
            self.set_status(t, A.run, trig, EQ(A.kind, KINDS.index(kind)))
        self.append(t, A.run)
        return g

    def act_run_complete(self, s, A, t):
        g = AND(self.valid(s, "r", A.run), NOT(self.sel(s, "r_purged", A.run, True)),
                self.can_fire(self.sel(s, "r_status", A.run), "complete"))
        self.set_status(t, A.run, "complete")
        self.append(t, A.run)
        return g

    def act_run_fail(self, s, A, t):
        g = self._run_guard(s, A, "running")
        self.set_status(t, A.run, "fail")
        self.append(t, A.run)
        return g

    def act_run_spawn(self, s, A, t):
        g = AND(LT(s[("n_runs",)], self.params.max_runs), self._run_guard(s, A, "running"))
        self.create_run(t, True, self.sel(s, "r_server", A.run), self.sel(s, "r_owner", A.run), BY.index("child"), parent=A.run)
        self.append(t, A.run)
        return g

    def act_run_finish_cancel(self, s, A, t):
        g = self._run_guard(s, A, "cancelling")
        self.set_status(t, A.run, "finish_cancel")
        self.append(t, A.run)
        return g

    def act_external_event(self, s, A, t):
        i = A.intr
        k = self.sel(s, "i_run", i, -1)
        g = AND(self.valid(s, "i", i), self.sel(s, "i_open", i, False), EQ(self.sel(s, "i_kind", i), 2),
                NOT(self.sel(s, "r_purged", k, True)))
        self.resolve(t, i, EXTERNAL, RESOLUTIONS.index("external"), "external")
        return g

    def ttl_elapsed(self, s, k, now):
        ttl = self.flags["ttl_ms"]
        if ttl == "to-purge":
            pt = self.purge_time(s, k)
            return AND(NOT(EQ(s[("r_terminal", k)], -1)), LE(pt, now))
        return LE(ADD(s[("r_created", k)], self.fixed_ttl(ttl)), now)

    def act_clock_tick(self, s, A, t):
        g = LT(s[("clock",)], self.params.max_time)
        now = ADD(s[("clock",)], 1)
        t[("clock",)] = now
        if self.flags["on_ttl_elapsed"] == "fail-run":
            for k in range(self.sizes.runs):
                c = AND(LT(k, s[("n_runs",)]), NOT(s[("r_purged", k)]), self.ttl_elapsed(s, k, now),
                        NOT(IN(t[("r_status", k)], TERMINAL + (ST["cancelling"],))))
                self.set_status(t, k, "fail", c)
                self.append(t, k, c)
        return g

    def purge_time(self, s, k, term=None):
        """Rules.purge_time; with `term`, the purge time were the run terminal at that tick."""
        term = self.sel(s, "r_terminal", k, -1) if term is None else term
        if self.params.p_retention == "from-terminal":
            return ADD(term, self.params.retention)
        start = ADD(self.sel(s, "r_created", k, 0), self.params.retention)
        return ITE(LE(term, start), start, term)

    def act_purge(self, s, A, t):
        k = A.run
        g = AND(self.valid(s, "r", k), NOT(self.sel(s, "r_purged", k, True)), NOT(EQ(self.sel(s, "r_terminal", k, -1), -1)),
                LE(self.purge_time(s, k), s[("clock",)]))
        self.put(t, "r_purged", k, True)
        return g

    def act_persist(self, s, A, t):
        g = AND(self.valid(s, "r", A.run), NOT(self.sel(s, "r_durable", A.run, True)))
        self.put(t, "r_durable", A.run, True)
        return g

    # clients
    def act_call_tool(self, s, A, t):
        g = AND(self._budget(s), self._client_server(s, A), self._transport_ok(s, A), IN(A.tool, CALL_TOOLS))
        self.receive_call(t, A)
        return g

    def receive_call(self, t, A, cond=True):
        """A tools/call from A.client is sent and received (host._receive_call); returns its slot."""
        subj = self.subject_of(A.client)
        q = self.new_request(t, cond, A.client, A.server, A.transport, "tools/call", A.declare, q_tool=A.tool)
        capable = AND(A.declare, self.serves_tasks(A.server))
        missing = AND(EQ(A.tool, TOOLS.index("task-only")), NOT(capable))
        bad = AND(NOT(missing), EQ(A.tool, TOOLS.index("bad-args")))
        self.send(t, q, ITE(missing, RESP["missing-capability"], RESP["invalid-args"]), AND(cond, OR(missing, bad)))
        creates = AND(cond, NOT(missing), NOT(bad))
        k = t[("n_runs",)]
        durable = bool(self.flags["durable_on_create"])
        self.create_run(t, creates, A.server, subj, ITE(capable, BY.index("tasked-call"), BY.index("blocking-call")),
                        creq=q, elicit=self.elicit_level(subj), durable=durable)
        self.put(t, "q_run", q, k, creates)
        self.put(t, "q_owns", q, k, creates)            # Rules.owns_on_receipt: a creating tools/call
        return q

    def act_call_tool_bad_args(self, s, A, t):
        sent = OR(*[AND(LT(q, s[("n_reqs",)]), EQ(s[("q_method", q)], M["tools/call"]),
                        EQ(s[("q_tool", q)], TOOLS.index("bad-args"))) for q in range(self.sizes.requests)])
        g = AND(self._budget(s), NOT(sent), EQ(A.client, 0), EQ(A.server, self.server_s1))
        q = self.new_request(t, True, A.client, A.server, 0, "tools/call", A.declare, q_tool=TOOLS.index("bad-args"))
        self.send(t, q, RESP["invalid-args"])
        return g

    def act_mrtr_retry(self, s, A, t):
        p = A.req
        g = AND(LT(s[("n_reqs",)], self.params.max_requests + RETRY_RESERVE), self.valid(s, "q", p), EQ(self.sel(s, "q_phase", p), PH["delivered"]),
                EQ(self.sel(s, "q_resp", p), RESP["input-required"]), LE(0, A.client), LT(A.client, self.sizes.clients),
                LE(0, A.resp), LT(A.resp, 3))
        server = self.sel(s, "q_server", p)
        prev_tr = self.sel(s, "q_tr", p)
        transport = ITE(EQ(prev_tr, 0), 0, ITE(self._stdio(s, A.client, server), 1, 0))
        i = self.sel(s, "q_rs_int", p, -1)
        # the retry answers every inputRequests key: none when the requestState's interrupt is no input request
        keyed = NOT(EQ(self.sel(s, "i_kind", i), KINDS.index("external-event")))
        self.receive_retry(s, t, A.client, p, transport, A.declare, A.resp, keyed)
        return g

    def receive_retry(self, s, t, client, p, transport, declare, resp, keyed, cond=True):
        """An MRTR retry of the call answered by p, answering its requestState's interrupt with `resp`
        when `keyed` (its inputRequests carry that interrupt), is sent and received (host._receive_retry)."""
        i = self.sel(s, "q_rs_int", p, -1)
        q = self.new_request(t, cond, client, self.sel(s, "q_server", p), transport, "tools/call", declare,
                             q_tool=self.sel(s, "q_tool", p), q_retry=True, q_prev=p, q_ans=ITE(keyed, resp, 0))
        subj = self.subject_of(client)
        valid = AND(cond, NOT(EQ(i, -1)), NOT(self.sel(s, "q_rs_used", p, True)),
                    EQ(self.subject_of(self.sel(s, "q_client", p)), subj), self.sel(s, "i_open", i, False))
        self.send(t, q, RESP["invalid-request-state"], AND(cond, NOT(valid)))
        self.put(t, "q_rs_used", p, True, valid)
        self.put(t, "q_rvalid", q, True, valid)
        k = self.sel(s, "q_run", p, -1)
        self.put(t, "q_run", q, k, valid)
        self.put(t, "q_owns", q, k, valid)             # Rules.owns_on_receipt: a valid retry
        self.resolve(t, i, subj, resp, "mrtr", AND(valid, keyed))
        return q

    def fabricated_used(self, s, form):
        """A request already sent the fabricated task reference `form` (model.clients.task_refs)."""
        return OR(*[AND(LT(q, s[("n_reqs",)]), IN(s[("q_method", q)], TASK_METHODS), EQ(s[("q_ref_run", q)], -1),
                        EQ(s[("q_ref_form", q)], form)) for q in range(self.sizes.requests)])

    def listen_refs(self, s, server):
        """A listen on `server` asks for some task id: a run there, or an unsent fabricated id."""
        fab = AND(self._tab(self.params_serves, server), OR(*[NOT(self.fabricated_used(s, f)) for f in range(len(FAB_REFS))]))
        return OR(fab, *[AND(LT(k, s[("n_runs",)]), EQ(s[("r_server", k)], server)) for k in range(self.sizes.runs)])

    def _ref_guard(self, s, A):
        """The task reference a client may send (model.clients.task_refs) and its server."""
        known = AND(self.valid(s, "r", A.ref_run), EQ(A.server, self.sel(s, "r_server", A.ref_run)),
                    OR(EQ(A.ref_form, 0), self.ids_projected()))      # only a projected id has a %2F form
        used = self.fabricated_used(s, A.ref_form)
        fabricated = AND(EQ(A.ref_run, -1), LE(0, A.server), LT(A.server, self.sizes.servers),
                         self._tab(self.params_serves, A.server), NOT(used))
        return AND(OR(known, fabricated), LE(0, A.ref_form), LT(A.ref_form, 2))

    def _task_request(self, s, A, t, method):
        # model.clients HTTP_FLAGS / STDIO_FLAGS: http (declare, header) in {TT, FT, TF}; stdio TT only
        flags = OR(AND(EQ(A.transport, 0), OR(A.declare, A.header)), AND(EQ(A.transport, 1), A.declare, A.header))
        g = AND(self._budget(s), self._ref_guard(s, A), LE(0, A.client), LT(A.client, self.sizes.clients),
                self._transport_ok(s, A), flags)
        if method == "tasks/update":
            key_ok = OR(EQ(A.key, -1), AND(self.valid(s, "i", A.key), LE(0, A.ref_run),
                                           EQ(self.sel(s, "i_run", A.key, -1), A.ref_run)))
            g = AND(g, key_ok, LE(0, A.resp), LT(A.resp, 3))
        self.receive_task(s, t, A, method)
        return g

    def receive_task(self, s, t, A, method, cond=True):
        """A tasks/get, tasks/update or tasks/cancel from A.client is sent and answered (host.receive)."""
        extra = {"q_key": A.key, "q_ans": A.resp} if method == "tasks/update" else {}
        q = self.new_request(t, cond, A.client, A.server, A.transport, method, A.declare, q_ref_run=A.ref_run,
                             q_ref_form=A.ref_form, q_hdr=ITE(EQ(A.transport, 0), A.header, True), **extra)
        subj = self.subject_of(A.client)
        capable = AND(A.declare, self.serves_tasks(A.server))
        if self.flags["tasks_capability_ok"] == "get-without-declaration" and method == "tasks/get":
            capable = self.serves_tasks(A.server)
        header = OR(EQ(A.transport, 1), A.header, self.flags["header_ok"] == "unchecked")
        k = A.ref_run
        readable = self.lookup(s, subj, k, self.names(A.ref_form))
        ok = AND(cond, capable, header, readable)
        not_found = RESP["not-found"]
        nf_mode = self.flags["not_found"]
        if nf_mode == "foreign-403":
            not_found = ITE(AND(LE(0, k), NOT(EQ(self.tenant(subj), self.run_tenant(s, k)))), RESP["internal-error"],
                            not_found)
        elif nf_mode == "purged-expired":
            not_found = ITE(AND(LE(0, k), self.sel(s, "r_purged", k, False)), RESP["invalid-params-other"], not_found)
        early = ITE(NOT(capable), RESP["missing-capability"], ITE(NOT(header), RESP["header-mismatch"], not_found))
        early = ITE(self.serves_tasks(A.server), early, RESP["method-not-found"])     # NEG-4: a plain mount
        self.put(t, "q_run", q, k, ok)
        rstat = -1
        if method == "tasks/get":
            if self.flags["on_tasks_get"] == "append":
                self.append(t, k, ok)
            resp = RESP["create-task"] if self.flags["get_task_result"] == "result-type-task" else RESP["get"]
            # PRJ-4: an input_required task whose input the caller cannot receive (P-ELICIT) is refused -32021
            asker = self.elicit_level(subj)
            if self.params.p_elicit == "each-get":
                level = asker
            else:
                level = ITE(EQ(self.sel(s, "r_creq", k, -1), -1), asker, self.sel(s, "r_elicit", k, 0))
            refused = AND(ok, EQ(self.project(self.sel(s, "r_status", k)), TS["input_required"]),
                          self.missing_input(s, k, level))
            resp = ITE(refused, RESP["missing-capability"], resp)
            got = AND(ok, NOT(refused))
            rstat = ITE(got, self.project(self.sel(s, "r_status", k)), -1)
            self.put(t, "q_ttl", q, self.ttl_ticks(s, k), got)
            self.put(t, "q_leak", q, self.leaks(s, k), got)
            self.put(t, "q_ikeys", q, self.input_keys(s, k), AND(got, EQ(rstat, TS["input_required"])))
            if self.flags["get_task_result"] == "result-type-task":   # a detailed task: inputRequests or result
                self.put(t, "q_flat", q, False, AND(got, IN(rstat, (TS["input_required"], TS["completed"]))))
        elif method == "tasks/cancel":
            may = self.can_cancel(s, subj, k)
            deny = not_found if self.params.p_unauthorized == "error" else RESP["ack"]
            cmode = self.flags["tasks_cancel"]
            if cmode != "ack-only":
                self.cancel_run(t, k, "tasks-cancel", AND(ok, may, NOT(IN(self.sel(s, "r_status", k), TERMINAL))))
            if cmode == "append-on-terminal":
                self.append(t, k, AND(ok, may, IN(self.sel(s, "r_status", k), TERMINAL)))
            ack = RESP["other"] if cmode == "ack-carries-status" else RESP["ack"]
            resp = ITE(may, ack, deny)
        else:
            i = A.key
            considered = AND(ok, NOT(EQ(i, -1)), NOT(EQ(self.sel(s, "i_kind", i), KINDS.index("external-event"))))
            authorized = OR(NOT(considered), self.eligible(s, subj, i))
            resolved = self.resolve(t, i, subj, A.resp, "tasks/update", considered)
            err = AND(NOT(authorized), NOT(resolved)) if self.params.p_unauthorized == "error" else False
            err2 = NOT(authorized) if self.params.p_approver == "error" else False
            resp = ITE(OR(err, err2), not_found, RESP["ack"])
            if self.flags["update_response"] == "conflict-error":
                resp = ITE(err, not_found, ITE(AND(authorized, NOT(resolved)), RESP["internal-error"], resp))
        self.send(t, q, ITE(ok, resp, early), cond, rstat)
        return q

    def act_tasks_get(self, s, A, t):
        return self._task_request(s, A, t, "tasks/get")

    def act_tasks_update(self, s, A, t):
        return self._task_request(s, A, t, "tasks/update")

    def act_tasks_cancel(self, s, A, t):
        return self._task_request(s, A, t, "tasks/cancel")

    def act_unsupported(self, s, A, t):
        g = AND(self._budget(s), EQ(A.client, 0), LE(0, A.server), LT(A.server, self.sizes.servers),
                self._tab(self.params_serves, A.server), IN(A.method, (0, 1)),
                NOT(OR(*[AND(LT(q, s[("n_reqs",)]), EQ(s[("q_method", q)], ITE(EQ(A.method, 0), M["tasks/list"],
                                                                               M["tasks/result"])))
                         for q in range(self.sizes.requests)])))
        q = self.new_request(t, True, A.client, A.server, 0, "tasks/list", True)
        self.put(t, "q_method", q, ITE(EQ(A.method, 0), M["tasks/list"], M["tasks/result"]))
        served = AND(EQ(A.method, 0), self.flags["method_supported"] == "tasks-list-served")
        self.send(t, q, ITE(served, RESP["other"], RESP["method-not-found"]))
        return g

    def act_listen(self, s, A, t):
        listens = 0
        for q in range(self.sizes.requests):
            listens = ADD(listens, ITE(AND(LT(q, s[("n_reqs",)]), EQ(s[("q_method", q)], M["subscriptions/listen"])), 1, 0))
        g = AND(self._budget(s), self._client_server(s, A), LT(listens, 2))
        q = self.new_request(t, True, A.client, A.server, 0, "subscriptions/listen", A.declare)
        refs = self.listen_refs(s, A.server)
        capable = AND(A.declare, self.serves_tasks(A.server))
        if self.flags["tasks_capability_ok"] == "listen-without-declaration":
            capable = self.serves_tasks(A.server)
        refused = AND(refs, NOT(capable))
        self.send(t, q, RESP["missing-capability"], refused)
        subj = self.subject_of(A.client)
        for k in range(self.sizes.runs):
            ack = AND(NOT(refused), LT(k, s[("n_runs",)]), EQ(s[("r_server", k)], A.server))
            if self.flags["listen_ack"] == "no-authorization":
                ack = AND(ack, NOT(s[("r_purged", k)]))
            else:
                ack = AND(ack, self.lookup(s, subj, k, self.names(0)))   # every run's taskId is asked for
            for j in range(self.sizes.requests):
                t[("q_acked", j, k)] = ITE(EQ(q, j), ack, t[("q_acked", j, k)])
        self.put(t, "q_phase", q, PH["streaming"], NOT(refused))
        return g

    def act_discover(self, s, A, t):
        asked = OR(*[AND(LT(q, s[("n_reqs",)]), EQ(s[("q_method", q)], M["server/discover"]), EQ(s[("q_server", q)], A.server))
                     for q in range(self.sizes.requests)])
        g = AND(self._budget(s), EQ(A.client, 0), LE(0, A.server), LT(A.server, self.sizes.servers), NOT(asked))
        self.receive_discover(t, A.client, A.server)
        return g

    def receive_discover(self, t, client, server, cond=True):
        """A server/discover is sent and answered (host.receive)."""
        q = self.new_request(t, cond, client, server, 0, "server/discover", False,
                             q_says=self.serves_tasks(server), q_feat=self.flags["openwop_features"] == "baseline")
        self.send(t, q, RESP["discover"], cond)
        return q

    def act_stdio_cancel(self, s, A, t):
        q = A.req
        g = AND(self.valid(s, "q", q), EQ(self.sel(s, "q_tr", q), 1),
                IN(self.sel(s, "q_phase", q), (PH["received"], PH["streaming"], PH["sent"])),
                NOT(self.sel(s, "q_csent", q, True)))
        self.put(t, "q_csent", q, True)
        self.cancel_request(t, q, "stdio-cancelled")
        return g

    def act_stdio_close(self, s, A, t):
        used = OR(*[AND(LT(q, s[("n_reqs",)]), EQ(s[("q_client", q)], A.client), EQ(s[("q_server", q)], A.server),
                        EQ(s[("q_tr", q)], 1)) for q in range(self.sizes.requests)])
        g = AND(self._client_server(s, A), self._stdio(s, A.client, A.server), used)
        for ci in range(self.sizes.clients):
            for vi in range(self.sizes.servers):
                t[("stdio_open", ci, vi)] = ITE(AND(EQ(A.client, ci), EQ(A.server, vi)), False, t[("stdio_open", ci, vi)])
        if self.params.p_stdio_eof == "cancel-open":
            for q in range(self.sizes.requests):
                c = AND(LT(q, s[("n_reqs",)]), EQ(s[("q_client", q)], A.client), EQ(s[("q_server", q)], A.server),
                        EQ(s[("q_tr", q)], 1))
                self.cancel_request(t, q, "stdio-eof", c)
        return g

    # network
    def act_disconnect(self, s, A, t):
        q = A.req
        g = AND(self.params.http_disconnects, self.valid(s, "q", q), EQ(self.sel(s, "q_tr", q), 0),
                self.droppable(s, q))
        self.drop(t, q)
        return g

    def droppable(self, s, q):
        """network.disconnect applies: an unanswered request, or a delivered call that is still open."""
        ph = self.sel(s, "q_phase", q)
        return OR(IN(ph, (PH["received"], PH["streaming"], PH["sent"])),
                  AND(EQ(ph, PH["delivered"]), NOT(self.sel(s, "q_closed", q, True)),
                      NOT(EQ(self.sel(s, "q_run", q, -1), -1))))

    def drop(self, t, q, cond=True):
        """network.disconnect of q's connection, read in the state t it applies to."""
        s = dict(t)
        ph = self.sel(s, "q_phase", q)
        delivered = AND(cond, EQ(ph, PH["delivered"]))
        sent = AND(cond, EQ(ph, PH["sent"]))
        listen = AND(cond, IN(ph, OPEN), EQ(self.sel(s, "q_method", q), M["subscriptions/listen"]))
        other = AND(cond, IN(ph, OPEN), NOT(EQ(self.sel(s, "q_method", q), M["subscriptions/listen"])))
        # delivered: the client has the response; §G.13 (or the variant's rule)
        self.put(t, "q_closed", q, True, delivered)
        k = self.sel(s, "q_run", q, -1)
        live = AND(NOT(EQ(k, -1)), NOT(IN(self.sel(s, "r_status", k), TERMINAL)))
        tasked = EQ(self.sel(s, "q_resp", q), RESP["create-task"])
        mode = self.flags["on_disconnect_after_response"]
        if mode == "cancel-run":
            self.cancel_run(t, k, "mcp-request-cancelled", AND(delivered, EQ(self.sel(s, "q_method", q), M["tools/call"]), live))
        elif mode == "cancel-tasked-run":
            self.cancel_run(t, k, "mcp-request-cancelled", AND(delivered, tasked, live))
        elif mode == "cancel-owned":
            self.on_request_cancelled(t, q, "disconnect-before-receipt",
                                      AND(delivered, NOT(EQ(self.sel(s, "q_owns", q, -1), -1))))
        # sent: the response is lost in flight
        self.put(t, "q_phase", q, PH["lost"], sent)
        if self.flags["on_response_lost"] == "cancel-tasked-run":
            self.cancel_run(t, k, "mcp-request-cancelled", AND(sent, tasked, live))
        self.on_request_cancelled(t, q, "response-lost", AND(sent, NOT(EQ(self.sel(s, "q_owns", q, -1), -1))))
        self.release(t, q, "lost", sent)
        # an open listen stream just ends
        self.put(t, "q_phase", q, PH["cancelled"], listen)
        # an open request is cancelled
        self.cancel_request(t, q, "http-disconnect", other)

    def act_deliver(self, s, A, t):
        q = A.req
        g = AND(self.valid(s, "q", q), EQ(self.sel(s, "q_phase", q), PH["sent"]))
        self.deliver(t, q)
        return g

    def deliver(self, t, q, cond=True):
        self.put(t, "q_phase", q, PH["delivered"], cond)
        self.release(t, q, "delivered", cond)

    def act_end_listen(self, s, A, t):
        q = A.req
        g = AND(self.valid(s, "q", q), EQ(self.sel(s, "q_method", q), M["subscriptions/listen"]),
                EQ(self.sel(s, "q_phase", q), PH["streaming"]))
        self.put(t, "q_phase", q, PH["cancelled"])
        self.put(t, "q_hcan", q, True)          # the stream ends with the host's notifications/cancelled
        return g

    # rest
    def act_rest_create(self, s, A, t):
        rest = OR(*[AND(LT(k, s[("n_runs",)]), EQ(s[("r_by", k)], BY.index("rest"))) for k in range(self.sizes.runs)])
        g = AND(LT(s[("n_runs",)], self.params.max_runs), NOT(rest))
        self.create_run(t, True, 0, 0, BY.index("rest"))
        return g

    def act_rest_cancel(self, s, A, t):
        k = A.run
        g = AND(self.valid(s, "r", k), NOT(self.sel(s, "r_purged", k, True)),
                NOT(IN(self.sel(s, "r_status", k), TERMINAL)), LE(0, A.subject), LT(A.subject, self.sizes.subjects),
                self._tab(self.scope_cancel, A.subject))
        self.cancel_run(t, k, "rest-cancel", self.can_cancel(s, A.subject, k))
        return g

    def act_rest_resolve(self, s, A, t):
        i = A.intr
        k = self.sel(s, "i_run", i, -1)
        later = OR(*[AND(LT(j, s[("n_ints",)]), EQ(s[("i_run", j)], k), LT(i, j)) for j in range(self.sizes.interrupts)])
        late_ok = AND(NOT(later), NOT(self.sel(s, "r_restres", k, True)))
        g = AND(self.valid(s, "i", i), NOT(EQ(self.sel(s, "i_kind", i), 2)),
                NOT(self.sel(s, "r_purged", k, True)), OR(self.sel(s, "i_open", i, False), late_ok),
                LE(0, A.subject), LT(A.subject, self.sizes.subjects),
                IN(A.resp, tuple(RESOLUTIONS.index(r) for r in self.params.rest_answers)))
        self.resolve(t, i, A.subject, A.resp, "rest")
        return g

    def act_operator_pause(self, s, A, t):
        g = self._run_guard(s, A, "running")
        self.set_status(t, A.run, "pause")
        self.append(t, A.run)
        return g

    def act_operator_resume(self, s, A, t):
        g = self._run_guard(s, A, "paused")
        self.set_status(t, A.run, "resume")
        self.append(t, A.run)
        return g

    def act_fork(self, s, A, t):
        k = A.run
        closed = OR(*[AND(LT(j, s[("n_ints",)]), EQ(s[("i_run", j)], k), NOT(s[("i_open", j)]))
                      for j in range(self.sizes.interrupts)])
        g = AND(LT(s[("n_runs",)], self.params.max_runs), self.valid(s, "r", k), NOT(self.sel(s, "r_purged", k, True)),
                NOT(self.sel(s, "r_fork", k, True)), closed)
        log = ADD(self.sel(s, "r_log", k, 0), 2)
        if self.flags["fork_log"] == "reprompt":       # one more interrupt.requested per recorded interrupt
            prompts = COUNT(*[AND(LT(j, s[("n_ints",)]), EQ(s[("i_run", j)], k)) for j in range(self.sizes.interrupts)])
            log = ADD(log, prompts)
        new = self.create_run(t, True, self.sel(s, "r_server", k), self.sel(s, "r_owner", k), BY.index("fork"), fork=True,
                              log=log, restres=self.sel(s, "r_restres", k, False))
        if self.flags["fork_log"] == "reprompt":
            self.put(t, "r_rpt", new, closed)
        self.set_status(t, new, "start")
        return g

    # ---- the relation -------------------------------------------------------------------------------
    def instances(self) -> list:
        """The ground cases of the relation: each action with concrete values for its slot arguments
        (which request, run, interrupt, task reference, key) and for the counters it allocates from
        (the next request, run or interrupt slot). Indexing by a concrete slot keeps every case small."""
        if self._instances is None:
            out = []
            P, Z = self.params, self.sizes
            for name in self.actions:
                axes = []
                if GROUND_SLOTS:
                    for f in ACTION_ARG_FIELDS[name]:
                        if f in SLOT_DOMAINS:
                            axes.append((f, SLOT_DOMAINS[f](Z)))
                if GROUND_COUNTERS:
                    for c in COUNTERS.get(name, ()):
                        axes.append((c, counter_domain(name, c, P, Z)))
                for combo in itertools.product(*[d for _, d in axes]):
                    out.append((name, dict(zip([k for k, _ in axes], combo))))
            self._instances = out
        return self._instances

    def transition(self, s: dict, act, A: Args, s2: dict, inst):
        """T(s, act, A, s2): one disjunct per (ground) action case, its guard, with the successor
        fields as one case split over the cases that change them; `inst` names the case, `act` the
        action and A its arguments (linked to the case's ground values). A Z3 formula."""
        guards, posts, links = [], [], []
        cases = self.instances()
        for i, (name, ground) in enumerate(cases):
            Ai = Args(**{f: ground.get(f, getattr(A, f)) for f in ARG_FIELDS})
            si = dict(s)
            counters = [c for c in COUNTERS.get(name, ()) if c in ground]
            for c in counters:
                si[(c,)] = ground[c]
            g, t = self.step(si, name, Ai)
            for c in counters:
                if t[(c,)] is si[(c,)]:
                    t[(c,)] = s[(c,)]
            g = AND(g, *[EQ(s[(c,)], ground[c]) for c in counters])
            guards.append(AND(EQ(inst, i), g))
            posts.append(t)
            links.append(IMPLIES(EQ(inst, i), AND(EQ(act, self.index[name]),
                                                  *[EQ(getattr(A, f), v) for f, v in ground.items() if f in ARG_FIELDS])))
        parts = [OR(*guards), *links]
        for key in s:
            v = s[key]
            for i in reversed(range(len(cases))):
                ti = posts[i][key]
                if ti is s[key] or (is_sym(ti) and is_sym(s[key]) and ti.eq(s[key])):
                    continue
                v = ITE(EQ(inst, i), ti, v)
            parts.append(EQ(s2[key], v))
        return AND(*parts)

    def case_of(self, inst_value: int) -> tuple[str, dict]:
        return self.instances()[inst_value]


def executable_actions() -> dict:
    """The executable action table (host, clients, network, REST; the harness's register when
    `model.harness` is imported, as the composed encoding does)."""
    from model import clients, host, network, rest  # noqa: F401  (registration by import)
    from model.actions import ACTIONS
    return ACTIONS


def _name(key, tag):
    return "_".join(str(k) for k in key) + "@" + str(tag)


RUN_FIELDS = {"r_status": "int", "r_server": "int", "r_owner": "int", "r_by": "int", "r_parent": "int",
              "r_created": "int", "r_terminal": "int", "r_durable": "bool", "r_purged": "bool", "r_creq": "int",
              "r_elicit": "int", "r_fork": "bool", "r_reason": "int", "r_comp": "bool", "r_log": "int",
              "r_restres": "bool", "r_grace": "int", "r_rpt": "bool", "r_upd": "int"}
RUN_DEFAULTS = {"r_status": 0, "r_server": 0, "r_owner": 0, "r_by": 0, "r_parent": -1, "r_created": 0,
                "r_terminal": -1, "r_durable": True, "r_purged": False, "r_creq": -1, "r_elicit": 2,
                "r_fork": False, "r_reason": 0, "r_comp": False, "r_log": 0,
                "r_restres": False, "r_grace": -1, "r_rpt": False, "r_upd": 0}
INT_FIELDS = {"i_run": "int", "i_kind": "int", "i_form": "bool", "i_open": "bool", "i_by": "int", "i_res": "int",
              "i_via": "int", "i_nres": "int"}
INT_DEFAULTS = {"i_run": -1, "i_kind": 0, "i_form": True, "i_open": False, "i_by": -1, "i_res": -1, "i_via": -1,
                "i_nres": 0}
REQ_FIELDS = {"q_client": "int", "q_server": "int", "q_tr": "int", "q_method": "int", "q_decl": "bool",
              "q_tool": "int", "q_ref_run": "int", "q_ref_form": "int", "q_hdr": "bool", "q_key": "int",
              "q_ans": "int", "q_phase": "int", "q_resp": "int", "q_rstat": "int", "q_run": "int", "q_owns": "int",
              "q_retry": "bool", "q_prev": "int", "q_rvalid": "bool", "q_csent": "bool", "q_closed": "bool",
              "q_rs_int": "int", "q_rs_used": "bool", "q_ttl": "int", "q_flat": "bool", "q_hcan": "bool",
              "q_says": "bool", "q_feat": "bool", "q_leak": "bool", "q_ikeys": "int"}
REQ_DEFAULTS = {"q_client": 0, "q_server": 0, "q_tr": 0, "q_method": 0, "q_decl": False, "q_tool": 0,
                "q_ref_run": -1, "q_ref_form": 0, "q_hdr": True, "q_key": -1, "q_ans": 0, "q_phase": 0,
                "q_resp": 0, "q_rstat": -1, "q_run": -1, "q_owns": -1, "q_retry": False, "q_prev": -1,
                "q_rvalid": False, "q_csent": False, "q_closed": False, "q_rs_int": -1, "q_rs_used": False, "q_ttl": -1, "q_flat": True, "q_hcan": False,
                "q_says": False, "q_feat": True, "q_leak": False, "q_ikeys": -1}

# The Args fields each action reads (the others are free in its case).
ACTION_ARG_FIELDS = {
    "answer": ("req",), "stream_event": ("req",), "run_start": ("run",), "run_effect": ("run",),
    "run_compensate": ("run",), "run_interrupt": ("run", "kind", "form"), "run_complete": ("run",),
    "run_fail": ("run",), "run_spawn": ("run",), "run_finish_cancel": ("run",), "external_event": ("intr",),
    "clock_tick": (), "purge": ("run",), "persist": ("run",),
    "call_tool": ("client", "server", "transport", "declare", "tool"),
    "call_tool_bad_args": ("client", "server", "declare"),
    "mrtr_retry": ("client", "req", "resp", "declare"),
    "tasks_get": ("client", "server", "ref_run", "ref_form", "transport", "declare", "header"),
    "tasks_update": ("client", "server", "ref_run", "ref_form", "transport", "declare", "header", "key", "resp"),
    "tasks_cancel": ("client", "server", "ref_run", "ref_form", "transport", "declare", "header"),
    "unsupported": ("client", "server", "method"), "listen": ("client", "server", "declare"),
    "discover": ("client", "server"), "stdio_cancel": ("req",), "stdio_close": ("client", "server"),
    "disconnect": ("req",), "deliver": ("req",), "end_listen": ("req",),
    "rest_create": (), "rest_cancel": ("subject", "run"),
    "rest_resolve": ("subject", "intr", "resp"), "operator_pause": ("run",), "operator_resume": ("run",),
    "fork": ("run",),
    # the client harness (a composed encoding: verifier.engines.z3.harness); its client is a harness client's index
    "harness_discover": ("client", "server"), "harness_start": ("client", "server", "long"),
    "harness_receive": ("req",), "harness_persist": ("client", "op"), "harness_crash": ("client",),
    "harness_restart": ("client",), "harness_reissue": ("client", "op"), "harness_poll": ("client", "op"),
    "harness_update": ("client", "op"), "harness_mrtr": ("client", "op"), "harness_cancel": ("client", "op"),
    "harness_send_cancel": ("client", "op"),
}
SLOT_DOMAINS = {
    "req": lambda Z: list(range(Z.requests)), "run": lambda Z: list(range(Z.runs)),
    "intr": lambda Z: list(range(Z.interrupts)), "ref_run": lambda Z: list(range(-1, Z.runs)),
    "key": lambda Z: list(range(-1, Z.interrupts)),
}
GROUND_SLOTS = False
GROUND_COUNTERS = False
# The counters an action allocates a slot from (its case fixes their value).
COUNTERS = {
    "call_tool": ("n_reqs", "n_runs"), "call_tool_bad_args": ("n_reqs",), "mrtr_retry": ("n_reqs",),
    "tasks_get": ("n_reqs",), "tasks_update": ("n_reqs",), "tasks_cancel": ("n_reqs",), "unsupported": ("n_reqs",),
    "listen": ("n_reqs",), "discover": ("n_reqs",), "run_spawn": ("n_runs",), "fork": ("n_runs",),
    "rest_create": ("n_runs",), "run_interrupt": ("n_ints",),
}


def counter_domain(name: str, counter: str, P, Z) -> list:
    """The counter values at which the action can fire (its budget guard refuses the others; a run
    slot past the last is refused by the encoding's own guard, and unreachable: docs/z3.md)."""
    if counter == "n_reqs":
        top = P.max_requests + RETRY_RESERVE if name == "mrtr_retry" else P.max_requests
        return list(range(min(top, Z.requests)))
    if counter == "n_runs":
        top = Z.runs if name == "call_tool" else P.max_runs
        return list(range(min(top, Z.runs)))
    return list(range(min(P.max_runs, Z.interrupts)))


ENCODED_ACTIONS = (
    "answer", "stream_event", "run_start", "run_effect", "run_compensate", "run_interrupt", "run_complete",
    "run_fail", "run_spawn", "run_finish_cancel", "external_event", "clock_tick", "purge", "persist",
    "call_tool", "call_tool_bad_args", "mrtr_retry", "tasks_get", "tasks_update", "tasks_cancel", "unsupported", "listen", "discover",
    "stdio_cancel", "stdio_close", "disconnect", "deliver", "end_listen", "rest_create", "rest_cancel",
    "rest_resolve", "operator_pause", "operator_resume", "fork",
)
