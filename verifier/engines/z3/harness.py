"""The client harness in the Z3 encoding: the actions of `model.harness`, over the composed world.

A composed encoding (`ComposedEncoding(params, rules)`, for the baseline harness or a variant with `harness_rules`) adds the
harness clients of `Params.harness_clients` to the host's state and relation. Its state, per harness
client: whether a process is alive, its epoch, the Tasks support it observed per server (-1 not asked,
0, 1) and the server/discover calls in flight; per operation (one per local run: a harness run has one
node): the server, the client and whether the work is long, then the tool-execution record twice, as the
live process holds it (`ho_*`) and as the disk holds it (`hd_*`): status, declared, binding (the run slot
its taskId names), remote status, requestState and the call it answered, the inputRequests keys (a
bitmask of interrupt slots, as `q_ikeys`), attempts, cancel intent and ack, and the local run's status;
the live copy also has the volatile request slots (call, tasks/get or tasks/update, tasks/cancel), the
worker and whether it changed since its checkpoint. Per request: the harness's purpose for it, its
operation, the epoch of the process that sent it, whether that process still waits for it, whether a
harness process read it, whether it is an unpersisted receipt, and whether a task view it carries is
an error outcome (a completed task whose result has isError). A dead process's live fields hold their
defaults. What is dropped, and why that is sound: the reason texts (no property or guard reads them),
the disk copies of the volatile fields (a restart clears them before any use), a binding's server and
auth (always the record's server and its client's Subject: `abstract` checks both).

The encoded harness is the executable one restricted as `HARNESS_PARAMS` states: it waits by polling
only and starts no short exchange (`NOT_ENCODED_HARNESS`); those behaviours of the default instance are
judged by the executable engines, and a composed encoding asked for them is refused.

Each harness rule a client variant overrides is described by a flag (`HARNESS_BASELINE_FLAGS`), checked
like the host's flags: a flag that misdescribes its rule fails the cross-check.
"""
from __future__ import annotations

from model import lifecycle
from model.harness import LOCAL_RUN_STATUSES, HarnessRules
from model.lifecycle import TOOL_EXECUTION_STATES, TOOL_EXECUTION_TERMINAL
from model.variants.mirror_remote_status import MIRROR

from verifier.engines.z3.encoding import (ACTION_ARG_FIELDS, ADD, AND, BITAND, EQ, ERRORS, IN, ITE, LE, LT,
    NOT, OR, PH, RESP, RESPONSES, RETRY_RESERVE, TS, Z3_PARAMS, Args, Encoding, Sizes, UnsupportedVariant)

TE = {s: i for i, s in enumerate(TOOL_EXECUTION_STATES)}
TE_TERMINAL = tuple(TE[s] for s in TOOL_EXECUTION_STATES if s in TOOL_EXECUTION_TERMINAL)
LR = {s: i for i, s in enumerate(LOCAL_RUN_STATUSES)}
PURPOSES = ("discover", "call", "get", "update", "cancel")
PU = {p: i for i, p in enumerate(PURPOSES)}
TASK_TERMINAL = (TS["completed"], TS["failed"], TS["cancelled"])

# The stated instance of the composed checks: one harness client (alice's) with one local run, three
# requests, one crash and two attempts; the plain clients only continue what the harness started
# (max_requests 0: their MRTR retries keep their reserve); one interrupt, a clock of two ticks.
HARNESS_PARAMS = Z3_PARAMS.with_(max_requests=0, max_runs=1, max_effects=1, max_time=2, retention=1,
                                 harness_clients=(("H1", "alice"),), harness_max_runs=1, harness_max_requests=3,
                                 harness_max_crashes=1, harness_max_attempts=2,
                                 harness_wait="poll", harness_short_ops=False)
# What the executable harness generates and this encoding does not: its verdicts are judged on a harness
# restricted as HARNESS_PARAMS states (a composed encoding with any other value is refused), and these
# behaviours are judged by the executable engines alone.
NOT_ENCODED_HARNESS = {
    "harness_wait": "waiting by subscriptions/listen (the encoded harness waits by polling only; "
                    "`harness_listen` is never enabled)",
    "harness_short_ops": "operations that need only a short exchange (HNS-7's short half)",
    "pollIntervalMs": "pacing polls by a task's pollIntervalMs (the host sends none)",
}

