"""tasks/update and replay (RFC 0198 §E.7-8): an interrupt is resolved once, by whom it may be, as answered.

A client answers a run's open interrupt through `tasks/update`, an MRTR retry's `inputResponses`,
or REST `resolveInterruptByRun`; an external event resolves an `external-event` interrupt.

- UPD-1 (safety). At most one `interrupt.resolved` per interruptId, however many answers arrive
  and in whatever interleaving of `tasks/update`, MRTR retries and REST.
- UPD-2 (safety). A resolution answers an interrupt the run issued (its `interrupt.requested` is in
  the log), that was still open (not yet resolved, the run still waiting on it), through an answer
  that named it, from a caller who is an eligible approver by the recorded request (same tenant,
  `approvals:respond`, on the approvers list when there is one). A never-issued, answered or
  closed key, or an ineligible caller, resolves nothing.
- UPD-3 (safety). A declaring `tasks/update` (matching `Mcp-Name`) on a task the caller can read is
  answered with the empty result, exactly `{"resultType": "complete"}`, whatever it resolved; a
  caller who is not an eligible approver may instead get `-32602` where P-APPROVER or
  P-UNAUTHORIZED say so, and nothing else.
- UPD-4 (safety). The recorded resolution is the answer given (accept, decline or cancel), the run
  resumes when no interrupt is left open, and no answer cancels the run. Its must half: a served
  tasks/update from an eligible approver answering an open interrupt of the run its taskId names
  (a run the caller can read) resolves that interrupt at that step.
- RPL-1 (trace). A fork copies its source's history as history: every copied event is verbatim (the
  recorded resolver, action and approvers, never re-decided) and marked replayed, and the fork
  never raises a new `interrupt.requested` or `interrupt.resolved` for an interrupt its source
  recorded.
"""
from __future__ import annotations

from model import identity
from model.facts import Leaves

from .base import annotate, handled, learnt_at, prop

WAITING = ("waiting-approval", "waiting-input", "waiting-external")
CLIENT_VIAS = ("tasks/update", "mrtr", "rest")


# ---- what this step answered ----------------------------------------------------------------------
def new_request(world, step):
    """The request the host processed at this step (the last one), or None."""
    got = handled(world, step)
    return got[-1] if got else None


def _task_run_id(world, ref: str | None) -> str | None:
    raw = identity.unproject(ref) if ref else None
    if raw is None and ref:
        raw = next((r.id for r in world.runs.values() if world.rules.task_id(world, r) == ref), None)
    return raw


def _key_names(world, key: str) -> set[str]:
    """The raw interruptIds a tasks/update key may name (P-KEYFORM)."""
    names = {key}
    if world.params.p_keyform == "raw-or-projected":
        raw = identity.unproject(key)
        if raw:
            names.add(raw)
    return names


def answers(world, step) -> list[dict]:
    """Each answer this step carried: who answered, which interrupt ids it named, with what, for which run."""
    a = step.action
    if a == "rest_resolve":
        return [dict(caller=step.args["subject"], names={step.args["interrupt"]}, response=step.args["response"],
                     via="rest", run=None, request=None)]
    if a == "external_event":
        return [dict(caller="external", names={step.args["interrupt"]}, response="external", via="external",
                     run=None, request=None)]
    q = new_request(world, step)
    if q is None:
        return []
    params = q.message.get("params") or {}
    if q.method == "tasks/update":
        run = _task_run_id(world, q.task_ref)
        return [dict(caller=q.subject, names=_key_names(world, k), response=v.get("action"), via="tasks/update",
                     run=run, request=q.id) for k, v in (params.get("inputResponses") or {}).items()]
    if q.method == "tools/call" and q.retry_of is not None:
        rs = world.request_states.get(params.get("requestState") or "")
        return [dict(caller=q.subject, names={k}, response=v.get("action"), via="mrtr",
                     run=rs.run if rs else None, request=q.id)
                for k, v in (params.get("inputResponses") or {}).items()]
    return []


def requested_event(run, interrupt_id: str, before_seq: int | None = None) -> dict | None:
    """The run's own (not replayed) interrupt.requested for interrupt_id, logged before before_seq."""
    for e in run.log:
        if before_seq is not None and e["seq"] >= before_seq:
            break
        if e.get("type") == "interrupt.requested" and e.get("interruptId") == interrupt_id and not e.get("replayed"):
            return e
    return None


