"""Writing a model behaviour in the traffic-log format, as a recorder beside the host would.

So that any behaviour of the model (a random walk, a variant's counterexample) is a log that
`validate` can read: each client request opens a connection (one per HTTP exchange; one stdio
session per client and server), what the host emits is a server-to-client message on it, a
disconnect is a close, and each run-log event is a `run` event. `rename` mints other ids for the
runs, interrupts, requestState tokens and JSON-RPC requests, as a real host and client would.
"""
from __future__ import annotations

import hashlib
import json

from model import identity
from model.host import answer_pending
from model.params import Params

TOKENS = {s.name: f"tok-{s.name}" for s in Params().subjects}
MAPPING = {"server": "S1", "tokens": {t: s for s, t in TOKENS.items()}, "tenants": {"acme": "acme", "beta": "beta"},
           "tools": {"flow": "flow", "task-only": "task-only", "bad-args": "bad-args"}, "stdio": "alice",
           "mounts": {"/s1": "S1", "/s2": "S2"}}


class Recorder:
    """Records each model step as it is taken (`record(world, step)` right after `world.apply`)."""

    def __init__(self, run_events: bool = True):
        self.run_events = run_events
        self.events: list[dict] = [{"event": "header", "t": 0, "format": "mcp-traffic/1", "side": "server",
                                    "server": "S1", "run_events": run_events}]
        self.conns: dict[str, str] = {}      # model request id -> conn
        self.sessions: set[str] = set()
        self.first: set[str] = set()         # conns that already carried a server message
        self.closed: set[str] = set()        # a recorder sees nothing on a closed connection
        self.shown: set[str] = set()         # task ids and interrupt keys the host has sent
        self.t = 0.0

    def _add(self, **e) -> None:
        self.t += 0.001
        self.events.append({"t": round(self.t, 3), **e})

    def record(self, world, step) -> None:
        # A close comes before what the host does about it; a request before its run events; a run
        # event before the messages that tell of it.
        self._close(world, step)
        for qid in step.created:
            q = world.requests.get(qid)
            if q is not None:
                self._request(q)
        if step.action == "stdio_cancel":
            qid = step.args["request"]
            self._add(event="message", conn=self.conns[qid], dir="c2s",
                      message={"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": {"requestId": qid, "reason": "client cancelled"}})
        if self.run_events:
            for rid, ev in step.events:
                data = {k: ev[k] for k in ("interruptId", "kind", "action", "via", "reason", "approvers")
                        if ev.get(k) is not None}
                if ev["type"] == "interrupt.requested":
                    data["mode"] = "form" if world.interrupts[ev["interruptId"]].form else "url"
                self._add(event="run", runId=rid, kind=ev["type"], status=world.runs[rid].status,
                          **({"data": data} if data else {}))
        for qid, msg in step.emitted:
            if qid is not None and self.conns.get(qid) not in (None, *self.closed):
                self._response(world.requests[qid], msg)
        if step.action == "end_listen":
            self._add(event="close", conn=self.conns[step.args["request"]], how="closed", by="server")
            self.closed.add(self.conns[step.args["request"]])

    def _close(self, world, step) -> None:
        if step.action == "disconnect":
            q = world.requests[step.args["request"]]
            after = q.closed and step.pre_phase.get(q.id) == "delivered"
            self._add(event="close", conn=self.conns[q.id], how="closed" if after else "dropped",
                      by="client" if after else "network")
            self.closed.add(self.conns[q.id])
        elif step.action == "stdio_close":
            conn = f"s-{step.args['client']}-{step.args['server']}"
            if conn in self.sessions:
                self._add(event="close", conn=conn, how="closed", by="client")
                self.closed.add(conn)

    def _request(self, q) -> None:
        if q.transport == "http":
            conn = f"h-{q.id}"
            headers = {"authorization": f"Bearer {TOKENS[q.subject]}", "content-type": "application/json"}
            if q.mcp_name is not None:
                headers["mcp-name"] = q.mcp_name
            self._add(event="open", conn=conn, transport="http",
                      http={"method": "POST", "path": f"/{q.server.lower()}", "headers": headers})
        else:
            conn = f"s-{q.client}-{q.server}"
            if conn not in self.sessions:
                self.sessions.add(conn)
                self._add(event="open", conn=conn, transport="stdio")
        self.conns[q.id] = conn
        self._add(event="message", conn=conn, dir="c2s", message=q.message)

    def _response(self, q, msg) -> None:
        conn = self.conns[q.id]
        e = dict(event="message", conn=conn, dir="s2c", message=msg)
        if q.transport == "http" and conn not in self.first:
            status = q.http_status if "method" not in msg and q.http_status is not None else 200
            e["http"] = {"status": status, "headers": {"content-type": "application/json"}}
        self.first.add(conn)
        self._add(**e)
        res = msg.get("result") or msg.get("params") or {}
        if isinstance(res.get("taskId"), str):
            self.shown.add(res["taskId"])
        self.shown.update((res.get("inputRequests") or {}) if isinstance(res.get("inputRequests"), dict) else ())
        self.shown.update(((res.get("notifications") or {}).get("taskIds") or []))

    def lines(self, world=None, rename: bool = False) -> list[str]:
        """The log; with `rename`, the ids of `world` (the walked world) minted anew."""
        lines = [json.dumps(e, separators=(",", ":")) for e in self.events]
        return rename_ids(world, lines) if rename else lines


