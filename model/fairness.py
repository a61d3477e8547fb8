"""The fair drain: the stated fairness under which liveness (LIV-1) is judged.

After an exploration, the system is run on with no new requests: host steps are weakly fair,
every external event arrives, paused runs are resumed, and clients answer pending input (an
eligible approver resolves each open interrupt); a crashed harness process is restarted, it reads
what reaches it, and it polls a bound task whose run finished. The drain stops when no progress
move is left, or at `limit` steps; LIV-1 and LIV-2 then read what is still owed.
"""
from __future__ import annotations

from .lifecycle import TERMINAL, WAITING

# Progress actions, in the order the fair scheduler tries them each round (round-robin).
PROGRESS = ("deliver", "answer", "respond", "run_finish_cancel", "operator_resume", "external_event", "run_start",
            "rest_resolve", "run_complete", "persist", "harness_restart", "harness_receive", "harness_poll",
            "harness_listen", "purge")


def progress_moves(world) -> list[tuple[str, dict]]:
    out = []
    for name in PROGRESS:
        for args in world.moves(name):
            if name in ("rest_resolve", "external_event") and \
                    world.runs[world.interrupts[args["interrupt"]].run].status not in WAITING:
                continue    # the run no longer waits on it (cancelled meanwhile): answering is no progress
            if name in ("harness_poll", "harness_listen") and not _bound_run_finished(world, args):
                continue    # the harness reads a task whose run finished (LIV-2); more reads are no progress
            if name == "rest_resolve":
                i = world.interrupts[args["interrupt"]]
                if not (i.open and args["response"] == "accept" and world.rules.eligible_approver(world, args["subject"], i)):
                    continue
            out.append((name, args))
    return out


def _bound_run_finished(world, args) -> bool:
    te = world.harness.clients[args["client"]].proc.tes[args["op"]]
    run = world.runs.get(world.harness._raw(world, te.binding.task_id))
    return run is None or run.purged or run.status in TERMINAL


def drain(world, limit: int = 200, on_step=None) -> bool:
    """Run fair progress steps; True when the system quiesced within `limit` steps."""
    for _ in range(limit):
        moves = progress_moves(world)
        if not moves:
            return True
        name, args = moves[0]
        step = world.apply(name, args, check=False)
        if on_step is not None:
            on_step(step)
    return not progress_moves(world)
