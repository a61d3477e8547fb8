"""The recording proxy (verifier/record/proxy.py) against a scripted upstream on loopback: the client
gets the server's bytes unchanged (status, headers, chunked SSE), the log reads them, and a client
that hangs up mid-stream is logged dropped while the upstream sees the hang-up."""
from __future__ import annotations

import asyncio
import json
import socket
import zlib

import pytest

from verifier.record.proxy import run
from verifier.validate.log import read_log

REQUEST = {"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": {"taskId": "t-1"}}
ERROR = b'{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Task t-1 not found"}}'
EVENTS = [{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}},
          {"jsonrpc": "2.0", "id": 7, "result": {"resultType": "complete"}}]


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _sse_response(events, end: bool) -> bytes:
    out = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    out += b"".join(_chunk(b"event: message\r\ndata: " + json.dumps(e).encode() + b"\r\n\r\n") for e in events)
    return out + (b"0\r\n\r\n" if end else b"")


def _error_response(gzip: bool = False) -> bytes:
    body = zlib.compress(ERROR, wbits=zlib.MAX_WBITS | 16) if gzip else ERROR
    encoding = b"content-encoding: gzip\r\n" if gzip else b""
    return b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n%scontent-length: %d\r\n\r\n%s" % (
        encoding, len(body), body)


async def _scenario(tmp_path, response: bytes, hang_up_after: int | None):
    """(bytes the client got, whether the upstream saw the client's hang-up, the log's events)."""
    seen_eof = asyncio.Event()

    async def upstream(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(len(json.dumps(REQUEST)))
        writer.write(response)
        await writer.drain()
        if await reader.read(1) == b"":
            seen_eof.set()
        writer.close()
    up = await asyncio.start_server(upstream, "127.0.0.1", 0)
    up_port = up.sockets[0].getsockname()[1]
    ready = asyncio.get_running_loop().create_future()
    log = tmp_path / "log.jsonl"
    proxy = asyncio.ensure_future(run(f"http://127.0.0.1:{up_port}", 0, str(log), ready=ready.set_result))
    port = await ready
    body = json.dumps(REQUEST).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /mcp HTTP/1.1\r\nhost: x\r\nauthorization: Bearer tok\r\ncontent-type: application/json\r\n"
                 b"content-length: %d\r\n\r\n%s" % (len(body), body))
    await writer.drain()
    got = b""
    want = len(response) if hang_up_after is None else hang_up_after
    while len(got) < want:
        got += await reader.read(want - len(got))
    if hang_up_after is not None:
        writer.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                                             b"\x01\x00\x00\x00\x00\x00\x00\x00")
    writer.close()
    await asyncio.wait_for(seen_eof.wait(), 5)
    await asyncio.sleep(0.3)
    proxy.cancel()
    up.close()
    return got, seen_eof.is_set(), [e.data for e in read_log(str(log))[1]]


def test_an_sse_response_passes_unchanged_and_is_logged(tmp_path):
    response = _sse_response(EVENTS, end=True)
    got, _, events = asyncio.run(_scenario(tmp_path, response, None))
    assert got == response
    kinds = [(e["event"], e.get("dir")) for e in events]
    assert kinds == [("open", None), ("message", "c2s"), ("message", "s2c"), ("message", "s2c"), ("close", None)]
    assert [e["message"] for e in events if e.get("dir") == "s2c"] == EVENTS
    assert events[2]["http"]["status"] == 200 and "http" not in events[3]
    assert events[0]["http"]["headers"]["authorization"] == "Bearer tok"
    assert events[-1]["how"] == "closed"


@pytest.mark.parametrize("gzip", [False, True])
def test_an_error_keeps_its_status_and_encoding(tmp_path, gzip):
    response = _error_response(gzip)
    got, _, events = asyncio.run(_scenario(tmp_path, response, None))
    assert got == response
    answer = next(e for e in events if e.get("dir") == "s2c")
    assert answer["http"]["status"] == 400 and answer["message"]["error"]["code"] == -32602


def test_a_client_hanging_up_mid_stream_is_a_drop_the_server_sees(tmp_path):
    response = _sse_response(EVENTS[:1], end=False)       # the stream stays open: no final answer yet
    got, upstream_saw, events = asyncio.run(_scenario(tmp_path, response, len(response)))
    assert got == response and upstream_saw
    assert events[-1]["event"] == "close" and (events[-1]["how"], events[-1]["by"]) == ("dropped", "client")


@pytest.mark.parametrize("argv, says", [
    (["--upstream", "https://example.test", "--log", "x.jsonl"], "--upstream"),
    (["--upstream", "http://127.0.0.1:1", "--port", "70000", "--log", "x.jsonl"], "--port"),
    (["--upstream", "http://127.0.0.1:1", "--port", "0", "--log", "no-such-dir/x.jsonl"], "no-such-dir"),
])
def test_bad_usage_is_one_line_and_exit_3(capsys, tmp_path, monkeypatch, argv, says):
    from verifier.record.proxy import main
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 3 and len(err.strip().splitlines()) == 1 and says in err
