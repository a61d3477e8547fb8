"""The strengthening invariants of the composed encoding: facts about the client harness's reachable
states that k-induction assumes for HNS-1..HNS-5 (each proved like the host's: it holds initially and
the conjunction of those kept is inductive). They relate the live records to the persisted ones, and
both to the requests the harness sent and read.
"""
from __future__ import annotations

from verifier.engines.z3.encoding import (ADD, AND, COUNT, EQ, ERRORS, IMPLIES, IN, ITE, LE, LT, M, NOT, OR,
    PH, RESP)
from verifier.engines.z3.harness import LR, OP_DISK, OP_FIXED, OP_LIVE, PU, REQ_H, TE
from verifier.engines.z3.harness_properties import (durable_wait, has_fact, live, local_authority,
    observed_tasks, returned_task)
from verifier.engines.z3.induction import _reqs, _rng, inv

METHOD_OF = {PU["discover"]: M["server/discover"], PU["call"]: M["tools/call"], PU["get"]: M["tasks/get"],
             PU["update"]: M["tasks/update"], PU["cancel"]: M["tasks/cancel"]}
# The answers (response kinds) a harness request of each purpose can have.
ANSWERS = {
    PU["discover"]: (RESP["discover"],),
    PU["call"]: (RESP["none"], RESP["create-task"], RESP["call-ok"], RESP["call-error"], RESP["input-required"]) + ERRORS,
    PU["get"]: (RESP["get"], RESP["create-task"]) + ERRORS, PU["update"]: (RESP["ack"], RESP["other"]) + ERRORS,
    PU["cancel"]: (RESP["ack"], RESP["other"]) + ERRORS}
UNBOUND = (TE["planned"], TE["calling"], TE["input_required"], TE["refused"])
BOUND = (TE["handle_received"], TE["waiting_external"])


def _ops(enc):
    return range(enc.sizes.hops)


def _hreq(st, j):
    return AND(LT(j, st[("n_reqs",)]), NOT(EQ(st[("hq_purpose", j)], -1)))


def _hclient_of(enc, st, j):
    return st[("q_client", j)] - enc.sizes.clients


@inv("harness-counters", "the harness's counters stay within its budgets and count what it sent; a client's "
     "epoch is at least one and every request it sent carries an epoch it has had", composed=True)
def harness_counters(enc, st):
    P = enc.params
    parts = [_rng(st[("h_runs",)], 0, min(P.harness_max_runs, enc.sizes.hops)),
             _rng(st[("h_reqs",)], 0, P.harness_max_requests), _rng(st[("h_crashes",)], 0, P.harness_max_crashes),
             EQ(st[("h_reqs",)], COUNT(*[_hreq(st, j) for j in _reqs(enc)]))]
    crashes = 0          # each crash kills a process, each restart starts the next epoch
    for c in range(enc.sizes.hclients):
        parts.append(LE(1, st[("hc_epoch", c)]))
        crashes = ADD(crashes, ADD(st[("hc_epoch", c)], ITE(st[("hc_alive", c)], -1, 0)))
    parts.append(EQ(crashes, st[("h_crashes",)]))
    for j in _reqs(enc):
        parts.append(IMPLIES(_hreq(st, j), _rng(st[("hq_epoch", j)], 1, enc.epoch(st, _hclient_of(enc, st, j)))))
    return AND(*parts)


@inv("harness-unused", "operations not started hold their initial record, and requests the harness did not send "
     "carry no harness facts", composed=True)
def harness_unused(enc, st):
    parts = []
    for o in _ops(enc):
        for f, (_, d) in {**OP_FIXED, **OP_LIVE, **OP_DISK}.items():
            parts.append(IMPLIES(LE(st[("h_runs",)], o), EQ(st[(f, o)], d)))
    for j in _reqs(enc):
        parts.append(IMPLIES(LE(st[("n_reqs",)], j), EQ(st[("hq_purpose", j)], -1)))
        for f, (_, d) in REQ_H.items():
            parts.append(IMPLIES(EQ(st[("hq_purpose", j)], -1), EQ(st[(f, j)], d)))
        parts.append(IMPLIES(AND(LT(j, st[("n_reqs",)]), EQ(st[("hq_purpose", j)], -1)),
                             LT(st[("q_client", j)], enc.sizes.clients)))
    return AND(*parts)


@inv("harness-dead", "a crashed client's process holds nothing: its records' live fields are initial, it knows "
     "no capability and waits for no request", composed=True)
