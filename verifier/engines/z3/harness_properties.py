"""The client harness's requirements (HNS-1..HNS-5) as formulas over a step of the composed encoding.

Written from the catalogue's checks (`properties/harness.py`), which judge only after a harness step;
each formula reads only the harness's fields and the requests' (`verifier.engines.z3.harness`). `covers`
states the part of each property the formula states:

- HNS-1, HNS-2 and HNS-5 are the whole property on the abstraction;
- HNS-3 (a trace): the restart clause, and "no fresh tools/call for an operation whose persisted
  record holds a binding *now*" (the catalogue also remembers bindings a variant later dropped);
- HNS-4 (a trace): the outcome check of every record that ends with a cancel intent at this step and
  did not hold that outcome before it (live or persisted); the catalogue checks an outcome once per
  record and status, so the formula checks at least what the catalogue does (a proof covers it, and
  BMC replays every counterexample in the catalogue).
"""
from __future__ import annotations

from verifier.engines.z3.encoding import AND, EQ, ERRORS, IMPLIES, IN, LE, LT, M, NOT, OR, PH, RESP, TS
from verifier.engines.z3.harness import H_ACTIONS, TE, TE_TERMINAL
from verifier.engines.z3.properties import TASKS, zprop

FACTS = ("completed", "failed", "cancelled", "unobtainable")
NEEDS = {"cancelled": ("cancelled",), "completed": ("completed",), "failed": ("failed", "completed"),
         "unknown": ("unobtainable",)}


def harness_step(enc, act):
    return IN(act, tuple(enc.index[a] for a in H_ACTIONS))


def sent_now(enc, s, t, j):
    """Request slot j was sent by the harness in this step."""
    return AND(LE(s[("n_reqs",)], j), LT(j, t[("n_reqs",)]), NOT(EQ(t[("hq_purpose", j)], -1)))


def live(enc, st, o):
    """Operation o exists and its client's process is alive (its live record is meaningful)."""
    return AND(LT(o, st[("h_runs",)]), enc.alive(st, st[("ho_client", o)]))


def read_answer(st, p, client, server, method):
    """The harness client read p's delivered answer, p being a `method` of `client` to `server`."""
    return AND(LT(p, st[("n_reqs",)]), NOT(EQ(st[("hq_purpose", p)], -1)), EQ(st[("q_client", p)], client),
               EQ(st[("q_server", p)], server), EQ(st[("q_method", p)], M[method]), st[("hq_read", p)],
               EQ(st[("q_phase", p)], PH["delivered"]))


def returned_task(enc, st, client, server, k):
    """properties.harness._returned_task: a CreateTaskResult `client` read from `server` carried the taskId
    of run k."""
    return OR(*[AND(read_answer(st, p, client, server, "tools/call"), EQ(st[("q_resp", p)], RESP["create-task"]),
                    EQ(st[("q_run", p)], k)) for p in range(enc.sizes.requests)])


def observed_tasks(enc, st, client, server):
    """properties.harness._observed_tasks: `client` read a server/discover of `server` listing Tasks."""
    return OR(*[AND(read_answer(st, p, client, server, "server/discover"), st[("q_says", p)])
                for p in range(enc.sizes.requests)])


@zprop("HNS-1", "step", "the whole property: tasks/* only for a taskId a CreateTaskResult this client read from "
       "that server carried; a call of long work declaring tasks only to a server it read advertise them; a plain "
       "CallToolResult to a declaring call ends its record; no live record waits without a binding", composed=True)
