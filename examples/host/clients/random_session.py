"""A random session against the host: every Subject calls, reads, answers, cancels and drops at random
(seeded), so that a validation of its log tries the host on interleavings the legs do not write.

    python -m examples.host.clients.random_session http://127.0.0.1:8765 [--steps N] [--seed S]
"""
from __future__ import annotations

import argparse
import random
import sys
import threading
import time

import httpx

from ..identity import TOKENS, project
from .legs import NONEXISTENT
from .mcp_client import HttpClient, declares

TOOLS = ("conformance-approval", "conformance-failure", "conformance-delay", "conformance-cancellable")
ACTIONS = ("accept", "decline", "cancel")


def session(base: str, steps: int, seed: int) -> dict:
    """Run `steps` random operations; the counts of what was sent."""
    rng = random.Random(seed)
    clients = {name: HttpClient(base, token, elicitation=declares(name)) for name, token in TOKENS.items()}
    tasks: list[str] = []
    keys: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    threads = []
    # An id never created, by each tasks/* method: the answer an unreadable task's is compared with (ISO-1).
    clients["alice"].get(NONEXISTENT)
    clients["alice"].cancel(NONEXISTENT)
    clients["alice"].update(NONEXISTENT, {"acme/i-neverissuedneverissued": {"action": "cancel"}})
    for _ in range(steps):
        who = rng.choice(list(clients))
        c = clients[who]
        op = rng.choice(("call", "call", "get", "get", "update", "cancel", "drop", "blocking"))
        counts[op] = counts.get(op, 0) + 1
        tool = rng.choice(TOOLS)
        args = {} if tool == "conformance-approval" else {"ms": rng.choice((50, 300, 800))}
        if op == "call":
            ex = c.call(tool, args)
            if ex.final and "result" in ex.final and ex.result.get("resultType") == "task":
                tasks.append(ex.result["taskId"])
        elif op in ("get", "update", "cancel") and tasks:
            task = rng.choice(tasks)
            if op == "get":
                ex = c.get(task)
                if ex.final and "result" in ex.final:
                    keys.setdefault(task, []).extend(k for k in ex.result.get("inputRequests") or {}
                                                     if k not in keys.get(task, []))
            elif op == "update" and keys.get(task):
                c.update(task, {rng.choice(keys[task]): {"action": rng.choice(ACTIONS),
                                                         "content": {"approved": True}}})
            elif op == "cancel":
                c.cancel(task)
        elif op == "drop":
            c.drop("tools/call", {"name": tool, "arguments": args}, rng.choice((0.05, 0.2)), tasks=rng.random() < 0.3)
        elif op == "blocking":
            t = threading.Thread(target=c.call, args=(tool, args), kwargs={"tasks": False}, daemon=True)
            t.start()
            threads.append(t)
        time.sleep(rng.choice((0, 0.02, 0.1)))
    for name in ("alice", "mallory"):       # end every run still going (each tenant's canceller), then
        for r in clients[name].runs():      # let the blocking calls answer
            if r["status"] not in ("completed", "failed", "cancelled"):
                clients[name].cancel(project(r["runId"]))
    for t in threads:
        t.join(10)
    return counts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m examples.host.clients.random_session")
    p.add_argument("base")
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    try:
        print(session(a.base, a.steps, a.seed))
    except httpx.HTTPError as e:
        print(f"error: the host at {a.base} did not answer: {e}", file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
