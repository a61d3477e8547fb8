"""Traces as ITF JSON (the Informal Trace Format of Apalache and Quint), read through itf-py.

Each state holds the model's variables after a step; the step's action, arguments, protocol
words and the fields it changed are its `#meta`. Every value has one type a Quint or Apalache
reader can infer: a run, an interrupt, a request and a harness's tool execution are records (plain JSON objects) with every
field present; are `#map`s from strings to those records; an optional field is a set of at most one value
(TLA+'s idiom: ITF has no null, and itf-py cannot read a variant tagged `None`); a log is a
sequence (a JSON list). `loop` is the index of the state a lasso loops back to, absent for a
finite trace.
"""
from __future__ import annotations

import json

from itf_py import trace_from_json

VARS = ["clock", "runs", "interrupts", "requests", "executions", "effects"]

# The fields of each table's records, in order; `OPTIONAL` ones may be absent in a snapshot.
FIELDS = {
    "runs": ("label", "status", "tenant", "owner", "server", "startedBy", "parent", "purged", "durable",
             "taskId", "log"),
    "interrupts": ("label", "run", "kind", "open", "resolution", "resolvedBy", "via"),
    "requests": ("client", "subject", "server", "transport", "method", "declaresTasks", "phase", "owns", "run",
                 "response"),
    # The harness's tool-execution records (a composed world), keyed `client/op`: the live record, else
    # the persisted one (`persisted` says whether the disk holds it).
    "executions": ("client", "op", "status", "server", "attempts", "taskId", "remoteStatus", "cancelIntent",
                   "persisted"),
}
OPTIONAL = {"parent", "resolution", "resolvedBy", "via", "owns", "run", "response", "taskId", "remoteStatus"}


def _record(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}


def snapshot(world) -> dict:
    """The model's variables, as plain values (what a trace viewer shows)."""
    runs = {r.id: _record({
        "label": r.label, "status": r.status, "tenant": r.tenant, "owner": r.owner, "server": r.server,
        "startedBy": r.started_by, "parent": r.parent, "purged": r.purged, "durable": r.durable,
        "taskId": world.rules.task_id(world, r), "log": tuple(e["type"] for e in r.log),
    }) for r in world.runs.values()}
    interrupts = {i.id: _record({
        "label": i.label, "run": world.runs[i.run].label, "kind": i.kind, "open": i.open,
        "resolution": i.resolution, "resolvedBy": i.resolved_by, "via": i.via,
    }) for i in world.interrupts.values()}
    requests = {q.id: _record({
        "client": q.client, "subject": q.subject, "server": q.server, "transport": q.transport, "method": q.method,
        "declaresTasks": q.declares_tasks, "phase": q.phase, "owns": world.runs[q.owns].label if q.owns else None,
        "run": world.runs[q.run].label if q.run else None, "response": response_kind(q.response),
    }) for q in world.requests.values()}
    return {"clock": world.clock, "runs": runs, "interrupts": interrupts, "requests": requests,
            "executions": executions(world), "effects": world.effects}


def executions(world) -> dict:
    harness = getattr(world, "harness", None)
    out = {}
    for name, c in (harness.clients.items() if harness is not None else ()):
        live = c.proc.tes if c.proc is not None else {}
        for op in sorted(set(live) | set(c.disk_tes)):
            te = live.get(op) or c.disk_tes[op]
            out[f"{name}/{op}"] = _record({
                "client": name, "op": op, "status": te.status, "server": te.server, "attempts": te.attempts,
                "taskId": te.binding.task_id if te.binding else None, "remoteStatus": te.remote_status,
                "cancelIntent": te.cancel_intent, "persisted": op in c.disk_tes})
    return out


def response_kind(message: dict | None) -> str | None:
    if message is None:
        return None
    if "error" in message:
        return f"error {message['error']['code']}"
    res = message.get("result", {})
    kind = res.get("resultType", "complete")
    if kind == "task":
        return f"CreateTaskResult ({res.get('status')})"
    if kind == "input_required":
        return "InputRequiredResult"
    if "content" in res:
        return f"CallToolResult isError={str(res.get('isError', False)).lower()}"
    return "empty result" if set(res) <= {"resultType"} else f"result ({', '.join(sorted(res))})"


def changes(before: dict, after: dict) -> list[str]:
    """Only what changed, in readable paths: `run1.status: running -> cancelling`."""
    out = []
    if before["clock"] != after["clock"]:
        out.append(f"clock: {before['clock']} -> {after['clock']}")
    if before["effects"] != after["effects"]:
        out.append(f"external effects: {before['effects']} -> {after['effects']}")
    for table, name_of in (("runs", lambda k, v: v["label"]), ("interrupts", lambda k, v: v["label"]),
                           ("requests", lambda k, v: k), ("executions", lambda k, v: k)):
        for key, rec in after.get(table, {}).items():
            old = before.get(table, {}).get(key)
            name = name_of(key, rec)
            if old is None:
                out.append(f"{name}: new ({', '.join(f'{k}={_show(v)}' for k, v in rec.items() if k in _NEW_FIELDS)})")
                continue
            for field, value in rec.items():
                if field == "log":
                    added = value[len(old.get("log", ())):]
                    if added:
                        out.append(f"{name}.log += {', '.join(added)}")
                elif old.get(field) != value:
                    out.append(f"{name}.{field}: {_show(old.get(field))} -> {_show(value)}")
            for field in old:
                if field not in rec:
                    out.append(f"{name}.{field}: {_show(old[field])} -> none")
    return out


_NEW_FIELDS = ("status", "phase", "method", "owner", "kind", "client", "transport", "declaresTasks", "owns", "run")


