"""k-induction over the encoding, with strengthening invariants that are themselves proved.

A safety property P of one step holds for all depths at the stated size when
1. base: no path of at most k steps from the initial state violates it (BMC), and
2. step: every path of k steps from a state satisfying the strengthening invariants INV, whose first
   k-1 steps keep P, keeps P at its k-th step.
Step 2 may assume INV because INV is proved first, the same way: it holds in the initial state, and a
step from any state satisfying all of INV leads to a state satisfying each of them (the
conjunction is inductive), so every reachable state satisfies it.

Each invariant below states one fact about reachable states, in words, with the reason it is
needed. A counterexample to induction is printed as the two states (only the objects that exist)
and the action between them (`describe_cti`), never as a solver dump.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import z3

from verifier.engines.z3.bmc import Unrolling, Z3Verdict, make_solver, unknown_reason
from verifier.engines.z3.encoding import (AND, COUNT, REASONS, BY, EQ, EXTERNAL, IMPLIES, IN, KINDS, LE, LT,
    M, NOT, OPEN, OR, PH, RESP, ST, TERMINAL, VIAS, WAITING, Args, Encoding, sym_case, sym_int, value_of)
from verifier.runtime.budgets import TIME_CAP
from verifier.engines.z3.properties import (PROPS, approvers_as_recorded, descendant, forks_reissue_nothing,
    notifications_current, only_listens_host_cancelled)

ANSWERED = (PH["sent"], PH["delivered"], PH["lost"])
CANCEL_ST = (ST["cancelling"], ST["cancelled"])


@dataclass(frozen=True)
class Invariant:
    name: str
    doc: str
    formula: Callable      # (enc, st) -> Bool
    composed: bool = False  # reads the client harness (a composed encoding only)


INVARIANTS: list[Invariant] = []


def inv(name: str, doc: str, composed: bool = False):
    def register(f):
        INVARIANTS.append(Invariant(name, doc, f, composed))
        return f
    return register


def invariants_for(enc) -> list[Invariant]:
    """The host's invariants, and on a composed encoding the harness's too."""
    return [i for i in INVARIANTS if not i.composed or enc.sizes.hclients]


def _runs(enc):
    return range(enc.sizes.runs)


def _reqs(enc):
    return range(enc.sizes.requests)


def _ints(enc):
    return range(enc.sizes.interrupts)


def _rng(x, lo, hi):
    return AND(LE(lo, x), LE(x, hi))


# ---- shape ---------------------------------------------------------------------------------------------

@inv("counters", "the slot counters, the clock and the effect count stay within the instance's bounds")
def counters(enc, st):
    P, Z = enc.params, enc.sizes
    return AND(_rng(st[("n_runs",)], 0, Z.runs), _rng(st[("n_ints",)], 0, min(P.max_runs, Z.interrupts)),
               _rng(st[("n_reqs",)], 0, Z.requests), _rng(st[("clock",)], 0, P.max_time),
               _rng(st[("effects",)], 0, P.max_effects))


@inv("unused-slots-default", "slots past a counter hold the initial values (creation writes a whole slot)")
def unused(enc, st):
    init = enc.initial()
    parts = []
    for key, v in init.items():
        f = key[0]
        if f.startswith("r_"):
            parts.append(IMPLIES(LE(st[("n_runs",)], key[1]), EQ(st[key], v)))
        elif f.startswith("i_"):
            parts.append(IMPLIES(LE(st[("n_ints",)], key[1]), EQ(st[key], v)))
        elif f.startswith("q_"):
            parts.append(IMPLIES(LE(st[("n_reqs",)], key[1]), EQ(st[key], v)))
    return AND(*parts)


@inv("run-fields", "every run's fields are in range: status, server, owner, how it started, an earlier parent, "
     "creation and terminal times on the clock, a cancel reason")
def run_fields(enc, st):
    Z = enc.sizes
    parts = []
    for k in _runs(enc):
        ex = LT(k, st[("n_runs",)])
        term = st[("r_terminal", k)]
        parts.append(IMPLIES(ex, AND(
            _rng(st[("r_status", k)], 0, len(ST) - 1), _rng(st[("r_server", k)], 0, Z.servers - 1),
            _rng(st[("r_owner", k)], 0, Z.subjects - 1), _rng(st[("r_by", k)], 0, len(BY) - 1),
            _rng(st[("r_parent", k)], -1, k - 1), _rng(st[("r_created", k)], 0, st[("clock",)]),
            OR(EQ(term, -1), AND(LE(st[("r_created", k)], term), LE(term, st[("clock",)]))),
            _rng(st[("r_reason", k)], 0, len(REASONS) - 1))))
    return AND(*parts)


@inv("terminal-time", "a run has a terminal time exactly when its status is terminal")
def terminal_time(enc, st):
    return AND(*[IMPLIES(LT(k, st[("n_runs",)]), EQ(NOT(EQ(st[("r_terminal", k)], -1)), IN(st[("r_status", k)], TERMINAL)))
                 for k in _runs(enc)])


@inv("purged-terminal", "only a terminal run whose retention elapsed is purged")
def purged_terminal(enc, st):
    return AND(*[IMPLIES(AND(LT(k, st[("n_runs",)]), st[("r_purged", k)]),
                         AND(IN(st[("r_status", k)], TERMINAL), LE(enc.purge_time(st, k), st[("clock",)])))
                 for k in _runs(enc)])


@inv("durable", "every run is durable (createRun makes the id readable at once on the baseline)")
def durable(enc, st):
    if not enc.flags["durable_on_create"]:
        return True
    return AND(*[IMPLIES(LT(k, st[("n_runs",)]), st[("r_durable", k)]) for k in _runs(enc)])


@inv("cancel-reason", "a run has a cancel reason exactly when it is cancelling or cancelled, and compensated "
     "only then (a cancel is accepted once, and cancelling leads only to cancelled)")
def cancel_reason(enc, st):
    return AND(*[IMPLIES(LT(k, st[("n_runs",)]), AND(
        EQ(NOT(EQ(st[("r_reason", k)], 0)), IN(st[("r_status", k)], CANCEL_ST)),
        IMPLIES(st[("r_comp", k)], IN(st[("r_status", k)], CANCEL_ST)))) for k in _runs(enc)])


@inv("run-origin", "a child has its parent's owner and server, a fork is marked a fork, and a run started by a "
     "tools/call names that call (a first call, not a retry, of the same Subject and server, which names the "
     "run back); only calls create runs beyond max_runs")
def run_origin(enc, st):
    parts = []
    child, fork, tasked, blocking = BY.index("child"), BY.index("fork"), BY.index("tasked-call"), BY.index("blocking-call")
    others = []
    for k in _runs(enc):
        ex = LT(k, st[("n_runs",)])
        by = st[("r_by", k)]
        parent = st[("r_parent", k)]
        creq = st[("r_creq", k)]
        is_call = IN(by, (tasked, blocking))
        parts.append(IMPLIES(ex, AND(
            EQ(NOT(EQ(parent, -1)), EQ(by, child)), EQ(st[("r_fork", k)], EQ(by, fork)),
            IMPLIES(NOT(EQ(parent, -1)), AND(EQ(st[("r_owner", k)], enc.sel(st, "r_owner", parent)),
                                             EQ(st[("r_server", k)], enc.sel(st, "r_server", parent)),
                                             LT(k, enc.params.max_runs))),
            EQ(NOT(EQ(creq, -1)), is_call),
            IMPLIES(is_call, AND(LE(0, creq), LT(creq, st[("n_reqs",)]),
                                 IMPLIES(LT(enc.sel(st, "q_client", creq), enc.sizes.clients),
                                         LT(creq, enc.params.max_requests)),
                                 EQ(enc.sel(st, "q_method", creq), M["tools/call"]),
                                 NOT(enc.sel(st, "q_retry", creq, True)), EQ(enc.sel(st, "q_run", creq), k),
                                 EQ(enc.sel(st, "q_server", creq), st[("r_server", k)]),
                                 EQ(enc.subject_of(enc.sel(st, "q_client", creq)), st[("r_owner", k)]),
                                 EQ(EQ(by, tasked), AND(enc.sel(st, "q_decl", creq, False),
                                                        enc.serves_tasks(st[("r_server", k)]))),
                                 EQ(st[("r_elicit", k)], enc.elicit_level(st[("r_owner", k)])))),
            IMPLIES(NOT(is_call), EQ(st[("r_elicit", k)], 2)))))
        others.append(AND(ex, NOT(is_call)))
    parts.append(LE(COUNT(*others), enc.params.max_runs))
    return AND(*parts)


@inv("rest-once", "at most one run was created over REST (model.rest._create_moves)")
def rest_once(enc, st):
    rest = BY.index("rest")
    return AND(*[NOT(AND(LT(b, st[("n_runs",)]), EQ(st[("r_by", a)], rest), EQ(st[("r_by", b)], rest)))
                 for a in _runs(enc) for b in _runs(enc) if a < b])


@inv("cascade-closed", "below a cancelling or cancelled run every descendant is terminal, cancelling or cancelled "
     "(acceptance cascades to all of them, and a run that is not running starts no child)")
def cascade_closed(enc, st):
    parts = []
    for x in _runs(enc):
        for y in _runs(enc):
            if y <= x:
                continue
            parts.append(IMPLIES(AND(LT(y, st[("n_runs",)]), descendant(enc, st, y, x),
                                     IN(st[("r_status", x)], CANCEL_ST)),
                                 IN(st[("r_status", y)], TERMINAL + CANCEL_ST)))
    return AND(*parts)


# ---- interrupts -------------------------------------------------------------------------------------------

@inv("interrupt-fields", "an interrupt belongs to an existing run; open means never resolved; a resolved one "
     "records one resolution, by an external event exactly for an external-event interrupt, otherwise by an "
     "eligible approver; an external-event interrupt is in form mode")
def interrupt_fields(enc, st):
    parts = []
    ext = KINDS.index("external-event")
    for j in _ints(enc):
        ex = LT(j, st[("n_ints",)])
        op = st[("i_open", j)]
        by, res, via, kind = st[("i_by", j)], st[("i_res", j)], st[("i_via", j)], st[("i_kind", j)]
        parts.append(IMPLIES(ex, AND(
            LE(0, st[("i_run", j)]), LT(st[("i_run", j)], st[("n_runs",)]), _rng(kind, 0, 2),
            IMPLIES(EQ(kind, ext), st[("i_form", j)]),
            IMPLIES(op, AND(EQ(st[("i_nres", j)], 0), EQ(by, -1), EQ(res, -1), EQ(via, -1))),
            IMPLIES(NOT(op), AND(EQ(st[("i_nres", j)], 1), _rng(res, 0, 3), _rng(via, 0, 3))),
            IMPLIES(AND(NOT(op), EQ(kind, ext)), AND(EQ(by, EXTERNAL), EQ(via, VIAS.index("external")),
                                                     EQ(res, 3))),
            IMPLIES(AND(NOT(op), NOT(EQ(kind, ext))), AND(_rng(by, 0, enc.sizes.subjects - 1),
                                                          NOT(EQ(via, VIAS.index("external"))), _rng(res, 0, 2),
                                                          enc.eligible(st, by, j))))))
    return AND(*parts)


def _wait_status(kind):
    return ITE3(kind)


def ITE3(kind):
    from verifier.engines.z3.encoding import ITE
    return ITE(EQ(kind, 0), ST["waiting-approval"], ITE(EQ(kind, 1), ST["waiting-input"], ST["waiting-external"]))


@inv("waiting-coherent", "a run waits exactly while it has an open interrupt, of the kind its status names; it has "
     "at most one open interrupt; an open interrupt's run waits on it, or is cancelling or cancelled")
def waiting_coherent(enc, st):
    parts = []
    for k in _runs(enc):
        ex = LT(k, st[("n_runs",)])
        opens = [AND(LT(j, st[("n_ints",)]), EQ(st[("i_run", j)], k), st[("i_open", j)]) for j in _ints(enc)]
        for a in range(len(opens)):
            for b in range(a + 1, len(opens)):
                parts.append(NOT(AND(opens[a], opens[b])))
        parts.append(IMPLIES(AND(ex, IN(st[("r_status", k)], WAITING)), OR(*opens)))
    for j in _ints(enc):
        k = st[("i_run", j)]
        status = enc.sel(st, "r_status", k)
        parts.append(IMPLIES(AND(LT(j, st[("n_ints",)]), st[("i_open", j)]),
                             OR(EQ(status, ITE3(st[("i_kind", j)])), IN(status, CANCEL_ST))))
    return AND(*parts)


# ---- requests ---------------------------------------------------------------------------------------------

@inv("request-fields", "every request's fields are in range and its references name existing slots")
def request_fields(enc, st):
    Z = enc.sizes
    parts = []
    for q in _reqs(enc):
        ex = LT(q, st[("n_reqs",)])
        parts.append(IMPLIES(ex, AND(
            _rng(st[("q_client", q)], 0, Z.clients + Z.hclients - 1), _rng(st[("q_server", q)], 0, Z.servers - 1),
            _rng(st[("q_tr", q)], 0, 1), _rng(st[("q_method", q)], 0, 7), _rng(st[("q_tool", q)], 0, 2),
            _rng(st[("q_ref_run", q)], -1, st[("n_runs",)] - 1), _rng(st[("q_ref_form", q)], 0, 1),
            _rng(st[("q_key", q)], -1, st[("n_ints",)] - 1), _rng(st[("q_ans", q)], 0, 2),
            _rng(st[("q_phase", q)], 0, 5), _rng(st[("q_resp", q)], 0, len(RESP) - 1),
            _rng(st[("q_rstat", q)], -1, 4), _rng(st[("q_run", q)], -1, st[("n_runs",)] - 1),
            _rng(st[("q_owns", q)], -1, st[("n_runs",)] - 1), _rng(st[("q_prev", q)], -1, q - 1),
            _rng(st[("q_rs_int", q)], -1, st[("n_ints",)] - 1))))
    return AND(*parts)


@inv("task-results-flat", "a result typed \"task\" carrying more than a CreateTaskResult's fields answered only a "
     "tasks/get that was answered")
def task_results_flat(enc, st):
    answered = (PH["sent"], PH["delivered"], PH["lost"])
    return AND(*[IMPLIES(NOT(st[("q_flat", q)]), AND(LT(q, st[("n_reqs",)]), EQ(st[("q_method", q)], M["tasks/get"]),
                                                     IN(st[("q_phase", q)], answered)))
                 for q in _reqs(enc)])


@inv("approvers-recorded", "no interrupt's approvers grew after it was requested")
def approvers_recorded(enc, st):
    return approvers_as_recorded(enc, st)


@inv("notifications-current", "every listener's last notifications/tasks is what tasks/get returns now")
def notifications_fresh(enc, st):
    return notifications_current(enc, st)


@inv("forks-verbatim", "no fork re-prompted or re-resolved an interrupt its source recorded")
def forks_verbatim(enc, st):
    return forks_reissue_nothing(enc, st)


@inv("cancelled-listens", "the host's notifications/cancelled named only listens")
def cancelled_listens(enc, st):
    return only_listens_host_cancelled(enc, st)


@inv("request-life", "open requests are tools/call or listen and have no response; a listen is never left "
     "received; sent, delivered and lost requests have one, cancelled ones none; only tools/call and tasks/* "
     "travel on stdio; a stdio cancel was sent only on stdio; a closed connection delivered its response")
def request_life(enc, st):
    parts = []
    for q in _reqs(enc):
        ex = LT(q, st[("n_reqs",)])
        ph, m, resp = st[("q_phase", q)], st[("q_method", q)], st[("q_resp", q)]
        parts.append(IMPLIES(ex, AND(
            IMPLIES(IN(ph, OPEN), AND(IN(m, (M["tools/call"], M["subscriptions/listen"])), EQ(resp, RESP["none"]))),
            IMPLIES(EQ(m, M["subscriptions/listen"]), AND(NOT(EQ(ph, PH["received"])), EQ(st[("q_tr", q)], 0))),
            IMPLIES(IN(ph, ANSWERED), NOT(EQ(resp, RESP["none"]))),
            IMPLIES(EQ(ph, PH["cancelled"]), EQ(resp, RESP["none"])),
            IMPLIES(EQ(st[("q_tr", q)], 1), IN(m, (M["tools/call"], M["tasks/get"], M["tasks/update"], M["tasks/cancel"]))),
            IMPLIES(st[("q_csent", q)], EQ(st[("q_tr", q)], 1)),
            IMPLIES(st[("q_closed", q)], AND(EQ(ph, PH["delivered"]), EQ(st[("q_tr", q)], 0))),
            IMPLIES(IN(m, (M["tasks/get"], M["tasks/update"], M["tasks/cancel"], M["server/discover"],
                           M["tasks/list"], M["tasks/result"])), IN(ph, ANSWERED)),
            IMPLIES(NOT(EQ(m, M["tools/call"])), AND(NOT(st[("q_retry", q)]), EQ(st[("q_owns", q)], -1),
                                                    EQ(st[("q_rs_int", q)], -1))),
            IMPLIES(NOT(IN(m, (M["tasks/get"], M["tasks/update"], M["tasks/cancel"]))),
                    AND(EQ(st[("q_ref_run", q)], -1), EQ(st[("q_ref_form", q)], 0))))))
    return AND(*parts)


@inv("calls", "an open tools/call has its run (a retry only once verified); a call's run has the caller's "
     "Subject as owner and the call's server; a first call names the run that names it back; a retry answers "
     "an earlier InputRequiredResult on the same run whose requestState it used; a CreateTaskResult went to a "
     "declaring call on a serving host")
def calls(enc, st):
    parts = []
    for q in _reqs(enc):
        ex = LT(q, st[("n_reqs",)])
        m, ph, k = st[("q_method", q)], st[("q_phase", q)], st[("q_run", q)]
        retry, prev = st[("q_retry", q)], st[("q_prev", q)]
        call = AND(ex, EQ(m, M["tools/call"]))
        parts.append(IMPLIES(AND(call, IN(ph, OPEN)), AND(NOT(EQ(k, -1)), IMPLIES(retry, st[("q_rvalid", q)]))))
        parts.append(IMPLIES(AND(call, NOT(EQ(k, -1))), AND(
            EQ(enc.sel(st, "r_owner", k), enc.subject_of(st[("q_client", q)])),
            EQ(enc.sel(st, "r_server", k), st[("q_server", q)]),
            IMPLIES(NOT(retry), EQ(enc.sel(st, "r_creq", k), q)),
            IMPLIES(retry, st[("q_rvalid", q)]))))
        parts.append(IMPLIES(AND(call, EQ(k, -1)), AND(NOT(IN(ph, OPEN)), NOT(st[("q_rvalid", q)]))))
        parts.append(IMPLIES(AND(call, retry), AND(LE(0, prev), LT(prev, q),
                                                  EQ(enc.sel(st, "q_resp", prev), RESP["input-required"]),
                                                  EQ(enc.sel(st, "q_server", prev), st[("q_server", q)]))))
        parts.append(IMPLIES(AND(call, st[("q_rvalid", q)]), AND(retry, EQ(k, enc.sel(st, "q_run", prev)),
                                                                enc.sel(st, "q_rs_used", prev, False))))
        parts.append(IMPLIES(AND(ex, NOT(retry)), EQ(prev, -1)))
        parts.append(IMPLIES(AND(ex, NOT(EQ(m, M["tools/call"]))), NOT(st[("q_rvalid", q)])))
        parts.append(IMPLIES(AND(ex, EQ(st[("q_resp", q)], RESP["create-task"])),
                             AND(EQ(m, M["tools/call"]), st[("q_decl", q)], enc.serves_tasks(st[("q_server", q)]),
                                 NOT(EQ(k, -1)))))
        parts.append(IMPLIES(AND(ex, IN(st[("q_resp", q)], (RESP["input-required"], RESP["call-ok"]))),
                             AND(EQ(m, M["tools/call"]), NOT(EQ(k, -1)))))
    return AND(*parts)


@inv("request-states", "a requestState is minted exactly with an InputRequiredResult, for an interrupt of the "
     "call's run that a client answers; a used one was used by a verified retry")
def request_states(enc, st):
    parts = []
    ext = KINDS.index("external-event")
    for q in _reqs(enc):
        ex = LT(q, st[("n_reqs",)])
        i = st[("q_rs_int", q)]
        parts.append(IMPLIES(ex, EQ(NOT(EQ(i, -1)), EQ(st[("q_resp", q)], RESP["input-required"]))))
        parts.append(IMPLIES(AND(ex, NOT(EQ(i, -1))), AND(EQ(enc.sel(st, "i_run", i), st[("q_run", q)]),
                                                         NOT(EQ(enc.sel(st, "i_kind", i), ext)))))
        parts.append(IMPLIES(AND(ex, EQ(i, -1)), NOT(st[("q_rs_used", q)])))
        users = [AND(LT(r, st[("n_reqs",)]), st[("q_rvalid", r)], EQ(st[("q_prev", r)], q)) for r in _reqs(enc) if r > q]
        parts.append(IMPLIES(AND(ex, st[("q_rs_used", q)]), OR(*users)))
        for a in range(len(users)):
            for b in range(a + 1, len(users)):
                parts.append(NOT(AND(users[a], users[b])))
    return AND(*parts)


def _active(enc, st, q, k):
    """q holds run k's turn: an open tools/call on it, or an unused requestState whose interrupt is open."""
    ex = LT(q, st[("n_reqs",)])
    i = st[("q_rs_int", q)]
    open_call = AND(EQ(st[("q_method", q)], M["tools/call"]), IN(st[("q_phase", q)], OPEN))
    token = AND(NOT(EQ(i, -1)), NOT(st[("q_rs_used", q)]), enc.sel(st, "i_open", i, False))
    return AND(ex, EQ(st[("q_run", q)], k), OR(open_call, token))