HARNESS_BASELINE_FLAGS = {
    "tasks_offered": "observed",                 # | "always": every server taken to offer Tasks, unasked
    "persists_binding_before_waiting": True,     # | False: WAITING_EXTERNAL at receipt of the handle
    "resumes_by_polling": True,                  # | False: a restart drops the binding and calls again
    "outcome_of_cancel_ack": None,               # | "remote_cancelled": the ack ends the record cancelled
    "record_remote_status": "record",            # | "mirror": also written over the local run (MIRROR)
}
HARNESS_FLAG_VALUES = {
    "tasks_offered": ("observed", "always"), "persists_binding_before_waiting": (True, False),
    "resumes_by_polling": (True, False), "outcome_of_cancel_ack": (None, "remote_cancelled"),
    "record_remote_status": ("record", "mirror"),
}

OP_LIVE = {"ho_status": ("int", TE["planned"]), "ho_decl": ("bool", False), "ho_bind": ("int", -1),
           "ho_rstat": ("int", -1), "ho_rs": ("bool", False), "ho_ans": ("int", -1), "ho_keys": ("int", 0),
           "ho_att": ("int", 0), "ho_intent": ("bool", False), "ho_acked": ("bool", False),
           "ho_lrun": ("int", LR["running"]),
           "ho_req": ("int", -1), "ho_pend": ("int", -1), "ho_creq": ("int", -1), "ho_worker": ("bool", False),
           "ho_dirty": ("bool", False)}
PERSISTED = ("status", "decl", "bind", "rstat", "rs", "ans", "keys", "att", "intent", "acked", "lrun")
OP_DISK = {"hd_" + f: OP_LIVE["ho_" + f] for f in PERSISTED}
OP_FIXED = {"ho_client": ("int", 0), "ho_server": ("int", 0), "ho_long": ("bool", False)}
REQ_H = {"hq_purpose": ("int", -1), "hq_op": ("int", -1), "hq_epoch": ("int", 0), "hq_infl": ("bool", False),
         "hq_read": ("bool", False), "hq_rcpt": ("bool", False), "hq_err": ("bool", False)}
H_ACTIONS = ("harness_discover", "harness_start", "harness_receive", "harness_persist", "harness_crash",
             "harness_restart", "harness_reissue", "harness_poll", "harness_update", "harness_mrtr",
             "harness_cancel", "harness_send_cancel")
# Actions of the executable harness that the encoded instance never enables (NOT_ENCODED_HARNESS): each
# has a case whose guard is false, so the relation still names every executable action.
H_NEVER = ("harness_listen",)
for _name in H_NEVER:
    ACTION_ARG_FIELDS.setdefault(_name, ("client", "op"))


def harness_flags(harness_rules, name: str, table: dict) -> dict:
    """The flags of a HarnessRules class or instance: the baseline's, with the row `table[name]`; a
    rule overridden without a row is a harness the encoding cannot describe."""
    cls = harness_rules if isinstance(harness_rules, type) else type(harness_rules)
    row = dict(table.get(name, {})) if cls is not HarnessRules else {}
    over = {m for m in vars(HarnessRules) if not m.startswith("_") and callable(getattr(HarnessRules, m))
            and getattr(cls, m) is not getattr(HarnessRules, m)}
    unknown = over - set(row)
    if unknown:
        raise UnsupportedVariant(f"harness rules {sorted(unknown)} overridden without a flag")
    flags = dict(HARNESS_BASELINE_FLAGS)
    for k, v in row.items():
        if k not in HARNESS_FLAG_VALUES or v not in HARNESS_FLAG_VALUES[k]:
            raise UnsupportedVariant(f"harness flag {k}={v!r} is not encoded")
        flags[k] = v
    return flags


