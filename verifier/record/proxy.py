"""A recording reverse proxy on loopback: put it in front of any MCP server over streamable HTTP, in
any language, and it writes the traffic log `taskmodel validate` reads (schemas/traffic-log.schema.json).

    python -m verifier.record.proxy --upstream http://127.0.0.1:9000 --port 8800 --log traffic.jsonl

It forwards bytes, never messages: the request and the response pass through exactly as sent
(status line, headers, body, SSE frames and chunking alike), so what the client gets is what the
server said; the log is a reading taken beside them. Each POST to the MCP path (`--path`, `/mcp`) is
one log connection: `open` with the request line and headers, the request `message`, each response
message (a JSON body, or each SSE `data:` event; the first with the HTTP status and headers), and
`close`: `closed` once the whole response has passed, `dropped` by the client when it hangs up
before that (the proxy then hangs up on the server too, so the server sees the disconnect it would
have seen), or by the server when it does. Other requests (a GET stream, a DELETE) pass through
unrecorded. Several requests on one kept-alive TCP connection are several log connections.

A proxy sees no run events, so its header says `run_events: false`: the validator then leaves the
host's internal steps free instead of waiting for events that never come.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import time
import zlib
from urllib.parse import urlsplit

FORMAT = "mcp-traffic/1"
HEAD_LIMIT = 1 << 16
BAD_USAGE = 3
DECODERS = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS, "x-gzip": zlib.MAX_WBITS | 16}
DRAIN = 2.0          # seconds the exchanges in flight get to end at SIGTERM
GRACE = 0.2          # seconds a response's body may take to end after its client hung up (see _response)


class TrafficLog:
    """The JSON Lines log: one event per line, `t` in seconds since the proxy started."""

    def __init__(self, path: str, server: str = "S1"):
        self._file = open(path, "w", encoding="utf-8")
        self._origin = time.monotonic()
        self._seq = 0
        self._conns = 0
        self.write({"event": "header", "format": FORMAT, "side": "server", "server": server, "run_events": False})

    def new_conn(self) -> str:
        self._conns += 1
        return f"p{self._conns}"

    def write(self, event: dict) -> None:
        line = {"event": event["event"], "t": round(time.monotonic() - self._origin, 6), "seq": self._seq,
                **{k: v for k, v in event.items() if k != "event"}}
        self._seq += 1
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class Hangup(Exception):
    """One side closed the TCP connection: `side` is "client" or "server"."""

    def __init__(self, side: str):
        super().__init__(side)
        self.side = side


def _headers(head: bytes) -> tuple[str, dict]:
    """(start line, headers with lower-case names) of an HTTP head."""
    lines = head.decode("latin-1").split("\r\n")
    out = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip().lower()] = v.strip()
    return lines[0], out


async def _head(reader, side: str, prefix: bytes = b"") -> bytes | None:
    """The head (through its blank line), or None at a clean end before any byte. `prefix`: its first
    byte, already read."""
    try:
        return prefix + await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial and not prefix:
            return None
        raise Hangup(side) from None
    except (asyncio.LimitOverrunError, ConnectionError):
        raise Hangup(side) from None


async def _exactly(reader, n: int, side: str) -> bytes:
    try:
        return await reader.readexactly(n)
    except (asyncio.IncompleteReadError, ConnectionError):
        raise Hangup(side) from None


async def _body(reader, headers: dict, side: str, sink) -> None:
    """Pass a message body through `sink(raw bytes, decoded bytes, last)` as it arrives: by
    Content-Length, chunked, or (a response without either) until the connection ends."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            line = await _line(reader, side)
            size = int(line.split(b";", 1)[0].strip() or b"0", 16)
            data = await _exactly(reader, size + 2, side)
            if size == 0:                      # the last chunk, then trailers up to a blank line
                trailer, raw = data, line + data
                while trailer != b"\r\n":
                    trailer = await _line(reader, side)
                    raw += trailer
                await sink(raw, b"", True)
                return
            await sink(line + data, data[:-2], False)
    elif "content-length" in headers:
        data = await _exactly(reader, int(headers["content-length"]), side)
        await sink(data, data, True)
    elif side == "server":
        while chunk := await reader.read(65536):
            await sink(chunk, chunk, False)
        await sink(b"", b"", True)


