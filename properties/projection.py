"""The status projection (RFC 0198 §D; the interop map's `mcp.tasks.status` rows; ext-tasks §Task
Polling, §Task Status).

The expected projection is the map's table, written out below from the map (not imported from the
model), so a deleted or altered row in the model is caught rather than agreed with:

    pending, running, paused, cancelling, waiting-external -> working
    waiting-approval, waiting-input                        -> input_required
    completed -> completed (result isError false)   failed -> completed (result isError true)
    cancelled -> cancelled

A "task view" is what a client sees of a task: a CreateTaskResult, a tasks/get result, or a
notifications/tasks. A view is compared with the run's state when it is sent (the state after the
step that sent it: views are built from that state).

spec status-projection-total (PRJ-1, step) observes every task view and every run whose status changed:
    assert each view's status is the map row of its run's current status; a completed view's result
    has isError false for a completed run and true for a failed one; status "failed" appears only with
    a JSON-RPC `error`; and the host's projection has a row, equal to the map's, for every status a run
    enters (the table is total: a deleted waiting-external row is caught when a run first waits on an
    external event, whether or not anyone reads the task).

spec input-requests-match-open-interrupts (PRJ-2, step) observes task views and InputRequiredResults:
    assert an input_required view carries a non-empty `inputRequests` with exactly one entry per open
    client-answerable interrupt of its run (the interrupts its log shows requested and not resolved,
    external events excluded), keyed by the raw interruptId (P-KEYFORM); no entry for a credential
    interrupt is in form mode, and a form-mode entry's schema is flat (primitive properties only); an
    MRTR InputRequiredResult's entries obey the same rules; a CreateTaskResult never carries
    `inputRequests`, whatever its status.

spec task-status-follows-diagram (PRJ-3, step) observes every run status change and every task view:
    assert for each run step r -> r', the host's projection gives pi(r) = pi(r') or an edge of the
    ext-tasks diagram (working <-> input_required, non-terminal -> terminal), so no step leaves a
    terminal task status; and no client is ever shown a task status other than the terminal one it
    was already shown for that task.

spec input-only-to-declared-elicitation (PRJ-4, step) observes every message carrying input requests
(an `inputRequests` map of a result or a notifications/tasks, an InputRequiredResult):
    assert each entry's mode (form unless `mode` says url) is one the client declared in `elicitation`
    of its own request's `_meta`, read per P-ELICIT: the request that created the run (default), or
    the request the message answers ("each-get", and for a run no MCP request created). A declared
    `elicitation: {}` means form only. A -32021 that withholds input names as required only modes
    that request did not declare (so a bare `elicitation: {}` is never refused form input).
"""
from __future__ import annotations
from model.facts import Leaves

from .base import prop
from .creation import (advertised, can_get_run, declared, decode_task_id, elicitation_refusal, header_matches,
                       named_run, open_interrupts, seen, task_ref)

STATUS_ROWS = {
    "pending": ("working", None),
    "running": ("working", None),
    "paused": ("working", None),
    "cancelling": ("working", None),
    "waiting-external": ("working", None),
    "waiting-approval": ("input_required", None),
    "waiting-input": ("input_required", None),
    "completed": ("completed", False),
    "failed": ("completed", True),
    "cancelled": ("cancelled", None),
}
TASK_TERMINAL = frozenset({"completed", "failed", "cancelled"})
TASK_EDGES = frozenset({("working", "input_required"), ("input_required", "working")}
                       | {(s, t) for s in ("working", "input_required") for t in TASK_TERMINAL})
PRIMITIVE = frozenset({"string", "number", "integer", "boolean"})
MODES = ("form", "url")                    # the elicitation modes (core ElicitationCapability)


def _view_run(world, q, where, view):
    run = named_run(world, view.get("taskId"))
    if run is None and where == "CreateTaskResult" and q.run is not None:
        run = world.runs.get(q.run)
    return run


def _host_projection(world, run):
    """The host's own projection of the run now, or an error text when it has no row."""
    try:
        got = world.rules.project_status(world, run)
    except Exception as e:  # a missing row is a finding, not a crash of the check
        return None, f"{type(e).__name__}: {e}"
    return got, None


# =============================================================================================
# PRJ-1
# =============================================================================================

