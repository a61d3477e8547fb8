"""What the host declares of itself (the mapping's `host`), and what the validator assumes without it.

The sources leave a host some choices: how long a finished run stays readable, the `ttlMs` a live
task advertises, the HTTP status of the errors core gives none, and the P-... parameters. A host's
declaration sets the model's parameters (`model/params.py`) and bounds what may explain its answers:
no not-found answer is read as a purge sooner than its declared retention on the log's clock.
Without a declaration the validator reads the choice off the log where the log shows it (the first
such answer) and reports that as an assumption, as it does each answer it explains by a purge.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model import wire
from model.params import PARAMETER_IDS, Params

TICK_MS = Params().tick_ms


@dataclass
class Declared:
    params: dict = field(default_factory=dict)      # Params fields the host's declarations set
    retention_s: float | None = None
    notify_within_s: float | None = None            # the host's bound on a notification's delay (NTF-4)
    from_creation: bool = False                     # P-RETENTION from-creation
    assumptions: list = field(default_factory=list)  # what the log was read as where the host declares nothing


def declared(mapping: dict, events) -> Declared:
    host = mapping.get("host") or {}
    out = Declared(retention_s=host.get("retention_s"), notify_within_s=host.get("notify_within_s"))
    for pid, value in (host.get("parameters") or {}).items():
        out.params[PARAMETER_IDS[pid]] = value
    out.from_creation = out.params.get("p_retention") == "from-creation"
    if "ttl_ms_live" in host:
        out.params["ttl_live_ticks"] = _ticks(host["ttl_ms_live"])
    else:
        seen = _live_ttl(events)
        if seen is not None:
            ev, ms = seen
            out.params["ttl_live_ticks"] = _ticks(ms)
            out.assumptions.append(f"the host's ttlMs for a live task is not declared (mapping host.ttl_ms_live): "
                                   f"read as {ms} from line {ev.line}")
    if "http_error_status" in host:
        out.params["http_error_status"] = host["http_error_status"]
    else:
        seen = _error_status(events)
        if seen is not None and seen[1] != Params().http_error_status:
            ev, status = seen
            out.params["http_error_status"] = status
            out.assumptions.append(f"the host's HTTP status of -32602 (and -32603) is not declared (mapping "
                                   f"host.http_error_status): read as {status} from line {ev.line}")
    return out


def _ticks(ms: int | None) -> int | None:
    return None if ms is None else max(1, -(-ms // TICK_MS))


def _live_ttl(events):
    """(event, ttlMs) of the first task the log shows live with a ttlMs, or None."""
    for ev in events:
        d = ev.data
        if d["event"] != "message" or d["dir"] != "s2c":
            continue
        msg = d["message"]
        task = msg.get("result") if isinstance(msg.get("result"), dict) else msg.get("params") \
            if msg.get("method") == "notifications/tasks" else None
        if not isinstance(task, dict):
            continue
        ttl = task.get("ttlMs")
        if task.get("status") in ("working", "input_required") and isinstance(ttl, int) \
                and not isinstance(ttl, bool) and ttl > 0:
            return ev, ttl
    return None


def _error_status(events):
    """(event, status) of the first HTTP answer -32602 (the error a host gives most; core names no
    status for it), or None."""
    for ev in events:
        d = ev.data
        err = d["message"].get("error") if d["event"] == "message" and d["dir"] == "s2c" else None
        status = (d.get("http") or {}).get("status")
        if isinstance(err, dict) and err.get("code") == wire.INVALID_PARAMS and isinstance(status, int):
            return ev, status
    return None


def purges_assumed(cand, events, host: Declared) -> list[str]:
    """Each not-found answer the matched behaviour explains by a purge, where the host declared no
    retention to bound when it may purge: an assumption, said as one."""
    if host.retention_s is not None:
        return []
    out = []
    for (method, _, _), answer in cand.ids.errors.items():
        out += [(line, f"line {line}: the {method} answer is read as its task's run purged (the host's retention "
                       f"is not declared: mapping host.retention_s)")
                for cls, _, line in answer.given if cls == "purged"]
    return [text for _, text in sorted(out)]