async def _line(reader, side: str) -> bytes:
    try:
        return await reader.readuntil(b"\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        raise Hangup(side) from None


class Exchange:
    """What the log says of one recorded POST: its messages as they pass, then how it ended."""

    def __init__(self, log: TrafficLog, conn: str):
        self.log, self.conn = log, conn
        self.status, self.headers, self.first = None, {}, True
        self.sse, self.buffer, self.body = False, b"", b""
        self.ended = False

    def request(self, body: bytes) -> None:
        message = _message(body)
        if message is not None:
            self.log.write({"event": "message", "conn": self.conn, "dir": "c2s", "message": message})

    def response_head(self, status: int, headers: dict) -> None:
        self.status, self.headers = status, headers
        self.sse = headers.get("content-type", "").startswith("text/event-stream")

    def response_bytes(self, data: bytes) -> None:
        if not self.sse:
            self.body += data
            return
        self.buffer += data.replace(b"\r\n", b"\n")
        while b"\n\n" in self.buffer:
            frame, self.buffer = self.buffer.split(b"\n\n", 1)
            data = [line[5:].removeprefix(b" ") for line in frame.split(b"\n") if line.startswith(b"data:")]
            self._s2c(b"\n".join(data))

    def body_end(self) -> None:
        """The whole body has passed to the client: a JSON body is one message (read through its
        Content-Encoding, which the client got as sent)."""
        if not self.sse:
            encoding = self.headers.get("content-encoding", "identity").lower()
            try:
                self._s2c(zlib.decompress(self.body, DECODERS[encoding]) if encoding in DECODERS else self.body)
            except zlib.error:
                pass

    def _s2c(self, data: bytes) -> None:
        message = _message(data)
        if message is None:
            return
        event = {"event": "message", "conn": self.conn, "dir": "s2c", "message": message}
        if self.first:
            event["http"] = {"status": self.status, "headers": self.headers}
            self.first = False
        self.log.write(event)

    def close(self, how: str, by: str) -> None:
        if not self.ended:
            self.ended = True
            self.log.write({"event": "close", "conn": self.conn, "how": how, "by": by})


def _gone(hangup) -> bool:
    """The client hung up (its read ended or failed), as opposed to sending its next request early."""
    if not hangup.done() or hangup.cancelled():
        return False
    return hangup.exception() is not None or hangup.result() == b""


def _message(data: bytes) -> dict | None:
    """A JSON-RPC message as the log schema has it, or None (an empty or non-JSON body, a batch)."""
    try:
        message = json.loads(data) if data.strip() else None
    except ValueError:
        return None
    return message if isinstance(message, dict) and message.get("jsonrpc") == "2.0" else None


class Proxy:
    def __init__(self, upstream: str, log: TrafficLog, path: str = "/mcp"):
        u = urlsplit(upstream)
        self.host, self.port, self.path, self.log = u.hostname or "127.0.0.1", u.port or 80, path, log
        self.live: set = set()          # the tasks amid an exchange (a request read, its response not done)

    async def serve(self, client_reader, client_writer) -> None:
        """One client TCP connection: its requests one after another, each on the same upstream one."""
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port, limit=HEAD_LIMIT * 16)
        except OSError:
            client_writer.close()
            return
        try:
            prefix = b""
            while (prefix := await self._one(client_reader, client_writer, up_reader, up_writer, prefix)) is not None:
                pass
        except (Hangup, ConnectionError):
            pass
        finally:
            for w in (client_writer, up_writer):
                w.close()

    async def _one(self, cr, cw, ur, uw, prefix: bytes) -> bytes | None:
        """Relay one request and its response; the next request's first byte if the client sent it
        already (b"" if not), or None when the connection is done."""
        head = await _head(cr, "client", prefix)
        if head is None:
            return None
        task = asyncio.current_task()
        self.live.add(task)
        try:
            return await self._relay(head, cr, cw, ur, uw)
        finally:
            self.live.discard(task)

    async def _relay(self, head, cr, cw, ur, uw) -> bytes | None:
        """The request whose head was read, then its response; returns as `_one` does."""
        start, headers = _headers(head)
        method, target = (start.split(" ") + ["", ""])[:2]
        ex = None
        if method == "POST" and urlsplit(target).path.rstrip("/") == self.path.rstrip("/"):
            ex = Exchange(self.log, self.log.new_conn())
            self.log.write({"event": "open", "conn": ex.conn, "transport": "http",
                            "http": {"method": method, "path": urlsplit(target).path, "headers": headers}})
        uw.write(head)
        body = bytearray()

        async def up(raw, data, last):
            body.extend(data)
            uw.write(raw)
            await uw.drain()
        try:
            await _body(cr, headers, "client", up)
            await uw.drain()
        except Hangup:
            if ex is not None:
                ex.close("dropped", "client")
            raise
        except ConnectionError:
            if ex is not None:
                ex.close("dropped", "server")
            raise Hangup("server") from None
        if ex is not None:
            ex.request(bytes(body))
        return await self._response(cr, cw, ur, ex, method)

    async def _response(self, cr, cw, ur, ex, method) -> bytes | None:
        hangup = asyncio.ensure_future(cr.read(1))       # a client that hangs up mid-response
        try:
            head = await _head(ur, "server")
            if head is None:
                raise Hangup("server")
            start, headers = _headers(head)
            status = int(start.split(" ")[1])
            if ex is not None:
                ex.response_head(status, headers)
            cw.write(head)

            async def down(raw, data, last):
                if _gone(hangup):
                    raise Hangup("client")
                if ex is not None:       # logged before the client has it: what it got is in the log
                    ex.response_bytes(data)
                    if last:
                        ex.body_end()
                cw.write(raw)
                try:
                    await cw.drain()
                except ConnectionError:
                    if cw.transport.get_write_buffer_size():
                        raise Hangup("client") from None
            if method != "HEAD" and status not in (204, 304) and status >= 200:
                body = asyncio.ensure_future(_body(ur, headers, "server", down))
                await asyncio.wait({body, hangup}, return_when=asyncio.FIRST_COMPLETED)
                if not body.done() and _gone(hangup):
                    # A client that read the whole response and hung up at once races the body's last
                    # step here: a body that ends within GRACE was delivered; one that does not was cut.
                    await asyncio.wait({body}, timeout=GRACE)
                    if not body.done():
                        body.cancel()
                        raise Hangup("client")
                await body
            try:
                await cw.drain()
            except ConnectionError:
                # a client that hung up once it had read the whole response: nothing of it was lost
                if cw.transport.get_write_buffer_size():
                    raise Hangup("client") from None
        except Hangup as e:
            hangup.cancel()
            if ex is not None:
                ex.close("dropped", e.side)
            raise
        if ex is not None:
            ex.close("closed", "server")
        if "close" in headers.get("connection", "").lower():
            hangup.cancel()
            return None
        if hangup.done():           # the client hung up, or began its next request
            return None if _gone(hangup) else hangup.result()
        hangup.cancel()
        return b""


