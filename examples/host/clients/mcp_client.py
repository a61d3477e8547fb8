"""A small 2026-07-28 MCP client over streamable HTTP (httpx) and stdio, able to drop a connection.

Hand-built on httpx rather than the SDK's client: the legs need to send what a conformance suite
sends (a chosen `_meta`, a mismatched `Mcp-Name`, a foreign credential) and to cut a connection at a
chosen moment, before or after the response.
"""
from __future__ import annotations

import itertools
import json
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

TASKS_EXT = "io.modelcontextprotocol/tasks"
VERSION = "2026-07-28"
_ids = itertools.count(1)


def meta(tasks: bool = True, elicitation: bool | dict = True) -> dict:
    """`elicitation`: True declares form and url modes, False nothing, a dict that very shape."""
    caps: dict[str, Any] = {}
    if tasks:
        caps["extensions"] = {TASKS_EXT: {}}
    if isinstance(elicitation, dict):
        caps["elicitation"] = elicitation
    elif elicitation:
        caps["elicitation"] = {"form": {}, "url": {}}
    return {"io.modelcontextprotocol/clientCapabilities": caps, "io.modelcontextprotocol/protocolVersion": VERSION}


def declares(subject: str) -> bool | dict:
    """The elicitation a Subject's client declares, as the model's clients do (model/clients.py):
    carol's none, mallory's bare (`elicitation: {}`, form mode implicitly), the others form and url."""
    return False if subject == "carol" else {} if subject == "mallory" else True


@dataclass
class Exchange:
    status: int
    headers: dict
    messages: list[dict] = field(default_factory=list)

    @property
    def final(self) -> dict | None:
        return next((m for m in self.messages if "id" in m and ("result" in m or "error" in m)), None)

    @property
    def result(self) -> dict:
        final = self.final
        assert final is not None and "result" in final, f"no result: {self.messages}"
        return final["result"]

    @property
    def error(self) -> dict:
        final = self.final
        assert final is not None and "error" in final, f"no error: {self.messages}"
        return final["error"]

    def notifications(self, method: str) -> list[dict]:
        return [m for m in self.messages if m.get("method") == method]


def _sse_messages(lines) -> list[dict]:
    out, data = [], []
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line.strip() and data:
            out.append(json.loads("".join(data)))
            data = []
    if data:
        out.append(json.loads("".join(data)))
    return out


