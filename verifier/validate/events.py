"""Each kind of log event, as a step of the candidates (see `verifier.validate.search`)."""
from __future__ import annotations

from dataclasses import replace
from bisect import bisect_right
from itertools import islice

from model import wire
from model.lifecycle import OPEN_PHASES
from model.run_index import runs_created_by
from model.snapshot import successor

from verifier.validate.answers import IdCheck, Lifetimes, bind_error, not_found_class
from verifier.validate.declared import Declared
from verifier.validate.ids import raw_of
from verifier.validate.observe import NotGenerated, UnknownTool, decode, describe, shape, task_refs, unify
from verifier.validate.outside import Outside
from verifier.validate.search import Conn, Matcher, Stop
from verifier.validate.status_messages import StatusMessages


# The requirements judged on the host's own bytes and clock (answers.py, status_messages.py), unless a
# variant refutes them.
JUDGED = ("ID-1", "TTL-1", "TTL-4", "SEC-1")

# Seconds of the log's clock within which a host notifies a change of a task to its listen streams, where
# the host declares none (mapping `host.notify_within_s`; the sources name no bound): a notification owed
# for longer when the log ends was never sent (NTF-4). A divergence found by this bound says it assumed it.
NOTIFY_WITHIN_S = 1.0

# A single candidate is stepped in place (no clone) where the log leaves no choice; the state is
# saved (its records shared and sealed, `model.snapshot.successor`: the steps in place copy those they
# write) every EVERY events so that a request whose answer does not fit can be retried from the
# state before it (restored by replaying the events since the save).
EVERY = 64