async def run(upstream: str, port: int, log_path: str, path: str = "/mcp", server: str = "S1", ready=None,
              on_sigterm: bool = False) -> None:
    """Serve until cancelled (or, `on_sigterm`, until SIGTERM: then the exchanges in flight get
    DRAIN seconds to end, so a log is not cut between a response and its close)."""
    log = TrafficLog(log_path, server)
    proxy = Proxy(upstream, log, path)
    srv = await asyncio.start_server(proxy.serve, "127.0.0.1", port, limit=HEAD_LIMIT * 16)
    stop = asyncio.Event()
    if on_sigterm:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    if ready is not None:
        ready(srv.sockets[0].getsockname()[1])
    try:
        async with srv:
            await stop.wait()
            srv.close()
            if proxy.live:
                await asyncio.wait(proxy.live, timeout=DRAIN)
    finally:
        log.close()


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """Bad usage: one line and exit 3, as taskmodel's commands answer it."""
        self.exit(BAD_USAGE, f"{self.prog}: {message}\n")


def main(argv=None) -> int:
    ap = _Parser(prog="python -m verifier.record.proxy",
                 description="Record an MCP server's streamable-HTTP traffic for taskmodel validate.")
    ap.add_argument("--upstream", required=True, help="the server's base URL, e.g. http://127.0.0.1:9000")
    ap.add_argument("--port", type=int, default=8800, help="the loopback port to listen on (0: any free one)")
    ap.add_argument("--log", required=True, help="the traffic log to write (JSON Lines; replaced)")
    ap.add_argument("--path", default="/mcp", help="the MCP endpoint's path (default /mcp)")
    ap.add_argument("--server", default="S1", help="the header's server, as the mapping names it (default S1)")
    args = ap.parse_args(argv)
    upstream = urlsplit(args.upstream)
    if upstream.scheme != "http" or not upstream.hostname:
        ap.error("--upstream: an http:// URL with a host (the proxy relays plain HTTP)")
    if not 0 <= args.port <= 65535:
        ap.error(f"--port: {args.port} is not a port (0 to 65535)")
    try:
        asyncio.run(run(args.upstream, args.port, args.log, args.path, args.server, on_sigterm=True,
                        ready=lambda p: print(f"recording on http://127.0.0.1:{p}{args.path}", flush=True)))
    except KeyboardInterrupt:
        return 130
    except OSError as e:         # the log cannot be written, the port is taken
        ap.error(f"{e.strerror or e}{f': {e.filename}' if e.filename else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
