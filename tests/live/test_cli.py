"""The host's and the client scripts' command lines: bad usage is one line and exit 3; a host that
cannot serve, or a host that does not answer, is exit 4."""
from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# One xdist worker takes the module (Makefile: --dist loadfile): its tests share one host, in file order.
pytestmark = pytest.mark.live


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args", [
    ("examples.host", "--bug", "no-such-bug"),
    ("examples.host", "--transport", "stdio"),                  # no token
    ("examples.host", "--log", "no/such/folder/log.jsonl"),
    ("examples.host.clients.legs", "http://127.0.0.1:9", "no-such-leg"),
    ("examples.host.clients.replay", "http://127.0.0.1:9", "no/such/trace.itf.json"),
    ("examples.host.clients.replay", "http://127.0.0.1:9",
     "counterexamples/detach-on-disconnect/owner-cancel-cancels-run/trace.itf.json"),   # a harness trace
])
def test_bad_usage_is_one_line_and_exit_3(args):
    proc = run(*args)
    assert proc.returncode == 3, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_unreachable_host_is_exit_4():
    with socket.socket() as s:          # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run("examples.host.clients.legs", f"http://127.0.0.1:{port}", "discover-advertises")
    assert proc.returncode == 4 and "did not answer" in proc.stderr, proc.stderr


def test_port_taken_is_exit_4():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        proc = run("examples.host", "--port", str(s.getsockname()[1]))
    assert proc.returncode == 4, proc.stderr
    assert "address already in use" in proc.stderr