class LogMatcher(Matcher):
    fast = True
    checkpoint = None
    _by_conn = None          # connection -> the places of its events (`_places`)
    conflict = None          # the not-found answer the event being matched contradicts (answers.py)

    def __init__(self, *args, judged=JUDGED, declared=None, **kw):
        super().__init__(*args, **kw)
        self.sent: dict[str, dict] = {}     # model request id -> the request as the log shows it
        self.outside = Outside()            # the exchanges no model client sends (verifier/validate/outside.py)
        self.judged = frozenset(judged)     # the requirements judged on the host's bytes (answers.py)
        self.id_check = IdCheck()
        self.status = StatusMessages()
        declared = declared or Declared()
        self.life = Lifetimes(declared.retention_s, declared.from_creation)
        self.notify_within = declared.notify_within_s or NOTIFY_WITHIN_S
        self.notify_declared = declared.notify_within_s is not None
        self.notes_pending: list = []       # a notification owed when the log ends, not yet overdue (`finish`)

    def _save(self, index) -> None:
        c = self.cands[0]
        self.checkpoint = (index, c.but(world=successor(c.world, ())), dict(self.conns), dict(self.reqs),
                           set(self.ignored), self.outside.copy())

    def _writable(self, name) -> Conn:
        """The connection `name`, this matcher's own to change: the checkpoint shares every one it
        saved (a long session has thousands; copying them all at each save grew with the log)."""
        conn = self.conns[name]
        if self.checkpoint is not None and self.checkpoint[2].get(name) is conn:
            conn = self.conns[name] = replace(conn, requests=list(conn.requests))
        return conn

    def _restore(self) -> None:
        """The candidates and connections as they were before the event being matched."""
        index, cand, conns, reqs, ignored, outside = self.checkpoint
        here = self.index
        self.cands, self.conns, self.reqs, self.ignored = [cand.but(world=successor(cand.world, ()))], dict(conns), \
            dict(reqs), set(ignored)
        self.outside = outside.copy()
        self.fast = False
        try:
            for ev in self.events[index:here]:
                self.feed(ev)
        finally:
            self.fast, self.index = True, here

    def feed(self, ev) -> None:
        self.index = ev.index
        if self.fast and len(self.cands) == 1 and (self.checkpoint is None or ev.index - self.checkpoint[0] >= EVERY):
            self._save(ev.index)
        d = ev.data
        kind = d["event"]
        self.conflict = None
        if self.fast:
            self._judge(d)
        if kind == "open":
            self._open(d)
        elif kind == "message":
            conn = self._writable(d["conn"])
            if d["dir"] == "c2s":
                self._c2s(d["conn"], conn, d["message"])
            else:
                self._s2c(d["conn"], conn, d["message"], d.get("http"))
        elif kind == "close":
            self._close(d["conn"], self.conns[d["conn"]], d["how"])
        elif kind == "run":
            if self.run_events:
                self._run(d)

    def _judge(self, d) -> None:
        """The catalogue on the observed bytes themselves, before any model step (answers.py)."""
        if d["event"] == "message" and d["dir"] == "c2s" and "id" in d["message"]:
            key = _key(d["message"]["id"])
            self.life.request(d["conn"], key, d["t"])
            self.status.request(d["conn"], key, d["message"])
            self.id_check.request(d["message"])
        if not (d["event"] == "run" or d["event"] == "message" and d["dir"] == "s2c"):
            return
        why = self.id_check.judge(d)
        if why and "ID-1" in self.judged:
            raise Stop("diverges", why, requirement="ID-1")
        key = _key(d["message"].get("id")) if d["event"] == "message" else None
        why = self.life.shown(d, key)
        if why and "TTL-1" in self.judged:
            raise Stop("diverges", why, requirement="TTL-1")
        why = self.status.shown(d["message"], d["conn"], key) if d["event"] == "message" else None
        if why and "SEC-1" in self.judged:
            raise Stop("diverges", why, requirement="SEC-1")

    def _timely(self, c, ev=None) -> bool:
        """No run purged before the log's clock allows at event `ev`: never before an advertised expiry
        (TTL-4), nor before the host's declared retention has passed."""
        t = (ev or self.events[self.index]).data["t"]
        return not self.life.early_purge(c, t, ttl="TTL-4" in self.judged)

    # ---- connections -------------------------------------------------------------------------
    def _open(self, d) -> None:
        headers = {k.lower(): v for k, v in ((d.get("http") or {}).get("headers") or {}).items()}
        auth = headers.get("authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else auth
        subject = (self.mapping.get("tokens") or {}).get(token)
        why = ("a request without a bearer token, and the mapping names no Subject for one (its `tokenless` key)"
               if not token else "a request whose bearer token the mapping does not name" + (
                   # the mapping without --map (a file that maps no identity is refused: read_mapping)
                   " (no mapping file given: --map)" if self.mapping == {"tokens": {}} else ""))
        if not token and d["transport"] == "http":
            subject = self.mapping.get("tokenless")        # a client that sends no credential speaks for it
        if d["transport"] == "stdio" and not token:
            # stdio carries the credential the session was started with, or the mapping names one
            subject = self.mapping.get("stdio")
            why = "a stdio session with no credential, and the mapping names no Subject for stdio (its `stdio` key)"
            if subject is not None:
                clients = {self.cands[0].world.params.client_subject(c).name: c for c in self.cands[0].world.params.clients}
                server = self.mapping.get("server", "S1")
                if not any((clients[subject], server) in c.world.stdio_open for c in self.cands):
                    subject, why = None, (f"a second stdio session of {subject}'s client (the model's clients "
                                          "open stdio once)")
        path = (d.get("http") or {}).get("path")
        server = (self.mapping.get("mounts") or {}).get(path, self.mapping.get("server", "S1"))
        self.conns[d["conn"]] = Conn(d["transport"], subject, headers, server, why)

    def _close(self, name, conn: Conn, how: str) -> None:
        self.outside.closed(name)
        live = []
        for c in self.cands:
            owed = [(qid, q[0][0]) for qid in conn.requests if (q := c.out.get(qid))]
            if not owed:
                live.append(c)
        if not live:
            owed = [(qid, q[0]) for c in self.cands[:3] for qid in conn.requests if (q := c.out.get(qid))]
            allowed = [f"{qid}: {describe(m)}" for qid, (m, *_) in owed]
            if all(m.get("method") == "notifications/tasks" for _, (m, *_) in owed):
                qid, (m, _, index) = owed[0]
                raise Stop("diverges", f"listen stream {qid} ended without the {describe(m)} owed for the change the "
                                       f"log shows by line {self.events[index].line}: a change of the task never "
                                       f"notified", allowed, requirement="NTF-4")
            raise Stop("diverges", f"connection {name} closed while the model still owed it a message", allowed)
        self.cands = live
        if conn.transport == "stdio":
            if conn.subject is not None and conn.requests:
                self.cands = [self._apply(c, "stdio_close", self._stdio_args(c, conn)) for c in self.cands]
            return
        for qid in conn.requests:
            q = self.cands[0].world.requests[qid]
            if how == "closed" and q.phase in OPEN_PHASES and q.method != "subscriptions/listen":
                raise Stop("diverges", f"connection {name} closed after the whole response, and the log has no "
                                       f"response to {qid}", [f"{qid}: a response"])
            self.cands = [self._close_request(c, qid, how) for c in self.cands]

    def _stdio_args(self, c, conn):
        clients = {c.world.params.client_subject(x).name: x for x in c.world.params.clients}
        return dict(client=clients[conn.subject], server=conn.server)

    def _close_request(self, c, qid, how):
        q = c.world.requests[qid]
        if q.phase in OPEN_PHASES:
            return self._apply(c, "disconnect", dict(request=qid))
        if q.phase == "sent":
            if how == "dropped":
                return self._apply(c, "disconnect", dict(request=qid))
            c = self._apply(c, "deliver", dict(request=qid))
            q = c.world.requests[qid]
        if q.phase == "delivered" and not q.closed and q.run is not None:
            c = self._apply(c, "disconnect", dict(request=qid))
        return c

    def _apply(self, c, name, args):
        return self._step(c, name, args, in_place=len(self.cands) == 1 and not self.keep)

    # ---- client to server --------------------------------------------------------------------
    def _c2s(self, name, conn: Conn, msg: dict) -> None:
        method = msg.get("method")
        if method is None:
            return self._unmodelled(name, conn, msg, "a client's response (the model's clients answer no server "
                                                     "request)")
        if method in (self.mapping.get("ignore") or ()):
            if "id" in msg:
                self.ignored.add((name, _key(msg["id"])))
            return
        if "id" not in msg:
            return self._c2s_note(name, conn, msg)
        outside = self.outside.names(msg)
        if outside is not None:
            return self._unmodelled(name, conn, msg, f"it names run {outside}, set outside the model")
        refusal = self._refused(msg, conn)
        if refusal is not None:
            return self._unmodelled(name, conn, msg, str(refusal), tool=isinstance(refusal, UnknownTool))
        ahead = self._lookahead(name, conn, msg)
        look = ahead.data if ahead else None
        observed = shape(look["message"]) if look else None
        status = (look.get("http") or {}).get("status") if look and conn.s2c == 0 else None
        qid = f"r{len(self.cands[0].world.requests) + 1}"
        refused, misfit = [], []

        def fits(post) -> bool:
            queue = post.out.get(qid)
            if queue and observed is not None:
                ids = unify(observed, shape(queue[0][0]), post.ids)
                if ids is None or status is not None and post.world.requests[qid].http_status not in (None, status) \
                        or not self._timely(post, ahead) \
                        or self._answer(post, qid, queue[0][0], look["message"], status, ids, ahead, msg) is None:
                    misfit.append(f"{qid}: {describe(queue[0][0])}")
                    return False
            return True

        # In place only where an answer at receipt is not expected (a call answers later): a
        # tasks/* answer that does not fit needs the state before the request, and a restore costs more.
        if self.fast and len(self.cands) == 1 and not self.keep and self.checkpoint is not None and \
                (look is None or msg.get("method") == "tools/call"):
            c = self.cands[0]
            try:
                action, args, sent = decode(c.world, msg, conn, c.ids, self.mapping)
            except NotGenerated:
                pass                    # the search below says why, for every candidate
            else:
                if action == "mrtr_retry" and c.world.requests[args["answers"]].phase == "sent":
                    c = self._step(c, "deliver", dict(request=args["answers"]), in_place=True)
                post = self._step(c, action, args, sent, in_place=True)
                if fits(post):
                    self.cands = [post]
                    self.reqs[(name, _key(msg["id"]))] = qid
                    self.sent[qid] = msg
                    conn.requests.append(qid)
                    return
                self._restore()
                conn = self._writable(name)

        guess = False

        def receive(c):
            """The candidates after the request, when what the model answers at once fits the log."""
            out = []
            for g in (_guesses(c, msg) if guess else [c]):
                try:
                    action, args, sent = decode(g.world, msg, conn, g.ids, self.mapping)
                except NotGenerated as e:
                    refused.append(str(e))
                    continue
                if action == "mrtr_retry" and g.world.requests[args["answers"]].phase == "sent":
                    g = self._step(g, "deliver", dict(request=args["answers"]))
                post = self._step(g, action, args, sent)
                if fits(post):
                    out.append(post)
            return out or None
        def focus(world):
            return _named_runs(world, msg, self.cands), set()
        words = f"{describe(look['message']) if look else 'a receipt'} answering {qid}"
        try:
            try:
                self.search(receive, words, allow_events=False, focus=focus)
            except Stop as e:
                if e.kind != "diverges":
                    raise
                guess = True        # an id the log never showed may still name a run: try each
                self.search(receive, words, allow_events=False, focus=focus)
        except Stop as e:
            if e.kind == "diverges" and refused and not misfit:
                return self._unmodelled(name, conn, msg, refused[0])
            if e.kind == "diverges" and misfit:
                why = self.conflict.reason if self.conflict else \
                    f"the model cannot answer {qid} with {describe(look['message'])}"
                raise Stop("diverges", why, sorted(set(misfit))[:12], at=ahead.index,
                           requirement=self.conflict and self.conflict.requirement) from None
            raise
        self.reqs[(name, _key(msg["id"]))] = qid
        self.sent[qid] = msg
        conn.requests.append(qid)

    def _refused(self, msg, conn) -> NotGenerated | None:
        """Why no model client sends `msg` in any candidate state, or None when one may."""
        why = None
        for c in self.cands:
            try:
                decode(c.world, msg, conn, c.ids, self.mapping)
            except NotGenerated as e:
                why = why or e
            else:
                return None
        return why

    def _unmodelled(self, name, conn, msg, why, tool=False) -> None:
        """A request (or notification, or response) no model client sends: recorded with the assumption
        made in its place (state unchanged), its answer and run events checked against it later."""
        entry = self.outside.add(self.events[self.index], name, msg, why, tool)
        if entry["check"] != "holds":          # it owes an answer
            if conn.transport == "http":
                self.outside.conns[name] = entry
            else:
                self.outside.ids[(name, _key(msg["id"]))] = entry

    def _lookahead(self, name, conn, msg):
        """The server's first message to this request in the rest of the log, if it has one: what a
        request is answered with at once is checked on receipt (internal steps may precede it)."""
        rpc = msg.get("id")
        places = self._places(name)
        for n in islice(places, bisect_right(places, self.index), None):
            d = self.events[n].data
            if d["event"] == "close":
                return None
            if d["event"] == "message" and d["dir"] == "s2c":
                m = d["message"]
                if conn.transport == "http" or m.get("id") == rpc and "method" not in m or \
                        ((m.get("params") or {}).get("_meta") or {}).get(wire.META_SUBSCRIPTION_ID) == rpc:
                    return self.events[n]
            if d["event"] == "message" and d["dir"] == "c2s" and conn.transport == "http":
                return None
        return None

    def _places(self, name) -> list[int]:
        """The places in the log of connection `name`'s events, in order: a request's answer is looked
        for among its connection's own (scanning the rest of the log from every request, for an answer
        that never comes, grew with the log's length squared)."""
        if self._by_conn is None:
            self._by_conn = {}
            for n, ev in enumerate(self.events):
                self._by_conn.setdefault(ev.data.get("conn"), []).append(n)
        return self._by_conn.get(name, [])

    def _c2s_note(self, name, conn, msg) -> None:
        method = msg["method"]
        if method != "notifications/cancelled" or conn.transport != "stdio":
            return self._unmodelled(name, conn, msg, f"notification {method} over {conn.transport}")
        qid = self.reqs.get((name, _key((msg.get("params") or {}).get("requestId"))))
        if qid is None:
            return self._unmodelled(name, conn, msg, "a notifications/cancelled naming no request of this session "
                                                     "the model sent")
        out = []
        for c in self.cands:
            q = c.world.requests[qid]
            if q.cancel_sent or q.phase not in ("received", "streaming", "sent"):
                continue
            out.append(self._apply(c, "stdio_cancel", dict(request=qid)))
        if not out:
            return self._unmodelled(name, conn, msg, f"a notifications/cancelled for {qid}, already cancelled or "
                                                     "answered and delivered")
        self.cands = out

    # ---- server to client --------------------------------------------------------------------
    def _target(self, name, conn, msg):
        if "method" not in msg:
            key = (name, _key(msg.get("id")))
            if key in self.ignored:
                return None
            qid = self.reqs.get(key)
            if qid is None:
                raise Stop("diverges", f"a response to id {msg.get('id')!r}, which no request on {name} carried")
            return qid
        if conn.transport == "http":
            if not conn.requests:
                raise Stop("diverges", f"a {msg['method']} on {name} before any request on it")
            return conn.requests[-1]
        params = msg.get("params") or {}
        for ref in ((params.get("_meta") or {}).get(wire.META_SUBSCRIPTION_ID), params.get("requestId"),
                    params.get("progressToken")):
            if ref is not None and (name, _key(ref)) in self.reqs:
                return self.reqs[(name, _key(ref))]
        raise Stop("diverges", f"a {msg['method']} on stdio session {name} naming none of its requests")

    def _outside_target(self, name, conn, msg) -> dict | None:
        if conn.transport == "http":
            return self.outside.conns.get(name)
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        refs = [msg.get("id")] if "method" not in msg else [
            meta.get(wire.META_SUBSCRIPTION_ID), params.get("requestId"), params.get("progressToken")]
        keys = [(name, _key(r)) for r in refs if isinstance(r, (str, int))]
        return next((self.outside.ids[k] for k in keys if k in self.outside.ids), None)

    def _s2c(self, name, conn: Conn, msg: dict, http) -> None:
        entry = self._outside_target(name, conn, msg)
        if entry is not None:
            if "method" not in msg:
                self.outside.answered(entry, msg)
            return
        qid = self._target(name, conn, msg)
        if qid is None:
            return
        first = conn.s2c == 0
        conn.s2c += 1
        observed = shape(msg)
        status = (http or {}).get("status") if first and "method" not in msg else None

        def goal(c):
            queue = c.out.get(qid)
            if not queue:
                return None if c.world.requests[qid].phase in OPEN_PHASES else []
            ids = unify(observed, shape(queue[0][0]), c.ids)
            if ids is None:
                return []
            if status is not None and c.world.requests[qid].http_status not in (None, status) or not self._timely(c):
                return []
            ids = self._answer(c, qid, queue[0][0], msg, status, ids, self.events[self.index], self.sent[qid])
            if ids is None or "method" not in msg and _unlogged(c, qid):
                return []
            return [c.but(ids=ids, out=_popped(c.out, qid))]
        def focus(world):
            q = world.requests[qid]
            runs = {q.run, *q.acked} | runs_created_by(world, qid)
            # A tasks/* request learns its run only when answered: the run it names is moved too (its
            # purge, after the clock passes its retention, decides a not-found answer).
            return runs | _named_runs(world, self.sent[qid], self.cands), {qid}
        skipped = self._skipped(qid, msg, observed) if msg.get("method") == "notifications/tasks" else None
        try:
            self.search(goal, f"{describe(msg)} on {qid}", allow_events=False, focus=focus,
                        answering=qid if "method" not in msg else None)
        except Stop as e:
            if e.kind == "diverges" and skipped is not None:
                raise Stop("diverges", skipped, e.allowed, requirement="NTF-4") from None
            if e.kind != "diverges" or self.conflict is None:
                raise
            raise Stop("diverges", self.conflict.reason, e.allowed, requirement=self.conflict.requirement) from None

    def _skipped(self, qid, msg, observed) -> str | None:
        """NTF-4 (a change withheld): the notification the host sent is one the model owes the listen
        stream only after others it never sent, in some candidate; why, in words, or None."""
        for c in self.cands:
            queue = c.out.get(qid) or ()
            for j in range(1, len(queue)):
                if queue[j - 1][0].get("method") != "notifications/tasks":
                    break
                if unify(observed, shape(queue[j][0]), c.ids) is not None:
                    return (f"listen stream {qid} was sent {describe(msg)} but not the {describe(queue[0][0])} owed "
                            f"before it, for the change the log shows by line {self.events[queue[0][2]].line}: "
                            f"a change of the task withheld")
        return None

    def _answer(self, c, qid, model_msg, msg, status, ids, ev, request):
        """The bindings with the host's answer checked against every earlier one the model words alike
        (answers.py), or None, the conflict kept to name its requirement. `request`: as the log shows it."""
        q = c.world.requests[qid]
        echo = (request.get("params") or {}).get("taskId") if isinstance(request.get("params"), dict) else None
        got, conflict = bind_error(ids, q, model_msg, msg, status, ev.index, ev.line, not_found_class(c.world, q),
                                   echo if isinstance(echo, str) else None)
        if conflict is not None and self.conflict is None:
            self.conflict = conflict
        return got

    # ---- run events --------------------------------------------------------------------------
    def _run(self, d) -> None:
        real = d["runId"]
        if real in self.outside.runs:
            return                      # a run outside the model: nothing of it is judged
        try:
            self._run_modelled(d, real)
        except Stop as e:
            # A run event nothing in the model explains, while an unmodelled exchange is open: the
            # exchange changed state after all; its run is set outside the model (outside.py).
            opened = self.outside.open()
            if e.kind != "diverges" or not opened:
                raise
            self.outside.taint(opened[-1], real, f"run event {d['kind']} of {real} while it was open")

    def _run_modelled(self, d, real) -> None:

        def goal(c):
            mid = c.ids.to_model("run", real)
            if mid is not None:
                queue = c.runq.get(mid)
                if not queue:
                    return None
                got = _match_run(d, queue[0], c, real, mid)
                return [got] if got is not None else []
            out = []
            for rid, queue in c.runq.items():
                if queue and c.ids.to_real("run", rid) is None and c.ids.can_bind("run", real, rid):
                    got = _match_run(d, queue[0], c, real, rid)
                    if got is not None:
                        out.append(got)
            return out or None
        self.search(goal, f"run event {d['kind']} of {real}", allow_events=True, focus=_run_focus(real, self),
                    kind=(d["kind"], d.get("data") or {}))

    def finish(self) -> None:
        """At the end of the log: no listen stream still open is owed a notification of a change the log
        showed the host's notification bound (`notify_within`) before it ends (NTF-4); with run events,
        every event the model appended was logged."""
        end = self.events[-1].data["t"]
        late = [self._late(c, end) for c in self.cands]
        owed = next((o for c in self.cands for o in _owed(c)), None)
        if owed is not None and not all(late):     # owed when the log ends, not yet for the bound: not judged
            qid, (m, _, index) = owed
            self.notes_pending = [f"listen stream {qid} was owed the {describe(m)} for the change the log shows by "
                                  f"line {self.events[index].line} when the log ends, "
                                  f"{end - self.events[index].data['t']:.1f} s later, within the host's bound of "
                                  f"{self.notify_within:g} s: whether it was sent is not judged"]
        if all(late):
            qid, (m, _, index) = late[0]
            before = end - self.events[index].data["t"]
            bound = "declared" if self.notify_declared else "assumed: mapping host.notify_within_s declares none"
            raise Stop("diverges", f"listen stream {qid} is still open when the log ends, and was never sent the "
                                   f"{describe(m)} owed for the change the log shows by line "
                                   f"{self.events[index].line}, {before:.1f} s before: a change of the task never "
                                   f"notified (within {self.notify_within:g} s, {bound})", [f"{qid}: {describe(m)}"],
                       at=self.events[-1].index, requirement="NTF-4")
        if not self.run_events:
            return
        live = [c for c in self.cands if not any(q for rid, q in c.runq.items()
                                                 if c.ids.to_real("run", rid) not in self.outside.runs)]
        if not live:
            owed = sorted({f"{rid}: {q[0][0]['type']}" for c in self.cands[:3] for rid, q in c.runq.items() if q})
            raise Stop("diverges", "the log ends, and the host never logged run events the model appended", owed)
        self.cands = live

    def _late(self, c, end: float):
        """(listen stream, the notification it is owed) of candidate `c` owed for `notify_within` or more
        at log time `end`, or None."""
        return next(((qid, head) for qid, head in _owed(c)
                     if end - self.events[head[2]].data["t"] >= self.notify_within), None)


def _owed(c):
    """(listen stream, the notification it is owed first) of candidate `c`, for each stream owed one."""
    return ((qid, queue[0]) for qid, queue in c.out.items()
            if queue and queue[0][0].get("method") == "notifications/tasks")


def _unlogged(c, qid) -> list:
    """The run events the host's step answering `qid` appended that the log has not shown yet: a host
    logs what processing a request did before it answers it (its answer tells of it), so the answer
    is no explanation before them."""
    return [entry for queue in c.runq.values() for entry in queue if entry[3] == qid]


def _match_run(d, entry, c, real, mid):
    event, status = entry[:2]
    if event.get("type") != d["kind"] or (d.get("status") is not None and status is not None and d["status"] != status):
        return None
    ids = c.ids
    data = d.get("data") or {}
    for k in ("kind", "action", "via", "reason", "approvers"):
        if k in data and k in event and _plain(data[k]) != _plain(event[k]):
            return None
    if "mode" in data and event.get("interruptId") in c.world.interrupts:      # form, or url for a credential
        if data["mode"] != ("form" if c.world.interrupts[event["interruptId"]].form else "url"):
            return None
    bind = [("run", real, mid)]
    if isinstance(data.get("interruptId"), str) and "interruptId" in event:
        bind.append(("interrupt", raw_of(data["interruptId"])[0], event["interruptId"]))
    for kind, r, m in bind:
        if ids.to_model(kind, r) == m:
            continue
        if not ids.can_bind(kind, r, m):
            return None
        ids = ids.copy() if ids is c.ids else ids
        ids.bind(kind, r, m)
    return c.but(ids=ids, runq=_popped(c.runq, mid))


def _run_focus(real, m):
    def focus(world):
        bound = {c.ids.to_model("run", real) for c in m.cands} - {None}
        return (bound or set(world.runs)), set()
    return focus


def _named_runs(world, msg, cands) -> set:
    """The model runs a request names (its taskIds, bound in some candidate, or the call it retries)."""
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    out = set()
    for ref in task_refs(params):
        if isinstance(ref, str):
            out |= {c.ids.to_model("run", c.ids.real_of(ref)) for c in cands} - {None}
    token = params.get("requestState")
    for c in cands:
        mtoken = c.ids.to_model("token", token) if isinstance(token, str) else None
        if mtoken in world.request_states:
            out.add(world.request_states[mtoken].run)
    return out


def _guesses(c, msg) -> list:
    """The candidate under each binding of an id the request names that the log never showed: a
    client may know a task or an interrupt from elsewhere (a REST read, a host's UI), so the id may
    name any model run or interrupt not yet bound (of the tenant it names), or none. Tried only
    when reading it as naming nothing does not explain the host's answer."""
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    refs = task_refs(params)
    world = c.world
    out = [c]
    for ref in refs:
        if not isinstance(ref, str):
            continue
        raw, form = raw_of(ref)
        if form not in ("projected", "pct") or c.ids.to_model("run", raw) is not None:
            continue
        out = out + [x.but(ids=_bound(x.ids, "run", raw, rid)) for x in out for rid in world.runs
                     if x.ids.to_real("run", rid) is None and x.ids.can_bind("run", raw, rid)]
    keys = list(params.get("inputResponses") or {}) if msg.get("method") == "tasks/update" else []
    for key in keys:
        raw, form = raw_of(key)
        if form == "literal" or c.ids.to_model("interrupt", raw) is not None:
            continue
        out = out + [x.but(ids=_bound(x.ids, "interrupt", raw, iid)) for x in out for iid in world.interrupts
                     if x.ids.to_real("interrupt", iid) is None and x.ids.can_bind("interrupt", raw, iid)]
    return out


def _bound(ids, kind, real, model):
    ids = ids.copy()
    ids.bind(kind, real, model)
    return ids


def _plain(v):
    return list(v) if isinstance(v, (list, tuple)) else v


def _popped(queues: dict, key) -> dict:
    """`queues` with the first of `key`'s queue taken, and the key gone once its queue is empty: the
    queues are read whole (`search._queued`) and must not grow with the requests a session made."""
    out = dict(queues)
    rest = out[key][1:]
    if rest:
        out[key] = rest
    else:
        del out[key]
    return out


def _key(rpc_id):
    """JSON-RPC ids compare by type and value (1 and "1" are different ids)."""
    return (type(rpc_id).__name__, rpc_id)
