"""A third-party MCP Tasks server, judged: examples/thirdparty (fastmcp-tasks on its memory:// backend)
recorded through the recording proxy (verifier/record/proxy.py) and validated under the ext-tasks
profile (docs/third-party.md).

The server runs as a subprocess of .venv-thirdparty (scripts/setup.sh --browser): fastmcp-tasks'
pins conflict with the project's lock, and a stranger's server is another process anyway. Without it
(or without node and the official suite, for the suite's test) the tests skip, saying what is missing.
- the project's clients (examples/host/clients/generic.py) drive it as two principals: its log is judged;
- the official suite's tasks-* scenarios drive it: every failed check is a deviation of fastmcp-tasks
  listed in docs/third-party.md, and its log is judged (the fraction printed);
- host bugs planted in its handlers (tests/live/thirdparty_planted.py) are each named right.
"""
from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import free_port
from .test_conformance import SCENARIOS, _node, _why_missing as _suite_missing

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-thirdparty"
PYTHON = VENV / "bin" / "python"
MAPPING = ROOT / "examples" / "thirdparty" / "mapping.json"
SUITE_MAPPING = ROOT / "examples" / "thirdparty" / "mapping-suite.json"
TOKENS = ("tok-alice", "tok-mallory")
pytestmark = pytest.mark.live


def _why_missing() -> str | None:
    if not (VENV / ".installed").exists():
        return ("fastmcp and fastmcp-tasks are not installed in .venv-thirdparty (scripts/setup.sh --browser; "
                "offline, or their install failed): the third-party server's tests are skipped")
    return None


