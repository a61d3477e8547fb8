"""After a divergence: which requirement the observed behaviour breaks, if the model can say.

Two ways, tried in turn:
1. the built-in variants as hypotheses: a variant that explains the log through the divergent
   event, every explanation of which breaks a requirement the variant is known to break, names
   that requirement (the host behaves as that amendment, and the amendment costs this id);
2. forcing: the step that should have produced the observed message or run event is replayed in
   the model with the observed one in place of the model's (a response substituted, an extra
   message or event appended), and the catalogue is run on that step: a property that fails
   there names the requirement.
Neither finding one leaves the divergence "not a behaviour of the model".
"""
from __future__ import annotations

import copy
import re
import time

from model.snapshot import clone

from verifier.validate.ids import in_form, raw_of
from verifier.validate.observe import NotGenerated, decode

# The diagnosis is bounded by work, so that it names the same requirement and variant on any machine:
# its hypotheses together take as many model steps as the match of the log did (a diverging log costs
# about twice a conforming one), and at least FLOOR_STEPS. The validation's wall-clock cap still
# bounds it from outside.
FLOOR_STEPS = 5_000


class _Work:
    """The model steps the diagnosis has left, spent by each hypothesis's match (of the host as declared)."""

    def __init__(self, steps: int, host=None):
        self.left, self.host = steps, host

    def match(self, *args, **kw):
        from verifier.validate import match
        m, matched, stop = match(*args, max_steps=self.left, host=self.host, **kw)
        self.left -= m.steps
        return m, matched, stop


def explain(res, events, mapping, cls, run_events, props, deadline: float, steps: int, main=None, host=None) -> None:
    """A variant that passes the diverging event, else the requirement judged on the observed bytes
    (already in the divergence), else the one forcing names; else the divergence stays "not a
    behaviour of the model", with what the model allowed. `steps`: the diagnosis's work budget.

    The reason says what the host did, in its own words: a requirement judged on the bytes keeps its
    reason (a variant that plays the host is named beside it), a variant is named by what it changes
    (its properties' messages speak of the variant's own words and ids, not the host's), and forcing
    quotes the observed message, its free text and times the model's own."""
    d = res.divergence
    direct = d.requirement
    work = _Work(steps, host)
    if main is not None:
        d.reason = in_log_terms(d.reason, main, events)
    forced = None if direct else _by_forcing(events, mapping, cls, run_events, props, d.index, deadline, work, main)
    first = {direct} if direct else forced[2]["all"] if forced else set()
    found = _by_variants(events, mapping, run_events, props, d.index, deadline, work, first) if cls is None else None
    if direct:
        if found is not None and direct in found[2]["want"]:
            d.reason = f"{d.reason}; variant {_said(found[2]['variant'])} explains the log to here"[:400]
        return
    if found is not None:
        prop, message, extra = found
        req = next((i for i in prop.ids if i in extra["want"]), prop.ids[0])
        reason = (f"variant {_said(extra['variant'])} explains the log to here and breaks {prop.name} "
                  f"({', '.join(prop.ids)}) at this event")
        if forced is not None and req in forced[2]["all"]:
            reason += f"; forcing the observed {forced[2]['what']} into the model: {forced[1]}"
    elif forced is not None:
        prop, message, extra = forced
        req = prop.ids[0]
        reason = (f"forcing the observed {extra['what']} into the model breaks {prop.name} ({', '.join(prop.ids)}): "
                  f"{message}")
    else:
        return
    d.requirement = req
    d.reason = (in_log_terms(reason, main, events) if main is not None else reason)[:400]
    d.also = sorted((forced[2]["all"] if forced else set()) - {req})


def _said(v) -> str:
    return f"{v.name} ({v.changes})"


MODEL_NAMES = re.compile(r"\b(r\d+|run\d+|i\d+)\b")


