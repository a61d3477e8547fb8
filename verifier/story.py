"""Counterexamples for people: the story (`trace.md`) and the sequence diagram (`sequence.mmd`)."""
from __future__ import annotations

from properties.requirements import REQUIREMENTS

ACTOR_LANE = {"client": "Client", "harness": "Client", "network": "Network", "host": "Host", "rest": "REST",
              "clock": "Clock"}


def story(itf: dict) -> str:
    meta = itf["#meta"]
    ids = meta["ids"]
    clauses = "; ".join(f"{i} ({REQUIREMENTS.get(i, ('?', '?'))[1]})" for i in ids)
    verb = {"witness": "reaches", "gap": "shows the known gap"}.get(meta.get("kind"), "breaks")
    lines = [
        f"# {meta['variant']}: {meta['property']} {verb} {', '.join(ids)}",
        "",
        f"- **Requirement**: {clauses}",
        f"- **Property** `{meta['property']}`: {meta['sentence']}",
        f"- **Variant** `{meta['variant']}`: {meta.get('changes') or 'the RFC as written'}",
        f"- **Length**: {meta['length']} steps (seed {meta.get('seed', 0)}); replay with "
        f"`taskmodel replay {meta.get('path', 'trace.itf.json')}`",
        "",
        "## Steps",
        "",
    ]
    for s in itf["states"][1:]:
        m = s["#meta"]
        lines.append(f"{m['index']}. {m['note']}")
        for c in m.get("changes", []):
            lines.append(f"   - {c}")
    lines += ["", f"## Why this state {verb} {', '.join(ids)}", "", meta["message"], ""]
    return "\n".join(lines)


def _lane_of(step_meta: dict) -> str:
    actor = step_meta.get("actor", "host")
    args = step_meta.get("args", {})
    if actor in ("client", "harness") and "client" in args:
        return args["client"]
    return ACTOR_LANE.get(actor, "Host")


def sequence(itf: dict) -> str:
    """A Mermaid sequence diagram with lanes for clients, network, host and runs."""
    steps = [s["#meta"] for s in itf["states"][1:]]
    final = itf["states"][-1]
    run_labels = {rid: rec["label"] for rid, rec in _map(final.get("runs", {})).items()}
    lanes: list[str] = []

    def lane(name):
        if name not in lanes:
            lanes.append(name)
        return name

    body = []
    for m in steps:
        src = lane(_lane_of(m))
        args = m.get("args", {})
        run = run_labels.get(args.get("run", ""), None)
        text = m["note"].replace(";", ",").replace("#", "")
        if m.get("actor") in ("client", "harness"):
            body.append(f"    {src}->>{lane('Network')}: {text}")
            body.append(f"    {lane('Network')}->>{lane('Host')}: deliver")
        elif m["action"] in ("deliver",):
            q = args.get("request")
            body.append(f"    {lane('Network')}->>{lane(_client_of(final, q))}: {text}")
        elif m["action"] == "disconnect":
            body.append(f"    {lane('Network')}--x{lane('Host')}: {text}")
        elif run is not None:
            body.append(f"    {lane('Host')}->>{lane(run)}: {text}")
        else:
            body.append(f"    {src}->>{lane('Host')}: {text}" if src != "Host" else f"    Note over Host: {text}")
    order = sorted(lanes, key=lambda n: (0 if n.startswith(("C", "H")) and n not in ("Host",) else
                                         1 if n == "Network" else 2 if n in ("Host", "REST", "Clock") else 3, n))
    head = ["sequenceDiagram"] + [f"    participant {n}" for n in order]
    meta = itf["#meta"]
    tail = [f"    Note over {order[-1]}: {', '.join(meta['ids'])} - {meta['property']}"]
    return "\n".join(head + body + tail) + "\n"


def _client_of(final_state: dict, request_id) -> str:
    rec = _map(final_state.get("requests", {})).get(request_id, {})
    return rec.get("client", "Client")


def _map(value) -> dict:
    if isinstance(value, dict) and "#map" in value:
        return {k: {kk: _plain(vv) for kk, vv in _pairs(v)} for k, v in value["#map"]}
    return value


def _pairs(record):
    """A record's fields, whether itf-py wrote it as an object or as a `#map` of pairs."""
    if isinstance(record, dict) and "#map" in record:
        return [tuple(p) for p in record["#map"]]
    return list(record.items())


def _plain(v):
    if isinstance(v, dict) and "#bigint" in v:
        return int(v["#bigint"])
    if isinstance(v, dict) and "#tup" in v:
        return tuple(_plain(x) for x in v["#tup"])
    return v
