"""SEC-1 on the host's own words: a task's `statusMessage` quotes none of what the log recorded the
client sending for its run (the creating `tools/call`'s arguments, the `inputResponses` content sent
to it).

The model's statusMessage is its own, and free text is not compared when matching, so the model's
SEC-1 says nothing of the host's. Here every statusMessage the host sends is read against the run's
recorded internals: a statusMessage read against none (a call without arguments, a task whose
creating call the log does not show) judges nothing, and SEC-1 is judged only by those that were.
"""
from __future__ import annotations

import json

from verifier.validate.ids import raw_of

MIN_LEN = 4           # shorter strings appear in any text by chance


def _strings(obj, out: list) -> None:
    if isinstance(obj, str):
        if len(obj) >= MIN_LEN:
            out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)


def internals(obj) -> list[str]:
    """The texts that quote `obj` (arguments or answer content): its JSON, compact or not, and every
    string in it."""
    if not obj:
        return []
    out = [json.dumps(obj), json.dumps(obj, separators=(",", ":"))]
    _strings(obj, out)
    return out


class StatusMessages:
    def __init__(self):
        self.calls: dict = {}        # (conn, JSON-RPC id key) -> the arguments of a tools/call
        self.runs: dict = {}         # real runId -> its internals as the log recorded them
        self.judged = 0              # statusMessages read against some internals
        self.unread = 0              # statusMessages with nothing recorded to read them against

    def request(self, conn, key, msg: dict) -> None:
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if msg.get("method") == "tools/call":
            self.calls[(conn, key)] = params.get("arguments")
        elif msg.get("method") == "tasks/update" and isinstance(params.get("taskId"), str):
            answers = params.get("inputResponses") if isinstance(params.get("inputResponses"), dict) else {}
            run = self.runs.setdefault(raw_of(params["taskId"])[0], [])
            for answer in answers.values():
                run.extend(internals(answer.get("content") if isinstance(answer, dict) else None))

    def shown(self, msg: dict, conn, key) -> str | None:
        """The SEC-1 failure of a server message, or None."""
        res = msg.get("result") if isinstance(msg.get("result"), dict) else None
        task = res if res is not None and isinstance(res.get("taskId"), str) else (
            msg.get("params") if msg.get("method") == "notifications/tasks" else None)
        if not isinstance(task, dict) or not isinstance(task.get("taskId"), str):
            return None
        real = raw_of(task["taskId"])[0]
        if res is not None and res.get("resultType") == "task":        # the call that created it
            self.runs.setdefault(real, []).extend(internals(self.calls.get((conn, key))))
        text = task.get("statusMessage")
        if not isinstance(text, str):
            return None
        secrets = self.runs.get(real)
        if not secrets:
            self.unread += 1
            return None
        self.judged += 1
        quoted = next((s for s in secrets if s in text), None)
        if quoted is not None:
            return (f"task {task['taskId']}'s statusMessage {text[:120]!r} quotes {quoted[:80]!r}, which the log "
                    f"recorded the client sending for its run (the tool call's arguments or an answer's content)")
        return None