@inv("one-turn", "for each run at most one request holds its turn: an open tools/call on it, or an answered "
     "InputRequiredResult whose requestState is unused and whose interrupt is still open (so at most one request "
     "owns a run)")
def one_turn(enc, st):
    parts = []
    for k in _runs(enc):
        for a in _reqs(enc):
            for b in _reqs(enc):
                if a < b:
                    parts.append(NOT(AND(_active(enc, st, a, k), _active(enc, st, b, k))))
    return AND(*parts)


@inv("ownership-field", "a request owns exactly the run it started or continues while it is received or "
     "streaming (OWN-1's derived relation), and nothing otherwise")
def ownership_field(enc, st):
    from verifier.engines.z3.properties import started_run
    parts = []
    for q in _reqs(enc):
        ex = LT(q, st[("n_reqs",)])
        expected = z3_ite(AND(ex, IN(st[("q_phase", q)], OPEN)), started_run(enc, st, q), -1)
        parts.append(IMPLIES(ex, EQ(st[("q_owns", q)], expected)))
    return AND(*parts)


def z3_ite(c, a, b):
    from verifier.engines.z3.encoding import ITE
    return ITE(c, a, b)


@inv("listen-acks", "only listen requests acknowledge runs, and only existing ones")
def listen_acks(enc, st):
    parts = []
    for q in _reqs(enc):
        for k in _runs(enc):
            parts.append(IMPLIES(st[("q_acked", q, k)], AND(LT(q, st[("n_reqs",)]), LT(k, st[("n_runs",)]),
                                                           EQ(st[("q_method", q)], M["subscriptions/listen"]))))
    return AND(*parts)