def _prj1_premise(world, step) -> tuple:
    """The run statuses this step projected: those of the runs its task views show, and those runs
    entered (the host's row for each is checked)."""
    s = seen(world, step)
    shown = [run.status for q, where, view in s.views if (run := _view_run(world, q, where, view)) is not None]
    return tuple(dict.fromkeys(shown + [world.runs[rid].status for rid in s.changed]))


@prop("status-projection-total", "PRJ-1", "step", "RFC §D, map mcp.tasks.status",
      "every task view shows the map row of its run's status (failed -> completed with isError true, "
      "completed -> isError false, waiting-external -> working), 'failed' only with a JSON-RPC error, and the "
      "host's projection has the map's row for every status a run enters",
      premise=_prj1_premise, reads=("emitted", "status"), cases=tuple(STATUS_ROWS))
def status_projection_total(world, step):
    s = seen(world, step)
    for q, where, view in s.views:
        run = _view_run(world, q, where, view)
        if run is None:
            continue
        want, is_error = STATUS_ROWS[run.status]
        got = view.get("status")
        if got == "failed" and not isinstance(view.get("error"), dict):
            return f"{where} to {q.id} shows {world.label(run.id)} failed without a JSON-RPC error"
        if got != want:
            return (f"{where} to {q.id} shows {world.label(run.id)} as {got!r} while the run is {run.status} "
                    f"(map row: {want})")
        if got == "completed" and where != "CreateTaskResult":
            res = view.get("result") or {}
            if bool(res.get("isError", False)) != is_error:
                return (f"{where} to {q.id} shows {world.label(run.id)} ({run.status}) completed with isError="
                        f"{res.get('isError')} (map row: isError {is_error})")
    for rid in s.changed:
        run = world.runs[rid]
        got, err = _host_projection(world, run)
        if err:
            return f"the host's projection has no row for run status {run.status} ({world.label(rid)}): {err}"
        want = STATUS_ROWS[run.status]
        if got[0] != want[0]:
            return f"the host projects run status {run.status} ({world.label(rid)}) as {got[0]!r}; the map row is {want[0]!r}"
        if want[0] == "completed" and got[1] is not None and bool(got[1]) != want[1]:
            return f"the host projects run status {run.status} ({world.label(rid)}) with isError={got[1]}; the map row has {want[1]}"
    return None


# =============================================================================================
# PRJ-2
# =============================================================================================

def _flat(schema) -> bool:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    props = schema.get("properties")
    if not isinstance(props, dict):
        return False
    return all(isinstance(p, dict) and p.get("type") in PRIMITIVE and "properties" not in p and "items" not in p
               for p in props.values())


def _entry_problem(world, key, entry) -> str | None:
    if not isinstance(entry, dict):
        return f"entry {key!r} is not an object"
    if entry.get("method") != "elicitation/create":
        return None
    params = entry.get("params") or {}
    mode = params.get("mode", "form")
    i = world.interrupts.get(key)
    if mode == "form":
        if i is not None and not i.form:
            return f"credential interrupt {world.label(key)} is asked in form mode"
        if not _flat(params.get("requestedSchema")):
            return f"entry {world.label(key)} asks in form mode with a non-flat schema"
    return None


def _input_views(world, step):
    s = seen(world, step)
    out = [(q, where, view) for q, where, view in s.views
           if where == "CreateTaskResult" or view.get("status") == "input_required"]
    for q, msg in s.responses:
        res = msg.get("result") or {}
        if res.get("resultType") == "input_required":
            out.append((q, "InputRequiredResult", res))
    return out


PRJ2_CASES = ("in a tasks/get result", "in notifications/tasks", "one open interrupt", "two open at once",
              "a credential interrupt", "a CreateTaskResult of a waiting run")


def _prj2_premise(world, step) -> tuple:
    """Per input_required task view: where it was sent, how many interrupts its run's log shows open,
    and whether one is a credential; a CreateTaskResult of a run whose task is input_required."""
    got = []
    for q, where, view in _input_views(world, step):
        run = _view_run(world, q, where, view)
        if where == "CreateTaskResult":
            if run is not None and STATUS_ROWS[run.status][0] == "input_required":
                got.append(PRJ2_CASES[5])
            continue
        if where == "InputRequiredResult":
            continue                       # judged alike, but not a task view the sentence names
        got.append(PRJ2_CASES[0] if where == "tasks/get" else PRJ2_CASES[1])
        opened = open_interrupts(world, run) if run is not None else []
        if opened:
            got.append(PRJ2_CASES[2] if len(opened) == 1 else PRJ2_CASES[3])
        if any(not world.interrupts[i].form for i in opened if i in world.interrupts):
            got.append(PRJ2_CASES[4])
    return tuple(dict.fromkeys(got))


