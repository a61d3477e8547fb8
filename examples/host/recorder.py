"""The recording layer: every exchange the host serves, as the traffic log (schemas/traffic-log.schema.json).

`TrafficLog` writes the JSON Lines. `RecordingASGI` sits outermost on the HTTP app: one POST
exchange is one connection (`open`, the request `message`, each response `message`, `close`), and
it is also where the host learns the RFC's cut, because only the transport knows when a response
was wholly sent or a connection dropped before that (§G.12-13): the SDK cancels a handler on a
disconnect but tells nobody whether the response had left. `RecordingStreams` does the same for a
stdio session (one connection for the whole session).
"""
from __future__ import annotations

import json
import threading
import time
from typing import Any

import anyio

from .engine import Engine, Run

FORMAT = "mcp-traffic/1"


class TrafficLog:
    def __init__(self, path, server: str = "S1"):
        self._file = open(path, "w", encoding="utf-8")
        self._origin = time.monotonic()
        self._seq = 0
        self._lock = threading.Lock()
        self._conns = 0
        self.write({"event": "header", "format": FORMAT, "side": "server", "server": server, "run_events": True})

    def new_conn(self, prefix: str) -> str:
        with self._lock:
            self._conns += 1
            return f"{prefix}{self._conns}"

    def write(self, event: dict) -> None:
        with self._lock:
            line = {"event": event["event"], "t": round(time.monotonic() - self._origin, 6), "seq": self._seq,
                    **{k: v for k, v in event.items() if k != "event"}}
            self._seq += 1
            self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
            self._file.flush()

    def run_event(self, run: Run, event: dict) -> None:
        data = {k: v for k, v in event.items() if k not in ("type", "seq")}
        self.write({"event": "run", "runId": run.id, "kind": event["type"], "status": run.status,
                    **({"data": data} if data else {})})

    def close(self) -> None:
        self._file.close()


def _dump(message: Any) -> dict:
    if hasattr(message, "model_dump"):
        return message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(message)


def _is_final(message: dict, rid: Any) -> bool:
    return message.get("id") == rid and ("result" in message or "error" in message)


# The model's instance sends every error core gives no status with one status (Params.http_error_status,
# 200), so an unreadable task's -32602 and a nonexistent one's agree (WIRE-5). The SDK's table sends
# -32602 with 400; this host keeps to the model's instance instead. A planted foreign-task-403 error
# carries the REST status it imitates.
MODEL_ERROR_STATUS = {-32602: 200}


def _status_for(body: bytes, status: int) -> int:
    try:
        error = json.loads(body).get("error") or {}
    except (ValueError, AttributeError):
        return status
    data = error.get("data")
    if isinstance(data, dict) and data.get("httpStatus") == 403:
        return 403
    return MODEL_ERROR_STATUS.get(error.get("code"), status)


class RecordingASGI:
    """ASGI middleware around the MCP endpoint: records each POST exchange and tells the engine the cut."""

    def __init__(self, app, log: TrafficLog, engine: Engine, path: str = "/mcp"):
        self.app, self.log, self.engine, self.path = app, log, engine, path

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != self.path:
            return await self.app(scope, receive, send)
        conn = self.log.new_conn("h")
        scope["refhost.conn"] = conn
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        self.log.write({"event": "open", "conn": conn, "transport": "http",
                        "http": {"method": "POST", "path": scope["path"], "headers": headers}})
        state = {"rid": None, "body": b"", "final": False, "closed": False, "start": None, "sse": False,
                 "buf": b"", "first": True}

        def close(how: str, by: str) -> None:
            if not state["closed"]:
                state["closed"] = True
                self.log.write({"event": "close", "conn": conn, "how": how, "by": by})

        async def rec_receive():
            msg = await receive()
            if msg["type"] == "http.request":
                state["body"] += msg.get("body", b"")
                if not msg.get("more_body"):
                    try:
                        request = json.loads(state["body"])
                    except ValueError:
                        request = None
                    if isinstance(request, dict):
                        state["rid"] = request.get("id")
                        self.log.write({"event": "message", "conn": conn, "dir": "c2s", "message": request})
            elif msg["type"] == "http.disconnect" and not state["final"]:
                close("dropped", "client")
                if state["rid"] is not None:
                    self.engine.request_cancelled((conn, state["rid"]))
            return msg

        def record_s2c(message: dict) -> None:
            event = {"event": "message", "conn": conn, "dir": "s2c", "message": message}
            if state["first"]:
                status, hdrs = state["start"]
                event["http"] = {"status": status, "headers": hdrs}
                state["first"] = False
            self.log.write(event)
            if _is_final(message, state["rid"]):
                state["final"] = True

        async def rec_send(msg):
            if msg["type"] == "http.response.start":
                hdrs = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in msg.get("headers", [])}
                state["sse"] = hdrs.get("content-type", "").startswith("text/event-stream")
                state["start"] = [msg["status"], hdrs]
                if not state["sse"]:
                    state["held"] = msg          # the status is decided with the body
                    return
                return await send(msg)
            if msg["type"] != "http.response.body":
                return await send(msg)
            body, more = msg.get("body", b""), msg.get("more_body", False)
            if not state["sse"]:
                state["buf"] += body
                if more:
                    return
                held = dict(state.pop("held"))
                held["status"] = state["start"][0] = _status_for(state["buf"], held["status"])
                try:
                    message = json.loads(state["buf"]) if state["buf"] else None
                except ValueError:
                    message = None
                if isinstance(message, dict):
                    record_s2c(message)
                await send(held)
                await send({"type": "http.response.body", "body": state["buf"], "more_body": False})
            else:
                state["buf"] += body
                while b"\r\n\r\n" in state["buf"] or b"\n\n" in state["buf"]:
                    sep = b"\r\n\r\n" if b"\r\n\r\n" in state["buf"] else b"\n\n"
                    frame, state["buf"] = state["buf"].split(sep, 1)
                    data = b"".join(line[5:].strip() for line in frame.splitlines() if line.startswith(b"data:"))
                    if data:
                        record_s2c(json.loads(data))
                await send(msg)
                if more:
                    return
            if state["final"] and state["rid"] is not None:
                self.engine.response_sent((conn, state["rid"]))
            close("closed", "server")

        try:
            await self.app(scope, rec_receive, rec_send)
        finally:
            # The app ended without a whole response and no disconnect was seen: the host cut it.
            close("dropped", "server")