def harness_dead(enc, st):
    parts = []
    for c in range(enc.sizes.hclients):
        dead = NOT(st[("hc_alive", c)])
        for v in range(enc.sizes.servers):
            parts.append(IMPLIES(dead, AND(EQ(st[("hc_cap", c, v)], -1), NOT(st[("hc_disc", c, v)]))))
    for o in _ops(enc):
        dead = AND(LT(o, st[("h_runs",)]), NOT(enc.alive(st, st[("ho_client", o)])))
        for f, (_, d) in OP_LIVE.items():
            parts.append(IMPLIES(dead, EQ(st[(f, o)], d)))
    for j in _reqs(enc):
        dead = AND(_hreq(st, j), NOT(enc.alive(st, _hclient_of(enc, st, j))))
        parts.append(IMPLIES(dead, AND(NOT(st[("hq_infl", j)]), NOT(st[("hq_rcpt", j)]))))
    return AND(*parts)


def _keys_ok(enc, st, keys):
    """A bitmask of inputRequests keys names only interrupts that exist."""
    return AND(_rng(keys, 0, (1 << enc.sizes.interrupts) - 1),
               *[IMPLIES(enc.has_key(keys, i), LT(i, st[("n_ints",)])) for i in range(enc.sizes.interrupts)])


def _record_fields(enc, st, o, pre):
    n_runs, n_reqs = st[("n_runs",)], st[("n_reqs",)]
    get = lambda f: st[(pre + f, o)]  # noqa: E731
    return AND(_rng(get("status"), 0, len(TE) - 1), NOT(EQ(get("status"), TE["planned"])),
               _rng(get("lrun"), 0, len(LR) - 1), _rng(get("bind"), -1, n_runs - 1), _rng(get("rstat"), -1, 4),
               _rng(get("ans"), -1, n_reqs - 1), _keys_ok(enc, st, get("keys")),
               _rng(get("att"), 0, enc.params.harness_max_attempts),
               IMPLIES(IN(get("status"), UNBOUND), EQ(get("bind"), -1)),
               IMPLIES(IN(get("status"), BOUND), NOT(EQ(get("bind"), -1))),
               IMPLIES(NOT(EQ(get("status"), TE["refused"])), LE(1, get("att"))),
               EQ(EQ(get("status"), TE["input_required"]), get("rs")))


@inv("harness-records", "a started operation's fields are in range, live and persisted: it was called or refused "
     "(never planned), bound exactly when a handle was received (and never while calling or asking), asking "
     "exactly with a requestState, called at least once unless refused", composed=True)
def harness_records(enc, st):
    parts = []
    for o in _ops(enc):
        ex = LT(o, st[("h_runs",)])
        parts.append(IMPLIES(ex, AND(_rng(st[("ho_client", o)], 0, enc.sizes.hclients - 1),
                                     _rng(st[("ho_server", o)], 0, enc.sizes.servers - 1),
                                     _record_fields(enc, st, o, "hd_"))))
        alive = live(enc, st, o)
        n_reqs = st[("n_reqs",)]
        parts.append(IMPLIES(alive, AND(_record_fields(enc, st, o, "ho_"), _rng(st[("ho_req", o)], -1, n_reqs - 1),
                                       _rng(st[("ho_pend", o)], -1, n_reqs - 1), _rng(st[("ho_creq", o)], -1, n_reqs - 1),
                                       EQ(EQ(st[("ho_status", o)], TE["refused"]), EQ(st[("hd_status", o)], TE["refused"])),
                                       IMPLIES(EQ(st[("ho_bind", o)], -1), EQ(st[("hd_bind", o)], -1)))))
    return AND(*parts)


@inv("harness-requests", "every request the harness sent has the method of its purpose, over HTTP, from a harness "
     "client, to its operation's server (a discover names no operation); tasks/* name a run in its taskId form "
     "with the extension declared and the header right; one read is no longer awaited; a receipt is a call "
     "answer read by the live process; an error outcome is a tasks/get's", composed=True)