def earlier_resolution(run, interrupt_id: str, before_seq: int) -> dict | None:
    for e in run.log:
        if e["seq"] >= before_seq:
            break
        if e.get("type") == "interrupt.resolved" and e.get("interruptId") == interrupt_id and not e.get("replayed"):
            return e
    return None


def eligible(world, caller: str, run, requested: dict) -> bool:
    """interrupt.md: same tenant, approvals:respond, on the recorded approvers list when there is one."""
    try:
        s = world.params.subject(caller)
    except StopIteration:
        return False
    approvers = requested.get("approvers")
    return s.tenant == run.tenant and "approvals:respond" in s.scopes and (approvers is None or caller in approvers)


def _resolutions(step):
    return [(rid, e) for rid, e in step.events if e.get("type") == "interrupt.resolved" and not e.get("replayed")]


def _owner_run_of(world, interrupt_id: str):
    i = world.interrupts.get(interrupt_id)
    if i is not None:
        return world.runs.get(i.run)
    return next((r for r in world.runs.values() if requested_event(r, interrupt_id)), None)


# ---- UPD-1 ----------------------------------------------------------------------------------------
# UPD-1's cases: the surfaces of the answer that resolved an interrupt and of a later one naming it.
UPD1_PAIRS = {frozenset({"tasks/update"}): "two tasks/update",
              frozenset({"tasks/update", "mrtr"}): "tasks/update and an MRTR retry",
              frozenset({"tasks/update", "rest"}): "tasks/update and a REST resolve",
              frozenset({"mrtr", "rest"}): "an MRTR retry and a REST resolve"}


def _first_resolution(world, step, interrupt_id: str) -> dict | None:
    """The interrupt's resolution logged before this step, or None."""
    run = _owner_run_of(world, interrupt_id)
    if run is None:
        return None
    here = {id(e) for _, e in step.events}
    return next((e for e in run.log if e.get("type") == "interrupt.resolved" and e.get("interruptId") == interrupt_id
                 and not e.get("replayed") and id(e) not in here), None)


def _resolved_before(world, step, interrupt_id: str) -> bool:
    return _first_resolution(world, step, interrupt_id) is not None


def _upd1_premise(world, step) -> tuple:
    """An answer at this step names an interrupt an earlier answer already resolved: by the two surfaces."""
    got = []
    for a in answers(world, step):
        for n in a["names"]:
            first = _first_resolution(world, step, n)
            if first is not None:
                got.append(UPD1_PAIRS.get(frozenset({first.get("via"), a["via"]})))
    return tuple(dict.fromkeys(c for c in got if c is not None))


@prop("interrupt-resolved-at-most-once", "UPD-1", "step", "RFC §E.7",
      "At most one interrupt.resolved per interruptId, however many tasks/update, MRTR retries and REST "
      "resolves answer it, in any interleaving.", premise=_upd1_premise,
      reads=("events", "created", "respond", "rest_resolve", "external_event"), cases=tuple(UPD1_PAIRS.values()))
def upd1_resolved_at_most_once(world, step):
    seen = world.facts.peek("UPD-1", {})            # interruptId -> (runId, seq, via)
    for rid, e in _resolutions(step):
        iid = e.get("interruptId")
        first = seen.get(iid)
        if first is None:
            seen = world.facts.setdefault("UPD-1", Leaves())
            seen[iid] = (rid, e["seq"], e.get("via"))
            annotate(world, "UPD-1", iid, step.index)
        elif (first[0], first[1]) != (rid, e["seq"]):
            return (f"{world.label(iid)} of {world.label(rid)} was resolved twice: first via {first[2]} "
                    f"(step {learnt_at(world, 'UPD-1', iid)}), again via {e.get('via')} by {e.get('by')} ({e.get('action')}) at a "
                    f"{step.action} step")
    return None


# ---- UPD-2 ----------------------------------------------------------------------------------------
UPD2_CASES = ("a key never issued", "already answered", "no longer open", "an ineligible resolver",
              "a key of another run")


def _must_resolve_nothing(world, step, a, name) -> str | None:
    """Why an answer naming `name` must resolve nothing (the first of the sentence's reasons), or None."""
    run = _owner_run_of(world, name)
    if run is None:
        return UPD2_CASES[0]
    if a["run"] is not None and run.id != a["run"]:
        return UPD2_CASES[4]
    req = requested_event(run, name)
    if req is None:
        return UPD2_CASES[0]
    if req.get("kind") == "external-event":
        return None                        # no input request at all: not a reason the sentence names
    if _resolved_before(world, step, name):
        return UPD2_CASES[1]
    if step.pre_status.get(run.id) not in WAITING:
        return UPD2_CASES[2]
    return None if eligible(world, a["caller"], run, req) else UPD2_CASES[3]


