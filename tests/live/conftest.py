"""Live tests: the reference host (examples/host) as a real server on a free loopback port.

`start_host(*bugs)` starts `python -m examples.host` on 127.0.0.1 with its traffic log in the
test's tmp folder and stops it at teardown. Without the host extra (mcp, uvicorn, httpx) every
live test is skipped, saying so.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAPPING = ROOT / "examples" / "host" / "mapping.json"
SUITE_MAPPING = ROOT / "examples" / "host" / "mapping-suite.json"      # the suite's fixtures too, tokenless alice
MISSING = [m for m in ("mcp", "uvicorn", "httpx") if importlib.util.find_spec(m) is None]


def pytest_configure(config):
    config.addinivalue_line("markers", "live: starts the reference host as a real loopback server")


def pytest_collection_modifyitems(config, items):
    if MISSING:
        skip = pytest.mark.skip(reason=f"{', '.join(MISSING)} not installed: the live tests need the host extra "
                                       "(pip install -e '.[host]')")
        for item in items:
            if "tests/live" in str(item.fspath):
                item.add_marker(skip)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HostProcess:
    def __init__(self, folder: Path, name: str, bugs: tuple[str, ...], *flags: str, planted: str | None = None):
        # `planted`: a bug of tests/live/planted/, planted in the child process (planted/serve.py)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"{name}.jsonl"
        self.stderr = open(folder / f"{name}.stderr", "w+")
        module = "tests.live.planted.serve" if planted else "examples.host"
        cmd = [sys.executable, "-m", module, "--port", str(self.port), "--log", str(self.log)]
        for b in bugs:
            cmd += ["--bug", b]
        env = {**os.environ, "PLANTED": planted} if planted else None
        self.proc = subprocess.Popen([*cmd, *flags], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self.stderr, env=env)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 30.0) -> None:
        import httpx
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stderr.seek(0)
                raise RuntimeError(f"the host exited ({self.proc.returncode}): {self.stderr.read()[-2000:]}")
            try:
                if httpx.get(f"{self.base}/runs", headers={"authorization": "Bearer tok-alice-3f9c2a"},
                             timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the host did not come up on {self.base} within {timeout} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()

    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]


class HostThread(HostProcess):
    """The same host served by uvicorn on a thread of the test process: a real loopback server,
    without paying the SDK's import again for every host a test starts."""

    def __init__(self, folder: Path, name: str, bugs: tuple[str, ...], serves_tasks: bool = True,
                 retention_s: float = 300.0, suite_fixtures: bool = False):
        import threading

        import uvicorn

        from examples.host.bugs import Bugs
        from examples.host.server import Host
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"{name}.jsonl"
        self.host = Host(self.log, Bugs.from_names(bugs), retention_s, serves_tasks=serves_tasks,
                         suite_fixtures=suite_fixtures)
        self.server = uvicorn.Server(uvicorn.Config(self.host.http_app(), host="127.0.0.1", port=self.port,
                                                    log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, name=f"host-{name}", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the host did not come up on {self.base}")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.host.log.close()


@pytest.fixture
def start_host(tmp_path):
    """Start hosts on free loopback ports (threads of this process); all are stopped at teardown."""
    started: list[HostProcess] = []

    def start(*bugs: str, name: str = "host", serves_tasks: bool = True, retention_s: float = 300.0,
              suite_fixtures: bool = False) -> HostProcess:
        host = HostThread(tmp_path, name, bugs, serves_tasks, retention_s, suite_fixtures)
        started.append(host)
        return host

    yield start
    for host in started:
        host.stop()


@pytest.fixture(scope="module")
def host_process(tmp_path_factory):
    """Start hosts as child processes with extra command-line flags, for a whole module."""
    started: list[HostProcess] = []

    def start(name: str, *flags: str, planted: str | None = None) -> HostProcess:
        host = HostProcess(tmp_path_factory.mktemp(name), name, (), *flags, planted=planted)
        started.append(host)
        return host

    yield start
    for host in started:
        host.stop()


@pytest.fixture(scope="module")
def faithful(tmp_path_factory):
    """One faithful host for a whole test module (the legs share it, then its log is validated)."""
    host = HostProcess(tmp_path_factory.mktemp("faithful"), "faithful", ())
    yield host
    host.stop()


class Validator:
    """`taskmodel validate` as the shared interface of issue 15 names it (a skip until it exists)."""

    @staticmethod
    def command() -> list[str]:
        exe = Path(sys.executable).with_name("taskmodel")
        command = [str(exe)] if exe.exists() else ([shutil.which("taskmodel")] if shutil.which("taskmodel") else None)
        if command is None or importlib.util.find_spec("verifier.validate") is None:
            pytest.skip("validate not built yet")
        return command

    def __call__(self, log: Path, *extra: str, budget: float = 60, mapping: Path = MAPPING, cli: bool = False) -> dict:
        """The `--json` object of `taskmodel validate LOG --map mapping.json [extra]`: through the command
        (`cli`, its exit code checked) or its Python entry point (`validate_log`, the same object)."""
        if not cli:
            return self.in_process(log, *extra, budget=budget, mapping=mapping)
        proc = subprocess.run([*self.command(), "validate", str(log), "--map", str(mapping), "--json",
                               "--budget", str(budget), *extra], cwd=ROOT, capture_output=True, text=True,
                              timeout=budget + 60)
        assert proc.stdout.strip(), f"validate printed nothing (exit {proc.returncode}): {proc.stderr[-1000:]}"
        out = json.loads(proc.stdout)
        assert out["exit_code"] == proc.returncode, (out["exit_code"], proc.returncode)
        return out

    def in_process(self, log: Path, *extra: str, budget: float, mapping: Path) -> dict:
        self.command()
        from verifier.validate import validate_log
        variant = extra[extra.index("--variant") + 1] if "--variant" in extra else None
        try:
            result = validate_log(str(log), json.loads(mapping.read_text()), variant=variant, budget=budget)
        except Exception as e:     # the command reports this as a fault (exit 4)
            raise AssertionError(f"validate faulted on {log.name}: {type(e).__name__}: {e}") from e
        return result.to_json()

    @staticmethod
    def explain(out: dict) -> str:
        d = out.get("divergence")
        if d is None:
            return f"{out['result']} after {out['matched']} of {out['events']} events: {out.get('reason', '')}"
        return f"{out['result']} at line {d['line']}: {d['requirement']} {d['reason']}"


@pytest.fixture
def validate():
    return Validator()


@pytest.fixture
def check_schema():
    """Every line of a recorded log validates against schemas/traffic-log.schema.json."""
    import jsonschema
    schema = json.loads((ROOT / "schemas" / "traffic-log.schema.json").read_text())
    checker = jsonschema.Draft202012Validator(schema)

    def check(log: Path) -> int:
        lines = log.read_text().splitlines()
        for n, line in enumerate(lines, 1):
            errors = list(checker.iter_errors(json.loads(line)))
            assert not errors, f"{log.name}:{n}: {errors[0].message[:300]}"
        assert json.loads(lines[0])["event"] == "header"
        return len(lines)
    return check
