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

from .base import prop
from .creation import decode_task_id, elicitation_refusal, named_run, open_interrupts, seen

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

@prop("status-projection-total", "PRJ-1", "step", "RFC §D, map mcp.tasks.status",
      "every task view shows the map row of its run's status (failed -> completed with isError true, "
      "completed -> isError false, waiting-external -> working), 'failed' only with a JSON-RPC error, and the "
      "host's projection has the map's row for every status a run enters",
      premise=lambda world, step: bool(seen(world, step).views) or bool(seen(world, step).changed),
      reads=("emitted", "status"))
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


@prop("input-requests-match-open-interrupts", "PRJ-2", "step", "RFC §D, map, ext-tasks §Task Polling",
      "an input_required task view carries non-empty inputRequests with exactly one entry per open "
      "client-answerable interrupt of its run (from its log), keyed by raw interruptId; no credential "
      "interrupt in form mode and form mode only with a flat schema (also in MRTR InputRequiredResult); a "
      "CreateTaskResult never carries inputRequests",
      premise=lambda world, step: bool(_input_views(world, step)), reads=("emitted",))
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
    facts = world.facts.peek("PRJ-3") or {"pi": {}, "shown": {}}
    pi, shown = facts["pi"], facts["shown"]

    def own():          # this world's copy, to write to
        got = world.facts.setdefault("PRJ-3", {"pi": {}, "shown": {}})
        return got["pi"], got["shown"]
    s = seen(world, step)
    for rid in s.changed:
        run = world.runs[rid]
        got, err = _host_projection(world, run)
        if err:
            continue                       # PRJ-1 reports a missing row
        new = got[0]
        old = pi.get(rid)
        if old != new:
            pi, shown = own()
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
            pi, shown = own()
            shown[raw] = status
    return None


# ---- PRJ-4 ------------------------------------------------------------------------------------------
def declared_modes(q) -> tuple[str, ...]:
    """The elicitation modes q's own `_meta` declares (an empty object is form only: the MCP schema's
    "form mode only (implicit)")."""
    meta = ((q.message.get("params") or {}).get("_meta") or {})
    caps = meta.get("io.modelcontextprotocol/clientCapabilities") or {}
    el = caps.get("elicitation")
    if el is None:
        return ()
    return tuple(m for m in ("form", "url") if m in el) or ("form",)


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


def _prj4_premise(world, step):
    return bool(_input_messages(world, step)) or bool(_refusals(world, step))


@prop("input-only-to-declared-elicitation", "PRJ-4", "step", "core RequestMetaObject, map mcp.mrtr",
      "An input request is sent only to a request whose client declared elicitation with the mode it uses "
      "(a bare `elicitation: {}` declares form), read per P-ELICIT; input is withheld (-32021) only for a mode "
      "not declared; capabilities are never inferred from earlier requests.", premise=_prj4_premise,
      reads=("emitted",))
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
