"""What the catalogue states of an observed message beyond its shape: judged on the host's own bytes.

The model's words are not the host's: a host may say "No such task" where the model says "Task
not found". What ISO-1 and TTL-3 require is that the host tell nothing apart that the model does
not: every answer the model gives as *the* not-found answer (code -32602 to a tasks/* request) is
one observed answer per method and transport, the same code, message, data and HTTP status each
time. `bind_error` keeps that function (model answer -> observed answer) in the candidate's
bindings, so a candidate whose host said two things where the model says one is ruled out, and
the conflict names its requirement.

`IdCheck` judges ID-1 on every taskId and runId the host sends: the grammar, 22 characters of
opaque segment for a tasked call's run, and 128 bits of entropy as far as a log can estimate it.
`Lifetimes` reads the `ttlMs` the host sends against the log's own clock (TTL-1, TTL-4).
"""
from __future__ import annotations

import json
import math
import os

from model import identity, wire

from verifier.validate.ids import raw_of

NOT_FOUND_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
ENTROPY_BITS = 128
SLACK = 2            # characters two random ids may share at the start by chance (a log sees few ids)
ALPHABETS = ((set("0123456789"), 10), (set("0123456789abcdef"), 16), (set("0123456789ABCDEF"), 16),
             (set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"), 62))


class Conflict:
    """Two observed answers where the model gives one: the requirement, in words."""
    __slots__ = ("requirement", "reason")

    def __init__(self, requirement: str, reason: str):
        self.requirement, self.reason = requirement, reason


def _text(err: dict) -> tuple:
    return err.get("code"), err.get("message"), json.dumps(err.get("data"), sort_keys=True)


def bind_error(ids, q, model_msg: dict, observed: dict, status, line: int, purged: bool):
    """(the bindings with the observed answer bound to the model's, None) or (None, Conflict) when
    the host already gave that model answer other words, data or status."""
    merr, oerr = model_msg.get("error"), observed.get("error")
    if not (isinstance(merr, dict) and isinstance(oerr, dict)) or q.method not in NOT_FOUND_METHODS \
            or merr.get("code") != wire.INVALID_PARAMS:
        return ids, None
    key = (q.method, q.transport, _text(merr))
    seen = ids.errors.get(key)
    if seen is None:
        out = ids.copy()
        out.errors[key] = (_text(oerr), status, line, purged)
        return out, None
    text, was_status, was_line, was_purged = seen
    if text == _text(oerr) and (status is None or was_status is None or status == was_status):
        if was_status is None and status is not None:
            out = ids.copy()
            out.errors[key] = (text, status, was_line, was_purged)
            return out, None
        return ids, None
    req = "TTL-3" if purged or was_purged else "ISO-1"
    said = f"error {_text(oerr)[0]} {oerr.get('message')!r} data {oerr.get('data')!r}" + (
        f" HTTP {status}" if status is not None else "")
    before = f"error {text[0]} {text[1]!r} data {json.loads(text[2])!r}" + (
        f" HTTP {was_status}" if was_status is not None else "")
    return None, Conflict(req, f"{q.method} answered {said}, but the {q.method} answered at line {was_line} got "
                               f"{before}: the model gives both one not-found answer (same code, message, data and "
                               f"HTTP status), so the host tells them apart")


class IdCheck:
    """ID-1 on the run ids a host sends (taskIds of its results and notifications, runIds of run events)."""

    def __init__(self):
        self.seen: set[tuple] = set()          # (id as sent, judged as a tasked call's)
        self.opaques: list[str] = []        # of tasked calls' runs: the entropy estimate reads them together

    def judge(self, d: dict) -> str | None:
        """The ID-1 failure of a server message or run event, or None."""
        for wire_id, tasked in _sent_ids(d):
            if (wire_id, tasked) in self.seen:
                continue
            self.seen.add((wire_id, tasked))
            why = self._one(wire_id, tasked, d["event"] == "run")
            if why:
                return why
        return None

    def _one(self, wire_id: str, tasked: bool, raw_given: bool) -> str | None:
        raw, form = (wire_id, "projected") if raw_given else raw_of(wire_id)     # a run event's runId is raw
        if form == "literal" or not identity.UNPROJECTED.fullmatch(raw):
            return f"id {wire_id!r} is not a runId of the grammar tenant/opaque (opaque 16-128 of [A-Za-z0-9._-])"
        if form != "projected":
            return f"taskId {wire_id!r} is not the runId projected exactly once (form {form})"
        tenant, opaque = raw.split("/", 1)
        if "~" in tenant:
            return f"runId {raw!r}: a host never mints '~'"
        if not tasked:
            return None
        if len(opaque) < identity.MIN_OPAQUE_128_BITS:
            return (f"runId {raw!r} of a tasked call: opaque segment of {len(opaque)} characters, under the "
                    f"{identity.MIN_OPAQUE_128_BITS} that 128 bits need")
        if opaque in self.opaques:
            return None                     # one run, shown again (its run event, then its CreateTaskResult)
        self.opaques.append(opaque)
        bits, varying = entropy(self.opaques)
        if bits < ENTROPY_BITS - SLACK * 6:
            return (f"runId {raw!r} of a tasked call: about {bits:.0f} bits of entropy (its varying part "
                    f"{varying!r} among the {len(self.opaques)} tasked runIds seen), under {ENTROPY_BITS}")
        return None


def entropy(opaques: list[str]) -> tuple[float, str]:
    """(estimated bits, the varying part) of the last opaque segment: what follows the prefix all the
    segments seen share, in the smallest alphabet that writes every varying part."""
    prefix = os.path.commonprefix(opaques) if len(opaques) > 1 else ""
    parts = [o[len(prefix):] for o in opaques]
    chars = set("".join(parts))
    size = next((n for alphabet, n in ALPHABETS if chars <= alphabet), 64)
    return len(parts[-1]) * math.log2(size), parts[-1]


def _sent_ids(d: dict):
    """(wire id, whether it names a tasked call's run) of every run id a server event carries."""
    if d["event"] == "run":
        yield d["runId"], d.get("kind") == "run.created" and (d.get("data") or {}).get("by") == "tasked-call"
        return
    if d["event"] != "message" or d["dir"] != "s2c":
        return
    msg = d["message"]
    res = msg.get("result") if isinstance(msg.get("result"), dict) else None
    if res is not None and isinstance(res.get("taskId"), str):
        yield res["taskId"], res.get("resultType") == "task"
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    if msg.get("method") == "notifications/tasks" and isinstance(params.get("taskId"), str):
        yield params["taskId"], False
    notes = params.get("notifications") if isinstance(params.get("notifications"), dict) else {}
    listed = notes.get("taskIds") if msg.get("method") == "notifications/subscriptions/acknowledged" else None
    for t in listed if isinstance(listed, list) else ():
        if isinstance(t, str):
            yield t, False


class Lifetimes:
    """What the log's own clock says of a task's `ttlMs` (TTL-1, TTL-4).

    The model's clock is free between events; the log's is not. A task's creation lies between the
    creating request (`t` of its c2s message, a lower bound) and its first showing (a CreateTaskResult
    or its run.created event, an upper bound). A `ttlMs` the host sends with the task still served
    promises no purge before createdAt + ttlMs: an expiry already past while the host still serves it
    breaks TTL-1, and a candidate that purged the run before the earliest such expiry is no
    explanation of the log (TTL-4 forbids the purge it assumes)."""

    SLACK = 0.002          # seconds: ttlMs is whole milliseconds

    def __init__(self):
        self.requested: dict = {}     # (conn, JSON-RPC id key) -> t of the request
        self.created: dict = {}       # real runId -> (earliest, latest) creation time
        self.expiry: dict = {}        # real runId -> the log time before which it may not be purged

    def request(self, conn, key, t: float) -> None:
        self.requested[(conn, key)] = t

    def shown(self, d: dict, key) -> str | None:
        """Note a server event's task; the TTL-1 failure it shows, or None."""
        t = d["t"]
        if d["event"] == "run":
            if d.get("kind") == "run.created":
                self.created.setdefault(d["runId"], (t, t))
            return None
        msg = d["message"]
        res = msg.get("result") if isinstance(msg.get("result"), dict) else None
        task = res if res is not None and isinstance(res.get("taskId"), str) else (
            msg.get("params") if msg.get("method") == "notifications/tasks" else None)
        if not isinstance(task, dict) or not isinstance(task.get("taskId"), str):
            return None
        real = raw_of(task["taskId"])[0]
        if real not in self.created and res is not None and res.get("resultType") == "task":
            self.created[real] = (self.requested.get((d["conn"], key), t), t)
        ttl = task.get("ttlMs")
        if real not in self.created or not isinstance(ttl, (int, float)) or isinstance(ttl, bool):
            return None
        low, high = self.created[real]
        if t > high + ttl / 1000 + self.SLACK:
            return (f"task {task['taskId']} served at t={t:.3f} with ttlMs {ttl}: created by t={high:.3f}, so "
                    f"createdAt + ttlMs had passed before this answer, and the purge has not come yet")
        self.expiry[real] = max(self.expiry.get(real, 0.0), low + ttl / 1000)
        return None

    def early_purge(self, c, t: float) -> bool:
        """The candidate purged a run before the log's clock allows it."""
        for real, until in self.expiry.items():
            if until > t:
                mid = c.ids.to_model("run", real)
                run = c.world.runs.get(mid) if mid is not None else None
                if run is not None and run.purged:
                    return True
        return False