def _wait_port(port: int, proc, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{what} did not listen on port {port} within {timeout} s")


class Recorded:
    """The server (with `bug` planted, if any) on a free port, behind the recording proxy: `base` is
    the proxy's URL, `log` its traffic log. Both are stopped by `stop`."""

    def __init__(self, folder: Path, name: str, bug: str | None = None, tokens: bool = True):
        self.log = folder / f"{name}.jsonl"
        port = free_port()
        flags = ["--port", str(port), *[f for t, who in zip(TOKENS, ("alice", "mallory")) if tokens
                                        for f in ("--token", f"{t}={who}")]]
        script = ["tests/live/thirdparty_planted.py", bug] if bug else ["examples/thirdparty/server.py"]
        self.stderr = open(folder / f"{name}.stderr", "w+")
        self.server = subprocess.Popen([str(PYTHON), *script, *flags], cwd=ROOT, stdout=subprocess.DEVNULL,
                                       stderr=self.stderr)
        self.proxy = None
        try:
            _wait_port(port, self.server, "the third-party server")
            self.proxy = subprocess.Popen([sys.executable, "-m", "verifier.record.proxy", "--upstream",
                                           f"http://127.0.0.1:{port}", "--port", "0", "--log", str(self.log)],
                                          cwd=ROOT, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
            line = self.proxy.stdout.readline()
            assert line.startswith("recording on "), f"the proxy did not start: {line!r}"
            self.base = line.split()[-1].removesuffix("/mcp")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for proc in (self.proxy, self.server):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.stderr.close()


@pytest.fixture
def recorded(tmp_path):
    why = _why_missing()
    if why:
        pytest.skip(why)
    started = []

    def start(name: str, bug: str | None = None, tokens: bool = True) -> Recorded:
        started.append(Recorded(tmp_path, name, bug, tokens))
        return started[-1]
    yield start
    for r in started:
        r.stop()


def _judged(out: dict) -> str:
    x = out["exchanges"]
    return f"{x['judged']} of {x['judged'] + x['unjudged']} exchanges judged ({x['judged_fraction']:.0%})"


def test_the_project_clients_traffic_is_judged(recorded, validate, check_schema, capsys):
    from examples.host.clients import generic      # httpx: the host extra (conftest skips without it)
    server = recorded("clients")
    lines: list[str] = []
    failed = generic.run(server.base, list(TOKENS), out=lines.append)
    assert not failed, lines
    server.stop()
    check_schema(server.log)
    out = validate(server.log, mapping=MAPPING, cli=True)
    with capsys.disabled():
        print(f"\nfastmcp-tasks, the project's clients: {out['result']}, {_judged(out)}")
    assert out["exchanges"]["judged_fraction"] > 0
    assert out["result"] == "conforms", validate.explain(out)
    verdicts = {r["id"]: r["verdict"] for r in out["requirements"]}
    # the legs reach these: a foreign and an unknown task compared, a terminal cancel, an answered key
    for rid in ("ISO-1", "CNL-1", "UPD-2", "NEG-2", "WIRE-4", "TTL-4"):
        assert verdicts.get(rid) == "held", (rid, verdicts.get(rid))
    assert not set(verdicts) & set(out["out_of_scope"]), "an id out of the profile was judged"


def test_the_recorder_keeps_what_the_server_sent(recorded):
    """-32602 travels with fastmcp's HTTP 400 through the proxy, and run_events is false."""
    server = recorded("recorder")
    from examples.host.clients.mcp_client import HttpClient
    ex = HttpClient(server.base, TOKENS[0]).get("no-such-task")
    assert (ex.status, ex.error["code"]) == (400, -32602)
    server.stop()
    header, *events = [json.loads(line) for line in server.log.read_text().splitlines()]
    assert header["run_events"] is False and not any(e["event"] == "run" for e in events)
    answer = next(e for e in events if e["event"] == "message" and e["dir"] == "s2c")
    assert answer["http"]["status"] == 400 and answer["message"]["error"]["message"] == "Task no-such-task not found"


def documented_deviations() -> set[str]:
    """The suite's check ids docs/third-party.md lists as fastmcp-tasks' deviations."""
    text = (ROOT / "docs" / "third-party.md").read_text()
    table = text.split("### The official suite on fastmcp-tasks", 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", table, flags=re.M))


def test_the_suites_traffic_is_judged(recorded, validate, tmp_path, capsys):
    why = _suite_missing()
    if why:
        pytest.skip(why)
    server = recorded("suite", tokens=False)
    failed = {}
    for scenario in SCENARIOS:
        out_dir = tmp_path / scenario
        proc = subprocess.run([*_node(), "server", "--url", f"{server.base}/mcp", "--scenario", scenario,
                               "-o", str(out_dir)], cwd=ROOT, capture_output=True, text=True, timeout=300)
        results = list(out_dir.glob("*/checks.json"))
        assert len(results) == 1, f"{scenario}: no results (exit {proc.returncode}): {proc.stderr[-2000:]}"
        failed |= {c["id"]: c.get("errorMessage", "") for c in json.loads(results[0].read_text())
                   if c["status"] not in ("SUCCESS", "INFO", "SKIPPED", "WARNING")}
    server.stop()
    undocumented = {k: v for k, v in failed.items() if k not in documented_deviations()}
    assert not undocumented, f"checks failed that docs/third-party.md does not list: {undocumented}"
    out = validate(server.log, mapping=SUITE_MAPPING, budget=300, cli=True)
    with capsys.disabled():
        print(f"\nfastmcp-tasks, the official suite: {out['result']}, {_judged(out)}")
    assert out["result"] in ("conforms", "conforms-partially"), validate.explain(out)
    assert out["exchanges"]["judged_fraction"] > 0.9, _judged(out)
    assert all(u["why"] for u in out["unjudged"])


# planted bug (tests/live/thirdparty_planted.py) -> the requirement it breaks, and where it shows
PLANTED = {
    "foreign-task-telltale-message": "ISO-1",
    "terminal-cancel-invalid-params": "CNL-1",
    "cancel-overwrites-terminal": "PRJ-3",
    # no run events: the update's empty answer fits it, the next read's inputRequests (the answered key
    # still asked) do not (with run events, the reference host's planted twin is named UPD-4 at the update)
    "update-resolves-first-key-only": "PRJ-2",
    "get-without-capability": "NEG-2",
    "mcp-name-unchecked": "WIRE-4",
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_a_planted_bug_is_named(recorded, validate, bug):
    from examples.host.clients import generic
    server = recorded(bug, bug=bug)
    lines: list[str] = []
    failed = generic.run(server.base, list(TOKENS), out=lines.append)
    server.stop()
    out = validate(server.log, mapping=MAPPING)
    assert failed, f"{bug}: no leg saw it on the wire: {lines}"
    assert out["result"] == "diverges", validate.explain(out)
    assert out["divergence"]["requirement"] == PLANTED[bug], validate.explain(out)
