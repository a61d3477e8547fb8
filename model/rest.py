"""REST callers and the operator, acting on runs concurrently with MCP (runs.md, interrupt.md)."""
from __future__ import annotations

from . import footprint as fp
from .actions import action
from .host import create_run
from .lifecycle import TERMINAL


def _create_moves(world):
    # One REST-created run shows what a run no MCP request started looks like (TASK-1, ID-G4).
    if len(world.runs) >= world.params.max_runs or any(r.started_by == "rest" for r in world.runs.values()):
        return []
    return [dict(subject=s.name, server=srv) for s in world.params.subjects[:1] for srv, _ in world.params.servers[:1]]


def _create_footprint(world, a) -> set:
    """The run the baseline's rule mints for the subject's tenant (`fp.new_run`: either length, so not exact)."""
    return fp.new_run(world, world.params.subject(a["subject"]).tenant)


@action("rest", _create_moves, lambda w, a: f"{a['subject']} creates a run over REST on {a['server']}",
        footprint=fp.footprint(lambda w, a: _create_footprint(w, a) | {fp.CLOCK}, _create_footprint, ["mint_run_id"],
                               exact=False, enables=[fp.table("runs")]))
def rest_create(world, subject, server):
    """createRun over REST: a run no MCP request started (still addressable as a task, TASK-1)."""
    create_run(world, server, subject, "rest")


def _cancel_moves(world):
    return [dict(subject=s.name, run=r.id) for r in world.runs.values() if not r.purged and r.status not in TERMINAL
            for s in world.params.rest_callers() if "runs:cancel" in s.scopes]


def _cancel_footprint(world, a):
    return {fp.CLOCK} | fp.cancelling(world, a["run"])


@action("rest", _cancel_moves, lambda w, a: f"{a['subject']} calls cancelRun on {w.label(a['run'])} over REST",
        footprint=fp.footprint(_cancel_footprint, fp.unclocked(_cancel_footprint),
                               ("can_cancel", "can_read", "cancel_run", "lifecycle_fire"), enables=fp.RUN))
def rest_cancel(world, subject, run):
    """cancelRun: 403 for a foreign tenant, 409 on a terminal run, else the cancel is accepted."""
    r = world.runs[run]
    R = world.rules
    if world.step is not None and r.status == "waiting-external":
        world.step.forms.append(("door on a run waiting external", "REST cancelRun"))
    if R.can_cancel(world, subject, r) and r.status not in TERMINAL:
        R.cancel_run(world, r, "rest-cancel", f"rest:{subject}")


def _resolve_moves(world):
    # Every subject may try (ineligible ones resolve nothing); only open interrupts are worth a try,
    # plus one late resolve of an answered interrupt per run (the at-most-once race, UPD-1).
    return [dict(subject=s.name, interrupt=i.id, response=resp) for i in world.interrupts.values()
            if i.kind != "external-event" and not world.runs[i.run].purged
            and (i.open or i.id == world.runs[i.run].interrupts[-1] and not any(
                e["type"] == "interrupt.resolved" and e.get("via") == "rest" for e in world.runs[i.run].log))
            for s in world.params.rest_callers() for resp in world.params.rest_answers]


@action("rest", _resolve_moves, lambda w, a: f"{a['subject']} resolves {w.label(a['interrupt'])} over REST ({a['response']})",
        footprint=fp.footprint(fp.resolving, fp.resolved, fp.RESOLVE_RULES, enables=fp.resolving))
def rest_resolve(world, subject, interrupt, response):
    """resolveInterruptByRun over REST: of two concurrent resolves exactly one succeeds (409 else)."""
    world.rules.resolve(world, world.interrupts[interrupt], subject, response, "rest")


def _pause_moves(world):
    cap = world.params.max_pauses
    if cap is not None and sum(e["type"] == "run.paused" for r in world.runs.values() for e in r.log) >= cap:
        return []
    return [dict(run=r.id) for r in world.runs.values() if r.status == "running" and not r.purged]


# A resume is enabled by its run; a pause too, and while pauses are capped by every log (the pauses so far).
OPERATOR = fp.footprint(fp.RUN_STEP, fp.RUN_WRITE, ["lifecycle_fire"], enables=fp.RUN)
PAUSE = fp.footprint(fp.RUN_STEP, fp.RUN_WRITE, ["lifecycle_fire"], enables=lambda w, a: {fp.run(a["run"])} | (
    {fp.every("log")} if w.params.max_pauses is not None else set()))


@action("rest", _pause_moves, lambda w, a: f"the operator pauses {w.label(a['run'])}", footprint=PAUSE)
def operator_pause(world, run):
    r = world.runs[run]
    world.set_status(r, "pause")
    world.append(r, {"type": "run.paused"})


def _resume_moves(world):
    return [dict(run=r.id) for r in world.runs.values() if r.status == "paused" and not r.purged]


@action("rest", _resume_moves, lambda w, a: f"the operator resumes {w.label(a['run'])}", footprint=OPERATOR)
def operator_resume(world, run):
    r = world.runs[run]
    world.set_status(r, "resume")
    world.append(r, {"type": "run.resumed"})


def _fork_moves(world):
    if len(world.runs) >= world.params.max_runs:
        return []
    return [dict(run=r.id) for r in world.runs.values() if not r.purged and r.fork_of is None
            and any(not world.interrupts[i].open for i in r.interrupts)]


def _fork_footprint(world, a) -> set:
    """The fork's run, the one the baseline's rule mints for the source's tenant (`fp.new_run`)."""
    return fp.new_run(world, world.runs[a["run"]].tenant)


@action("rest", _fork_moves, lambda w, a: f"{w.runs[a['run']].owner} forks {w.label(a['run'])} from its log",
        footprint=fp.footprint(lambda w, a: {fp.log(a["run"]), fp.CLOCK} | _fork_footprint(w, a), _fork_footprint,
                               ("mint_run_id", "fork_log", "lifecycle_fire"), exact=False,
                               enables=lambda w, a: {fp.run(a["run"]), fp.table("runs")}
                               | {fp.interrupt(i) for i in w.runs[a["run"]].interrupts}))
def fork(world, run):
    """Replay or fork from the log: recorded resolutions are history, never re-issued (§E.8)."""
    src = world.runs[run]
    new = create_run(world, src.server, src.owner, "fork")
    new.fork_of = src.id
    copied = world.rules.fork_log(world, src, new)
    for e in copied:
        world.append(new, {k: v for k, v in e.items() if k not in ("seq", "at")})
    world.append(new, {"type": "run.forked", "from": src.id, "copied": len(copied)})
    world.set_status(new, "start")