def harness_requests(enc, st):
    parts = []
    for j in _reqs(enc):
        pu, o = st[("hq_purpose", j)], st[("hq_op", j)]
        h = _hreq(st, j)
        discover = EQ(pu, PU["discover"])
        method = OR(*[AND(EQ(pu, p), EQ(st[("q_method", j)], m)) for p, m in METHOD_OF.items()])
        task = IN(pu, (PU["get"], PU["update"], PU["cancel"]))
        parts.append(IMPLIES(h, AND(
            method, EQ(st[("q_tr", j)], 0), _rng(_hclient_of(enc, st, j), 0, enc.sizes.hclients - 1),
            EQ(discover, EQ(o, -1)),
            IMPLIES(NOT(discover), AND(_rng(o, 0, st[("h_runs",)] - 1),
                                       EQ(enc.sel(st, "ho_client", o), _hclient_of(enc, st, j)),
                                       EQ(enc.sel(st, "ho_server", o), st[("q_server", j)]))),
            IMPLIES(task, AND(st[("q_decl", j)], st[("q_hdr", j)], EQ(st[("q_ref_form", j)], 0),
                              LE(0, st[("q_ref_run", j)]))),
            IMPLIES(st[("hq_read", j)], AND(NOT(st[("hq_infl", j)]),
                                            IN(st[("q_phase", j)], (PH["delivered"], PH["lost"], PH["cancelled"])))),
            IMPLIES(st[("hq_rcpt", j)], AND(EQ(pu, PU["call"]), st[("hq_read", j)],
                                            EQ(st[("hq_epoch", j)], enc.epoch(st, _hclient_of(enc, st, j))))),
            IMPLIES(st[("hq_err", j)], EQ(pu, PU["get"])),
            OR(*[AND(EQ(pu, p), IN(st[("q_resp", j)], kinds)) for p, kinds in ANSWERS.items()]),
            IMPLIES(AND(EQ(pu, PU["call"]), NOT(st[("q_retry", j)])), EQ(st[("q_tool", j)], 0)))))
        ikeys = st[("q_ikeys", j)]
        parts.append(IMPLIES(LT(j, st[("n_reqs",)]), OR(EQ(ikeys, -1), _keys_ok(enc, st, ikeys))))
    return AND(*parts)


@inv("harness-in-flight", "a request a live process awaits is of its epoch, unread, and is the call, poll or cancel "
     "its record holds (or the discover in flight for that server); conversely what a live record holds is a "
     "request of its own operation and purpose, and a worker is held exactly while a call is awaited", composed=True)
def harness_in_flight(enc, st):
    parts = []
    for j in _reqs(enc):
        pu, o = st[("hq_purpose", j)], st[("hq_op", j)]
        c = _hclient_of(enc, st, j)
        infl = AND(_hreq(st, j), st[("hq_infl", j)])
        holds = OR(AND(EQ(pu, PU["call"]), EQ(enc.sel(st, "ho_req", o), j)),
                   AND(IN(pu, (PU["get"], PU["update"])), EQ(enc.sel(st, "ho_pend", o), j)),
                   AND(EQ(pu, PU["cancel"]), EQ(enc.sel(st, "ho_creq", o), j)),
                   AND(EQ(pu, PU["discover"]), enc.discovering(st, c, st[("q_server", j)])))
        parts.append(IMPLIES(infl, AND(enc.alive(st, c), EQ(st[("hq_epoch", j)], enc.epoch(st, c)), holds)))
    for o in _ops(enc):
        alive = live(enc, st, o)
        epoch = enc.epoch(st, st[("ho_client", o)])
        for f, purposes, awaited in (("ho_req", (PU["call"],), True), ("ho_pend", (PU["get"], PU["update"]), True),
                                     ("ho_creq", (PU["cancel"],), False)):
            q = st[(f, o)]
            mine = AND(IN(enc.sel(st, "hq_purpose", q, -1), purposes), EQ(enc.sel(st, "hq_op", q, -1), o),
                       LT(q, st[("n_reqs",)]), EQ(enc.sel(st, "hq_epoch", q, 0), epoch))
            if awaited:
                mine = AND(mine, enc.sel(st, "hq_infl", q, False))
            parts.append(IMPLIES(AND(alive, NOT(EQ(q, -1))), mine))
        parts.append(IMPLIES(alive, EQ(st[("ho_worker", o)], NOT(EQ(st[("ho_req", o)], -1)))))
        after_wait = OR(EQ(st[("ho_status", o)], TE["waiting_external"]), enc.te_terminal(st[("ho_status", o)]))
        parts.append(IMPLIES(AND(alive, OR(NOT(EQ(st[("ho_pend", o)], -1)), NOT(EQ(st[("ho_creq", o)], -1)))), after_wait))
        parts.append(IMPLIES(AND(alive, NOT(EQ(st[("ho_req", o)], -1))), EQ(st[("ho_status", o)], TE["calling"])))
    for c in range(enc.sizes.hclients):
        for v in range(enc.sizes.servers):
            awaited = OR(*[AND(_hreq(st, j), st[("hq_infl", j)], EQ(st[("hq_purpose", j)], PU["discover"]),
                               EQ(_hclient_of(enc, st, j), c), EQ(st[("q_server", j)], v)) for j in _reqs(enc)])
            parts.append(IMPLIES(st[("hc_disc", c, v)], AND(awaited, EQ(st[("hc_cap", c, v)], -1))))
            each = [AND(_hreq(st, j), st[("hq_infl", j)], EQ(st[("hq_purpose", j)], PU["discover"]),
                        EQ(_hclient_of(enc, st, j), c), EQ(st[("q_server", j)], v)) for j in _reqs(enc)]
            parts.append(LE(COUNT(*each), 1))
    return AND(*parts)


