"""A small synthetic counterexample in the ITF format the verifier writes (for the diagram and report tests).

The story: a blocking tools/call's connection drops, the run is not cancelled (the detach-on-disconnect
amendment), and it completes with nobody holding it: OWN-2 broken.
"""
from __future__ import annotations

import json
from pathlib import Path

RUN = "acme/AAAAAAAAAAAAAAAAAAAAAA"


def _run(status: str, log: tuple[str, ...]) -> dict:
    return {"#map": [["label", "run1"], ["status", status], ["tenant", "acme"], ["owner", "alice"],
                     ["log", {"#tup": list(log)}]]}


def _req(phase: str, owns: str | None) -> dict:
    rec = [["client", "C1"], ["method", "tools/call"], ["transport", "http"], ["phase", phase]]
    if owns:
        rec.append(["owns", owns])
    return {"#map": [["r1", {"#map": rec}]]}


def _state(i, action, actor, note, changes, clock, runs, requests, args=None):
    meta = {"index": i, "action": action, "note": note, "changes": changes}
    if actor:
        meta["actor"] = actor
    if args is not None:
        meta["args"] = args
    return {"#meta": meta, "clock": {"#bigint": str(clock)}, "runs": runs, "requests": requests,
            "effects": {"#bigint": "0"}, "extra-field": [1, 2]}


def trace() -> dict:
    no_runs = {"#map": []}
    states = [
        _state(0, "init", None, "the initial state", [], 0, no_runs, {"#map": []}),
        _state(1, "call_tool", "client", "client C1 sends tools/call r1 (flow) over http to S1",
               ["run1: new (status=pending, owner=alice)", "r1: new (method=tools/call, owns=run1)"], 0,
               {"#map": [[RUN, _run("pending", ("run.created",))]]}, _req("received", "run1"),
               {"client": "C1", "server": "S1", "transport": "http", "declare": False, "tool": "flow"}),
        _state(2, "run_start", "host", "run1 starts", ["run1.status: pending -> running"], 0,
               {"#map": [[RUN, _run("running", ("run.created", "run.started"))]]}, _req("received", "run1"),
               {"run": RUN}),
        _state(3, "disconnect", "network", "the connection of r1 drops",
               ["r1.phase: received -> cancelled", "r1.owns: run1 -> none"], 0,
               {"#map": [[RUN, _run("running", ("run.created", "run.started"))]]}, _req("cancelled", None),
               {"request": "r1"}),
        _state(4, "run_complete", "host", "run1 completes", ["run1.status: running -> completed"], 1,
               {"#map": [[RUN, _run("completed", ("run.created", "run.started", "run.completed"))]]},
               _req("cancelled", None), {"run": RUN}),
    ]
    meta = {"format": "ITF", "variant": "detach-on-disconnect", "property": "OWN-2", "ids": ["OWN-2"],
            "kind": "trace", "clause": "RFC §G.12",
            "sentence": "When the request that owns a non-terminal run is cancelled, the host accepts a cancel.",
            "message": "r1 owned run1 and was cancelled at step 3, but run1 reached completed, not cancelled",
            "length": 4, "focus_run": RUN, "unknown-meta": {"x": 1}}
    return {"#meta": meta, "params": [], "vars": ["clock", "runs", "requests", "effects"], "states": states,
            "loop": None}


def write(root: Path, variant: str = "detach-on-disconnect", prop: str = "OWN-2") -> Path:
    path = Path(root) / variant / prop / "trace.itf.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace(), indent=1) + "\n", encoding="utf-8")
    return path


def check_result(trace_path: str | None) -> dict:
    return {"variant": "detach-on-disconnect", "engine": "hypothesis", "bounds": {"max_runs": 4},
            "budget": {"seconds": 5}, "coverage": {"actions": {"call_tool": 3}},
            "properties": [
                {"name": "OWN-1", "ids": ["OWN-1"], "kind": "invariant", "verdict": "holds", "message": None,
                 "trace": None, "length": None},
                {"name": "OWN-2", "ids": ["OWN-2"], "kind": "trace", "verdict": "refuted",
                 "message": "r1 owned run1 and was cancelled at step 3, but run1 reached completed",
                 "trace": trace_path, "length": 4},
                {"name": "e2e-orphan-task", "ids": ["E2E-1"], "kind": "gap", "verdict": "known-gap",
                 "message": "r2's response was lost", "trace": None, "length": None},
                {"name": "CRT-2", "ids": ["CRT-2"], "kind": "witness", "verdict": "vacuous", "message": None,
                 "trace": None, "length": None},
            ]}
