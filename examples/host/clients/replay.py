"""Play a committed counterexample (counterexamples/<variant>/<property>/trace.itf.json) against the
reference host as a client script: the trace's client steps are sent for real, its host steps are
left to the host (the player waits until the host's run reaches the status the trace shows).

A trace is playable when every step is one this host and client can take over streamable HTTP:
declaring `tools/call`, `tasks/get`, `tasks/update`, `tasks/cancel`, and the host's own run steps.
Harness, REST, stdio, S2 (the plain mount), clock and network steps are not: `unplayable` names
the first such step.

    python -m examples.host.clients.replay http://127.0.0.1:8765 counterexamples/V/P/trace.itf.json
"""
from __future__ import annotations

import json
import sys
import time

import httpx

from ..identity import TOKENS, project, unproject
from .mcp_client import HttpClient, declares

SUBJECT_OF_CLIENT = {"C1": "alice", "C2": "bob", "C3": "carol", "C4": "mallory"}   # Params.client_subject
CLIENT_STEPS = {"call_tool", "tasks_get", "tasks_update", "tasks_cancel"}
# How far along a run is, for waiting on the host: a run never goes back down this order.
PROGRESS = {"pending": 0, "running": 1, "paused": 1, "waiting-approval": 2, "waiting-input": 2,
            "waiting-external": 2, "cancelling": 3, "completed": 4, "failed": 4, "cancelled": 4}
HOST_STEPS = {"run_start", "run_interrupt", "run_complete", "run_fail", "run_finish_cancel", "answer", "respond"}


def load(path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _runs(state: dict) -> dict:
    return dict(state.get("runs", {}).get("#map", []))


def unplayable(trace: dict) -> str | None:
    """Why this trace cannot be played against the host, or None."""
    for s in trace["states"][1:]:
        m = s["#meta"]
        args = m.get("args", {})
        if m["action"] not in CLIENT_STEPS | HOST_STEPS:
            return f"step {m['index']} ({m['action']}): not a step of an HTTP client of this host"
        if m["action"] in CLIENT_STEPS and (args.get("transport") != "http" or args.get("server") != "S1"):
            return f"step {m['index']}: {args.get('transport')} to {args.get('server')}"
        if m["action"] == "call_tool" and (not args.get("declare") or args.get("tool") != "flow"):
            return f"step {m['index']}: a blocking or {args.get('tool')} call (the player sends declaring flow calls)"
    return None


def _tool_for(trace: dict, model_run: str, after: int) -> str:
    """The conformance tool whose run takes the host steps the trace shows for this run."""
    label = _runs(trace["states"][after])[model_run]["label"]
    for s in trace["states"][after + 1:]:
        m = s["#meta"]
        if m["action"] in ("run_interrupt", "run_complete", "run_fail") and m["args"].get("run") == model_run:
            return {"run_interrupt": "conformance-approval", "run_fail": "conformance-failure"}.get(
                m["action"], "conformance-delay")
        if m["action"] == "run_finish_cancel" and label in m.get("note", ""):
            break
    return "conformance-cancellable"


class Player:
    def __init__(self, base: str, trace: dict):
        self.trace = trace
        self.clients = {c: HttpClient(base, TOKENS[s], elicitation=declares(s)) for c, s in SUBJECT_OF_CLIENT.items()}
        self.run_ids: dict[str, str] = {}        # model raw runId -> host raw runId
        self.keys: dict[str, str] = {}           # model interruptId -> host interruptId
        self.answers: list[dict] = []            # (step, the JSON-RPC answer) as the client saw it

    def ref(self, model_ref: str) -> str:
        raw = unproject(model_ref)
        real = self.run_ids.get(raw) if raw else None
        if real is None:
            return model_ref                     # fabricated (never issued, malformed): sent as is
        return project(real).replace("~2F", "%2F") if "%2F" in model_ref else project(real)

    def play(self) -> list[dict]:
        why = unplayable(self.trace)
        if why:
            raise ValueError(f"unplayable: {why}")
        states = self.trace["states"]
        for n, s in enumerate(states[1:], 1):
            m, args = s["#meta"], s["#meta"].get("args", {})
            if m["action"] in HOST_STEPS:
                self.wait_for(states[n])
                continue
            client = self.clients[args["client"]]
            if m["action"] == "call_tool":
                new = [r for r in _runs(s) if r not in _runs(states[n - 1])]
                ex = client.call(_tool_for(self.trace, new[0], n))
                self.answers.append({"step": n, "answer": ex.final})
                self.run_ids[new[0]] = unproject(ex.result["taskId"])
                continue
            ref = self.ref(args["ref"])
            kw = dict(tasks=args["declare"], mcp_name=None if args["header_ok"] else ref + "x")
            if m["action"] == "tasks_update":
                key = self.key(args["key"])
                ex = client.update(ref, {key: {"action": args["response"],
                                               **({"content": {"approved": True}} if args["response"] == "accept" else {})}},
                                   **kw)
            else:
                ex = (client.get if m["action"] == "tasks_get" else client.cancel)(ref, **kw)
            self.answers.append({"step": n, "answer": ex.final, "status": ex.status})
        return self.answers

    def key(self, model_key: str) -> str:
        """The host's interruptId answering to the model's (the n-th interrupt of the same run)."""
        if model_key in self.keys:
            return self.keys[model_key]
        return model_key                         # never issued: sent as is

    def wait_for(self, state: dict, timeout: float = 5.0) -> None:
        """Until every run the trace has reached its status in `state` on the host (the host's own steps)."""
        want = {self.run_ids[r]: v["status"] for r, v in _runs(state).items() if r in self.run_ids}
        deadline = time.monotonic() + timeout
        while True:
            seen = {r["runId"]: r["status"] for c in self.clients.values() for r in c.runs()}
            # the host may be ahead of the trace (it takes its own steps at once): never wait for it to
            # come back
            if all(r in seen and PROGRESS[seen[r]] >= PROGRESS[st] for r, st in want.items()) \
                    or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        runs = _runs(state)
        for model_run, real in self.run_ids.items():      # learn the interrupts the host opened
            label = runs[model_run]["label"]
            model_interrupts = [i for i, v in dict(state.get("interrupts", {}).get("#map", [])).items()
                                if label in v.get("run", {}).get("#set", [])]
            if model_interrupts and not all(i in self.keys for i in model_interrupts):
                owner = next(c for c in self.clients.values()
                             if any(r["runId"] == real for r in c.runs()))
                result = owner.get(project(real)).result
                for mi, ri in zip(model_interrupts, result.get("inputRequests") or {}):
                    self.keys.setdefault(mi, ri)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 3
    try:
        trace = load(argv[1])
        why = unplayable(trace)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: {argv[1]} is not a trace.itf.json: {e}", file=sys.stderr)
        return 3
    if why:
        print(f"error: {argv[1]} is not playable here: {why}", file=sys.stderr)
        return 3
    try:
        for a in Player(argv[0], trace).play():
            print(json.dumps(a))
    except httpx.HTTPError as e:
        print(f"error: the host at {argv[0]} did not answer: {e}", file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
