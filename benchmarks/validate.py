"""Validation speed: log events validated per second on a long generated session, with the host's
run events and client-side only, conforming and diverging, and the length of log validated in 60 s.

The session is a model behaviour rendered as a log (`verifier.writers.traffic`): conversations one
after another, as a busy host sees them: alice's tasked call suspends on an approval, she reads it,
bob approves, it completes and she reads the result; carol's blocking call completes; mallory
probes alice's task (not found, as the id never created she reads once first is); every fourth
conversation alice cancels her run, every fifth a call's connection drops before its answer. The
model world keeps every request it ever saw; what a step costs should not grow with them
(docs/validate.md), and the rate is measured on sessions of the stated lengths to tell.

The diverging log is the same session with the last not-found answer (mallory's probe) turned into
-32603: it diverges near its end, so it is matched for as long as the conforming one, then diagnosed
(the requirement named: ISO-1). It is timed with and without the diagnosis, and set against the
conforming log of the same length (the target: no slower than twice). Targets, printed, not
asserted: at least 1000 events per CPU second on a conforming client-side log, and a log 10 times
longer validated in at most 12 times the CPU time (the longest session against the shortest, the
least of three runs of each).

    .venv/bin/python benchmarks/validate.py [--conversations N ...] [--budget S] [--long N]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.clients import FABRICATED  # noqa: E402
from model.host import awaits_respond  # noqa: E402
from verifier.runtime.worlds import unbounded_world  # noqa: E402
from verifier.validate import validate_log  # noqa: E402
from verifier.writers.traffic import MAPPING, Recorder


def session(conversations: int, run_events: bool) -> list[str]:
    world, rec = unbounded_world(None), Recorder(run_events)

    def do(name, **args):
        rec.record(world, world.apply(name, args, check=False))

    def last():
        return f"r{len(world.requests)}"

    def task(client, ref, method, **extra):
        do(method, client=client, server="S1", ref=ref, transport="http", declare=True, header_ok=True, **extra)
        q = last()
        if awaits_respond(world.requests[q]):      # tasks/* are answered by the host's next step
            do("respond", request=q)
        do("deliver", request=q)
        return q

    task("C4", FABRICATED[0], "tasks_get")     # an id never created: what mallory's not-found answers are compared with
    for n in range(conversations):
        do("call_tool", client="C1", server="S1", transport="http", declare=True, tool="flow")
        call = last()
        run = world.requests[call].run
        if n % 5 == 4:                      # the connection drops before the answer: the run is cancelled
            do("disconnect", request=call)
            do("run_finish_cancel", run=run)
            continue
        do("answer", request=call)
        do("deliver", request=call)
        do("disconnect", request=call)
        ref = world.requests[call].response["result"]["taskId"]
        do("run_start", run=run)
        do("run_interrupt", run=run, kind="approval", form=True)
        task("C1", ref, "tasks_get")
        task("C4", ref, "tasks_get")        # mallory: another tenant's task reads as not found
        if n % 4 == 3:
            task("C1", ref, "tasks_cancel")
            do("run_finish_cancel", run=run)
        else:
            key = world.runs[run].interrupts[-1]
            task("C2", ref, "tasks_update", key=key, response="accept")
            do("run_complete", run=run)
        task("C1", ref, "tasks_get")
        do("call_tool", client="C3", server="S1", transport="http", declare=False, tool="flow")
        blocking = last()
        blocking_run = world.requests[blocking].run
        do("run_start", run=blocking_run)
        do("run_complete", run=blocking_run)
        do("answer", request=blocking)
        do("deliver", request=blocking)
    return rec.lines(world, rename=True)


def diverging(lines: list[str]) -> list[str]:
    """The log with its last -32602 answer made -32603 (an unreadable task answered as an internal error)."""
    out = list(lines)
    for i in range(len(out) - 1, -1, -1):
        e = json.loads(out[i])
        err = (e.get("message") or {}).get("error") if e["event"] == "message" else None
        if err and err.get("code") == -32602:
            err["code"] = -32603
            out[i] = json.dumps(e)
            return out
    raise ValueError("the session has no -32602 answer to change")


RUNS = 3


def rate(lines, budget, diagnose=False) -> tuple[int, float, str, str]:
    """(events matched, CPU seconds, the result, the requirement a divergence names). CPU time: on a
    shared machine wall time measures the other processes too."""
    started = time.process_time()
    r = validate_log(lines, MAPPING, budget=budget, diagnose=diagnose)
    named = (r.divergence.requirement or "none") if r.divergence else ""
    return r.matched, time.process_time() - started, r.result, named


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, nargs="+", default=[50, 200],
                    help="session lengths, in conversations, to measure the rate on (default 50 200)")
    ap.add_argument("--budget", type=float, default=60.0, help="the budget of the length measure (default 60 s)")
    ap.add_argument("--long", type=int, default=600, help="conversations in the session of the length measure")
    args = ap.parse_args(argv)
    print(f"{'session':>34s} {'events':>7s} {'cpu s':>8s} {'events/s':>9s} {'x conf':>7s}  result")
    for n in args.conversations:
        for run_events in (True, False):
            lines = session(n, run_events)
            label = f"{n} conv, {'run events' if run_events else 'client side'}"
            base = None
            for kind, log, diagnose in (("conforming", lines, False), ("diverging", diverging(lines), False),
                                        ("diverging, diagnosed", diverging(lines), True)):
                matched, seconds, result, named = rate(log, 600, diagnose)
                base = base or seconds
                events = len(log) - 1
                print(f"{label + ', ' + kind:>34s} {events:7d} {seconds:8.2f} {events / seconds:9.0f} "
                      f"{seconds / base:7.2f}  {result}{' ' + named if named else ''}")
    sizes = sorted(args.conversations)
    if len(sizes) > 1:          # linear in the log's length: the longest session's time over the shortest's
        for run_events in (True, False):
            # the least of RUNS runs of each: a short log's time is a fraction of a second, and one
            # run's noise on a shared machine moves the ratio by more than the target allows
            (n0, t0), (n1, t1) = [(len(lines) - 1, min(rate(lines, 600)[1] for _ in range(RUNS))) for lines in
                                  (session(sizes[0], run_events), session(sizes[-1], run_events))]
            print(f"{'run events' if run_events else 'client side'}: {n1 / n0:.1f} times the events took "
                  f"{t1 / t0:.1f} times the CPU time (target: at most 1.2 times the ratio of lengths)")
    for run_events in (True, False):
        lines = session(args.long, run_events)
        matched, seconds, result, _ = rate(lines, args.budget)
        words = "run events" if run_events else "client side"
        print(f"in {args.budget:.0f} s ({words}): {matched} of {len(lines) - 1} events validated ({result}, "
              f"{seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