# ---- the prover -------------------------------------------------------------------------------------------

def all_invariants(enc, st):
    return [(i.name, i.formula(enc, st)) for i in invariants_for(enc)]


def _z(x):
    return x if isinstance(x, z3.ExprRef) else z3.BoolVal(bool(x))


@dataclass
class InvariantReport:
    ok: bool                  # every invariant of INVARIANTS is proved
    seconds: float
    proved: list              # the names of the invariants proved (the largest inductive subset found)
    failures: list            # (invariant name, why it was dropped: a counterexample to induction, ...)


def check_invariants(enc: Encoding, deadline: float) -> InvariantReport:
    """Prove the strengthening invariants: each holds initially, and the conjunction of those kept
    is inductive. An invariant whose induction fails is dropped with its counterexample to
    induction, and the rest are checked again (Houdini), so a variant keeps those that still hold."""
    start = time.time()
    init = enc.initial()
    failures = []
    keep = []
    for i in invariants_for(enc):
        v = i.formula(enc, init)
        if v is True or (isinstance(v, z3.ExprRef) and z3.is_true(z3.simplify(v))):
            keep.append(i)
        else:
            failures.append((i.name, "it does not hold in the initial state"))
    path = Unrolling(enc, tag="i", initial=enc.symbolic_state("i0"))
    path.extend()
    s0, s1 = path.states
    pre = {i.name: _z(i.formula(enc, s0)) for i in keep}
    post = {i.name: _z(i.formula(enc, s1)) for i in keep}
    changed = True
    while keep and changed:
        changed = False
        for i in list(keep):
            left = deadline - time.time()
            if left <= 0:
                failures += [(x.name, TIME_CAP) for x in keep]
                keep = []
                break
            solver = make_solver(left)
            solver.add(*[pre[x.name] for x in keep])
            solver.add(*path.trans)
            solver.add(z3.Not(post[i.name]))
            res = solver.check()
            if res == z3.unsat:
                continue
            why = (describe_cti(enc, path, solver.model(), f"invariant {i.name}") if res == z3.sat
                   else f"unknown ({unknown_reason(solver, deadline)})")
            failures.append((i.name, why))
            keep.remove(i)
            changed = True
    return InvariantReport(not failures, time.time() - start, [i.name for i in keep], failures)