def _show(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def value(v):
    """A plain scalar or log as ITF: integers as `#bigint`, a log as a sequence."""
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"#bigint": str(v)}
    if isinstance(v, (tuple, list)):
        return [value(x) for x in v]
    raise TypeError(f"no ITF type for {v!r}")


def encode(snap: dict) -> dict:
    """A snapshot as typed ITF variables (every record of a table with the same fields)."""
    out = {"clock": value(snap["clock"])}
    for table, fields in FIELDS.items():
        rows = []
        for key, rec in snap[table].items():
            row = {}
            for f in fields:
                v = rec.get(f)
                if f in OPTIONAL:
                    row[f] = {"#set": [] if v is None else [value(v)]}
                elif v is None:
                    raise ValueError(f"{table} {key}: {f} is required in a trace")
                else:
                    row[f] = value(v)
            rows.append([key, row])
        out[table] = {"#map": rows}
    out["effects"] = value(snap["effects"])
    return out


def build(world_factory, history, meta: dict, loop: int | None = None) -> dict:
    """Replay `history` (Step records) from a fresh world and record every state; `loop` is the
    index of the state a lasso returns to (a liveness counterexample), None for a finite trace."""
    world = world_factory()
    prev = snapshot(world)
    states = [{"#meta": {"index": 0, "action": "init", "note": "the initial state", "changes": []}, **encode(prev)}]
    for i, step in enumerate(history, start=1):
        s = world.apply(step.action, step.args, check=False)
        now = snapshot(world)
        states.append({"#meta": {"index": i, "action": s.action, "args": s.args, "actor": s.actor, "note": s.note,
                                 "changes": changes(prev, now)}, **encode(now)})
        prev = now
    head = {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": "taskmodel", **meta}
    trace = {"#meta": _record(head), "params": [], "vars": VARS, "states": states}
    if loop is not None:
        if not 0 <= loop < len(states):
            raise ValueError(f"loop {loop} is not a state of a {len(states)}-state trace")
        trace["loop"] = loop
    return trace


def _normal(v):
    """An ITF value in one spelling: integers as `#bigint` of their decimal, maps and sets in one order."""
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"#bigint": str(v)}
    if isinstance(v, list):
        return [_normal(x) for x in v]
    if "#bigint" in v:
        digits = v["#bigint"].lstrip("-").lstrip("0") or "0"       # as text: any length
        return {"#bigint": ("-" if v["#bigint"].startswith("-") and digits != "0" else "") + digits}
    if "#map" in v:
        return {"#map": sorted(([_normal(k), _normal(x)] for k, x in v["#map"]), key=lambda kv: _order(kv[0]))}
    if "#set" in v:
        return {"#set": sorted((_normal(x) for x in v["#set"]), key=_order)}
    return {k: _normal(x) for k, x in v.items()}


def _order(v) -> str:
    return json.dumps(v, sort_keys=True)


def _plain(v) -> str:
    """A normalised ITF value as it reads in a story: integers bare, an optional's value or none."""
    def strip(x):
        if isinstance(x, list):
            return [strip(y) for y in x]
        if isinstance(x, dict):
            if "#bigint" in x:      # shown bare; Python converts at most 4,300 digits
                return int(x["#bigint"]) if len(x["#bigint"]) < 4000 else x["#bigint"]
            if "#set" in x:
                return strip(x["#set"][0]) if len(x["#set"]) == 1 else [strip(y) for y in x["#set"]] or None
            if "#map" in x:
                return {_order(strip(k)) if not isinstance(k, str) else k: strip(y) for k, y in x["#map"]}
            return {k: strip(y) for k, y in x.items()}
        return x
    text = json.dumps(strip(v), ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_difference(recorded, reached, where: str) -> str | None:
    if recorded == reached:
        return None
    if isinstance(recorded, dict) and isinstance(reached, dict) and "#map" in recorded and "#map" in reached:
        was, now = dict((_order(k), (k, x)) for k, x in recorded["#map"]), dict((_order(k), (k, x)) for k, x in reached["#map"])
        for key in sorted(set(was) | set(now)):
            name = f"{where}[{_plain(was.get(key, now.get(key))[0])}]"
            if key not in now:
                return f"{name}: recorded, not reached"
            if key not in was:
                return f"{name}: reached, not recorded"
            got = _first_difference(was[key][1], now[key][1], name)
            if got:
                return got
    if isinstance(recorded, dict) and isinstance(reached, dict) and not any(k.startswith("#") for k in (*recorded, *reached)):
        for field in [*reached, *(k for k in recorded if k not in reached)]:
            if field not in recorded or field not in reached:
                return f"{where}.{field}: {'reached' if field in reached else 'recorded'} only"
            got = _first_difference(recorded[field], reached[field], f"{where}.{field}")
            if got:
                return got
    return f"{where}: recorded {_plain(recorded)}, reached {_plain(reached)}"


def difference(state: dict, world) -> str | None:
    """Where the recorded ITF `state` (its variables) and `world`'s state first differ, or None."""
    now = encode(snapshot(world))
    for var in VARS:
        got = _first_difference(_normal(state[var]), _normal(now[var]), var)
        if got:
            return got
    return None


def dumps(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def load(text: str) -> tuple[dict, list[tuple[str, dict]]]:
    """An ITF trace (this format or the older one of untyped `#map`s) -> (its meta, its steps as (action, args))."""
    trace = trace_from_json(json.loads(text))
    steps = [(s.meta["action"], dict(s.meta.get("args", {}))) for s in trace.states[1:]]
    return dict(trace.meta), steps