def in_log_terms(text: str, main, events) -> str:
    """`text` with each model request id (r7) and run or interrupt label (run2, i3) it names followed,
    once, by what the log calls it (the line of the request, the host's id), and each model id it
    quotes whole replaced by the host's."""
    if not main.cands:
        return text
    c = main.cands[0]
    lines = {}
    for ev in events:
        x = ev.data
        if x["event"] == "message" and x["dir"] == "c2s" and "id" in x["message"]:
            lines.setdefault((x["conn"], (type(x["message"]["id"]).__name__, x["message"]["id"])), ev.line)
    where = {qid: f"line {lines[key]}" for key, qid in main.reqs.items() if key in lines}
    for kind, table in (("run", c.world.runs), ("interrupt", c.world.interrupts)):
        for mid, record in table.items():
            real = c.ids.to_real(kind, mid)
            if real is not None:
                where[record.label] = real
                text = text.replace(mid, real)          # a model id quoted whole: the host's in its place
    seen = set()

    def name(match):
        token = match.group(1)
        if token in seen or token not in where:
            return token
        seen.add(token)
        return f"{token} ({where[token]})"
    return MODEL_NAMES.sub(name, text)


def _by_variants(events, mapping, run_events, props, index, deadline, work, first):
    """A built-in variant explaining the log through the diverging event (one breaking `first`, when
    given), and the property it breaks there."""
    from model.variants import builtins

    fallback = None
    # Each variant costs a match of the log up to the event: with a requirement already found (judged
    # on the bytes, or by forcing), only the variants that break one of the ids found there are tried;
    # with none, every variant, in the order of their names, until the work budget is spent.
    for v in builtins().values():
        want = {rid for rid, verdict in v.expect.items() if verdict == "refuted"}
        if not want or first and not want & first:
            continue
        if work.left <= 0 or time.monotonic() > deadline:
            break
        try:
            m, matched, stop = work.match(events, mapping, v, run_events, props, deadline, stop_on_violation=False,
                                          upto=index + 1)
        except Exception:       # a variant's rule that raises on this log explains nothing
            continue
        if stop is not None or matched < index + 1 or not m.cands:
            continue
        broken = [c.violation for c in m.cands]
        if all(b is not None and set(b[1].ids) & want for b in broken):
            _, prop, message = broken[0]
            found = prop, message, {"variant": v, "want": want}
            # Several variants may explain one log; the one that breaks what forcing the observation
            # breaks is the apt one, whatever the order of their names.
            if not first or set(prop.ids) & first:
                return found
            fallback = fallback or found
    return fallback


def _by_forcing(events, mapping, cls, run_events, props, index, deadline, work, main=None):
    ev = events[index]
    d = ev.data
    c2s = _request_of(events, index) if d["event"] == "message" and d["dir"] == "s2c" else None
    asserted = [p for p in props if p.asserted]
    if main is not None and c2s is not None:
        got = _judge(asserted, ((f, "response") for c in main.cands[:20]
                                for f in _answered(main, c, events, c2s.index, index)))
        if got is not None:
            return got
    # A response checked on receipt is forced into the receipt step; one matched at its own event (its
    # request already answered in the model, say) into the step that sent it.
    upto = c2s.index if c2s is not None and (main is None or main.index != index) else index
    m, matched, stop = work.match(events, mapping, cls, run_events, props, deadline, stop_on_violation=False,
                                  upto=upto, keep=True)
    if stop is not None:
        return None
    return _judge(asserted, ((f, what) for c in m.cands[:20] for f, what in _forced(m, c, events, upto, index)))


def _answered(main, c, events, upto, index):
    """The forced answer from the candidates the match stopped at, without matching the log again: the
    host's step answering the request (received, or received now), with the observed answer in it."""
    d, req = events[index].data, events[upto].data
    qid = main.reqs.get((req["conn"], (type(req["message"].get("id")).__name__, req["message"].get("id"))))
    if qid is None:            # stopped on receipt: the candidates are the states before the request
        try:
            action, args, sent = decode(c.world, req["message"], main.conns[req["conn"]], c.ids, main.mapping)
        except NotGenerated:
            return
        qid = f"r{len(c.world.requests) + 1}"
        world, step = _replay((c.world, action, args, sent))
    elif qid in c.world.requests:
        world, step = clone(c.world), None
    else:
        return
    step = _answer_step(world, qid, step)
    if step is not None:
        yield _substitute(world, step, qid, _to_model(d["message"], c.ids, main, d["conn"]), d.get("http"))