def _upd2_premise(world, step) -> tuple:
    """An answer at this step that must resolve nothing, by why."""
    return tuple(dict.fromkeys(c for a in answers(world, step) if a["via"] != "external" for n in a["names"]
                               if (c := _must_resolve_nothing(world, step, a, n)) is not None))


@prop("unopen-or-ineligible-resolves-nothing", "UPD-2", "step", "RFC §E.7, interrupt.md",
      "A resolution answers an interrupt its run issued and still had open, through an answer naming it, by "
      "an eligible approver; a never-issued, answered or closed key, or an ineligible resolver, resolves "
      "nothing.", premise=_upd2_premise, reads=("events", "created", "respond", "rest_resolve", "external_event"),
      cases=UPD2_CASES)
def upd2_only_open_issued_eligible(world, step):
    resolutions = _resolutions(step)
    if not resolutions:
        return None
    given = answers(world, step)
    for rid, e in resolutions:
        run, iid, label = world.runs[rid], e.get("interruptId"), world.label(e.get("interruptId"))
        req = requested_event(run, iid, e["seq"])
        if req is None:
            return f"{world.label(rid)} resolved {label}, which it never issued (no interrupt.requested in its log)"
        earlier = earlier_resolution(run, iid, e["seq"])
        if earlier is not None:
            return (f"{label} of {world.label(rid)} was already answered (via {earlier.get('via')}) and was resolved "
                    f"again via {e.get('via')}")
        pre = step.pre_status.get(rid)
        if pre not in WAITING:
            return (f"{label} of {world.label(rid)} was resolved via {e.get('via')} although the run was {pre}, "
                    f"not waiting on it")
        naming = [a for a in given if iid in a["names"] and (a["run"] is None or a["run"] == rid)]
        if not naming:
            sent = [sorted(a["names"]) for a in given]
            return (f"{label} of {world.label(rid)} was resolved at a {step.action} step by no answer naming it "
                    f"(the answers named {sent or 'nothing'})")
        a = naming[0]
        if a["via"] == "external":
            if req.get("kind") != "external-event":
                return f"an external event resolved {label}, a {req.get('kind')} interrupt a client must answer"
            continue
        if req.get("kind") == "external-event":
            return f"{a['caller']} resolved the external-event interrupt {label} via {a['via']}: it is no input request"
        if not eligible(world, a["caller"], run, req):
            return (f"{a['caller']} resolved {label} of {world.label(rid)} via {a['via']}"
                    f"{' (request ' + a['request'] + ')' if a['request'] else ''} but is not an eligible approver "
                    f"(approvers {req.get('approvers')}, run tenant {run.tenant})")
    return None


# ---- UPD-3 ----------------------------------------------------------------------------------------
def readable_task(world, q):
    """The run q's taskId names, when the caller may read it (getRun), else None (independent of the host)."""
    rid = _task_run_id(world, q.task_ref)
    run = world.runs.get(rid) if rid else None
    if run is None or run.server != q.server or run.purged or not run.durable:
        return None
    s = world.params.subject(q.subject)
    return run if s.tenant == run.tenant and "runs:read" in s.scopes else None


def served_task_request(world, q) -> bool:
    """A tasks/* request that declared the extension to a host serving it, with a matching Mcp-Name."""
    return (q.declares_tasks and world.params.serves_tasks(q.server)
            and (q.transport != "http" or q.mcp_name == q.task_ref))


def response_to(step, qid):
    for rid, m in step.emitted:
        if rid == qid and ("result" in m or "error" in m):
            return m
    return None


def _upd3_subject(world, step):
    q = new_request(world, step)
    if q is None or q.method != "tasks/update" or not served_task_request(world, q):
        return None, None
    return q, readable_task(world, q)


def _ineligible_keys(world, q, run) -> list[str]:
    """The input requests of `run` q's keys name whose recorded approvers exclude q's caller."""
    out = []
    for k in (q.message["params"].get("inputResponses") or {}):
        for n in _key_names(world, k):
            req = requested_event(run, n)
            if req is not None and req.get("kind") != "external-event" and not eligible(world, q.subject, run, req):
                out.append(n)
    return out


UPD3_CASES = ("resolved something", "resolved nothing", "an ineligible approver")


