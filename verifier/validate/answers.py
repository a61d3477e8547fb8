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
from typing import NamedTuple

from model import identity, wire
from model.run_index import purged_runs

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


ECHO = "{taskId}"


def _text(err: dict, echo: str | None = None) -> tuple:
    """An error's code, message and data; the asked taskId, where the answer echoes it, as ECHO: an
    answer that differs only by the id its request named tells nothing apart (ISO-1)."""
    message, data = err.get("message"), json.dumps(err.get("data"), sort_keys=True)
    if echo:
        message = message.replace(echo, ECHO) if isinstance(message, str) else message
        data = data.replace(json.dumps(echo)[1:-1], ECHO)
    return err.get("code"), message, data


# What a not-found answer (the model's -32602 to a tasks/* request) was given for: ISO-1's cases
# (requirements.md, "Premise cases", and the sentence's "a missing scope"), and a readable run whose
# caller may not act on it (P-APPROVER, P-UNAUTHORIZED "error"), which the model words alike.
REFERENCE = "never created"
CLASSES = ("another tenant", "purged", REFERENCE, "malformed", "a missing scope", "an unauthorized caller")


def not_found_class(world, q) -> str:
    """Which case of ISO-1 the model's not-found answer to request `q` was, in `world` after it."""
    raw = identity.unproject(q.task_ref) if isinstance(q.task_ref, str) else None
    if raw is None:
        return "malformed"
    run = world.runs.get(raw)
    if run is None or not run.durable or run.server != q.server:
        return REFERENCE
    subject = world.params.subject(q.subject)
    if subject.tenant != run.tenant:
        return "another tenant"
    if "runs:read" not in subject.scopes:
        return "a missing scope"
    return "purged" if run.purged else "an unauthorized caller"      # TTL-3's case: a run its caller could read


class Answer(NamedTuple):
    """The host's words for one not-found answer of the model, and every observed answer given it."""
    text: tuple
    status: int | None
    line: int
    given: tuple            # ((class, event index, line), ...) in log order

    def but(self, status=None, given=()) -> "Answer":
        return self._replace(status=self.status if status is None else status, given=self.given + given)

    def classes(self) -> set[str]:
        return {g[0] for g in self.given}


def bind_error(ids, q, model_msg: dict, observed: dict, status, index: int, line: int, cls: str,
               echo: str | None = None):
    """(the bindings with the observed answer bound to the model's, None) or (None, Conflict) when
    the host already gave that model answer other words, data or status. `cls`: the case the answer
    was given for (`not_found_class`); `echo`: the taskId the request named, as sent."""
    merr, oerr = model_msg.get("error"), observed.get("error")
    if not (isinstance(merr, dict) and isinstance(oerr, dict)) or q.method not in NOT_FOUND_METHODS \
            or merr.get("code") != wire.INVALID_PARAMS:
        return ids, None
    key = (q.method, q.transport, _text(merr))
    seen = ids.errors.get(key)
    given = ((cls, index, line),)
    if seen is None:
        out = ids.copy()
        out.errors[key] = Answer(_text(oerr, echo), status, line, given)
        return out, None
    if seen.text == _text(oerr, echo) and (status is None or seen.status is None or status == seen.status):
        out = ids.copy()
        out.errors[key] = seen.but(status if seen.status is None else None, given)
        return out, None
    first = seen.given[0][0]
    req = "TTL-3" if "purged" in (cls, first) else "ISO-1"
    said = f"error {_text(oerr)[0]} {oerr.get('message')!r} data {oerr.get('data')!r}" + (
        f" HTTP {status}" if status is not None else "")
    text = seen.text
    before = f"error {text[0]} {text[1]!r} data {json.loads(text[2])!r}" + (
        f" HTTP {seen.status}" if seen.status is not None else "")
    return None, Conflict(req, f"{q.method} of {named(cls)} answered {said}, but the {q.method} of {named(first)} at "
                               f"line {seen.line} got {before}: the model gives both one not-found answer (same code, "
                               f"message, data and HTTP status), so the host tells them apart")


def named(cls: str) -> str:
    """A task of a not-found answer's case, in words."""
    return {"another tenant": "a task of another tenant", "purged": "a purged task", REFERENCE: "a task never created",
            "malformed": "a malformed task id", "a missing scope": "a task its caller may not read (a missing scope)",
            "an unauthorized caller": "a task its caller may not act on"}[cls]


class IdCheck:
    """ID-1 on the run ids a host sends (taskIds of its results and notifications, runIds of run events)."""

    def __init__(self):
        self.seen: set[tuple] = set()          # (id as sent, judged as a tasked call's)
        self.opaques: list[str] = []        # of tasked calls' runs: the entropy estimate reads them together
        self.cases: set[str] = set()        # ID-1's cases (requirements.md) the ids judged came in

    def judge(self, d: dict) -> str | None:
        """The ID-1 failure of a server message or run event, or None."""
        for wire_id, tasked, case in _sent_ids(d):
            if case:
                self.cases.add(case)
            if (wire_id, tasked) in self.seen:
                continue
            self.seen.add((wire_id, tasked))
            why = self._one(wire_id, tasked, d["event"] == "run")
            if why:
                return why
        return None

    def request(self, msg: dict) -> None:
        """A request naming a task in the `%2F` form: the host's answer to it is judged by the model."""
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if isinstance(params.get("taskId"), str) and raw_of(params["taskId"])[1] == "pct":
            self.cases.add(PCT_CASE)

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