def _answer_step(world, qid, step):
    """`step` if it answered `qid`, else the host's step answering it (None when it cannot now)."""
    if step is not None and any(k == qid and "method" not in msg for k, msg in step.emitted):
        return step
    q = world.requests.get(qid)
    if q is None or q.phase != "received":
        return None
    try:
        return world.apply("answer" if q.method == "tools/call" else "respond", dict(request=qid), check=False)
    except Exception:          # the host's rules cannot answer it in this state
        return None


def _judge(asserted, forced_steps):
    """The first property a forced step breaks, its message, and every id broken there (each a
    hypothesis for the variants)."""
    for forced, what in forced_steps:
        broken = []
        for p in asserted:
            try:
                msg = p.check(forced[0], forced[1])
            except Exception:
                continue
            if msg:
                broken.append((p, msg))
        if broken:
            return broken[0][0], broken[0][1], {"what": what, "all": {i for p, _ in broken for i in p.ids}}
    return None


def _request_of(events, index):
    """The request event a response answers, when the response was what broke the match."""
    d = events[index].data
    rpc, conn = d["message"].get("id"), d["conn"]
    if rpc is None or "method" in d["message"]:
        return None
    for e in reversed(events[:index]):
        x = e.data
        if x.get("conn") == conn and x["event"] == "message" and x["dir"] == "c2s" and x["message"].get("id") == rpc:
            return e
    return None


def _forced(m, c, events, upto, index):
    """(world, step) pairs: the step that should have produced event `index`, with the observed
    message or event in place of (or beside) the model's."""
    d = events[index].data
    if d["event"] == "run":
        if c.origin is not None:
            world, step = _replay(c.origin)
            last = f"r{len(world.requests)}"
            if c.origin[1] not in ("respond", "answer") and world.requests.get(last) is not None \
                    and world.requests[last].method != "tools/call":
                # a tasks/* just received: its event comes with the host's answer, forced into that step
                step = _answer_step(world, last, None) or step
            rid = c.ids.to_model("run", d["runId"]) or _only_run(world)
            if rid is not None and rid in world.runs:
                data = _to_model(d.get("data") or {}, c.ids, m, None)       # the host's ids as the model's
                e = {"seq": len(world.runs[rid].log), "at": world.clock, "type": d["kind"], **data}
                world.runs[rid].log.append(e)
                step.events.append((rid, e))
                if d.get("status") is not None:      # the state change the event reports, forced too
                    world.runs[rid].status = d["status"]
                yield (world, step), f"run event {d['kind']}"
        return
    if d["event"] != "message" or d["dir"] != "s2c":
        return                 # a request the model's clients never send, or a close: nothing to force
    observed = _to_model(d["message"], c.ids, m, d["conn"])
    if upto != index:          # a response checked on receipt: the receipt step, with the observed response
        req = events[upto].data
        conn = m.conns[req["conn"]]
        try:
            action, args, sent = decode(c.world, req["message"], conn, c.ids, m.mapping)
        except NotGenerated:
            return
        qid = f"r{len(c.world.requests) + 1}"
        world, step = _replay((c.world, action, args, sent))
        step = _answer_step(world, qid, step)     # received, answered by the host's next step: forced there
        if step is not None:
            yield _substitute(world, step, qid, observed, d.get("http")), "response"
        return
    from verifier.validate.search import Stop
    try:
        qid = m._target(d["conn"], m.conns[d["conn"]], d["message"])
    except Stop:
        return
    queue = c.out.get(qid) if qid else None
    if queue:
        origin, k = queue[0][1]
        if origin is not None:
            world, step = _replay(origin)
            observed = _freed(observed, step.emitted[k][1])
            step.emitted[k] = (qid, observed)
            # the run events of the same step the log had not shown when this answer came: the host's
            # processing of the request did not do them (search: an answer comes after them)
            unlogged = sorted({e[2][1] for q in c.runq.values() for e in q if e[3] == qid and e[2][0] is origin})
            for j in reversed(unlogged):
                rid, e = step.events.pop(j)
                world.runs[rid].log[:] = [x for x in world.runs[rid].log if x is not e]
            what = "message, without the run events the log never showed before it" if unlogged else "message"
            yield _substitute(world, step, qid, observed, d.get("http")), what
    elif qid is not None and "method" not in d["message"]:
        world = clone(c.world)          # a response the host's next step sends: forced into that step
        step = _answer_step(world, qid, None)
        if step is not None:
            yield _substitute(world, step, qid, observed, d.get("http")), "response"
    elif qid is not None and c.origin is not None:
        world, step = _replay(c.origin)
        step.emitted.append((qid, observed))
        yield (world, step), "message"