def _upd3_premise(world, step) -> tuple:
    """A served tasks/update on a readable task: from an ineligible approver, else by what it resolved."""
    q, run = _upd3_subject(world, step)
    if run is None:
        return ()
    if _ineligible_keys(world, q, run):
        return (UPD3_CASES[2],)
    return (UPD3_CASES[0] if any(rid == run.id for rid, _ in _resolutions(step)) else UPD3_CASES[1],)


@prop("update-acknowledged-empty", "UPD-3", "step", "ext-tasks §Task Update Requests",
      "A declaring tasks/update on a task the caller can read is answered with the empty result whatever it "
      "resolved; an ineligible approver gets that or -32602 as P-APPROVER / P-UNAUTHORIZED say.",
      premise=_upd3_premise, reads=("created", "respond"), cases=UPD3_CASES)
def upd3_update_answered_empty(world, step):
    q, run = _upd3_subject(world, step)
    if run is None:
        return None
    msg = response_to(step, q.id)
    if msg is not None and msg.get("result") == {"resultType": "complete"}:
        return None
    ineligible = _ineligible_keys(world, q, run)
    may_refuse = bool(ineligible) and "error" in (world.params.p_approver, world.params.p_unauthorized)
    if may_refuse and msg is not None and (msg.get("error") or {}).get("code") == -32602 and "result" not in msg:
        return None
    got = "no response" if msg is None else (f"error {msg['error'].get('code')} {msg['error'].get('message')!r}"
                                              if "error" in msg else f"result {msg['result']}")
    return (f"tasks/update {q.id} from {q.subject} on {world.label(run.id)} (answering "
            f"{[world.label(n) for n in q.message['params'].get('inputResponses', {})]}) was answered with {got}, "
            f"not the empty result {{'resultType': 'complete'}}"
            + (f" or -32602 (caller ineligible for {[world.label(n) for n in ineligible]})" if may_refuse else ""))


# ---- UPD-4 ----------------------------------------------------------------------------------------
def _open_interrupts_in_log(run) -> set[str]:
    asked = [e["interruptId"] for e in run.log if e.get("type") == "interrupt.requested" and not e.get("replayed")]
    done = {e["interruptId"] for e in run.log if e.get("type") == "interrupt.resolved" and not e.get("replayed")}
    return {i for i in asked if i not in done}


def _owed_resolutions(world, step) -> list[tuple[str, str, dict]]:
    """(request, interruptId, its answer) for each answer a served tasks/update processed at this
    step gives an interrupt that must take it: issued by the run the request's taskId names, which
    the caller can read and which was waiting; open before the step (its log); an input request,
    not an external event; the caller an eligible approver by the recorded request. Judged from
    the log and the Subjects' rights alone, never from the host's record of its interrupts."""
    q = new_request(world, step)
    if q is None or q.method != "tasks/update" or not served_task_request(world, q):
        return []
    run = readable_task(world, q)
    if run is None or step.pre_status.get(run.id) not in WAITING:
        return []
    resolved_here = {e.get("interruptId") for rid, e in _resolutions(step) if rid == run.id}
    still_open = _open_interrupts_in_log(run) | resolved_here
    out = []
    for k, v in (q.message["params"].get("inputResponses") or {}).items():
        for n in _key_names(world, k):
            req = requested_event(run, n)
            if req is not None and n in still_open and req.get("kind") != "external-event" \
                    and eligible(world, q.subject, run, req):
                out.append((q.id, n, v))
    return out


RESPONSES = ("accept", "decline", "cancel")        # map mcp.mrtr: an input response's actions
UPD4_SURFACES = {"tasks/update": "tasks/update", "mrtr": "an MRTR retry", "rest": "a REST resolve"}
UPD4_CASES = tuple(f"{r}, by {v}" for r in RESPONSES for v in UPD4_SURFACES.values())


def _upd4_premise(world, step) -> tuple:
    """Each answer a client gave at this step that resolved an interrupt, or that a served tasks/update
    owed a resolution: by the answer given and its surface."""
    given = answers(world, step)
    got = []
    for _, e in _resolutions(step):
        if e.get("via") in CLIENT_VIAS:
            naming = next((a for a in given if e.get("interruptId") in a["names"] and a["via"] != "external"), None)
            response, via = (naming["response"], naming["via"]) if naming else (e.get("action"), e.get("via"))
            got.append(f"{response}, by {UPD4_SURFACES[via]}")
    got += [f"{answer.get('action')}, by tasks/update" for _, _, answer in _owed_resolutions(world, step)]
    return tuple(dict.fromkeys(c for c in got if c in UPD4_CASES))