@inv("harness-observed", "a capability a process knows was read from a server/discover, and long work was called "
     "only on a server seen offering Tasks", composed=True)
def harness_observed(enc, st):
    parts = []
    for c in range(enc.sizes.hclients):
        for v in range(enc.sizes.servers):
            parts.append(IMPLIES(EQ(st[("hc_cap", c, v)], 1), observed_tasks(enc, st, enc.hclient(c), v)))
    for o in _ops(enc):
        called = AND(LT(o, st[("h_runs",)]), st[("ho_long", o)], NOT(EQ(st[("hd_status", o)], TE["refused"])))
        parts.append(IMPLIES(called, observed_tasks(enc, st, enc.hclient(st[("ho_client", o)]), st[("ho_server", o)])))
    return AND(*parts)


@inv("harness-bindings", "a binding, live or persisted, names a run a CreateTaskResult read by its client from its "
     "server carried", composed=True)
def harness_bindings(enc, st):
    parts = []
    for o in _ops(enc):
        c, v = st[("ho_client", o)], st[("ho_server", o)]
        for pre, ex in (("hd_", LT(o, st[("h_runs",)])), ("ho_", live(enc, st, o))):
            b = st[(pre + "bind", o)]
            parts.append(IMPLIES(AND(ex, NOT(EQ(b, -1))), returned_task(enc, st, enc.hclient(c), v, b)))
    return AND(*parts)


@inv("harness-asking", "a record's requestState is that of an InputRequiredResult its operation's call received "
     "and read, whose inputRequests it holds", composed=True)
def harness_asking(enc, st):
    parts = []
    for o in _ops(enc):
        for pre, ex in (("hd_", LT(o, st[("h_runs",)])), ("ho_", live(enc, st, o))):
            p = st[(pre + "ans", o)]
            asked = AND(LE(0, p), LT(p, st[("n_reqs",)]), EQ(enc.sel(st, "hq_purpose", p, -1), PU["call"]),
                        EQ(enc.sel(st, "hq_op", p, -1), o), EQ(enc.sel(st, "q_resp", p), RESP["input-required"]),
                        enc.sel(st, "hq_read", p, False), EQ(enc.sel(st, "q_phase", p), PH["delivered"]))
            parts.append(IMPLIES(AND(ex, st[(pre + "rs", o)]),
                                 AND(asked, EQ(st[(pre + "keys", o)], enc.keys_of(st, p)))))
    return AND(*parts)


@inv("harness-durable-wait", "HNS-2 itself: a live record in WAITING_EXTERNAL has its binding persisted and holds "
     "no worker", composed=True)
def harness_durable_wait(enc, st):
    return durable_wait(enc, st)


@inv("harness-local-runs", "HNS-5 itself, and its persisted half: every local run, live or persisted, reads the "
     "status its record gives", composed=True)
def harness_local_runs(enc, st):
    disk = [IMPLIES(LT(o, st[("h_runs",)]), EQ(st[("hd_lrun", o)], enc.derive(st[("hd_status", o)], st[("hd_intent", o)])))
            for o in _ops(enc)]
    return AND(local_authority(enc, st), *disk)


@inv("harness-facts", "a live unfinished record has read no remote completed in its process, and a record called "
     "at least once has a tools/call of its operation on record", composed=True)
def harness_facts(enc, st):
    parts = []
    for o in _ops(enc):
        unfinished = AND(live(enc, st, o), NOT(enc.te_terminal(st[("ho_status", o)])))
        parts.append(IMPLIES(unfinished, NOT(has_fact(enc, st, o, "completed"))))
        called = OR(*[AND(_hreq(st, j), EQ(st[("hq_purpose", j)], PU["call"]), EQ(st[("hq_op", j)], o))
                      for j in _reqs(enc)])
        parts.append(IMPLIES(AND(LT(o, st[("h_runs",)]), LE(1, st[("hd_att", o)])), called))
        parts.append(IMPLIES(AND(live(enc, st, o), LE(1, st[("ho_att", o)])), called))
    return AND(*parts)