@prop("input-requests-match-open-interrupts", "PRJ-2", "step", "RFC §D, map, ext-tasks §Task Polling",
      "an input_required task view carries non-empty inputRequests with exactly one entry per open "
      "client-answerable interrupt of its run (from its log), keyed by raw interruptId; no credential "
      "interrupt in form mode and form mode only with a flat schema (also in MRTR InputRequiredResult); a "
      "CreateTaskResult never carries inputRequests",
      premise=_prj2_premise, reads=("emitted",), cases=PRJ2_CASES)
def input_requests_match_open_interrupts(world, step):
    for q, where, view in _input_views(world, step):
        if where == "CreateTaskResult":
            if "inputRequests" in view:
                return f"CreateTaskResult to {q.id} (status {view.get('status')}) carries inputRequests"
            continue
        if where == "InputRequiredResult":
            run = world.runs.get(q.run) if q.run else None
        else:
            run = _view_run(world, q, where, view)
        reqs = view.get("inputRequests")
        if where == "InputRequiredResult" and reqs is None:
            continue                       # requestState alone (WIRE-2 checks at least one is present)
        if not isinstance(reqs, dict) or not reqs:
            return f"{where} to {q.id} for {world.label(run.id) if run else '?'} is input_required with inputRequests {reqs!r}"
        if run is not None:
            want = set(open_interrupts(world, run))
            got = set(reqs)
            if got != want:
                return (f"{where} to {q.id} for {world.label(run.id)} ({run.status}) has inputRequests keys "
                        f"{sorted(world.label(k) for k in got)}, but the open interrupts are "
                        f"{sorted(world.label(k) for k in want)}")
        for key, entry in reqs.items():
            problem = _entry_problem(world, key, entry)
            if problem:
                return f"{where} to {q.id}: {problem}"
    return None


# =============================================================================================
# PRJ-3
# =============================================================================================

def _prj3_premise(world, step) -> bool:
    s = seen(world, step)
    return any(rid in step.pre_status for rid in s.changed) or bool(s.views)


@prop("task-status-follows-diagram", "PRJ-3", "step", "ext-tasks §Task Status",
      "for every run step r -> r', the host's projection pi(r) = pi(r') or pi(r) -> pi(r') is an edge of the task "
      "diagram (working <-> input_required, non-terminal -> terminal); no step leaves a terminal task status, "
      "and no client is shown a task leaving a terminal status it was shown before",
      premise=_prj3_premise, reads=("emitted", "status"))
def task_status_follows_diagram(world, step):
    # each run's projection, and what each task was shown as: two maps, so that a step writing one
    # copies that one alone (each holds a long session's every run)
    pi, shown = world.facts.peek("PRJ-3") or {}, world.facts.peek("PRJ-3/shown") or {}
    s = seen(world, step)
    for rid in s.changed:
        run = world.runs[rid]
        got, err = _host_projection(world, run)
        if err:
            continue                       # PRJ-1 reports a missing row
        new = got[0]
        old = pi.get(rid)
        if old != new:
            pi = world.facts.setdefault("PRJ-3", Leaves())
            pi[rid] = new
        if old is None or old == new:
            continue
        if old in TASK_TERMINAL or (old, new) not in TASK_EDGES:
            return (f"{world.label(rid)} went {step.pre_status.get(rid)} -> {run.status}, so its task went "
                    f"{old} -> {new}, which is not an edge of the task status diagram")
    for q, where, view in s.views:
        raw = decode_task_id(view.get("taskId"))
        if raw is None:
            continue
        status = view.get("status")
        before = shown.get(raw)
        if before in TASK_TERMINAL and status != before:
            return (f"{where} to {q.id} shows the task of {world.label(raw)} as {status!r} after a client was shown "
                    f"it {before!r} (terminal)")
        if raw not in shown or shown[raw] != status:
            shown = world.facts.setdefault("PRJ-3/shown", Leaves())
            shown[raw] = status
    return None