def rename_ids(world, lines: list[str]) -> list[str]:
    """The same log with every minted id replaced, in each of its forms, by another of the same
    tenant and length (JSON-RPC ids become integers per connection)."""
    subs: dict[str, str] = {}
    for raw in list(world.runs) + list(world.interrupts):
        tenant, opaque = raw.split("/", 1)
        other = f"{tenant}/{_other(opaque)}"
        subs[raw] = other
        subs[identity.project(raw)] = identity.project(other)
        subs[identity.project(raw).replace("~2F", "%2F")] = identity.project(other).replace("~2F", "%2F")
    for token in world.request_states:
        subs[token] = "state-" + hashlib.sha256(token.encode()).hexdigest()[:20]
    keys = sorted(subs, key=len, reverse=True)
    out = []
    for line in lines:
        for k in keys:
            if k in line:
                line = line.replace(k, subs[k])
        e = json.loads(line)
        _renumber(e)
        out.append(json.dumps(e, separators=(",", ":")))
    return out


def _other(opaque: str) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    digest = hashlib.sha256(opaque.encode()).digest() * 4
    prefix = "i-" if opaque.startswith("i-") else ""
    return prefix + "".join(alphabet[b % 64] for b in digest[:len(opaque) - len(prefix)])


def _renumber(e: dict) -> None:
    """JSON-RPC request ids `rN` -> the integer N + 1000 (a client's own counter)."""
    def num(v):
        return int(v[1:]) + 1000 if isinstance(v, str) and v[:1] == "r" and v[1:].isdigit() else v
    msg = e.get("message")
    if isinstance(msg, dict):
        if "id" in msg:
            msg["id"] = num(msg["id"])
        params = msg.get("params") or {}
        if "requestId" in params:
            params["requestId"] = num(params["requestId"])
        meta = params.get("_meta") or {}
        for k in ("io.modelcontextprotocol/subscriptionId",):
            if k in meta:
                meta[k] = num(meta[k])
        if "progressToken" in params:
            params["progressToken"] = num(params["progressToken"])
    res = (msg or {}).get("result") if isinstance(msg, dict) else None
    if isinstance(res, dict) and isinstance(res.get("_meta"), dict) and "io.modelcontextprotocol/subscriptionId" in res["_meta"]:
        res["_meta"]["io.modelcontextprotocol/subscriptionId"] = num(res["_meta"]["io.modelcontextprotocol/subscriptionId"])


# ---- random walks ----------------------------------------------------------------------------------
WALK_ACTORS = ("client", "network", "host", "clock")   # what a traffic log can show or leave to the search


def walk(seed: int, steps: int, variant=None, run_events: bool = True):
    """(world, recorder) of a random walk of the model (or a variant) as the validator's instance
    runs it. The walk keeps to what a recorded session can be: stdio only for alice's client on S1
    (the mapping names one stdio Subject); without run events, no step nothing on the wire shows
    (effects, child runs), and clients name only the task ids and interrupt keys the host has sent
    (a real client knows no other)."""
    import random

    from model.actions import SILENT, load_all

    from verifier.runtime.worlds import unbounded_world
    world, rec, rnd, table = unbounded_world(variant), Recorder(run_events), random.Random(seed), load_all()
    names = [n for n, a in table.items() if a.actor in WALK_ACTORS and (run_events or n not in SILENT)]
    for _ in range(steps):
        moves = [(n, a) for n in names for a in table[n].moves(world) if _recordable(world, rec, n, a, run_events)]
        if not moves:
            break
        name, args = moves[rnd.randrange(len(moves))]
        step = world.apply(name, args, check=False)
        rec.record(world, step)
        for answered in answer_pending(world, step, check=False):    # as the reference host: at once
            rec.record(world, answered)
    return world, rec


def _recordable(world, rec, name, args, run_events) -> bool:
    if "parent" in args:        # P-CALL-PARENT's parentRunId: an id inside a tool's own arguments, which the
        return False            # validator's binding does not translate (it names the model's convention alone)
    stdio = args.get("transport") == "stdio" or name in ("stdio_cancel", "stdio_close")
    if stdio:
        client = args.get("client") or world.requests[args["request"]].client
        if client != "C1" or args.get("server", "S1") != "S1" or ("C1", "S1") not in world.stdio_open:
            return False
    if run_events:
        return True
    shown = rec.shown
    if "ref" in args:
        raw = identity.unproject(args["ref"])
        if raw in world.runs and identity.project(raw) not in shown:
            return False
        if "key" in args and args["key"] in world.interrupts and args["key"] not in shown:
            return False
    if name == "listen":
        return all(world.rules.task_id(world, r) in shown for r in world.runs.values() if r.server == args["server"])
    return True