# ID-1's cases (requirements.md, "Premise cases"): where a taskId was judged.
ID1_CASES = ("a taskId in CreateTaskResult", "a tasks/get result", "notifications/tasks", "a listen acknowledgement",
             "a request naming the %2F form")
PCT_CASE = ID1_CASES[4]


def _sent_ids(d: dict):
    """(wire id, whether it names a tasked call's run, ID-1's case or None) of every run id a server
    event carries."""
    if d["event"] == "run":
        yield d["runId"], d.get("kind") == "run.created" and (d.get("data") or {}).get("by") == "tasked-call", None
        return
    if d["event"] != "message" or d["dir"] != "s2c":
        return
    msg = d["message"]
    res = msg.get("result") if isinstance(msg.get("result"), dict) else None
    if res is not None and isinstance(res.get("taskId"), str):
        tasked = res.get("resultType") == "task"
        yield res["taskId"], tasked, ID1_CASES[0] if tasked else ID1_CASES[1]
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    if msg.get("method") == "notifications/tasks" and isinstance(params.get("taskId"), str):
        yield params["taskId"], False, ID1_CASES[2]
    notes = params.get("notifications") if isinstance(params.get("notifications"), dict) else {}
    listed = notes.get("taskIds") if msg.get("method") == "notifications/subscriptions/acknowledged" else None
    for t in listed if isinstance(listed, list) else ():
        if isinstance(t, str):
            yield t, False, ID1_CASES[3]


class Lifetimes:
    """What the log's own clock says of a task's lifetime (TTL-1, TTL-4, and the declared retention).

    The model's clock is free between events; the log's is not. A task's creation lies between the
    creating request (`t` of its c2s message, a lower bound) and its first showing (a CreateTaskResult
    or its run.created event, an upper bound). A `ttlMs` the host sends with the task still served
    promises no purge before createdAt + ttlMs: an expiry already past while the host still serves it
    breaks TTL-1, and a candidate that purged the run before the earliest such expiry is no
    explanation of the log (TTL-4 forbids the purge it assumes). A host that declares its retention
    (`retention_s`, from the run's end or from its creation per P-RETENTION) purges no run sooner:
    its end lies after the last time the log showed it live (a run event's time where the log has
    them)."""

    SLACK = 0.002          # seconds: ttlMs is whole milliseconds

    def __init__(self, retention_s: float | None = None, from_creation: bool = False):
        self.retention_s, self.from_creation = retention_s, from_creation
        self.requested: dict = {}     # (conn, JSON-RPC id key) -> t of the request
        self.created: dict = {}       # real runId -> (earliest, latest) creation time
        self.expiry: dict = {}        # real runId -> the log time before which it may not be purged
        self.live: dict = {}          # real runId -> the last log time it was shown not terminal
        self.ended: dict = {}         # real runId -> the log time of its terminal run event

    def request(self, conn, key, t: float) -> None:
        self.requested[(conn, key)] = t

    def shown(self, d: dict, key) -> str | None:
        """Note a server event's task; the TTL-1 failure it shows, or None."""
        t = d["t"]
        if d["event"] == "run":
            if d.get("kind") == "run.created":
                self.created.setdefault(d["runId"], (t, t))
            self._status(d["runId"], d.get("status"), t, event=True)
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
        self._status(real, "working" if task.get("status") in ("working", "input_required") else None, t)
        ttl = task.get("ttlMs")
        if real not in self.created or not isinstance(ttl, (int, float)) or isinstance(ttl, bool):
            return None
        low, high = self.created[real]
        if t > high + ttl / 1000 + self.SLACK:
            return (f"task {task['taskId']} served at t={t:.3f} with ttlMs {ttl}: created by t={high:.3f}, so "
                    f"createdAt + ttlMs had passed before this answer, and the purge has not come yet")
        self.expiry[real] = max(self.expiry.get(real, 0.0), low + ttl / 1000)
        return None

    def _status(self, real: str, status, t: float, event: bool = False) -> None:
        if status in ("completed", "failed", "cancelled"):
            if event:
                self.ended.setdefault(real, t)
        elif status is not None:
            self.live[real] = t

    def earliest_purge(self, real: str, ttl: bool = True) -> float:
        """The log time before which the run `real` cannot have been purged (0 when nothing says): its
        advertised expiry (with `ttl`), and the declared retention."""
        out = self.expiry.get(real, 0.0) if ttl else 0.0
        if self.retention_s is not None:
            start = self.created.get(real, (0.0,))[0] if self.from_creation else \
                self.ended.get(real, self.live.get(real, self.created.get(real, (0.0,))[0]))
            out = max(out, start + self.retention_s)
        return out

    def early_purge(self, c, t: float, ttl: bool = True) -> bool:
        """The candidate purged a run before the log's clock allows it (`ttl`: judging TTL-4 too)."""
        if self.retention_s is None and not (ttl and self.expiry):
            return False
        for run in purged_runs(c.world):        # few: a session's runs are read only when purged
            real = c.ids.to_real("run", run.id)
            if real is None or self.retention_s is None and real not in self.expiry:
                continue
            if self.earliest_purge(real, ttl) > t:
                return True
        return False