@prop("responses-resume-never-cancel", "UPD-4", "step", "map mcp.mrtr",
      "accept resumes the interrupt with its content, decline takes the decline path, cancel resolves it as "
      "cancelled; the recorded resolution is the answer given, and none of them cancels the run. The must "
      "half: a served tasks/update from an eligible approver answering an open interrupt of the run it names "
      "resolves that interrupt at that step.",
      premise=_upd4_premise, reads=("events", "created", "respond"), cases=UPD4_CASES)
def upd4_answer_recorded_run_not_cancelled(world, step):
    resolved = {e.get("interruptId") for _, e in _resolutions(step)}
    for qid, iid, answer in _owed_resolutions(world, step):
        if iid not in resolved:
            return (f"tasks/update {qid} from an eligible approver answered the open {world.label(iid)} with "
                    f"{answer.get('action')}, yet the host resolved nothing for it")
    resolutions = [(rid, e) for rid, e in _resolutions(step) if e.get("via") in CLIENT_VIAS]
    if not resolutions:
        return None
    given = answers(world, step)
    for rid, e in resolutions:
        run, iid = world.runs[rid], e.get("interruptId")
        naming = [a for a in given if iid in a["names"] and a["via"] != "external"]
        if naming and naming[0]["response"] != e.get("action"):
            return (f"{naming[0]['caller']} answered {world.label(iid)} with {naming[0]['response']} via "
                    f"{naming[0]['via']}, but the log records {e.get('action')}")
        stops = [x.get("type") for r, x in step.events
                 if r == rid and x.get("type") in ("run.cancelling", "run.cancelled")]
        if stops or run.status in ("cancelling", "cancelled"):
            return (f"answering {world.label(iid)} with {e.get('action')} via {e.get('via')} cancelled "
                    f"{world.label(rid)} (status {step.pre_status.get(rid)} -> {run.status}, events {stops})")
        if run.status in WAITING and not _open_interrupts_in_log(run):
            return (f"{world.label(rid)} still reads {run.status} after {world.label(iid)} was resolved with "
                    f"{e.get('action')} and no interrupt is left open: the run did not resume")
    return None


# ---- RPL-1 ----------------------------------------------------------------------------------------
def _strip(e: dict) -> dict:
    return {k: v for k, v in e.items() if k not in ("seq", "at", "replayed")}


def _recorded(world, fork) -> dict:
    """The source history a fork was made from, snapshot at the fork step."""
    facts = world.facts.setdefault("RPL-1", {})
    got = facts.get(fork.id)
    if got is None:
        src = world.runs[fork.fork_of]
        copied = next((e.get("copied") for e in fork.log if e.get("type") == "run.forked"), None)
        history = src.log if copied is None else src.log[:copied]
        events = [_strip(e) for e in history]
        got = facts[fork.id] = {
            "events": events,
            "interrupts": {e["interruptId"] for e in history
                           if e.get("type") in ("interrupt.requested", "interrupt.resolved")},
            "resolved": {e["interruptId"]: _strip(e) for e in history if e.get("type") == "interrupt.resolved"},
        }
    return got


def _rpl1_premise(world, step):
    for rid, _ in step.events:
        run = world.runs[rid]
        if run.fork_of is not None and _recorded(world, run)["resolved"]:
            return True
    return False


@prop("replay-reissues-nothing", "RPL-1", "trace", "RFC §E.8, replay.md",
      "A fork or replay copies recorded history verbatim (resolver, action, approvers never re-decided) and "
      "raises no new interrupt.requested or interrupt.resolved for an interrupt its source recorded.",
      premise=_rpl1_premise, reads=("events",))