# ---- PRJ-4 ------------------------------------------------------------------------------------------
def _elicitation(q):
    """The `elicitation` object q's own `_meta` declares, or None."""
    meta = ((q.message.get("params") or {}).get("_meta") or {})
    return (meta.get("io.modelcontextprotocol/clientCapabilities") or {}).get("elicitation")


def declared_modes(q) -> tuple[str, ...]:
    """The elicitation modes q's own `_meta` declares (an empty object is form only: the MCP schema's
    "form mode only (implicit)")."""
    el = _elicitation(q)
    if el is None:
        return ()
    return tuple(m for m in MODES if m in el) or ("form",)


def _input_messages(world, step):
    """(request the message went to, the run, its inputRequests) for every message of this step carrying some."""
    out = []
    for qid, m in step.emitted:
        q = world.requests.get(qid) if qid else None
        if q is None:
            continue
        body = m.get("result") if "result" in m else m.get("params") if m.get("method") == "notifications/tasks" else None
        entries = (body or {}).get("inputRequests")
        if not entries:
            continue
        run = world.runs.get(q.run) if "taskId" not in body else named_run(world, body.get("taskId"))
        if run is not None:
            out.append((q, run, entries))
    return out


def asked_request(world, q, run):
    """The request whose declaration counts, per P-ELICIT."""
    creator = world.requests.get(run.creating_request) if run.creating_request else None
    return q if world.params.p_elicit == "each-get" or creator is None else creator


def _refusals(world, step):
    """(request, its run, the elicitation modes required) for every -32021 of this step withholding input."""
    out = []
    for qid, m in step.emitted:
        q = world.requests.get(qid) if qid else None
        if q is None or "error" not in m or not elicitation_refusal(m):
            continue
        run = named_run(world, q.task_ref) if q.task_ref else world.runs.get(q.run) if q.run else None
        if run is not None:
            out.append((q, run, tuple(m["error"]["data"]["requiredCapabilities"]["elicitation"] or {})))
    return out


# PRJ-4's cases: what the request whose declaration counts (P-ELICIT) declared, met by each message that
# would carry input: whether the host sent the input, refused it (-32021) or withheld a notification.
PRJ4_DECLARATIONS = ("form", "url", "bare {}", "none")
PRJ4_DOORS = ("tasks/get", "notifications/tasks", "MRTR InputRequiredResult")
PRJ4_CASES = tuple(f"{d}, by {door}" for d in PRJ4_DECLARATIONS for door in PRJ4_DOORS)
INPUT_EVENTS = ("interrupt.requested", "interrupt.resolved")


def _entry_modes(entries) -> set[str]:
    return {((e or {}).get("params") or {}).get("mode") or "form" for e in (entries or {}).values()}


def _input_modes(world, run, sent=None) -> set[str]:
    """The elicitation modes input for `run` uses now: its open client-answerable interrupts (form, or url
    for a credential) while its task is input_required, and any entries `sent` carried."""
    modes = _entry_modes(sent)
    if STATUS_ROWS[run.status][0] == "input_required":
        modes |= {"form" if i.form else "url" for i in run.open_interrupts(world) if i.kind != "external-event"}
    return modes


def _declaration(q, modes) -> tuple[str, ...]:
    """q's elicitation declaration as the cases name it, for input in `modes`: none, a bare `{}`, or an
    explicit one by each of those modes it names (by every mode it names where it names none of them)."""
    el = _elicitation(q)
    if el is None:
        return ("none",)
    named = tuple(m for m in MODES if m in el)
    if not named:
        return ("bare {}",)
    return tuple(m for m in MODES if m in modes and m in named) or named


def _listened(world, step) -> dict:
    """{(listen, run): modes} for each task a stream open before and after the step acknowledged, its
    caller can read, that asks for input after a change at this step (its status, or an interrupt
    requested or resolved): sent a notification, or withheld; and for each notification carrying input."""
    s = seen(world, step)
    out = {(q.id, run.id): _input_modes(world, run, view.get("inputRequests")) for q, where, view in s.views
           if where == "notifications/tasks" and view.get("inputRequests")
           and (run := named_run(world, view.get("taskId"))) is not None}
    touched = {rid for rid, e in step.events if e.get("type") in INPUT_EVENTS} | set(s.changed)
    for qid in world.listens if touched else ():
        q = world.requests[qid]
        if q.phase != "streaming" or step.pre_phase.get(qid) != "streaming":
            continue
        for rid in touched.intersection(q.acked):
            run = world.runs[rid]
            if (qid, rid) not in out and can_get_run(world, q.subject, run, q.server):
                out[(qid, rid)] = _input_modes(world, run)
    return out


