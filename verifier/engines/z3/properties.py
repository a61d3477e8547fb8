"""The safety properties as formulas over one step of the encoding, by requirement id.

Each formula `f(enc, s, act, A, t)` says that the step from encoded state `s` by action index `act`
with arguments `A` to state `t` keeps the requirement; a state invariant reads `t` only. Like the
encoding, every formula is plain Python over either value domain: Z3 terms for BMC and induction,
concrete values for the cross-check against the catalogue.

Each formula is written from the catalogue's check of the same id (`properties/*.py`) and covers the
part of it that the abstraction can see (`COVERAGE` says which part). A violation of the formula is
meant to be a violation of the catalogue's property: BMC replays every counterexample in the
executable model and runs the catalogue to confirm it. Ids that the abstraction cannot see (message
content, the id grammar, notifications) are listed in `NOT_ENCODED` with the reason; Z3 never
reports a verdict other than `undetermined` for them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from verifier.engines.z3.encoding import (ADD, AND, EQ, ERRORS, EXTERNAL, IMPLIES, IN, ITE, KINDS, LE, LT, M,
    NOT, OPEN, OR, PH, RESP, ST, TERMINAL, TS, VIAS, WAITING)

ANSWERED = (PH["sent"], PH["delivered"], PH["lost"])
CANCEL_ST = (ST["cancelling"], ST["cancelled"])
TASKS = (M["tasks/get"], M["tasks/update"], M["tasks/cancel"])
TASK_VIEWS = (RESP["get"], RESP["create-task"])     # a tasks/get result, whatever its resultType


def found_task(enc, s, t, j, r):
    """q_j was answered r's task, or refused -32021 because r asks for input its caller cannot receive
    (PRJ-4): either way the task was found."""
    asks = EQ(enc.project(enc.sel(s, "r_status", r)), TS["input_required"])
    return OR(IN(t[("q_resp", j)], TASK_VIEWS), AND(asks, EQ(t[("q_resp", j)], RESP["missing-capability"])))
RESULTS = (RESP["create-task"], RESP["call-ok"], RESP["call-error"], RESP["input-required"], RESP["ack"], RESP["get"],
           RESP["discover"])


@dataclass(frozen=True)
class ZProp:
    id: str
    kind: str              # "invariant" (reads t) or "step" (reads s, act, A, t)
    formula: Callable
    covers: str            # what of the catalogue's property the formula states
    composed: bool = False  # read the client harness: judged on a composed encoding (verifier.engines.z3.harness)


PROPS: dict[str, ZProp] = {}


def zprop(rid: str, kind: str, covers: str, composed: bool = False):
    def register(f):
        PROPS[rid] = ZProp(rid, kind, f, covers, composed)
        return f
    return register


def props_for(enc) -> dict[str, ZProp]:
    """The formulas an encoding judges: the harness's on a composed one, the host's otherwise."""
    composed = bool(enc.sizes.hclients)
    return {rid: zp for rid, zp in PROPS.items() if zp.composed == composed}


# ---- helpers over encoded states ------------------------------------------------------------------------

def is_act(enc, act, name):
    return EQ(act, enc.index[name])


def new_req(enc, s, t, j):
    """Request slot j was created by this step."""
    return AND(EQ(s[("n_reqs",)], j), EQ(t[("n_reqs",)], j + 1))


def emitted(enc, s, t, q):
    """The host sent q's whole response at this step."""
    return AND(LT(q, t[("n_reqs",)]), OR(new_req(enc, s, t, q), AND(LT(q, s[("n_reqs",)]), IN(s[("q_phase", q)], OPEN))),
               EQ(t[("q_phase", q)], PH["sent"]))


def no_change(enc, s, t):
    """No run was created, no run's status changed and no event was appended (step_changes is None)."""
    parts = [EQ(s[("n_runs",)], t[("n_runs",)])]
    for k in range(enc.sizes.runs):
        parts.append(EQ(s[("r_status", k)], t[("r_status", k)]))
        parts.append(EQ(s[("r_log", k)], t[("r_log", k)]))
    return AND(*parts)


def run_unchanged(enc, s, t, k):
    return AND(EQ(enc.sel(s, "r_status", k), enc.sel(t, "r_status", k)), EQ(enc.sel(s, "r_log", k), enc.sel(t, "r_log", k)))


def subject(enc, st, q):
    return enc.subject_of(st[("q_client", q)])


def can_get_run(enc, st, subj, k, server):
    """properties.creation.can_get_run: same server, tenant, runs:read, durable, not purged."""
    return AND(LE(0, k), LT(k, st[("n_runs",)]), EQ(enc.sel(st, "r_server", k), server),
               enc.sel(st, "r_durable", k, False), NOT(enc.sel(st, "r_purged", k, True)),
               EQ(enc.tenant(subj), enc.run_tenant(st, k)), enc._tab(enc.scope_read, subj))


def advertised(enc, server):
    """properties.creation.advertised: the server/discover answer lists the extension."""
    return enc.serves_tasks(server)


def params_serves(enc, server):
    return enc._tab(enc.params_serves, server)


def served_task_request(enc, st, q):
    """properties.update.served_task_request (Params' serving flag, declaration, matching Mcp-Name)."""
    return AND(st[("q_decl", q)], params_serves(enc, st[("q_server", q)]), st[("q_hdr", q)])


def descendant(enc, st, x, r, depth=None):
    """Run slot x (concrete) is a descendant of run r (cancelRun's cascade)."""
    out = False
    for p in range(x):
        link = EQ(st[("r_parent", x)], p)
        out = OR(out, AND(link, OR(EQ(r, p), descendant(enc, st, p, r))))
    return out


def started_run(enc, st, q):
    """The run q started or continues (properties.ownership.started_run), -1 if none."""
    ok = AND(EQ(st[("q_method", q)], M["tools/call"]), OR(NOT(st[("q_retry", q)]), st[("q_rvalid", q)]))
    return ITE(ok, st[("q_run", q)], -1)


