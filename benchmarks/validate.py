"""Validation speed: log events validated per second on a long generated session, with the host's
run events and client-side only, and the length of log validated in 60 s.

The session is a model behaviour rendered as a log (`verifier.writers.traffic`): conversations one
after another, as a busy host sees them: alice's tasked call suspends on an approval, she reads it,
bob approves, it completes and she reads the result; carol's blocking call completes; mallory
probes alice's task (not found); every fourth conversation alice cancels her run, every fifth a
call's connection drops before its answer. The model world keeps every request it ever saw, so the
cost of a step grows with the session's length: the rate is measured on sessions of the stated
lengths.

    .venv/bin/python benchmarks/validate.py [--conversations N] [--budget S]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
        do("deliver", request=q)
        return q

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


def rate(lines, budget) -> tuple[int, float, str]:
    started = time.perf_counter()
    r = validate_log(lines, MAPPING, budget=budget, diagnose=False)
    return r.matched, time.perf_counter() - started, r.result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, nargs="+", default=[50, 200],
                    help="session lengths, in conversations, to measure the rate on (default 50 200)")
    ap.add_argument("--budget", type=float, default=60.0, help="the budget of the length measure (default 60 s)")
    ap.add_argument("--long", type=int, default=600, help="conversations in the session of the length measure")
    args = ap.parse_args(argv)
    print(f"{'session':>22s} {'events':>7s} {'seconds':>8s} {'events/s':>9s}  result")
    for n in args.conversations:
        for run_events in (True, False):
            lines = session(n, run_events)
            matched, seconds, result = rate(lines, 600)
            label = f"{n} conv, {'run events' if run_events else 'client side'}"
            print(f"{label:>22s} {matched:7d} {seconds:8.2f} {matched / seconds:9.0f}  {result}")
    for run_events in (True, False):
        lines = session(args.long, run_events)
        matched, seconds, result = rate(lines, args.budget)
        words = "run events" if run_events else "client side"
        print(f"in {args.budget:.0f} s ({words}): {matched} of {len(lines) - 1} events validated ({result}, "
              f"{seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