_CACHE: dict = {}


def _key(enc: Encoding):
    return (enc.params, repr(sorted(enc.flags.items(), key=str)), repr(enc.lifecycle_extra),
            repr(sorted(getattr(enc, "hflags", {}).items(), key=str)))


def invariants_proved(enc: Encoding, deadline: float) -> InvariantReport:
    """check_invariants, remembered per encoding; a report cut short by the deadline or an `unknown`
    is not remembered, so a later check with more time proves them."""
    key = _key(enc)
    if key in _CACHE:
        return _CACHE[key]
    rep = check_invariants(enc, deadline)
    if all(why != TIME_CAP and not why.startswith("unknown") for _, why in rep.failures):
        _CACHE[key] = rep
    return rep


def prove(enc: Encoding, ids: list[str], deadline: float, variant: str = "baseline", kmax: int | None = None) -> dict:
    """k-induction (k = 1..kmax) for each id, assuming the strengthening invariants proved for this
    encoding; the base case (no violation within k steps of the initial state) is checked here too.
    kmax defaults to 2 on the host encoding and 1 on the composed one, whose 2-step query is costly and
    whose invariants make every baseline id 1-inductive."""
    if kmax is None:
        kmax = 1 if enc.sizes.hclients else 2
    out = {}
    rep = invariants_proved(enc, deadline)
    kept = [i for i in invariants_for(enc) if i.name in rep.proved]
    dropped = [n for n, _ in rep.failures]
    note = (f"{len(kept)} proved strengthening invariants"
            + (f" (not inductive here, so not assumed: {', '.join(dropped)})" if dropped else ""))
    paths: dict[int, Unrolling] = {}
    hyps: dict[int, list] = {}
    base = Unrolling(enc, tag="kb")
    for rid in ids:
        t0 = time.time()
        zp = PROPS[rid]
        if zp.composed != bool(enc.sizes.hclients):
            raise ValueError(f"{rid} is judged on {'a composed' if zp.composed else 'the host'} encoding")
        verdict, cti = None, ""
        for k in range(1, kmax + 1):
            left = deadline - time.time()
            if left <= 0:
                cti = TIME_CAP
                break
            while base.depth < k:
                base.extend()
            solver = make_solver(left)
            solver.add(*base.trans)
            solver.add(z3.Or([z3.Not(_z(base.holds_at(zp, i))) for i in range(1, k + 1)]))
            res = solver.check()
            if res != z3.unsat:
                cti = ("the base case fails (a counterexample within k steps; BMC reports it)" if res == z3.sat
                       else f"base case unknown ({unknown_reason(solver, deadline)})")
                break
            if k not in paths:
                path = Unrolling(enc, tag=f"k{k}_", initial=enc.symbolic_state(f"k{k}_0"))
                for _ in range(k):
                    path.extend()
                paths[k] = path
                hyps[k] = [_z(i.formula(enc, st)) for st in path.states[:-1] for i in kept]
            path = paths[k]
            solver = make_solver(deadline - time.time())
            solver.add(*hyps[k])
            solver.add(*path.trans)
            for i in range(1, k):
                solver.add(_z(path.holds_at(zp, i)))
            solver.add(z3.Not(_z(path.holds_at(zp, k))))
            res = solver.check()
            if res == z3.unsat:
                verdict = Z3Verdict((rid,), "proved", k, k, time.time() - t0, variant=variant,
                                    message=f"k-induction with k={k} over {note} (invariants proved in "
                                            f"{rep.seconds:.1f}s)")
                break
            if res == z3.unknown:
                cti = f"unknown ({unknown_reason(solver, deadline)})"
                break
            cti = describe_cti(enc, path, solver.model(), rid)
        out[rid] = verdict or Z3Verdict((rid,), "undetermined", None, None, time.time() - t0, variant=variant,
                                        message=f"not proved by k-induction up to k={kmax} over {note}: {cti}")
    return out