def named(enc, st, j):
    """properties.creation.named_run of request j's reference: the run a grammatical runId names (its
    projected or %2F form), -1 for anything else. The reference's run slot is the run whose taskId the
    client sent, which is that run's projected runId only when the host's taskIds are (ID-1)."""
    return st[("q_ref_run", j)] if enc.ids_projected() else -1


def eligible_i(enc, st, subj, i):
    return enc.eligible(st, subj, i)


def approvers_as_recorded(enc, st):
    """No interrupt gained an approver after its log recorded them (SEC-2; a strengthening invariant)."""
    return AND(*[NOT(st[("i_grant", j, x)]) for j in range(enc.sizes.interrupts) for x in range(enc.sizes.subjects)])


def notifications_current(enc, st):
    """No listener's last notifications/tasks is stale (NTF-3; a strengthening invariant)."""
    return AND(*[NOT(st[("q_stale", j, k)]) for j in range(enc.sizes.requests) for k in range(enc.sizes.runs)])


def forks_reissue_nothing(enc, st):
    """No fork re-prompted or re-resolved a recorded interrupt (RPL-1; a strengthening invariant)."""
    return AND(*[NOT(st[("r_rpt", k)]) for k in range(enc.sizes.runs)])


def only_listens_host_cancelled(enc, st):
    """The host's notifications/cancelled named listens only (NTF-1; a strengthening invariant)."""
    return AND(*[IMPLIES(st[("q_hcan", q)], EQ(st[("q_method", q)], M["subscriptions/listen"]))
                 for q in range(enc.sizes.requests)])


def cancelled_here(enc, s, t, q):
    """q was cancelled at this step through network.cancel_request (what step.cancelled records)."""
    return AND(LT(q, s[("n_reqs",)]), IN(s[("q_phase", q)], OPEN), EQ(t[("q_phase", q)], PH["cancelled"]),
               NOT(EQ(s[("q_method", q)], M["subscriptions/listen"])))


def resolved_here(enc, s, t, j):
    return AND(LT(j, t[("n_ints",)]), LT(s[("i_nres", j)], t[("i_nres", j)]))


# ---- §G ownership ------------------------------------------------------------------------------------------

@zprop("OWN-1", "invariant", "full, for the encoded requests: the ownership field equals the derived owner "
       "(the creating tools/call or the verified retry while received or streaming), and no run has two owners")
def own1(enc, s, act, A, t):
    parts = []
    Q = enc.sizes.requests
    owners = []
    for q in range(Q):
        exists = LT(q, t[("n_reqs",)])
        expected = ITE(AND(exists, IN(t[("q_phase", q)], OPEN)), started_run(enc, t, q), -1)
        parts.append(IMPLIES(exists, EQ(t[("q_owns", q)], expected)))
        owners.append(ITE(exists, expected, -1))
    for a in range(Q):
        for b in range(a + 1, Q):
            parts.append(NOT(AND(EQ(owners[a], owners[b]), NOT(EQ(owners[a], -1)))))
    return AND(*parts)


@zprop("OWN-2", "step", "the step part and the run's later steps: when the owner of a non-terminal run is "
       "cancelled, the same step accepts the run's cancel with reason mcp-request-cancelled (unless already "
       "cancelling) and cascades; afterwards a run cancelled with that reason never completes or fails (its "
       "status stays cancelling or cancelled, so it starts no node, effect or child either); not encoded: the "
       "reason of its final run.cancelled, and the later steps of descendants and of runs already cancelling when "
       "their owner left")