def _doors(world, step) -> list:
    """(door, request, run, modes) for each message of this step that would carry input to a request:
    a served tasks/get of a task its caller reads, an answer to a tools/call the host does not task,
    and a notifications/tasks (`_listened`)."""
    out = []
    for q, msg in seen(world, step).responses:
        sent = (msg.get("result") or {}).get("inputRequests")
        if q.method == "tasks/get" and declared(q) and advertised(world, q.server) and header_matches(q):
            run = named_run(world, task_ref(q))
            if run is not None and can_get_run(world, q.subject, run, q.server):
                out.append((PRJ4_DOORS[0], q, run, _input_modes(world, run, sent)))
        elif q.method == "tools/call" and q.run is not None and not (declared(q) and advertised(world, q.server)):
            out.append((PRJ4_DOORS[2], q, world.runs[q.run], _input_modes(world, world.runs[q.run], sent)))
    out += [(PRJ4_DOORS[1], world.requests[qid], world.runs[rid], modes)
            for (qid, rid), modes in _listened(world, step).items()]
    return out


def _prj4_premise(world, step) -> tuple:
    return tuple(dict.fromkeys(f"{d}, by {door}" for door, q, run, modes in _doors(world, step) if modes
                               for d in _declaration(asked_request(world, q, run), modes)))


@prop("input-only-to-declared-elicitation", "PRJ-4", "step", "core RequestMetaObject, map mcp.mrtr",
      "An input request is sent only to a request whose client declared elicitation with the mode it uses "
      "(a bare `elicitation: {}` declares form), read per P-ELICIT; input is withheld (-32021) only for a mode "
      "not declared; capabilities are never inferred from earlier requests.", premise=_prj4_premise,
      reads=("emitted", "status", "events"), cases=PRJ4_CASES)
def input_only_to_declared_elicitation(world, step):
    for q, run, required in _refusals(world, step):
        asked = asked_request(world, q, run)
        have = [m for m in required if m in declared_modes(asked)]
        if have:
            return (f"{q.method} {q.id} of {q.subject} was refused -32021 requiring elicitation {list(required)} "
                    f"for {world.label(run.id)}, but {asked.id} declared {have[0]} mode")
    for q, run, entries in _input_messages(world, step):
        asked = asked_request(world, q, run)
        have = declared_modes(asked)
        for key, entry in entries.items():
            mode = ((entry or {}).get("params") or {}).get("mode") or "form"
            if mode not in have:
                return (f"{q.method} {q.id} of {q.subject} was sent a {mode}-mode input request for "
                        f"{world.label(key)} of {world.label(run.id)}, but {asked.id} declared elicitation "
                        f"{list(have) or 'not at all'}")
    return None


# ---- scenario stories ---------------------------------------------------------------------------
# Directed drivers an engine replays as its first examples (`verifier.engines.random.explore`): a task
# read and listened to by a client declaring a bare `elicitation: {}` (mallory's) or none (carol's)
# while it asks for input, which random steps rarely reach. Each move is (action, args) or (action, args
# computed from the world).
def _declared_doors(client):
    """`client`'s tasked call, a listen on it, its run suspending on a form interrupt, and a tasks/get."""
    def mine(world):
        return next(r for r in reversed(world.runs.values()) if r.owner == world.params.client_subject(client).name)
    return [("call_tool", dict(client=client, server="S1", transport="http", declare=True, tool="flow")),
            ("listen", dict(client=client, server="S1", declare=True)),
            ("run_start", lambda w: dict(run=mine(w).id)),
            ("run_interrupt", lambda w: dict(run=mine(w).id, kind="clarification", form=True)),
            ("tasks_get", lambda w: dict(client=client, server="S1", ref=w.rules.task_id(w, mine(w)), transport="http",
                                         declare=True, header_ok=True))]


STORIES = {"bare-and-no-elicitation-meet-input": _declared_doors("C4") + _declared_doors("C3")}