class _ReadRecorder:
    """The stdio read side: records client messages; EOF and notifications/cancelled cancel owners."""

    def __init__(self, inner, rec: "RecordingStreams"):
        self.inner, self.rec = inner, rec

    @property
    def last_context(self):
        return getattr(self.inner, "last_context", None)

    async def receive(self):
        try:
            item = await self.inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self.rec.eof()
            raise
        message = getattr(item, "message", None)
        if message is not None:
            body = _dump(message)
            self.rec.log.write({"event": "message", "conn": self.rec.conn, "dir": "c2s", "message": body})
            if "id" in body and "method" in body:
                self.rec.open_ids.add(body["id"])
            elif body.get("method") == "notifications/cancelled":
                rid = (body.get("params") or {}).get("requestId")
                if rid in self.rec.open_ids:
                    self.rec.engine.request_cancelled((self.rec.conn, rid))
        return item

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self):
        await self.inner.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.aclose()


class _WriteRecorder:
    def __init__(self, inner, rec: "RecordingStreams"):
        self.inner, self.rec = inner, rec

    async def send(self, item, /):
        body = _dump(item.message)
        if (self.rec.conn, body.get("id")) in self.rec.engine.cancelled:
            # The SDK answers requests still in flight at EOF with -32000; a cancelled request gets no
            # response (core §Cancellation), so this layer withholds it.
            return
        self.rec.log.write({"event": "message", "conn": self.rec.conn, "dir": "s2c", "message": body})
        await self.inner.send(item)
        rid = body.get("id")
        if rid in self.rec.open_ids and ("result" in body or "error" in body):
            self.rec.open_ids.discard(rid)
            self.rec.engine.response_sent((self.rec.conn, rid))

    async def aclose(self):
        await self.inner.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.aclose()


class RecordingStreams:
    """A stdio session as one connection; `authorization` is the credential the session runs as."""

    def __init__(self, log: TrafficLog, engine: Engine, authorization: str):
        self.log, self.engine = log, engine
        self.conn = log.new_conn("s")
        self.open_ids: set = set()
        self._ended = False
        # stdio has no request headers: the open event carries the session's credential where an HTTP
        # exchange carries its own (`http.headers.authorization`), so one mapping file serves both.
        self.log.write({"event": "open", "conn": self.conn, "transport": "stdio",
                        "http": {"headers": {"authorization": authorization}}})

    def wrap(self, read, write):
        return _ReadRecorder(read, self), _WriteRecorder(write, self)

    def eof(self) -> None:
        """stdio EOF cancels every request still open on it (P-STDIO-EOF cancel-open)."""
        if self._ended:
            return
        self._ended = True
        self.log.write({"event": "close", "conn": self.conn, "how": "dropped" if self.open_ids else "closed",
                        "by": "client"})
        for rid in list(self.open_ids):          # after the close: the cause before its effects
            self.engine.request_cancelled((self.conn, rid))