def _replay(origin):
    from verifier.validate.search import send
    pre, name, args, sent = origin
    world = clone(pre)
    return world, send(world, name, args, sent)


def _substitute(world, step, qid, observed, http):
    own = next((msg for k, msg in step.emitted if k == qid and "method" not in msg), None)
    observed = _freed(observed, own) if own is not None and "method" not in observed else observed
    emitted = [(k, msg) for k, msg in step.emitted if not (k == qid and "method" not in msg)]
    step.emitted[:] = emitted + [(qid, observed)]
    q = world.requests.get(qid)
    if q is not None and "method" not in observed:
        q.response = observed
        if http and http.get("status") is not None and q.transport == "http":
            q.http_status = http["status"]
    return world, step


# What the validator never compares of a task (observe.OPTIONAL_TASK_KEYS, and its times): a forced
# message carries the model's own, which its properties read against its own world and clock.
FREE_TASK_KEYS = ("statusMessage", "createdAt", "lastUpdatedAt", "pollIntervalMs")


def _views(msg: dict) -> list:
    res = msg.get("result") if isinstance(msg.get("result"), dict) else None
    if res is not None and "taskId" in res:
        return [res]
    params = msg.get("params") if isinstance(msg.get("params"), dict) else None
    return [params] if msg.get("method") == "notifications/tasks" and params is not None else []


def _freed(observed: dict, own: dict) -> dict:
    """The observed message with what the validator does not compare taken from the model's own: a
    task's free text, times, hints and tool output text, a result's `_meta`, the words of an error of
    the model's code (the host's own words are judged on its bytes, answers.py)."""
    out = copy.deepcopy(observed)
    for o, m in zip(_views(out), _views(own)):
        for k in FREE_TASK_KEYS:
            if k in m:
                o[k] = m[k]
            else:
                o.pop(k, None)
        if o.get("ttlMs") is not None and m.get("ttlMs") is not None:
            o["ttlMs"] = m["ttlMs"]
        if isinstance(o.get("result"), dict) and isinstance(m.get("result"), dict):
            o["result"] = {**o["result"], "content": m["result"].get("content")}
    if isinstance(out.get("result"), dict) and isinstance(own.get("result"), dict):
        out["result"].pop("_meta", None)
        if "_meta" in own["result"]:
            out["result"]["_meta"] = own["result"]["_meta"]
    if isinstance(out.get("error"), dict) and isinstance(own.get("error"), dict) and \
            out["error"].get("code") == own["error"].get("code"):
        out["error"] = dict(own["error"])
    return out


def _only_run(world):
    return next(reversed(world.runs), None) if world.runs else None


def _walk(x, one):
    """`x` with `one` applied to every key and leaf (a module function: a closure calling itself is a
    reference cycle)."""
    if isinstance(x, dict):
        return {one(k): _walk(v, one) for k, v in x.items()}
    if isinstance(x, list):
        return [_walk(v, one) for v in x]
    return one(x)


def _to_model(msg, ids, m, conn):
    """The observed message with every id the candidate has bound written as the model's."""
    def one(s):
        if not isinstance(s, str):
            return s
        tok = ids.to_model("token", s)
        if tok is not None:
            return tok
        raw, form = raw_of(s)
        if ids.binding.opaque:              # an opaque id stands whole for the model's, in the model's form
            raw, form = s, None
        for kind in ("run", "interrupt"):
            got = ids.to_model(kind, raw)
            if got is not None:
                if form is None:
                    return in_form(got, "projected" if kind == "run" else "raw")
                return in_form(got, form if form != "literal" else "raw")
        return s
    out = _walk(msg, one)
    if "id" in msg:
        key = (conn, (type(msg["id"]).__name__, msg["id"]))
        out["id"] = m.reqs.get(key, f"r{len(m.cands[0].world.requests) + 1}" if m.cands else msg["id"])
    return out