def own2(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        r = started_run(enc, s, q)
        pre = enc.sel(s, "r_status", r)
        cond = AND(cancelled_here(enc, s, t, q), NOT(EQ(r, -1)), NOT(IN(pre, TERMINAL)))
        post = enc.sel(t, "r_status", r)
        ok = AND(IN(post, CANCEL_ST),
                 IMPLIES(NOT(EQ(pre, ST["cancelling"])),
                         AND(EQ(post, ST["cancelling"]), EQ(enc.sel(t, "r_reason", r), 1))))
        for x in range(enc.sizes.runs):
            px = s[("r_status", x)]
            ok = AND(ok, IMPLIES(AND(LT(x, s[("n_runs",)]), descendant(enc, t, x, r), NOT(IN(px, TERMINAL)),
                                     NOT(EQ(px, ST["cancelling"]))), IN(t[("r_status", x)], CANCEL_ST)))
        parts.append(IMPLIES(cond, ok))
    for x in range(enc.sizes.runs):
        later = AND(LT(x, s[("n_runs",)]), EQ(s[("r_reason", x)], 1), IN(s[("r_status", x)], CANCEL_ST))
        parts.append(IMPLIES(later, NOT(IN(t[("r_status", x)], (ST["completed"], ST["failed"], ST["running"],
                                                                 ST["pending"])))))
    return AND(*parts)


def _answered_targets(enc, s, act, A):
    """The request slot this disconnect or stdio cancel acts on, when its response was already sent."""
    return AND(OR(is_act(enc, act, "disconnect"), is_act(enc, act, "stdio_cancel")),
               IN(enc.sel(s, "q_phase", A.req), ANSWERED))


@zprop("OWN-3", "step", "full for the encoded causes: once a request's whole response was sent, disconnecting or "
       "cancelling it changes no run; and every cancel accepted at a step has an allowed cause there: tasks/cancel "
       "naming the run, REST cancelRun on it, the cascade of its nearest unfinished ancestor (accepting now or "
       "already cancelling), or the cancellation of a request that owned it; not encoded: stdio EOF of answered "
       "requests")
def own3(enc, s, act, A, t):
    parts = [IMPLIES(_answered_targets(enc, s, act, A), no_change(enc, s, t))]
    R = enc.sizes.runs
    accepted = [AND(LT(x, s[("n_runs",)]), NOT(IN(s[("r_status", x)], TERMINAL + CANCEL_ST)),
                    EQ(t[("r_status", x)], ST["cancelling"])) for x in range(R)]
    # the cascade from the nearest ancestor not finished, through finished children (which runs.md allows
    # to be asynchronous: an ancestor already cancelling explains it too)
    via_parent = []
    for x in range(R):
        here = False
        for p in range(x):
            st = t[("r_status", p)]
            explains = OR(accepted[p], IN(st, CANCEL_ST),
                          AND(IN(st, (ST["completed"], ST["failed"])), via_parent[p]))
            here = OR(here, AND(EQ(s[("r_parent", x)], p), explains))
        via_parent.append(here)
    for x in range(R):
        rest = AND(is_act(enc, act, "rest_cancel"), EQ(A.run, x))
        tasks = OR(*[AND(new_req(enc, s, t, j), EQ(t[("q_method", j)], M["tasks/cancel"]), EQ(t[("q_ref_run", j)], x))
                     for j in range(enc.sizes.requests)])
        parent = via_parent[x]
        owner = OR(*[AND(cancelled_here(enc, s, t, q), EQ(started_run(enc, s, q), x)) for q in range(enc.sizes.requests)])
        parts.append(IMPLIES(accepted[x], OR(rest, tasks, parent, owner)))
    return AND(*parts)


@zprop("OWN-4", "step", "full: a step that cancels requests cancels only runs they owned and those runs' "
       "cascades")
def own4(enc, s, act, A, t):
    R, Q = enc.sizes.runs, enc.sizes.requests
    parts = []
    for x in range(R):
        hit = AND(LT(x, s[("n_runs",)]), NOT(IN(s[("r_status", x)], CANCEL_ST)), IN(t[("r_status", x)], CANCEL_ST))
        allowed = False
        any_cancelled = False
        for q in range(Q):
            c = cancelled_here(enc, s, t, q)
            any_cancelled = OR(any_cancelled, c)
            r = started_run(enc, s, q)
            allowed = OR(allowed, AND(c, NOT(EQ(r, -1)), OR(EQ(r, x), descendant(enc, t, x, r))))
        parts.append(IMPLIES(AND(any_cancelled, hit), allowed))
    return AND(*parts)


# ---- §E interrupts ------------------------------------------------------------------------------------------

@zprop("UPD-1", "invariant", "full: at most one (own, not replayed) interrupt.resolved per interrupt")
def upd1(enc, s, act, A, t):
    return AND(*[IMPLIES(LT(j, t[("n_ints",)]), LE(t[("i_nres", j)], 1)) for j in range(enc.sizes.interrupts)])


@zprop("UPD-2", "step", "full for the encoded answers: a resolution at this step answers an interrupt that "
       "was open on a waiting run, an external event only an external-event interrupt, and a client only as "
       "an eligible approver")
def upd2(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.interrupts):
        k = s[("i_run", j)]
        by = t[("i_by", j)]
        kind = t[("i_kind", j)]
        ok = AND(s[("i_open", j)], IN(enc.sel(s, "r_status", k), WAITING),
                 IMPLIES(EQ(by, EXTERNAL), EQ(kind, KINDS.index("external-event"))),
                 IMPLIES(NOT(EQ(by, EXTERNAL)), AND(NOT(EQ(kind, KINDS.index("external-event"))),
                                                    eligible_i(enc, s, by, j))))
        parts.append(IMPLIES(resolved_here(enc, s, t, j), ok))
    return AND(*parts)


@zprop("UPD-3", "step", "full: a declaring tasks/update (matching Mcp-Name) on a task its caller can read is "
       "answered with the empty result (or -32602 for an ineligible caller where P-APPROVER / P-UNAUTHORIZED "
       "say so)")
def upd3(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        cond = AND(new_req(enc, s, t, j), EQ(t[("q_method", j)], M["tasks/update"]), served_task_request(enc, t, j),
                   can_get_run(enc, s, subject(enc, t, j), named(enc, t, j), t[("q_server", j)]))
        key = t[("q_key", j)]
        ineligible = AND(NOT(EQ(key, -1)), NOT(EQ(enc.sel(s, "i_kind", key), KINDS.index("external-event"))),
                         NOT(eligible_i(enc, s, subject(enc, t, j), key)))
        may_refuse = "error" in (enc.params.p_approver, enc.params.p_unauthorized)
        ok = OR(EQ(t[("q_resp", j)], RESP["ack"]), AND(ineligible, may_refuse, EQ(t[("q_resp", j)], RESP["not-found"])))
        parts.append(IMPLIES(cond, ok))
    return AND(*parts)


@zprop("UPD-4", "step", "full: a client's resolution records the answer given, never cancels the run, and "
       "resumes it when no interrupt is left open")
def upd4(enc, s, act, A, t):
    parts = []
    client = OR(is_act(enc, act, "tasks_update"), is_act(enc, act, "mrtr_retry"), is_act(enc, act, "rest_resolve"))
    for j in range(enc.sizes.interrupts):
        k = t[("i_run", j)]
        via = t[("i_via", j)]
        st = enc.sel(t, "r_status", k)
        still_open = OR(*[AND(LT(i, t[("n_ints",)]), EQ(t[("i_run", i)], k), t[("i_open", i)])
                          for i in range(enc.sizes.interrupts)])
        ok = AND(IMPLIES(client, EQ(t[("i_res", j)], A.resp)), NOT(IN(st, CANCEL_ST)),
                 IMPLIES(IN(st, WAITING), still_open))
        parts.append(IMPLIES(AND(resolved_here(enc, s, t, j), IN(via, (0, 1, 2))), ok))
    return AND(*parts)


# ---- §F reads, cancel, TTL ------------------------------------------------------------------------------------

@zprop("GET-1", "step", "full: the tasks/get step appends no event and changes no run status")
def get1(enc, s, act, A, t):
    return IMPLIES(is_act(enc, act, "tasks_get"), no_change(enc, s, t))


@zprop("CNL-1", "step", "full: an authorized declaring tasks/cancel on a readable task is acknowledged; a "
       "non-terminal run is cancelling (with the cascade), a terminal one unchanged")
def cnl1(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        subj = subject(enc, t, j)
        r = named(enc, t, j)
        cond = AND(new_req(enc, s, t, j), EQ(t[("q_method", j)], M["tasks/cancel"]), served_task_request(enc, t, j),
                   can_get_run(enc, s, subj, r, t[("q_server", j)]), enc._tab(enc.scope_cancel, subj))
        pre = enc.sel(s, "r_status", r)
        post = enc.sel(t, "r_status", r)
        ok = AND(EQ(t[("q_resp", j)], RESP["ack"]),
                 IMPLIES(IN(pre, TERMINAL), run_unchanged(enc, s, t, r)),
                 IMPLIES(NOT(IN(pre, TERMINAL)), IN(post, CANCEL_ST)))
        for x in range(enc.sizes.runs):
            px = s[("r_status", x)]
            ok = AND(ok, IMPLIES(AND(NOT(IN(pre, TERMINAL)), LT(x, s[("n_runs",)]), descendant(enc, t, x, r),
                                     NOT(IN(px, TERMINAL)), NOT(EQ(px, ST["cancelling"]))),
                                 IN(t[("r_status", x)], CANCEL_ST)))
        parts.append(IMPLIES(cond, ok))
    return AND(*parts)


@zprop("CNL-2", "step", "full: a run whose cancel was accepted reads only cancelling or cancelled, and reaches "
       "cancelled only from cancelling")
def cnl2(enc, s, act, A, t):
    parts = []
    for k in range(enc.sizes.runs):
        parts.append(IMPLIES(AND(LT(k, t[("n_runs",)]), NOT(EQ(t[("r_reason", k)], 0))),
                             IN(t[("r_status", k)], CANCEL_ST)))
        parts.append(IMPLIES(AND(LT(k, s[("n_runs",)]), EQ(t[("r_status", k)], ST["cancelled"])),
                             IN(s[("r_status", k)], CANCEL_ST)))
    return AND(*parts)


@zprop("TTL-2", "step", "the clock part: the passing of time fails, cancels or logs nothing on any run "
       "(the catalogue's other clause, a failure naming the TTL at another step, has no such step here)")
def ttl2(enc, s, act, A, t):
    return IMPLIES(is_act(enc, act, "clock_tick"), no_change(enc, s, t))


@zprop("TTL-3", "step", "full for the answer kinds: a declaring tasks/get by a caller entitled to read the run "
       "resolves before purge and gets the not-found answer after purge")
def ttl3(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        subj = subject(enc, t, j)
        r = named(enc, t, j)
        entitled = AND(LE(0, r), LT(r, s[("n_runs",)]), EQ(enc.sel(s, "r_server", r), t[("q_server", j)]),
                       enc.sel(s, "r_durable", r, False), EQ(enc.tenant(subj), enc.run_tenant(s, r)),
                       enc._tab(enc.scope_read, subj))
        cond = AND(new_req(enc, s, t, j), EQ(t[("q_method", j)], M["tasks/get"]), served_task_request(enc, t, j),
                   entitled)
        purged = enc.sel(t, "r_purged", r, True)
        ok = ITE(purged, EQ(t[("q_resp", j)], RESP["not-found"]), found_task(enc, s, t, j, r))
        parts.append(IMPLIES(cond, ok))
    return AND(*parts)


@zprop("TTL-1", "step", "the emission part: a CreateTaskResult or tasks/get result whose ttlMs is not null "
       "expires no earlier than the run's purge time (exact once terminal, else the earliest it can be under "
       "P-RETENTION); not encoded: notifications/tasks, and the re-check of an earlier emission when the run "
       "finishes later")
def ttl1(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        k = t[("q_run", q)]
        ttl = t[("q_ttl", q)]
        created = enc.sel(t, "r_created", k, 0)
        term = enc.sel(t, "r_terminal", k, -1)
        # not terminal yet: the earliest purge is the one it would have were it terminal now
        purge = enc.purge_time(t, k, ITE(EQ(term, -1), t[("clock",)], term))
        cond = AND(emitted(enc, s, t, q), IN(t[("q_resp", q)], TASK_VIEWS), NOT(EQ(k, -1)), NOT(EQ(ttl, -1)))
        parts.append(IMPLIES(cond, LE(purge, ADD(created, ttl))))
    return AND(*parts)


# ---- negotiation, creation ------------------------------------------------------------------------------------

@zprop("NEG-1", "step", "full: no CreateTaskResult answers a request that did not declare the extension")
def neg1(enc, s, act, A, t):
    return AND(*[IMPLIES(AND(emitted(enc, s, t, q), EQ(t[("q_resp", q)], RESP["create-task"])), t[("q_decl", q)])
                 for q in range(enc.sizes.requests)])


@zprop("NEG-2", "step", "full for the answer kinds: an undeclared tasks/* is answered -32021 (or -32020 with a "
       "mismatched Mcp-Name) and changes nothing")
def neg2(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        cond = AND(new_req(enc, s, t, j), IN(t[("q_method", j)], TASKS), NOT(t[("q_decl", j)]),
                   advertised(enc, t[("q_server", j)]))          # a plain mount is NEG-4's
        ok = AND(OR(EQ(t[("q_resp", j)], RESP["missing-capability"]),
                    AND(EQ(t[("q_resp", j)], RESP["header-mismatch"]), NOT(t[("q_hdr", j)]))), no_change(enc, s, t))
        parts.append(IMPLIES(cond, ok))
    return AND(*parts)


@zprop("NEG-4", "step", "full for the answer kinds: a tasks/* to a mount that does not advertise the extension is "
       "answered -32601 and changes nothing")
def neg4(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        cond = AND(new_req(enc, s, t, j), IN(t[("q_method", j)], TASKS), NOT(advertised(enc, t[("q_server", j)])))
        parts.append(IMPLIES(cond, AND(EQ(t[("q_resp", j)], RESP["method-not-found"]), no_change(enc, s, t))))
    return AND(*parts)


@zprop("NEG-3", "step", "the answer part: an undeclared listen asking for task ids is answered -32021 and never "
       "acknowledged; not encoded: notifications on such a stream (none are sent without an acknowledgement)")
def neg3(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        server = t[("q_server", j)]
        refs = enc.listen_refs(s, server)
        cond = AND(new_req(enc, s, t, j), EQ(t[("q_method", j)], M["subscriptions/listen"]), NOT(t[("q_decl", j)]), refs)
        parts.append(IMPLIES(cond, AND(EQ(t[("q_resp", j)], RESP["missing-capability"]),
                                       EQ(t[("q_phase", j)], PH["sent"]))))
    return AND(*parts)


@zprop("CRT-1", "step", "full: on a serving host a declaring tools/call whose run is not terminal when answered "
       "gets CreateTaskResult")
def crt1(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        k = t[("q_run", q)]
        cond = AND(emitted(enc, s, t, q), EQ(t[("q_method", q)], M["tools/call"]), NOT(EQ(k, -1)), t[("q_decl", q)],
                   advertised(enc, t[("q_server", q)]), NOT(IN(enc.sel(t, "r_status", k), TERMINAL)))
        parts.append(IMPLIES(cond, EQ(t[("q_resp", q)], RESP["create-task"])))
    return AND(*parts)


@zprop("CRT-3", "step", "full: when a CreateTaskResult is sent its taskId names the run behind the call (a "
       "projected runId), that run is durable, not purged and readable by the caller, and the host's lookup of "
       "that taskId finds it for the caller")
def crt3(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        k, subj = t[("q_run", q)], subject(enc, t, q)
        cond = AND(emitted(enc, s, t, q), EQ(t[("q_resp", q)], RESP["create-task"]))
        parts.append(IMPLIES(cond, AND(enc.ids_projected(), can_get_run(enc, t, subj, k, t[("q_server", q)]),
                                       enc.lookup(t, subj, k, enc.names(0)))))
    return AND(*parts)


@zprop("CRT-4", "invariant", "full: a declaring tools/call on a serving host held open while its run waits for "
       "client input has an answer enabled")
def crt4(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        k = t[("q_run", q)]
        cond = AND(LT(q, t[("n_reqs",)]), EQ(t[("q_method", q)], M["tools/call"]), IN(t[("q_phase", q)], OPEN),
                   NOT(EQ(k, -1)), t[("q_decl", q)], advertised(enc, t[("q_server", q)]),
                   IN(enc.sel(t, "r_status", k), (ST["waiting-approval"], ST["waiting-input"])))
        parts.append(IMPLIES(cond, enc.answer_result(t, q)[0]))
    return AND(*parts)


@zprop("TASK-1", "step", "full for the encoded starts (tasked or blocking call, REST, child, fork): a declaring "
       "tasks/get (matching Mcp-Name) on a serving host naming a run its caller can getRun is answered with that "
       "run's task, and when a run is created or becomes terminal the host's lookup resolves it for every Subject "
       "that can getRun it")
def task1(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        subj = subject(enc, t, j)
        r = named(enc, t, j)
        cond = AND(new_req(enc, s, t, j), EQ(t[("q_method", j)], M["tasks/get"]), served_task_request(enc, t, j),
                   advertised(enc, t[("q_server", j)]), can_get_run(enc, s, subj, r, t[("q_server", j)]))
        parts.append(IMPLIES(cond, AND(found_task(enc, s, t, j, r), EQ(t[("q_run", j)], r))))
    for k in range(enc.sizes.runs):
        st = t[("r_status", k)]
        created = AND(LE(s[("n_runs",)], k), LT(k, t[("n_runs",)]))
        finished = AND(LT(k, s[("n_runs",)]), NOT(EQ(s[("r_status", k)], st)), IN(st, TERMINAL))
        probe = AND(OR(created, finished), advertised(enc, t[("r_server", k)]))
        for x in range(enc.sizes.subjects):
            parts.append(IMPLIES(AND(probe, can_get_run(enc, t, x, k, t[("r_server", k)])),
                                 enc.lookup(t, x, k, enc.names_projected())))
    return AND(*parts)


# ---- identity, authorization, isolation ---------------------------------------------------------------------

def _tasks_request(enc, s, t, j):
    """A new declaring tasks/* request on an advertised server: (condition, subject, run slot)."""
    cond = AND(new_req(enc, s, t, j), IN(t[("q_method", j)], TASKS), t[("q_decl", j)], advertised(enc, t[("q_server", j)]))
    return cond, subject(enc, t, j), named(enc, t, j)


@zprop("ISO-1", "step", "the answer-kind part: a declaring tasks/* naming a task its caller cannot getRun "
       "(foreign, purged, unknown, malformed) gets the not-found error (matching Mcp-Name) or an error, never a "
       "result, and nothing changes; the byte-equality with a nonexistent id's answer is the identity of the "
       "not-found kind here")
def iso1(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        cond, subj, r = _tasks_request(enc, s, t, j)
        unreadable = OR(EQ(r, -1), NOT(can_get_run(enc, s, subj, r, t[("q_server", j)])))
        resp = t[("q_resp", j)]
        ok = AND(NOT(IN(resp, RESULTS)), IMPLIES(t[("q_hdr", j)], EQ(resp, RESP["not-found"])), no_change(enc, s, t))
        parts.append(IMPLIES(AND(cond, unreadable), ok))
    return AND(*parts)


@zprop("ID-2", "step", "full for the answer kinds: a declaring tasks/* naming an existing run its caller cannot "
       "getRun is answered with an error and leaves that run unchanged")
def id2(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        cond, subj, r = _tasks_request(enc, s, t, j)
        foreign = AND(LE(0, r), t[("q_hdr", j)], NOT(can_get_run(enc, s, subj, r, t[("q_server", j)])))
        ok = AND(NOT(IN(t[("q_resp", j)], RESULTS)), run_unchanged(enc, s, t, r))
        parts.append(IMPLIES(AND(cond, foreign), ok))
    return AND(*parts)


@zprop("AUTH-1", "step", "full for the answer kinds: on a task its caller can read, a tasks/update or tasks/cancel "
       "from a caller lacking the right (runs:cancel, eligibility) is answered with a result, -32020/-32021, or "
       "-32602 where P-UNAUTHORIZED / P-APPROVER say so; tasks/cancel without runs:cancel changes nothing; "
       "tasks/update resolves only as an eligible approver")
def auth1(enc, s, act, A, t):
    parts = []
    p = enc.params
    for j in range(enc.sizes.requests):
        cond, subj, r = _tasks_request(enc, s, t, j)
        readable = can_get_run(enc, s, subj, r, t[("q_server", j)])
        method = t[("q_method", j)]
        key = t[("q_key", j)]
        lacks_cancel = AND(EQ(method, M["tasks/cancel"]), NOT(enc._tab(enc.scope_cancel, subj)))
        lacks_update = AND(EQ(method, M["tasks/update"]), NOT(EQ(key, -1)),
                           NOT(EQ(enc.sel(s, "i_kind", key), KINDS.index("external-event"))),
                           NOT(eligible_i(enc, s, subj, key)))
        lacking = OR(lacks_cancel, lacks_update)
        resp = t[("q_resp", j)]
        nf_ok = OR(p.p_unauthorized == "error", AND(EQ(method, M["tasks/update"]), p.p_approver == "error"))
        answer_ok = OR(IN(resp, RESULTS), EQ(resp, RESP["header-mismatch"]), EQ(resp, RESP["missing-capability"]),
                       AND(EQ(resp, RESP["not-found"]), nf_ok))
        ok = AND(IMPLIES(lacking, answer_ok), IMPLIES(lacks_cancel, no_change(enc, s, t)))
        for i in range(enc.sizes.interrupts):
            ok = AND(ok, IMPLIES(AND(EQ(method, M["tasks/update"]), resolved_here(enc, s, t, i)),
                                 AND(EQ(t[("i_by", i)], subj), eligible_i(enc, s, subj, i))))
        parts.append(IMPLIES(AND(cond, readable, NOT(EQ(method, M["tasks/get"]))), ok))
    return AND(*parts)


@zprop("ISO-2", "step", "the acknowledgement part: a listen acknowledges only tasks it asked for (by their "
       "projected runId) that its caller can getRun; not encoded: notifications/tasks on the stream (the "
       "abstraction has no notifications)")
def iso2(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        cond = AND(new_req(enc, s, t, j), EQ(t[("q_method", j)], M["subscriptions/listen"]))
        for k in range(enc.sizes.runs):
            parts.append(IMPLIES(AND(cond, t[("q_acked", j, k)]),
                                 AND(enc.ids_projected(), can_get_run(enc, s, subject(enc, t, j), k, t[("q_server", j)]))))
    return AND(*parts)


@zprop("ID-1", "step", "the responses and acknowledgements: every taskId a CreateTaskResult, tasks/get result or "
       "listen acknowledgement carries is its run's projected runId, a CreateTaskResult's with 128 bits, and a "
       "%2F-form tasks/get is answered whenever the projected form resolves; not encoded: notifications/tasks")
def id1(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        resp, k = t[("q_resp", q)], t[("q_run", q)]
        parts.append(IMPLIES(AND(emitted(enc, s, t, q), IN(resp, TASK_VIEWS)), enc.ids_projected()))
        parts.append(IMPLIES(AND(emitted(enc, s, t, q), EQ(resp, RESP["create-task"])), enc.long_id(enc.sel(t, "r_by", k, 0))))
        listen = AND(new_req(enc, s, t, q), EQ(t[("q_method", q)], M["subscriptions/listen"]))
        parts.append(IMPLIES(AND(listen, OR(*[t[("q_acked", q, x)] for x in range(enc.sizes.runs)])),
                             enc.ids_projected()))
        r, subj = t[("q_ref_run", q)], subject(enc, t, q)
        pct = AND(new_req(enc, s, t, q), EQ(t[("q_method", q)], M["tasks/get"]), EQ(t[("q_ref_form", q)], 1),
                  LE(0, r), t[("q_decl", q)], t[("q_hdr", q)], advertised(enc, t[("q_server", q)]),
                  can_get_run(enc, t, subj, r, t[("q_server", q)]), IN(resp, ERRORS), NOT(found_task(enc, s, t, q, r)))
        parts.append(IMPLIES(pct, NOT(enc.lookup(t, subj, r, enc.names_projected()))))
    return AND(*parts)


# ---- §D projection ---------------------------------------------------------------------------------------

def _baseline_row(enc, status):
    return enc._tab([enc.baseline_projection[i] for i in range(len(ST))], status, -1)


@zprop("PRJ-1", "step", "the status part: every task view sent shows the map row of its run's status, and the "
       "host's projection has the map row for every status a run enters; not encoded: isError and error "
       "fields inside the view")
def prj1(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        resp = t[("q_resp", q)]
        k = ITE(EQ(resp, RESP["create-task"]), t[("q_run", q)], ITE(EQ(t[("q_method", q)], M["tasks/get"]),
                                                                   t[("q_ref_run", q)], t[("q_run", q)]))
        cond = AND(emitted(enc, s, t, q), IN(resp, (RESP["create-task"], RESP["get"])))
        parts.append(IMPLIES(cond, EQ(t[("q_rstat", q)], _baseline_row(enc, enc.sel(t, "r_status", k)))))
    for k in range(enc.sizes.runs):
        changed = AND(LT(k, t[("n_runs",)]), OR(NOT(LT(k, s[("n_runs",)])), NOT(EQ(s[("r_status", k)], t[("r_status", k)]))))
        parts.append(IMPLIES(changed, EQ(enc.project(t[("r_status", k)]), _baseline_row(enc, t[("r_status", k)]))))
    return AND(*parts)


@zprop("PRJ-2", "step", "the keys part: an input_required tasks/get result carries a non-empty inputRequests keyed "
       "by exactly the open client-answerable interrupts of its run, an InputRequiredResult carries none or such a "
       "map, and a CreateTaskResult (any result typed \"task\") carries none; not encoded: the entries' modes and "
       "schemas, and notifications/tasks")
def prj2(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        resp, keys = t[("q_resp", q)], t[("q_ikeys", q)]
        exact = AND(NOT(EQ(keys, 0)), EQ(keys, enc.input_keys(t, t[("q_run", q)])))
        sent = emitted(enc, s, t, q)
        parts.append(IMPLIES(AND(sent, EQ(resp, RESP["create-task"])), EQ(keys, -1)))
        parts.append(IMPLIES(AND(sent, EQ(resp, RESP["get"]), EQ(t[("q_rstat", q)], TS["input_required"])), exact))
        parts.append(IMPLIES(AND(sent, EQ(resp, RESP["input-required"])), OR(EQ(keys, -1), exact)))
    return AND(*parts)


TASK_EDGES = {(TS["working"], TS["input_required"]), (TS["input_required"], TS["working"])} | {
    (a, b) for a in (TS["working"], TS["input_required"]) for b in (TS["completed"], TS["failed"], TS["cancelled"])}


@zprop("PRJ-3", "step", "the run-step part: for every run step r -> r' the host's projection stays or follows "
       "an edge of the task diagram and never leaves a terminal task status; not encoded: the per-client "
       "'shown before' memory of views")
def prj3(enc, s, act, A, t):
    parts = []
    for k in range(enc.sizes.runs):
        a, b = enc.project(s[("r_status", k)]), enc.project(t[("r_status", k)])
        edge = OR(EQ(a, b), *[AND(EQ(a, x), EQ(b, y)) for x, y in sorted(TASK_EDGES)])
        parts.append(IMPLIES(LT(k, s[("n_runs",)]), edge))
    return AND(*parts)


@zprop("SEC-2", "step", "full for the encoded content (an accept's approval): every interrupt's approvers are "
       "those its log recorded (scopes are fixed parameters), and an interrupt a tasks/update or MRTR retry "
       "resolves is resolved by an approver eligible by scopes and the recorded approvers")
def sec2(enc, s, act, A, t):
    parts = [approvers_as_recorded(enc, t)]
    answers = OR(is_act(enc, act, "tasks_update"), is_act(enc, act, "mrtr_retry"))
    for j in range(enc.sizes.interrupts):
        by = t[("i_by", j)]
        parts.append(IMPLIES(AND(answers, resolved_here(enc, s, t, j), NOT(EQ(by, EXTERNAL))),
                             enc.eligible(s, by, j, recorded=True)))
    return AND(*parts)


# ---- notifications and wire ---------------------------------------------------------------------------------

@zprop("NTF-2", "step", "the answer part: a tools/call whose run is cancelled is answered CallToolResult "
       "isError true, and such an open call has its answer enabled; not encoded: messages to cancelled requests "
       "(the abstraction sends none) and notification views")
def ntf2(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        k = t[("q_run", q)]
        on_cancelled = AND(EQ(t[("q_method", q)], M["tools/call"]), NOT(EQ(k, -1)),
                           EQ(enc.sel(t, "r_status", k), ST["cancelled"]))
        parts.append(IMPLIES(AND(emitted(enc, s, t, q), on_cancelled), EQ(t[("q_resp", q)], RESP["call-error"])))
        parts.append(IMPLIES(AND(LT(q, t[("n_reqs",)]), IN(t[("q_phase", q)], OPEN), on_cancelled),
                             enc.answer_result(t, q)[0]))
    return AND(*parts)


@zprop("NTF-1", "invariant", "full for the requests: the host has sent notifications/cancelled naming a "
       "subscriptions/listen only (the notification ending the stream is the end_listen step itself)")
def ntf1(enc, s, act, A, t):
    return only_listens_host_cancelled(enc, t)


@zprop("ADV-1", "step", "the advertisement part: every server/discover answer lists the extension exactly when "
       "the host serves it (the serving flag the encoding's behaviour reads; the cross-check compares the discover "
       "message with it), and the OpenWOP advertisement then lists \"extensions\" (one way) and names Tasks "
       "nowhere else; not encoded: the behaviours the catalogue counts as evidence of serving")
def adv1(enc, s, act, A, t):
    return AND(*[IMPLIES(AND(emitted(enc, s, t, q), EQ(t[("q_method", q)], M["server/discover"])),
                         AND(EQ(t[("q_says", q)], advertised(enc, t[("q_server", q)])), t[("q_feat", q)]))
                 for q in range(enc.sizes.requests)])


@zprop("SEC-1", "step", "the response part: the statusMessage of a CreateTaskResult or tasks/get result quotes "
       "none of its run's internals; not encoded: notifications/tasks")
def sec1(enc, s, act, A, t):
    return AND(*[IMPLIES(AND(emitted(enc, s, t, q), IN(t[("q_resp", q)], TASK_VIEWS)), NOT(t[("q_leak", q)]))
                 for q in range(enc.sizes.requests)])


@zprop("NTF-3", "invariant", "full for the statuses: the last notifications/tasks a streaming listener got for "
       "a task it can read equals what its tasks/get would return now (the host republishes at every change, so "
       "this is the catalogue's check at each sending)")
def ntf3(enc, s, act, A, t):
    return notifications_current(enc, t)


@zprop("RPL-1", "invariant", "the re-issue part: no fork logs a new interrupt.requested or interrupt.resolved for "
       "an interrupt its source recorded; not encoded: that replayed events equal the recorded ones")
def rpl1(enc, s, act, A, t):
    return forks_reissue_nothing(enc, t)


@zprop("WIRE-1", "step", "the result-kind part: the results of tasks/get, tasks/update and tasks/cancel never carry "
       "resultType \"task\" or \"input_required\", and an InputRequiredResult answers only tools/call; not encoded: "
       "whether \"complete\" is spelled out, and notifications")
def wire1(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        resp, method = t[("q_resp", q)], t[("q_method", q)]
        parts.append(IMPLIES(AND(emitted(enc, s, t, q), IN(method, TASKS)),
                             NOT(IN(resp, (RESP["create-task"], RESP["input-required"])))))
        parts.append(IMPLIES(AND(emitted(enc, s, t, q), EQ(resp, RESP["input-required"])), EQ(method, M["tools/call"])))
    return AND(*parts)


@zprop("WIRE-2", "step", "the acknowledgement and flatness parts: a tasks/update or tasks/cancel answered with a "
       "result is answered with the empty acknowledgement, and a result typed \"task\" carries only a "
       "CreateTaskResult's fields; not encoded: required fields, ttlMs types, InputRequiredResult contents")
def wire2(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        sent = emitted(enc, s, t, q)
        parts.append(IMPLIES(AND(sent, IN(t[("q_method", q)], (M["tasks/update"], M["tasks/cancel"]))),
                             IN(t[("q_resp", q)], ERRORS + (RESP["ack"],))))
        parts.append(IMPLIES(AND(sent, EQ(t[("q_resp", q)], RESP["create-task"])), t[("q_flat", q)]))
    return AND(*parts)


@zprop("WIRE-3", "step", "full: only tools/call gets CreateTaskResult (tasks/* results are WIRE-1's), and "
       "tasks/list and tasks/result get -32601")
def wire3(enc, s, act, A, t):
    parts = []
    for q in range(enc.sizes.requests):
        parts.append(IMPLIES(AND(emitted(enc, s, t, q), EQ(t[("q_resp", q)], RESP["create-task"])),
                             IN(t[("q_method", q)], (M["tools/call"],) + TASKS)))
        parts.append(IMPLIES(AND(emitted(enc, s, t, q), IN(t[("q_method", q)], (M["tasks/list"], M["tasks/result"]))),
                             EQ(t[("q_resp", q)], RESP["method-not-found"])))
    return AND(*parts)


@zprop("WIRE-4", "step", "full: an HTTP tasks/* whose Mcp-Name differs from its taskId is refused -32020 (or "
       "-32021 where the capability check refuses it) and changes nothing")
def wire4(enc, s, act, A, t):
    parts = []
    for j in range(enc.sizes.requests):
        cond = AND(new_req(enc, s, t, j), IN(t[("q_method", j)], TASKS), EQ(t[("q_tr", j)], 0), NOT(t[("q_hdr", j)]))
        resp = t[("q_resp", j)]
        plain = NOT(advertised(enc, t[("q_server", j)]))
        may_missing = OR(NOT(t[("q_decl", j)]), plain)
        ok = AND(OR(EQ(resp, RESP["header-mismatch"]), AND(may_missing, EQ(resp, RESP["missing-capability"])),
                    AND(plain, EQ(resp, RESP["method-not-found"]))), no_change(enc, s, t))
        parts.append(IMPLIES(cond, ok))
    return AND(*parts)


# ---- what Z3 does not judge -----------------------------------------------------------------------------------

NOT_ENCODED: dict[str, str] = {     # safety ids without a formula, with the reason
    "PRJ-4": "the encoding keeps no elicitation modes per request: Hypothesis judges it",
    "TTL-4": "the encoding keeps no emitted ttlMs per run to compare with a later read: Hypothesis judges it",
    "WIRE-5": "the encoding keeps no HTTP status per response: Hypothesis judges it",
    "NTF-4": "the encoding keeps no notifications/tasks sent per step (only whether a listener's last one is "
             "stale) and its host publishes at every change: Hypothesis judges it",
    "HNS-6": "the composed encoding keeps no credentials per harness request: Hypothesis judges it",
    "HNS-7": "the composed encoding has no short-exchange operation: Hypothesis judges it",
}


def why_not_encoded(rid: str) -> str:
    """Why the requirement `rid` has no Z3 formula (the one wording the check, the coverage record and
    the benchmark give)."""
    from properties.requirements import REQUIREMENTS
    if rid in NOT_ENCODED:
        return NOT_ENCODED[rid]
    if rid.startswith("E2E-"):
        return "an end-to-end id of host and harness together (its gaps are liveness or known gaps): Hypothesis judges it"
    if REQUIREMENTS.get(rid, ("",))[0] == "L":
        return "a liveness id (Z3 checks safety)"
    return "no Z3 formula for this id (only the host safety ids and the step parts of OWN-2, OWN-3, RPL-1)"


def safety_ids() -> list[str]:
    """The S ids of the requirement catalogue (the host's and the harness's), in its order."""
    from properties.requirements import REQUIREMENTS
    return [r for r, (kind, _) in REQUIREMENTS.items() if kind == "S" and not r.startswith("E2E-")]


# Trace ids whose step-local part is encoded.
ENCODED_TRACE_IDS = ("OWN-2", "OWN-3", "RPL-1", "HNS-3", "HNS-4")

from verifier.engines.z3 import harness_properties