def rpl1_fork_reissues_nothing(world, step):
    for rid, e in step.events:
        run = world.runs[rid]
        if run.fork_of is None:
            continue
        rec = _recorded(world, run)
        kind, iid = e.get("type"), e.get("interruptId")
        if e.get("replayed"):
            if _strip(e) not in rec["events"]:
                src = rec["resolved"].get(iid) if kind == "interrupt.resolved" else None
                return (f"fork {world.label(rid)} of {world.label(run.fork_of)} replayed {kind} "
                        f"{world.label(iid) if iid else ''} as {_strip(e)}, which is not the recorded history"
                        + (f" (recorded: {src})" if src else ""))
            continue
        if kind in ("interrupt.requested", "interrupt.resolved") and iid in rec["interrupts"]:
            return (f"fork {world.label(rid)} of {world.label(run.fork_of)} logged a new {kind} for "
                    f"{world.label(iid)}, an interrupt its source already recorded: a re-prompt or a re-issued "
                    f"resolution")
        if kind == "run.forked":
            mine = {x.get("interruptId"): _strip(x) for x in run.log
                    if x.get("replayed") and x.get("type") == "interrupt.resolved"}
            for rec_iid, rec_ev in rec["resolved"].items():
                if mine.get(rec_iid) != rec_ev:
                    return (f"fork {world.label(rid)} of {world.label(run.fork_of)} does not carry the recorded "
                            f"resolution of {world.label(rec_iid)} ({rec_ev}) as history: it has "
                            f"{mine.get(rec_iid)}")
    return None


# ---- scenario stories ---------------------------------------------------------------------------
# Directed drivers an engine replays as its first examples (`verifier.engines.random.explore`): a second answer to
# an already resolved interrupt, through every surface, and a fork of the resolved run, are reached
# rarely by random steps. Each move is (action, args) or (action, args computed from the world).
def _first_run(world):
    return next(iter(world.runs))


def _ref(world):
    return identity.project(_first_run(world))


def _update(client, response, key=None):
    return ("tasks_update", lambda w: dict(client=client, server="S1", ref=_ref(w), transport="http", declare=True,
                                           header_ok=True, key=key or next(iter(w.interrupts)), response=response))


STORIES = {
    "every-surface-answers-one-interrupt": [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        ("run_start", lambda w: dict(run=_first_run(w))),
        ("run_interrupt", lambda w: dict(run=_first_run(w), kind="approval", form=True)),
        _update("C1", "accept"),                                   # alice: not an eligible approver
        _update("C2", "accept", key="acme/i-neverissuedneverissued"),   # a key never issued
        ("tasks_update", lambda w: dict(client="C2", server="S1", ref=_ref(w), transport="http", declare=True,
                                        header_ok=True, key=identity.project(next(iter(w.interrupts))),
                                        response="accept")),        # i1's projected form: under P-KEYFORM raw, no key
        _update("C2", "accept"),                                   # bob resolves i1
        _update("C2", "decline"),                                  # answered again: resolves nothing
        ("rest_resolve", lambda w: dict(subject="bob", interrupt=next(iter(w.interrupts)), response="decline")),
        ("fork", lambda w: dict(run=_first_run(w)))],              # the resolution is history in the fork
    "rest-answers-after-tasks-update": [
        ("call_tool", dict(client="C1", server="S1", transport="http", declare=True, tool="flow")),
        ("run_start", lambda w: dict(run=_first_run(w))),
        ("run_interrupt", lambda w: dict(run=_first_run(w), kind="clarification", form=True)),
        _update("C1", "accept"),                                   # alice answers the clarification
        ("rest_resolve", lambda w: dict(subject="alice", interrupt=next(iter(w.interrupts)), response="accept"))],
    "mrtr-retry-answers-cancel": [
        ("call_tool", dict(client="C2", server="S2", transport="http", declare=False, tool="flow")),
        ("run_start", lambda w: dict(run=_first_run(w))),
        ("run_interrupt", lambda w: dict(run=_first_run(w), kind="approval", form=True)),
        ("answer", dict(request="r1")),                            # InputRequiredResult
        ("deliver", dict(request="r1")),
        ("mrtr_retry", dict(client="C2", answers="r1", response="cancel", declare=False)),
        ("mrtr_retry", dict(client="C2", answers="r1", response="accept", declare=False))],   # requestState reused
    "tasks-update-and-rest-after-mrtr-retry": [                    # UPD-1's pairs with an MRTR retry first
        ("call_tool", dict(client="C2", server="S1", transport="http", declare=False, tool="flow")),
        ("run_start", lambda w: dict(run=_first_run(w))),
        ("run_interrupt", lambda w: dict(run=_first_run(w), kind="approval", form=True)),
        ("answer", dict(request="r1")),                            # InputRequiredResult
        ("deliver", dict(request="r1")),
        ("mrtr_retry", dict(client="C2", answers="r1", response="accept", declare=False)),   # bob resolves i1
        _update("C2", "decline"),
        ("rest_resolve", lambda w: dict(subject="bob", interrupt=next(iter(w.interrupts)), response="accept"))],
}