class ComposedEncoding(Encoding):
    """The transition relation of `World.composed(params, rules, harness_rules)`: the host's, with the
    harness's fields and actions (`harness_listen` never enabled: NOT_ENCODED_HARNESS)."""

    def __init__(self, params=None, rules=None, harness_rules=None, table=None):
        hr = harness_rules if harness_rules is not None else getattr(rules, "harness_rules", None)
        self.harness_rules = hr if hr is not None else HarnessRules
        if table is None:
            from verifier.engines.z3.variants import HARNESS_RULE_TABLE as table
        self.hflags = harness_flags(self.harness_rules, getattr(rules, "name", ""), table)
        super().__init__(params or HARNESS_PARAMS, rules)
        if len(self.params.harness_clients) != self.sizes.hclients:
            raise UnsupportedVariant("harness clients")
        for key in ("harness_wait", "harness_short_ops"):
            if getattr(self.params, key) != getattr(HARNESS_PARAMS, key):
                raise UnsupportedVariant(f"{key}={getattr(self.params, key)!r}: {NOT_ENCODED_HARNESS[key]} is not encoded")

    def instance_sizes(self, P) -> Sizes:
        """The host's slots, plus a request per harness request and a run per creating harness call: a
        first call or a re-issue of an operation (MRTR retries create none)."""
        base = super().instance_sizes(P)
        calls = min(P.harness_max_requests, P.harness_max_runs * P.harness_max_attempts)
        return Sizes(runs=base.runs + calls, interrupts=base.interrupts,
                     requests=P.max_requests + RETRY_RESERVE + P.harness_max_requests, clients=base.clients,
                     servers=base.servers, subjects=base.subjects, hclients=len(P.harness_clients),
                     hops=P.harness_max_runs)

    def client_names(self) -> list:
        return list(self.params.clients) + [name for name, _ in self.params.harness_clients]

    def encoded_actions(self) -> tuple:
        return super().encoded_actions() + H_ACTIONS + H_NEVER

    def world(self):
        from model.world import World
        return World.composed(self.params, self.rules, self.harness_rules)

    # ---- fields ---------------------------------------------------------------------------------
    def harness_fields(self) -> dict:
        Z = self.sizes
        out = {("h_runs",): ("int", 0), ("h_reqs",): ("int", 0), ("h_crashes",): ("int", 0)}
        for c in range(Z.hclients):
            out[("hc_alive", c)] = ("bool", True)
            out[("hc_epoch", c)] = ("int", 1)
            for v in range(Z.servers):
                out[("hc_cap", c, v)] = ("int", -1)
                out[("hc_disc", c, v)] = ("bool", False)
        for o in range(Z.hops):
            for f, td in {**OP_FIXED, **OP_LIVE, **OP_DISK}.items():
                out[(f, o)] = td
        for q in range(Z.requests):
            for f, td in REQ_H.items():
                out[(f, q)] = td
        return out

    # ---- reading -------------------------------------------------------------------------------
    def hclient(self, c):
        """The request client index of harness client c (after the plain clients)."""
        return ADD(c, self.sizes.clients)

    def alive(self, s, c):
        return self.sel(s, "hc_alive", c, False)

    def epoch(self, s, c):
        return self.sel(s, "hc_epoch", c, 0)

    def cap(self, s, c, v):
        """The Tasks support client c saw on server v: -1 not asked, 0, 1."""
        return self.per_server(s, "hc_cap", c, v, -1)

    def discovering(self, s, c, v):
        """Client c's server/discover of server v is in flight."""
        return self.per_server(s, "hc_disc", c, v, False)

    def per_server(self, s, f, c, v, default):
        out = default
        for ci in range(self.sizes.hclients):
            for vi in range(self.sizes.servers):
                out = ITE(AND(EQ(c, ci), EQ(v, vi)), s[(f, ci, vi)], out)
        return out

    def set_per_server(self, t, f, c, v, val, cond=True):
        for ci in range(self.sizes.hclients):
            for vi in range(self.sizes.servers):
                t[(f, ci, vi)] = ITE(AND(cond, EQ(c, ci), EQ(v, vi)), val, t[(f, ci, vi)])

    def derive(self, status, intent):
        """model.harness.derive_local_status of a local run with one record."""
        out = ITE(intent, LR["cancelling"], ITE(EQ(status, TE["waiting_external"]), LR["waiting"], LR["running"]))
        ended = {"completed": "completed", "unknown": "reconcile", "failed": "failed", "refused": "failed",
                 "cancelled": "cancelled"}
        for te, lr in ended.items():
            out = ITE(EQ(status, TE[te]), LR[lr], out)
        return out

    def te_terminal(self, status):
        return IN(status, TE_TERMINAL)

    def offered(self, s, c, v):
        """HarnessRules.tasks_offered: -1 not asked, 0 no, 1 yes."""
        return 1 if self.hflags["tasks_offered"] == "always" else self.cap(s, c, v)

    def reissuable(self, s, o):
        return AND(NOT(self.sel(s, "ho_intent", o, True)), LT(self.sel(s, "ho_att", o), self.params.harness_max_attempts))

    def can_send(self, s):
        return LT(s[("h_reqs",)], self.params.harness_max_requests)

    def own_op(self, s, A):
        """A.op is a started operation of harness client A.client, whose process is alive."""
        return AND(LE(0, A.op), LT(A.op, s[("h_runs",)]), LT(A.op, self.sizes.hops),
                   EQ(self.sel(s, "ho_client", A.op), A.client), self.alive(s, A.client))

    # ---- mechanics -----------------------------------------------------------------------------
    def fire_te(self, t, o, trigger, cond=True):
        """_fire: a tool_execution transition of record o; the local run's status follows (_sync_run)."""
        cur = self.sel(t, "ho_status", o)
        table = {TE[src]: TE[lifecycle.fire("tool_execution", src, trigger)]
                 for src in TOOL_EXECUTION_STATES if lifecycle.can_fire("tool_execution", src, trigger)}
        t[("_crash",)] = OR(t[("_crash",)], AND(cond, NOT(IN(cur, tuple(table)))))
        new = cur
        for src, dst in table.items():
            new = ITE(EQ(cur, src), dst, new)
        self.put(t, "ho_status", o, new, cond)
        self.put(t, "ho_worker", o, False, AND(cond, self.te_terminal(new)))
        self.sync_run(t, o, cond)

    def sync_run(self, t, o, cond=True):
        self.put(t, "ho_lrun", o, self.derive(self.sel(t, "ho_status", o), self.sel(t, "ho_intent", o, False)), cond)
        self.put(t, "ho_dirty", o, True, cond)

    def record_remote(self, t, o, status, cond=True):
        """HarnessRules.record_remote_status."""
        self.put(t, "ho_rstat", o, status, cond)
        if self.hflags["record_remote_status"] == "mirror":
            mirrored = -1
            for ts, i in TS.items():
                mirrored = ITE(EQ(status, i), LR[MIRROR[ts]], mirrored)
            self.put(t, "ho_lrun", o, mirrored, cond)

    def h_send(self, s, t, c, purpose, o, method, cond=True, **a):
        """_send: a request of harness client c, received by the host in the same step."""
        A = Args(client=self.hclient(c), transport=0, declare=a.pop("declare", True), header=True, **a)
        if method == "tools/call":
            q = self.receive_call(t, A, cond)
        elif method == "server/discover":
            q = self.receive_discover(t, A.client, A.server, cond)
        else:
            q = self.receive_task(s, t, A, method, cond)
        self.sent(s, t, c, purpose, o, q, cond)
        return q

    def sent(self, s, t, c, purpose, o, q, cond=True):
        """What the harness records of a request it sent: purpose, operation, epoch, awaited."""
        t[("h_reqs",)] = ITE(cond, ADD(t[("h_reqs",)], 1), t[("h_reqs",)])
        for f, v in (("hq_purpose", PU[purpose]), ("hq_op", o), ("hq_epoch", self.epoch(s, c)), ("hq_infl", True)):
            self.put(t, f, q, v, cond)

    def h_call(self, s, t, c, o, retry=False, cond=True):
        """_call: record o's tools/call, or with `retry` its MRTR retry answering every input request. The
        record's own fields are read in t: a start writes them in the same step."""
        decl = self.offered(s, c, self.sel(t, "ho_server", o))
        decl = True if decl == 1 else NOT(EQ(decl, 0))
        self.put(t, "ho_decl", o, decl, cond)
        if retry:
            p = self.sel(t, "ho_ans", o)
            keys = self.sel(t, "ho_keys", o)
            answer = ITE(self.sel(t, "ho_intent", o, False), RESPONSES.index("decline"), RESPONSES.index("accept"))
            i = self.sel(s, "q_rs_int", p, -1)
            keyed = OR(*[AND(EQ(i, j), self.has_key(keys, j)) for j in range(self.sizes.interrupts)])
            q = self.receive_retry(s, t, self.hclient(c), p, 0, decl, answer, keyed, cond)
            self.put(t, "q_ans", q, ITE(EQ(keys, 0), 0, answer), cond)
            self.sent(s, t, c, "call", o, q, cond)
        else:
            self.put(t, "ho_att", o, ADD(self.sel(t, "ho_att", o), 1), cond)
            self.put(t, "ho_dirty", o, True, cond)
            q = self.h_send(s, t, c, "call", o, "tools/call", cond, server=self.sel(t, "ho_server", o), declare=decl,
                            tool=0)
        self.put(t, "ho_req", o, q, cond)
        self.put(t, "ho_worker", o, True, cond)
        return q

    def keys_of(self, s, q):
        """The inputRequests keys q's result carries, as a bitmask (0 when it carries none)."""
        keys = self.sel(s, "q_ikeys", q, -1)
        return ITE(EQ(keys, -1), 0, keys)

    def has_key(self, keys, j):
        """Interrupt slot j is among the inputRequests keys `keys` (a bitmask)."""
        return NOT(EQ(BITAND(keys, 1 << j), 0))

    def persist(self, t, o, cond=True):
        """_persist: a checkpoint of record o (a received handle enters WAITING_EXTERNAL in it); the call
        answers it consumed become receipts the host may learn of."""
        self.fire_te(t, o, "enter_wait", AND(cond, EQ(self.sel(t, "ho_status", o), TE["handle_received"])))
        for f in PERSISTED:
            self.put(t, "hd_" + f, o, self.sel(t, "ho_" + f, o, OP_LIVE["ho_" + f][1]), cond)
        self.put(t, "ho_dirty", o, False, cond)
        for j in range(self.sizes.requests):
            mine = AND(cond, LT(j, t[("n_reqs",)]), t[("hq_rcpt", j)], EQ(t[("hq_op", j)], o))
            t[("hq_rcpt", j)] = AND(t[("hq_rcpt", j)], NOT(mine))
            if "receipt" in self.releases:
                t[("q_owns", j)] = ITE(mine, -1, t[("q_owns", j)])

    # ---- the actions -----------------------------------------------------------------------------
    def act_harness_discover(self, s, A, t):
        c, v = A.client, A.server
        g = AND(LE(0, c), LT(c, self.sizes.hclients), LE(0, v), LT(v, self.sizes.servers), self.alive(s, c),
                self.can_send(s), EQ(self.cap(s, c, v), -1), NOT(self.discovering(s, c, v)))
        self.h_send(s, t, c, "discover", -1, "server/discover", server=v, declare=False)
        self.set_per_server(t, "hc_disc", c, v, True)
        return g

    def act_harness_start(self, s, A, t):
        c, v = A.client, A.server
        offered = self.offered(s, c, v)
        plan_call = OR(NOT(A.long), EQ(offered, 1))
        refuse = AND(A.long, EQ(offered, 0))
        g = AND(LE(0, c), LT(c, self.sizes.hclients), LE(0, v), LT(v, self.sizes.servers), self.alive(s, c),
                LT(s[("h_runs",)], self.params.harness_max_runs), self.can_send(s), OR(plan_call, refuse))
        if not self.params.harness_long_ops:        # the kinds of operation the instance starts
            g = AND(g, NOT(A.long))
        if not self.params.harness_other_ops:
            g = AND(g, A.long)
        o = s[("h_runs",)]
        t[("_crash",)] = OR(t[("_crash",)], NOT(LT(o, self.sizes.hops)))
        t[("h_runs",)] = ADD(o, 1)
        for f, (_, d) in OP_LIVE.items():
            self.put(t, f, o, d)
        for f, val in (("ho_client", c), ("ho_server", v), ("ho_long", A.long)):
            self.put(t, f, o, val)
        self.fire_te(t, o, "refuse", refuse)
        self.fire_te(t, o, "send_call", NOT(refuse))
        self.h_call(s, t, c, o, cond=NOT(refuse))
        self.persist(t, o)
        return g

    def act_harness_receive(self, s, A, t):
        q = A.req
        ph = self.sel(s, "q_phase", q)
        purpose = self.sel(s, "hq_purpose", q, -1)
        o = self.sel(s, "hq_op", q, -1)
        dropped = IN(ph, (PH["lost"], PH["cancelled"]))
        is_call = EQ(purpose, PU["call"])
        g = AND(self.valid(s, "q", q), NOT(EQ(purpose, -1)), self.sel(s, "hq_infl", q, False),
                OR(IN(ph, (PH["sent"], PH["delivered"])), AND(dropped, OR(NOT(is_call), NOT(self.reissuable(s, o))))))
        self.deliver(t, q, EQ(ph, PH["sent"]))
        self.put(t, "hq_infl", q, False)
        self.put(t, "hq_read", q, True)
        server = self.sel(s, "q_server", q)
        owner = ADD(self.sel(s, "q_client", q), -self.sizes.clients)
        resp = self.sel(s, "q_resp", q)
        error = IN(resp, ERRORS)
        ok = NOT(dropped)
        terminal = self.te_terminal(self.sel(s, "ho_status", o))
        # discover
        d = EQ(purpose, PU["discover"])
        self.set_per_server(t, "hc_disc", owner, server, False, d)
        self.set_per_server(t, "hc_cap", owner, server, ITE(self.sel(s, "q_says", q, False), 1, 0), AND(d, ok))
        # a tools/call: its answer or its loss
        self.put(t, "ho_req", o, -1, is_call)
        self.put(t, "ho_worker", o, False, is_call)
        self.fire_te(t, o, "fact_unobtainable", AND(is_call, dropped))
        read = AND(is_call, ok)
        self.put(t, "hq_rcpt", q, True, read)
        retry = self.sel(s, "q_retry", q, False)
        self.fire_te(t, o, "fact_unobtainable", AND(read, error, retry))
        self.fire_te(t, o, "fail", AND(read, error, NOT(retry)))
        handle = AND(read, EQ(resp, RESP["create-task"]))
        self.put(t, "ho_bind", o, self.sel(s, "q_run", q, -1), handle)
        self.fire_te(t, o, "receive_handle", handle)
        if not self.hflags["persists_binding_before_waiting"]:
            self.fire_te(t, o, "enter_wait", handle)
        self.record_remote(t, o, self.sel(s, "q_rstat", q, -1), handle)
        asked = AND(read, EQ(resp, RESP["input-required"]))
        self.put(t, "ho_rs", o, True, asked)
        self.put(t, "ho_ans", o, q, asked)
        self.put(t, "ho_keys", o, self.keys_of(s, q), asked)
        self.fire_te(t, o, "receive_input_required", asked)
        result = AND(read, NOT(error), NOT(EQ(resp, RESP["create-task"])), NOT(EQ(resp, RESP["input-required"])))
        self.fire_te(t, o, "fail", AND(result, EQ(resp, RESP["call-error"])))
        self.fire_te(t, o, "complete", AND(result, NOT(EQ(resp, RESP["call-error"]))))
        # tasks/cancel
        cancel = EQ(purpose, PU["cancel"])
        self.put(t, "ho_creq", o, -1, AND(cancel, dropped))
        self.fire_te(t, o, "fact_unobtainable", AND(cancel, ok, error, NOT(terminal)))
        acked = AND(cancel, ok, NOT(error))
        self.put(t, "ho_acked", o, True, acked)
        self.put(t, "ho_dirty", o, True, acked)
        if self.hflags["outcome_of_cancel_ack"] is not None:
            self.fire_te(t, o, self.hflags["outcome_of_cancel_ack"], AND(acked, NOT(terminal)))
        # tasks/get, tasks/update
        polled = IN(purpose, (PU["get"], PU["update"]))
        self.put(t, "ho_pend", o, -1, polled)
        get = AND(EQ(purpose, PU["get"]), ok, NOT(terminal))
        self.fire_te(t, o, "fact_unobtainable", AND(get, error))
        view = AND(get, NOT(error))
        st = self.sel(s, "q_rstat", q, -1)
        self.put(t, "ho_keys", o, self.keys_of(s, q), AND(view, EQ(st, TS["input_required"])))
        err = self.sel(s, "hq_err", q, False)
        self.fire_te(t, o, "remote_cancelled", AND(view, EQ(st, TS["cancelled"])))
        self.fire_te(t, o, "complete", AND(view, EQ(st, TS["completed"]), NOT(err)))
        self.fire_te(t, o, "fail", AND(view, OR(EQ(st, TS["failed"]), AND(EQ(st, TS["completed"]), err))))
        self.put(t, "ho_dirty", o, True, AND(view, NOT(IN(st, TASK_TERMINAL))))
        self.record_remote(t, o, st, view)
        return g

    def act_harness_persist(self, s, A, t):
        g = AND(LE(0, A.client), LT(A.client, self.sizes.hclients), self.own_op(s, A), self.sel(s, "ho_dirty", A.op, False))
        self.persist(t, A.op)
        return g

    def act_harness_crash(self, s, A, t):
        c = A.client
        g = AND(LE(0, c), LT(c, self.sizes.hclients), self.alive(s, c),
                LT(s[("h_crashes",)], self.params.harness_max_crashes))
        t[("h_crashes",)] = ADD(s[("h_crashes",)], 1)
        for ci in range(self.sizes.hclients):
            here = EQ(c, ci)
            t[("hc_alive", ci)] = AND(t[("hc_alive", ci)], NOT(here))
            for vi in range(self.sizes.servers):
                t[("hc_cap", ci, vi)] = ITE(here, -1, t[("hc_cap", ci, vi)])
                t[("hc_disc", ci, vi)] = AND(t[("hc_disc", ci, vi)], NOT(here))
        for o in range(self.sizes.hops):
            mine = AND(LT(o, s[("h_runs",)]), EQ(s[("ho_client", o)], c))
            for f, (_, d) in OP_LIVE.items():
                t[(f, o)] = ITE(mine, d, t[(f, o)])
        for j in range(self.sizes.requests):
            mine = AND(LT(j, s[("n_reqs",)]), NOT(EQ(s[("hq_purpose", j)], -1)), EQ(s[("q_client", j)], self.hclient(c)))
            t[("hq_infl", j)] = AND(t[("hq_infl", j)], NOT(mine))
            t[("hq_rcpt", j)] = AND(t[("hq_rcpt", j)], NOT(mine))
            self.drop(t, j, AND(mine, self.droppable(t, j)))
        return g

    def act_harness_restart(self, s, A, t):
        c = A.client
        g = AND(LE(0, c), LT(c, self.sizes.hclients), NOT(self.alive(s, c)))
        for ci in range(self.sizes.hclients):
            t[("hc_alive", ci)] = OR(t[("hc_alive", ci)], EQ(c, ci))
            t[("hc_epoch", ci)] = ITE(EQ(c, ci), ADD(s[("hc_epoch", ci)], 1), t[("hc_epoch", ci)])
        for o in range(self.sizes.hops):
            mine = AND(LT(o, s[("h_runs",)]), EQ(s[("ho_client", o)], c))
            for f in PERSISTED:
                t[("ho_" + f, o)] = ITE(mine, s[("hd_" + f, o)], t[("ho_" + f, o)])
            status, bind = t[("ho_status", o)], t[("ho_bind", o)]
            live = AND(mine, NOT(self.te_terminal(status)))
            bound = AND(live, NOT(EQ(bind, -1)))
            self.fire_te(t, o, "enter_wait", AND(bound, EQ(status, TE["handle_received"])))
            if not self.hflags["resumes_by_polling"]:
                self.put(t, "ho_bind", o, -1, bound)
                self.fire_te(t, o, "reissue", bound)
            calling = AND(live, EQ(bind, -1), EQ(status, TE["calling"]))
            self.fire_te(t, o, "fact_unobtainable", AND(calling, t[("ho_intent", o)]))
        return g

    def act_harness_reissue(self, s, A, t):
        o = A.op
        old = self.sel(s, "ho_req", o)
        g = AND(self.own_op(s, A), self.can_send(s), EQ(self.sel(s, "ho_status", o), TE["calling"]),
                self.reissuable(s, o), OR(EQ(old, -1), IN(self.sel(s, "q_phase", old), (PH["lost"], PH["cancelled"]))))
        self.put(t, "hq_infl", old, False)
        self.put(t, "hq_read", old, True, NOT(EQ(old, -1)))
        self.h_call(s, t, A.client, o)
        return g

    def act_harness_poll(self, s, A, t):
        o = A.op
        bind = self.sel(s, "ho_bind", o)
        g = AND(self.own_op(s, A), self.can_send(s), EQ(self.sel(s, "ho_status", o), TE["waiting_external"]),
                NOT(EQ(bind, -1)), EQ(self.sel(s, "ho_pend", o), -1))
        q = self.h_send(s, t, A.client, "get", o, "tasks/get", server=self.sel(s, "ho_server", o), ref_run=bind,
                        ref_form=0)
        done = AND(IN(self.sel(t, "q_resp", q), (RESP["get"], RESP["create-task"])),
                   EQ(self.sel(t, "q_rstat", q), TS["completed"]))
        self.put(t, "hq_err", q, AND(done, NOT(self.tool_ok(self.sel(s, "r_status", bind)))))
        self.put(t, "ho_pend", o, q)
        return g

    def act_harness_listen(self, s, A, t):
        """Never enabled: the encoded harness waits by polling (`harness_wait` "poll", NOT_ENCODED_HARNESS)."""
        return False

    def act_harness_update(self, s, A, t):
        o = A.op
        keys = self.sel(s, "ho_keys", o)
        key = -1
        for j in reversed(range(self.sizes.interrupts)):
            key = ITE(EQ(keys, 1 << j), j, key)
        g = AND(self.own_op(s, A), self.can_send(s), EQ(self.sel(s, "ho_status", o), TE["waiting_external"]),
                EQ(self.sel(s, "ho_rstat", o), TS["input_required"]), NOT(EQ(keys, 0)), EQ(self.sel(s, "ho_pend", o), -1))
        # one key per tasks/update: the instance has one interrupt per run at most (docs/z3.md)
        t[("_crash",)] = OR(t[("_crash",)], AND(g, EQ(key, -1)))
        answer = ITE(self.sel(s, "ho_intent", o, False), RESPONSES.index("decline"), RESPONSES.index("accept"))
        q = self.h_send(s, t, A.client, "update", o, "tasks/update", server=self.sel(s, "ho_server", o),
                        ref_run=self.sel(s, "ho_bind", o), ref_form=0, key=key, resp=answer)
        self.put(t, "ho_pend", o, q)
        self.put(t, "ho_keys", o, 0)
        return g

    def act_harness_mrtr(self, s, A, t):
        o = A.op
        g = AND(self.own_op(s, A), self.can_send(s), EQ(self.sel(s, "ho_status", o), TE["input_required"]),
                self.sel(s, "ho_rs", o, False))
        self.fire_te(t, o, "retry_input")
        self.h_call(s, t, A.client, o, retry=True)
        self.put(t, "ho_rs", o, False)
        self.put(t, "ho_keys", o, 0)
        return g

    def act_harness_cancel(self, s, A, t):
        o = A.op
        g = AND(self.params.harness_cancels, self.own_op(s, A), NOT(self.te_terminal(self.sel(s, "ho_status", o))), NOT(self.sel(s, "ho_intent", o, True)))
        self.put(t, "ho_intent", o, True)
        self.sync_run(t, o)
        self.persist(t, o)
        return g

    def act_harness_send_cancel(self, s, A, t):
        o = A.op
        bind = self.sel(s, "ho_bind", o)
        g = AND(self.own_op(s, A), self.can_send(s), self.sel(s, "ho_intent", o, False),
                EQ(self.sel(s, "ho_status", o), TE["waiting_external"]), NOT(EQ(bind, -1)),
                EQ(self.sel(s, "ho_creq", o), -1), NOT(self.sel(s, "ho_acked", o, True)))
        q = self.h_send(s, t, A.client, "cancel", o, "tasks/cancel", server=self.sel(s, "ho_server", o), ref_run=bind,
                        ref_form=0)
        self.put(t, "ho_creq", o, q)
        return g
