"""Between the executable harness and its encoding: the harness's part of `abstract`, and the codec of
the harness actions' arguments (`verifier.engines.z3.harness` says what each field holds)."""
from __future__ import annotations

from verifier.engines.z3 import encoding as E
from verifier.engines.z3.concrete import AbstractionError, _ref, keys_mask
from verifier.engines.z3.harness import LR, PU, TE


def op_slot(op: str) -> int:
    """op1, op2, ... (and their local runs L1, L2, ...) are slots 0, 1, ..."""
    return int(op.lstrip("opL")) - 1


def _record(world, te, lrun, subject, runs, reqs, ints) -> dict:
    """The persisted fields of a tool-execution record, by name."""
    bind = -1
    if te.binding is not None:
        if te.binding.server != te.server or te.binding.auth != subject:
            raise AbstractionError(f"{te.op}'s binding {te.binding} is not to its server with its client's Subject")
        bind, form = _ref(world, te.binding.task_id)
        if form != 0:
            raise AbstractionError(f"{te.op}'s binding holds a %2F taskId")
    if lrun not in LR:
        raise AbstractionError(f"local run status {lrun!r} is not encoded")
    return {"status": TE[te.status], "decl": te.declared, "bind": bind,
            "rstat": -1 if te.remote_status is None else E.TS[te.remote_status], "rs": te.request_state is not None,
            "ans": reqs.index(te.answers) if te.answers is not None else -1, "keys": keys_mask(te.input_keys, ints),
            "att": te.attempts, "intent": te.cancel_intent, "acked": te.cancel_acked, "lrun": LR[lrun]}


def _err(q) -> bool:
    """A task view q carries is completed with a result whose isError is true."""
    res = (q.response or {}).get("result") or {}
    return q.method == "tasks/get" and res.get("status") == "completed" and bool((res.get("result") or {}).get("isError"))


def abstract_harness(world, enc, s: dict, runs: list, reqs: list, ints: list) -> None:
    """Fill the harness's fields of the encoded state s from `world.harness`."""
    h = world.harness
    P = world.params
    if h.ops != h.runs_started:
        raise AbstractionError("a local run with more than one node")
    s[("h_runs",)], s[("h_reqs",)], s[("h_crashes",)] = h.runs_started, h.requests, h.crashes
    servers = [x for x, _ in P.servers]
    names = [n for n, _ in P.harness_clients]
    for c, name in enumerate(names):
        hc = h.clients[name]
        p = hc.proc
        if p is not None and p.epoch != hc.epochs:
            raise AbstractionError(f"{name}'s process has epoch {p.epoch}, its client {hc.epochs}")
        s[("hc_alive", c)], s[("hc_epoch", c)] = p is not None, hc.epochs
        for v, sv in enumerate(servers):
            s[("hc_cap", c, v)] = -1 if p is None or sv not in p.caps else int(p.caps[sv])
            s[("hc_disc", c, v)] = p is not None and sv in p.discovering
        subject = P.client_subject(name).name
        for op, d in hc.disk_tes.items():
            o = op_slot(op)
            if o >= enc.sizes.hops:
                raise AbstractionError(f"{op} exceeds the instance's {enc.sizes.hops} harness operations")
            s[("ho_client", o)], s[("ho_server", o)], s[("ho_long", o)] = c, servers.index(d.server), d.long
            for f, v in _record(world, d, hc.disk_runs[d.run].status, subject, runs, reqs, ints).items():
                s[("hd_" + f, o)] = v
            if p is None:
                continue
            te = p.tes.get(op)
            if te is None:
                raise AbstractionError(f"{name}'s live process has no record of {op}")
            for f, v in _record(world, te, p.runs[te.run].status, subject, runs, reqs, ints).items():
                s[("ho_" + f, o)] = v
            s.update({("ho_req", o): reqs.index(te.request) if te.request else -1,
                      ("ho_pend", o): reqs.index(te.pending) if te.pending else -1,
                      ("ho_creq", o): reqs.index(te.cancel_req) if te.cancel_req else -1,
                      ("ho_worker", o): te.worker, ("ho_dirty", o): op in p.dirty})
        if p is not None and set(p.tes) != set(hc.disk_tes):
            raise AbstractionError(f"{name}'s live records {sorted(p.tes)} are not its persisted ones {sorted(hc.disk_tes)}")
    for j, qid in enumerate(reqs):
        if qid not in h.sent:
            continue
        client, epoch, purpose, op = h.sent[qid]
        p = h.clients[client].proc
        s.update({("hq_purpose", j): PU[purpose], ("hq_op", j): -1 if op is None else op_slot(op),
                  ("hq_epoch", j): epoch, ("hq_infl", j): p is not None and qid in p.inflight,
                  ("hq_read", j): qid in h.read,
                  ("hq_rcpt", j): p is not None and any(qid in r for r in p.receipts.values()),
                  ("hq_err", j): _err(world.requests[qid])})


# The argument names of every harness action, as its moves list them.
H_ARG_NAMES = {
    "harness_discover": ("client", "server"), "harness_start": ("client", "server", "long"),
    "harness_receive": ("request",), "harness_persist": ("client", "op"), "harness_crash": ("client",),
    "harness_restart": ("client",), "harness_reissue": ("client", "op"), "harness_poll": ("client", "op"),
    "harness_update": ("client", "op"), "harness_mrtr": ("client", "op"), "harness_cancel": ("client", "run"),
    "harness_send_cancel": ("client", "op"), "harness_listen": ("client", "op"),
}


def encode_harness_args(world, action: str, args: dict) -> E.Args:
    P = world.params
    A = E.Args()
    for name, v in args.items():
        if name == "client":
            A.client = [n for n, _ in P.harness_clients].index(v)
        elif name == "server":
            A.server = [x for x, _ in P.servers].index(v)
        elif name == "long":
            A.long = bool(v)
        elif name == "request":
            A.req = list(world.requests).index(v)
        elif name in ("op", "run"):
            A.op = op_slot(v)
        else:
            raise AbstractionError(f"argument {name!r} of {action} has no encoding")
    return A


def decode_harness_args(world, action: str, A: dict) -> dict:
    P = world.params
    out = {}
    for name in H_ARG_NAMES[action]:
        if name == "client":
            out[name] = P.harness_clients[A["client"]][0]
        elif name == "server":
            out[name] = P.servers[A["server"]][0]
        elif name == "long":
            out[name] = bool(A["long"])
        elif name == "request":
            out[name] = list(world.requests)[A["req"]]
        elif name == "op":
            out[name] = f"op{A['op'] + 1}"
        elif name == "run":
            out[name] = f"L{A['op'] + 1}"
    return out