# ---- readable counterexamples to induction -----------------------------------------------------------

def describe_state(enc: Encoding, st: dict) -> list[str]:
    from model.lifecycle import REQUEST_PHASES, RUN_STATUSES
    from verifier.engines.z3.encoding import METHODS, REASONS, RESP_KINDS, TASK_STATUSES
    P = enc.params
    subj = [s.name for s in P.subjects]
    servers = [s for s, _ in P.servers]
    lines = [f"clock={st[('clock',)]} effects={st[('effects',)]}"]

    def name(table, i):
        return table[i] if isinstance(i, int) and 0 <= i < len(table) else f"#{i}"
    for k in range(min(max(st[("n_runs",)], 0), enc.sizes.runs)):
        lines.append(
            f"run{k + 1}: {name(RUN_STATUSES, st[('r_status', k)])}, owner {name(subj, st[('r_owner', k)])}, "
            f"on {name(servers, st[('r_server', k)])}, started by {name(BY, st[('r_by', k)])}"
            + (f", parent run{st[('r_parent', k)] + 1}" if st[("r_parent", k)] >= 0 else "")
            + (f", request r{st[('r_creq', k)] + 1}" if st[("r_creq", k)] >= 0 else "")
            + (f", cancel reason {REASONS[st[('r_reason', k)]]}" if 0 < st[("r_reason", k)] < len(REASONS) else "")
            + (", purged" if st[("r_purged", k)] else "") + ("" if st[("r_durable", k)] else ", not durable")
            + f", log {st[('r_log', k)]}")
    for j in range(min(max(st[("n_ints",)], 0), enc.sizes.interrupts)):
        lines.append(f"i{j + 1}: {name(KINDS, st[('i_kind', j)])} of run{st[('i_run', j)] + 1}, "
                     f"{'open' if st[('i_open', j)] else 'resolved'} ({st[('i_nres', j)]} resolution(s))")
    for q in range(min(max(st[("n_reqs",)], 0), enc.sizes.requests)):
        lines.append(
            f"r{q + 1}: {name(METHODS, st[('q_method', q)])} from {name(P.clients, st[('q_client', q)])}"
            f"{' (retry of r' + str(st[('q_prev', q)] + 1) + ')' if st[('q_retry', q)] else ''}"
            f" {'declaring' if st[('q_decl', q)] else 'not declaring'}, {name(REQUEST_PHASES, st[('q_phase', q)])}, "
            f"response {name(RESP_KINDS, st[('q_resp', q)])}"
            + (f" ({name(TASK_STATUSES, st[('q_rstat', q)])})" if st[("q_rstat", q)] >= 0 else "")
            + (f", run run{st[('q_run', q)] + 1}" if st[("q_run", q)] >= 0 else "")
            + (f", owns run{st[('q_owns', q)] + 1}" if st[("q_owns", q)] >= 0 else ""))
    return lines


def describe_cti(enc: Encoding, path: Unrolling, model, what: str) -> str:
    """A counterexample to induction as the last two states and the action between them."""
    def val(v):
        return value_of(model.eval(v, model_completion=True)) if isinstance(v, z3.ExprRef) else v
    states = [{k: val(v) for k, v in st.items()} for st in path.states]
    a = val(path.acts[-1])
    A = {f: val(getattr(path.args[-1], f)) for f in Args.__dataclass_fields__}
    from verifier.engines.z3.encoding import ACTION_ARG_FIELDS
    name = enc.actions[a] if 0 <= a < len(enc.actions) else f"#{a}"
    shown = ", ".join(f"{f}={A[f]}" for f in ACTION_ARG_FIELDS.get(name, ()))
    pre, post = states[-2], states[-1]
    changed = [k for k in pre if pre[k] != post[k]]
    return ("counterexample to induction for " + what + ":\n  before:\n    " + "\n    ".join(describe_state(enc, pre))
            + f"\n  action: {name}({shown})\n  after:\n    " + "\n    ".join(describe_state(enc, post))
            + "\n  changed: " + ", ".join(f"{k}: {pre[k]} -> {post[k]}" for k in changed))
from verifier.engines.z3 import harness_invariants