def hns1(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        new = sent_now(enc, s, t, j)
        o = t[("hq_op", j)]
        client, server = t[("q_client", j)], t[("q_server", j)]
        named = AND(EQ(t[("q_ref_form", j)], 0), returned_task(enc, t, client, server, t[("q_ref_run", j)]))
        parts.append(IMPLIES(AND(new, IN(t[("q_method", j)], TASKS)), named))
        call = AND(new, EQ(t[("q_method", j)], M["tools/call"]), NOT(t[("q_retry", j)]))
        parts.append(IMPLIES(AND(call, enc.sel(t, "ho_long", o, False), t[("q_decl", j)]), observed_tasks(enc, t, client, server)))
    q = A.req
    plain = AND(EQ(act, enc.index["harness_receive"]), EQ(enc.sel(t, "q_method", q), M["tools/call"]),
                enc.sel(t, "q_decl", q, False), EQ(enc.sel(t, "q_phase", q), PH["delivered"]),
                IN(enc.sel(t, "q_resp", q), (RESP["call-ok"], RESP["call-error"])))
    parts.append(IMPLIES(plain, enc.te_terminal(enc.sel(t, "ho_status", enc.sel(t, "hq_op", q, -1)))))
    for o in range(enc.sizes.hops):
        parts.append(IMPLIES(AND(live(enc, t, o), EQ(t[("ho_status", o)], TE["waiting_external"])),
                             NOT(EQ(t[("ho_bind", o)], -1))))
    return IMPLIES(harness_step(enc, act), AND(*parts))


def durable_wait(enc, st):
    out = []
    for o in range(enc.sizes.hops):
        waits = AND(live(enc, st, o), EQ(st[("ho_status", o)], TE["waiting_external"]))
        out.append(IMPLIES(waits, AND(NOT(EQ(st[("ho_bind", o)], -1)), EQ(st[("hd_bind", o)], st[("ho_bind", o)]),
                                      NOT(st[("ho_worker", o)]))))
    return AND(*out)


@zprop("HNS-2", "invariant", "the whole property: a live record in WAITING_EXTERNAL has a binding, the same "
       "binding persisted, and no worker", composed=True)
def hns2(enc, s, act, A, t):
    return durable_wait(enc, t)


@zprop("HNS-3", "step", "the restart clause (after a restart every persisted binding of an unfinished record is "
       "being polled with that binding), and no fresh tools/call for an operation whose persisted record holds a "
       "binding before the step (not: a binding persisted once and dropped since)", composed=True)
def hns3(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        call = AND(sent_now(enc, s, t, j), EQ(t[("q_method", j)], M["tools/call"]), NOT(t[("q_retry", j)]))
        parts.append(IMPLIES(call, EQ(enc.sel(s, "hd_bind", t[("hq_op", j)], -1), -1)))
    restart = EQ(act, enc.index["harness_restart"])
    for o in range(enc.sizes.hops):
        persisted = AND(LT(o, t[("h_runs",)]), EQ(t[("ho_client", o)], A.client), NOT(EQ(t[("hd_bind", o)], -1)),
                        NOT(enc.te_terminal(t[("hd_status", o)])))
        parts.append(IMPLIES(AND(restart, persisted), AND(EQ(t[("ho_status", o)], TE["waiting_external"]),
                                                          EQ(t[("ho_bind", o)], t[("hd_bind", o)]))))
    return IMPLIES(harness_step(enc, act), AND(*parts))


def fact(enc, st, p, fact_name):
    """properties.harness._remote_facts: request p gave the live process of its client this fact."""
    method, resp, ph = st[("q_method", p)], st[("q_resp", p)], st[("q_phase", p)]
    o = st[("hq_op", p)]
    current = EQ(st[("hq_epoch", p)], enc.epoch(st, enc.sel(st, "ho_client", o)))
    call = EQ(method, M["tools/call"])
    got = AND(st[("hq_read", p)], EQ(ph, PH["delivered"]))
    err = IN(resp, ERRORS)
    get = EQ(method, M["tasks/get"])
    status = st[("q_rstat", p)]
    if fact_name == "unobtainable":
        return OR(AND(NOT(current), call),
                  AND(current, call, OR(IN(ph, (PH["lost"], PH["cancelled"])), AND(got, err, st[("q_retry", p)]))),
                  AND(current, got, err, IN(method, (M["tasks/get"], M["tasks/cancel"]))))
    view = AND(current, got, get, NOT(err))
    if fact_name == "completed":
        return OR(AND(current, got, call, EQ(resp, RESP["call-ok"])),
                  AND(view, EQ(status, TS["completed"]), NOT(st[("hq_err", p)])))
    if fact_name == "failed":
        return OR(AND(current, got, call, OR(EQ(resp, RESP["call-error"]), AND(err, NOT(st[("q_retry", p)])))),
                  AND(view, OR(EQ(status, TS["failed"]), AND(EQ(status, TS["completed"]), st[("hq_err", p)]))))
    return AND(view, EQ(status, TS["cancelled"]))


def has_fact(enc, st, o, fact_name):
    return OR(*[AND(LT(p, st[("n_reqs",)]), NOT(EQ(st[("hq_purpose", p)], -1)), EQ(st[("hq_op", p)], o),
                    fact(enc, st, p, fact_name)) for p in range(enc.sizes.requests)])


@zprop("HNS-4", "step", "the outcome check of each record ending with a cancel intent at this step, in a status "
       "it held neither live nor persisted before: cancelled, completed or failed only after reading that remote "
       "fact, 'effect unknown' only when the fact became unobtainable, completed after reading a remote completed",
       composed=True)
def hns4(enc, s, act, A, t):
    parts = []
    for o in range(enc.sizes.hops):
        st = t[("ho_status", o)]
        before = OR(AND(live(enc, s, o), EQ(s[("ho_status", o)], st), s[("ho_intent", o)]),
                    AND(LT(o, s[("h_runs",)]), EQ(s[("hd_status", o)], st), s[("hd_intent", o)]))
        ended = AND(live(enc, t, o), t[("ho_intent", o)], IN(st, TE_TERMINAL), NOT(before))
        ok = IMPLIES(has_fact(enc, t, o, "completed"), EQ(st, TE["completed"]))
        for status, needs in NEEDS.items():
            ok = AND(ok, IMPLIES(EQ(st, TE[status]), OR(*[has_fact(enc, t, o, f) for f in needs])))
        parts.append(IMPLIES(ended, ok))
    return IMPLIES(harness_step(enc, act), AND(*parts))


def local_authority(enc, st):
    return AND(*[IMPLIES(live(enc, st, o), EQ(st[("ho_lrun", o)], enc.derive(st[("ho_status", o)], st[("ho_intent", o)])))
                 for o in range(enc.sizes.hops)])


@zprop("HNS-5", "invariant", "the whole property: every live local run reads the status its own record gives "
       "(the persisted ones are local run statuses by construction of the abstraction)", composed=True)
def hns5(enc, s, act, A, t):
    return local_authority(enc, t)