class HttpClient:
    """One Subject's client: each request is its own POST (its own connection on the host's log)."""

    def __init__(self, base: str, token: str, elicitation: bool | dict = True):
        # `elicitation`: what this client declares it can receive (see `meta`)
        self.base, self.token, self.elicitation = base.rstrip("/"), token, elicitation

    def _body(self, method: str, params: dict, tasks: bool, elicitation: bool) -> tuple[int, dict]:
        rid = next(_ids)
        return rid, {"jsonrpc": "2.0", "id": rid, "method": method,
                     "params": {**params, "_meta": meta(tasks, elicitation)}}

    def _headers(self, method: str, params: dict, mcp_name: str | None) -> dict:
        h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
             "mcp-protocol-version": VERSION, "mcp-method": method, "authorization": f"Bearer {self.token}"}
        name = mcp_name if mcp_name is not None else params.get("taskId", params.get("name"))
        if name is not None:
            h["mcp-name"] = name
        return h

    def send(self, method: str, params: dict | None = None, *, tasks: bool = True,
             mcp_name: str | None = None, timeout: float = 30.0) -> Exchange:
        """Send one request and read its whole response (JSON or an SSE stream)."""
        params = params or {}
        _, body = self._body(method, params, tasks, self.elicitation)
        with httpx.Client(timeout=timeout) as client:
            r = client.post(f"{self.base}/mcp", json=body, headers=self._headers(method, params, mcp_name))
        ex = Exchange(r.status_code, dict(r.headers))
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            ex.messages = _sse_messages(r.text.splitlines())
        elif r.content:
            ex.messages = [r.json()]
        return ex

    def call(self, tool: str, arguments: dict | None = None, **kw) -> Exchange:
        return self.send("tools/call", {"name": tool, "arguments": arguments or {}}, **kw)

    def get(self, task_id: str, **kw) -> Exchange:
        return self.send("tasks/get", {"taskId": task_id}, **kw)

    def update(self, task_id: str, responses: dict, **kw) -> Exchange:
        return self.send("tasks/update", {"taskId": task_id, "inputResponses": responses}, **kw)

    def cancel(self, task_id: str, **kw) -> Exchange:
        return self.send("tasks/cancel", {"taskId": task_id}, **kw)

    def listen(self, task_ids: list[str], read_for: float, until=None, **kw) -> Exchange:
        """Open subscriptions/listen and read its stream for `read_for` seconds (or until `until(messages)`),
        then close the connection (the client's way to end a listen stream on HTTP). The stream is
        read beside the caller, so the deadline holds whether or not a line arrives: a silent stream
        is closed under its reader."""
        params = {"notifications": {"taskIds": task_ids}}
        _, body = self._body("subscriptions/listen", params, kw.get("tasks", True), self.elicitation)
        ex = Exchange(0, {})
        deadline = time.monotonic() + read_for
        with httpx.Client(timeout=httpx.Timeout(read_for + 5)) as client:
            with client.stream("POST", f"{self.base}/mcp", json=body,
                               headers=self._headers("subscriptions/listen", params, None)) as r:
                ex.status, ex.headers = r.status_code, dict(r.headers)
                if not r.headers.get("content-type", "").startswith("text/event-stream"):
                    r.read()
                    ex.messages = [json.loads(r.content)] if r.content else []
                    return ex
                enough = threading.Event()

                def read() -> None:
                    lines = []
                    try:
                        for line in r.iter_lines():
                            lines.append(line)
                            ex.messages = _sse_messages(lines)
                            if enough.is_set() or (until is not None and until(ex.messages)):
                                break
                    except (httpx.HTTPError, ValueError):   # closed under it at the deadline, or cut mid-message
                        pass
                    finally:
                        enough.set()
                reader = threading.Thread(target=read, daemon=True)
                reader.start()
                enough.wait(max(0.0, deadline - time.monotonic()))
                enough.set()
                # a reader still waiting for a line is woken by the connection's end (closing the
                # response would wait for that read)
                try:
                    r.extensions["network_stream"].get_extra_info("socket").shutdown(socket.SHUT_RDWR)
                except OSError:         # the host ended it first
                    pass
        reader.join(5)
        return ex

    def _raw(self, method: str, params: dict, tasks: bool) -> tuple[tuple[str, int], bytes]:
        _, body = self._body(method, params, tasks, self.elicitation)
        data = json.dumps(body).encode()
        host, port = self.base.split("//", 1)[1].split(":")
        head = "".join(f"{k}: {v}\r\n" for k, v in self._headers(method, params, None).items())
        raw = f"POST /mcp HTTP/1.1\r\nhost: {host}:{port}\r\n{head}content-length: {len(data)}\r\n\r\n"
        return (host, int(port)), raw.encode() + data

    @staticmethod
    def _reset(s: socket.socket) -> None:
        """Close with SO_LINGER 0: a TCP reset, the connection cut rather than ended."""
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def drop(self, method: str, params: dict, after, *, tasks: bool = True, timeout: float = 10.0) -> None:
        """Send the request on a raw socket and cut the connection, response unread: `after` seconds,
        or once `after()` holds (e.g. the host shows the run the request started)."""
        address, request = self._raw(method, params, tasks)
        with socket.create_connection(address) as s:
            s.sendall(request)
            if callable(after):
                deadline = time.monotonic() + timeout
                while not after() and time.monotonic() < deadline:
                    time.sleep(0.02)
            else:
                time.sleep(after)
            self._reset(s)

    def drop_after_response(self, method: str, params: dict, *, tasks: bool = True) -> dict:
        """Send the request, read its whole JSON response, then cut the connection: the JSON-RPC answer."""
        address, request = self._raw(method, params, tasks)
        with socket.create_connection(address, timeout=30) as s:
            s.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data:
                data += s.recv(65536)
            head, body = data.split(b"\r\n\r\n", 1)
            length = int(next(line.split(b":", 1)[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:")))
            while len(body) < length:
                body += s.recv(65536)
            self._reset(s)
        return json.loads(body[:length])

    def runs(self) -> list[dict]:
        """runList (the host's REST surface): the caller's tenant's runs, with their log event kinds."""
        r = httpx.get(f"{self.base}/runs", headers={"authorization": f"Bearer {self.token}"}, timeout=10)
        r.raise_for_status()
        return r.json()["runs"]


class StdioClient:
    """One stdio session: the host as a child process speaking for one token."""

    def __init__(self, token: str, log: str, *bugs: str, module: str = "examples.host"):
        # `module`: what serves the session, `python -m module` taking the host's flags
        cmd = [sys.executable, "-m", module, "--transport", "stdio", "--token", token, "--log", log]
        for b in bugs:
            cmd += ["--bug", b]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, method: str, params: dict | None = None, *, tasks: bool = True) -> int:
        rid = next(_ids)
        self._write({"jsonrpc": "2.0", "id": rid, "method": method, "params": {**(params or {}), "_meta": meta(tasks)}})
        return rid

    def cancel_request(self, rid: int) -> None:
        self._write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})

    def _write(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def read_until(self, rid: int) -> dict:
        """Read messages until the response to `rid`."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("the host closed stdout")
            message = json.loads(line)
            if message.get("id") == rid and ("result" in message or "error" in message):
                return message

    def close(self, timeout: float = 10) -> int:
        """EOF on stdin: the host ends the session."""
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.stdout.close()
