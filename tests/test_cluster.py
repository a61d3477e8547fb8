"""The verifier on a real two-node Ray cluster on loopback, and the swarm's Redis example database.

One cluster for the module (starting Ray is slow): a head node and a second node, one CPU each,
joined with `ray start` and stopped after by the ids of their own processes (found by the cluster's
own temp folder: `ray stop --force` would stop every Ray process of the user on the machine). The
commands run as subprocesses with PYTHONHASHSEED=0, as the Makefile's gate does, so a local run and
a cluster run differ in where they ran only.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONHASHSEED": "0", "RAY_USAGE_STATS_ENABLED": "0",
       # The test cluster listens on loopback only and lives for the module: no token to hand round.
       "RAY_AUTH_MODE": "disabled"}
# Small enough for the default run, long enough (a few seconds a task) to kill a worker mid-task.
# One pytest-xdist worker takes the whole module (Makefile: --dist loadfile), so one cluster starts.
SETTINGS = {"seed": 0, "chunks": 2, "examples_per_chunk": 15, "steps": 40, "budget_cap": 120, "bfs": False}
VARIANTS = ["baseline", "detach-on-disconnect"]

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None or not (BIN / "ray").exists(),
                               reason="Ray is not installed in this environment (pip install '.[cluster]')")
needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None,
                                 reason="redis-server is not installed (Debian: apt-get install redis-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line), from /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            args = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        out[int(d)] = (ppid, args)
    return out


def cluster_processes(tag: str) -> dict[int, str]:
    """The processes of the cluster whose temp folder is `tag` (its daemons name it), and their
    descendants (the workers)."""
    procs = _processes()
    found = {p for p, (_, args) in procs.items() if tag in args and p != os.getpid()}
    while True:
        more = {p for p, (pp, _) in procs.items() if pp in found} - found
        if not more:
            return {p: procs[p][1] for p in found}
        found |= more


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _stop(tag: str) -> set[int]:
    """Stop the cluster's processes; the ids of those still alive after. Its workers are taken with
    their raylet's before any is signalled: once the raylet is gone they no longer descend from it."""
    pids = set(cluster_processes(tag))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids |= set(cluster_processes(tag))
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.2)
    return {p for p in pids if _alive(p)} | set(cluster_processes(tag))


@pytest.fixture(scope="module")
def cluster():
    """(address, temp folder) of a head node and a second node on 127.0.0.1, one CPU each."""
    if not (BIN / "ray").exists():
        pytest.skip("Ray is not installed in this environment (pip install '.[cluster]')")
    tag = tempfile.mkdtemp(prefix="rt", dir="/tmp")      # short: Ray's socket paths have a length limit
    port = _free_port()
    each = ["--num-cpus", "1", "--object-store-memory", str(80 * 2 ** 20), "--disable-usage-stats"]
    try:
        for cmd in (["start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
                     "--include-dashboard", "false", "--temp-dir", tag, *each],
                    ["start", "--address", f"127.0.0.1:{port}", "--node-ip-address", "127.0.0.1", *each]):
            got = subprocess.run([str(BIN / "ray"), *cmd], env=ENV, capture_output=True, text=True, timeout=120)
            assert got.returncode == 0, got.stderr[-2000:]
        yield f"127.0.0.1:{port}", tag
    finally:
        left = _stop(tag)
        shutil.rmtree(tag, ignore_errors=True)
        assert not left, f"the cluster left processes running: {left}"


@pytest.fixture(scope="module")
def redis_url():
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    import redis
    port = _free_port()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


def taskmodel(*args, cwd=ROOT, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "taskmodel"), *args], cwd=cwd, env=ENV, capture_output=True, text=True,
                          timeout=300, **kw)


def _gate_args(folder: Path, *extra, variants=VARIANTS, settings=SETTINGS) -> list[str]:
    manifest = folder / "counterexamples" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"settings": settings, "variants": {}}))
    return ["gate", "--record", "--manifest", str(manifest), "--only", *variants, *extra]


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def local_gate(tmp_path_factory):
    """The files a local gate --record writes for the subset (manifest and counterexamples)."""
    folder = tmp_path_factory.mktemp("local")
    got = taskmodel(*_gate_args(folder))
    assert got.returncode in (0, 2), got.stderr
    files = tree(folder)
    assert any(f.endswith("trace.itf.json") for f in files), "the subset refutes nothing: a vacuous comparison"
    return files


@needs_ray
def test_gate_on_the_cluster_writes_the_local_manifest(cluster, local_gate, tmp_path):
    got = taskmodel(*_gate_args(tmp_path, "--cluster", cluster[0]))
    assert got.returncode in (0, 2), got.stderr
    assert "on 2 Ray workers" in got.stdout, got.stdout + got.stderr      # it ran on the cluster
    assert tree(tmp_path) == local_gate


@needs_ray
@pytest.mark.slow
def test_gate_with_the_exhaustive_search_on_the_cluster_writes_the_local_manifest(cluster, tmp_path):
    settings = {**SETTINGS, "bfs": True}
    variants = ["second-advertisement", "detach-on-disconnect"]
    here = taskmodel(*_gate_args(tmp_path / "local", variants=variants, settings=settings))
    there = taskmodel(*_gate_args(tmp_path / "ray", "--cluster", cluster[0], variants=variants, settings=settings))
    assert here.returncode in (0, 2) and there.returncode in (0, 2), here.stderr + there.stderr
    manifest = json.loads((tmp_path / "ray" / "counterexamples" / "manifest.json").read_text())
    assert all(v["bfs"]["host-small"]["complete"] for v in manifest["variants"].values())
    assert tree(tmp_path / "ray") == tree(tmp_path / "local")


def _kill_a_worker_of(tag: str, task: str, run: subprocess.Popen) -> subprocess.CompletedProcess:
    """Kill the first worker of the cluster seen running `task`, while `run` runs; its outcome."""
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and run.poll() is None and time.monotonic() < deadline:
        busy = [pid for pid, args in cluster_processes(tag).items() if args.startswith(f"ray::{task}")]
        if busy:
            os.kill(busy[0], signal.SIGKILL)       # a worker of this test's cluster, mid-task
            killed = busy[0]
        time.sleep(0.1)
    out, err = run.communicate(timeout=600)
    assert killed is not None, f"no worker was running {task} to kill"
    return subprocess.CompletedProcess(run.args, run.returncode, out, err)


@needs_ray
def test_a_killed_worker_loses_no_work(cluster, local_gate, tmp_path):
    address, tag = cluster
    run = subprocess.Popen([str(BIN / "taskmodel"), *_gate_args(tmp_path, "--cluster", address)], cwd=ROOT,
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got = _kill_a_worker_of(tag, "_part", run)
    assert got.returncode in (0, 2), got.stderr
    assert tree(tmp_path) == local_gate                            # every verdict and counterexample


@needs_ray
@needs_redis
def test_swarm_stores_its_counterexamples_in_redis_and_they_replay(cluster, redis_url, tmp_path):
    import redis
    from hypothesis.extra.redis import RedisExampleDatabase

    from verifier.writers import itf
    from verifier.cli import swarm_store as store
    from verifier.writers.reproduce import reproduce
    got = taskmodel("swarm", "--variant", "detach-on-disconnect", "--searches", "2", "--examples", "200", "--states", "2000", "--cluster", cluster[0],
                    "--redis", redis_url, "--out", str(tmp_path / "one"), "--json")
    assert got.returncode == 1, got.stderr                    # refuted, as check says it
    import jsonschema
    jsonschema.validate(json.loads(got.stdout), json.loads((ROOT / "schemas/check-result.schema.json").read_text()))
    result = json.loads(got.stdout)["results"][0]
    assert result["bounds"]["workers"] == 2 and result["bounds"]["database"] == redis_url
    verdicts = {p["name"]: p["verdict"] for p in result["properties"]}
    assert verdicts["owner-cancel-cancels-run"] == "refuted"
    db = RedisExampleDatabase(redis.Redis.from_url(redis_url), key_prefix=store.KEY_PREFIX)
    stored = list(db.fetch(store.key("detach-on-disconnect", "owner-cancel-cancels-run")))
    assert stored
    for value in stored:               # each replays from the bytes alone, at the scope it names
        meta, steps = itf.load(value.decode())
        out = reproduce(meta["variant"], meta["property"], steps, meta.get("scope"))
        assert out.violation is not None and len(out.violation.history) == len(steps)
    again = taskmodel("swarm", "--variant", "detach-on-disconnect", "--searches", "1", "--examples", "1", "--redis", redis_url,
                      "--out", str(tmp_path / "two"), "--json")
    assert again.returncode == 1, again.stderr
    assert json.loads(again.stdout)["results"][0]["bounds"]["replayed_from_database"] >= len(stored)


def _bfs(*args) -> dict:
    got = taskmodel("check", "--engine", "bfs", "--budget", "600", "--json", "--no-counterexamples", *args)
    assert got.returncode in (1, 2), got.stderr
    assert "locally" not in got.stderr, got.stderr          # it ran where it was asked to
    result = json.loads(got.stdout)["results"][0]
    return {"states": {k: v for k, v in result["states"].items() if k != "scopes"},
            "verdicts": {p["name"]: (p["verdict"], p["length"]) for p in result["properties"]}}


@needs_ray
@pytest.mark.parametrize("variant, scope", [
    ("detach-on-disconnect", "host-small,max_interrupts=0"),
    pytest.param("baseline", "host-small", marks=pytest.mark.slow),
])
def test_partitioned_bfs_on_the_cluster_is_the_single_process_search(cluster, tmp_path, variant, scope):
    here = _bfs("--variant", variant, "--scope", scope, "--jobs", "1", "--out", str(tmp_path / "local"))
    there = _bfs("--variant", variant, "--scope", scope, "--cluster", cluster[0], "--out", str(tmp_path / "ray"))
    assert there == here                       # distinct and generated states, depth, verdicts, shortest lengths
    assert here["states"]["complete"]
    assert variant == "baseline" or any(v == "refuted" for v, _ in here["verdicts"].values())


@needs_ray
@pytest.mark.slow
def test_a_killed_worker_loses_no_state_of_the_partitioned_search(cluster, tmp_path):
    args = ["--variant", "detach-on-disconnect", "--scope", "host-small"]
    here = _bfs(*args, "--jobs", "1", "--out", str(tmp_path / "local"))
    run = subprocess.Popen([str(BIN / "taskmodel"), "check", "--engine", "bfs", "--budget", "600", "--json",
                            "--no-counterexamples", *args, "--cluster", cluster[0], "--out", str(tmp_path / "ray")],
                           cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got = _kill_a_worker_of(cluster[1], "expand_shard", run)
    assert got.returncode in (1, 2) and got.stdout, (got.returncode, got.stdout[-500:], got.stderr[-3000:])
    result = json.loads(got.stdout)["results"][0]
    assert {k: v for k, v in result["states"].items() if k != "scopes"} == here["states"]
    assert {p["name"]: (p["verdict"], p["length"]) for p in result["properties"]} == here["verdicts"]


def test_without_a_cluster_the_gate_says_so_and_runs_locally(tmp_path):
    nowhere = f"127.0.0.1:{_free_port()}"
    got = taskmodel(*_gate_args(tmp_path, "--cluster", nowhere, variants=["second-advertisement"]))
    assert got.returncode == 0, got.stderr
    lines = [line for line in got.stderr.splitlines() if line.strip()]
    why = f"no Ray cluster reachable at {nowhere} (Connection refused)" if importlib.util.find_spec("ray") \
        else "Ray is not installed (pip install '.[cluster]')"      # a checkout set up without the extra
    assert lines == [f"taskmodel: --cluster {nowhere}: {why}; running locally"]
    assert json.loads((tmp_path / "counterexamples" / "manifest.json").read_text())["variants"]


@pytest.mark.parametrize("command", ["gate", "swarm", "check"])
def test_an_address_that_is_not_one_is_refused(command):
    got = taskmodel(command, "--cluster", "head-without-port", *(["--engine", "bfs"] if command == "check" else []))
    assert got.returncode == 3
    assert got.stderr.strip().splitlines() == ["taskmodel: --cluster head-without-port: neither auto nor HOST:PORT"]


def test_without_ray_or_redis_the_swarm_says_so_and_runs_locally(tmp_path):
    # Ray made unimportable in the command's process: it says so in one line and runs locally.
    argv = ["swarm", "--variant", "detach-on-disconnect", "--searches", "2", "--examples", "200", "--states", "2000", "--cluster", "auto", "--out", str(tmp_path),
            "--no-counterexamples"]
    code = f"import sys; sys.modules['ray'] = None; from verifier.cli import main; sys.exit(main({argv!r}))"
    got = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**ENV, "TASKMODEL_REDIS": ""},
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 1, got.stderr
    assert "taskmodel: --cluster auto: Ray is not installed (pip install '.[cluster]'); running locally" in got.stderr
    assert f"counterexamples stored in the folder database {tmp_path / 'swarm-db'}" in got.stderr
    assert any((tmp_path / "swarm-db").rglob("*")), "the folder database holds nothing"


def _swarm_json(tmp_path, tag, *args) -> dict:
    got = subprocess.run([str(BIN / "taskmodel"), "swarm", "--variant", "detach-on-disconnect", "--out", str(tmp_path / tag),
                          "--no-counterexamples", "--json", *args], cwd=ROOT, env={**ENV, "TASKMODEL_REDIS": ""},
                         capture_output=True, text=True, timeout=300)
    assert got.returncode in (1, 2), got.stderr
    result = json.loads(got.stdout)["results"][0]
    for k in ("database", "workers"):
        result["bounds"].pop(k)
    result["budget"].pop("elapsed")
    result["budget"].pop("steps_per_second")
    return result


def test_a_swarm_is_bounded_by_work_whatever_its_workers():
    """The same seed and work: the same searches, verdicts and traces on one worker or two."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        work = ("--searches", "2", "--examples", "100", "--states", "5000")
        one, two = _swarm_json(tmp, "one", *work, "--jobs", "1"), _swarm_json(tmp, "two", *work, "--jobs", "2")
    assert one == two
    assert one["budget"]["work"] == {"searches": 2, "examples_per_random_search": 100, "states_per_bounded_search": 5000}
    assert {p["name"]: p["verdict"] for p in one["properties"]}["owner-cancel-cancels-run"] == "refuted"


def test_a_swarm_cut_by_its_cap_says_time_cap_never_holds(tmp_path):
    got = _swarm_json(tmp_path, "cut", "--searches", "2", "--examples", "10000000", "--states", "100000000",
                      "--budget", "2")
    verdicts = {p["name"]: p for p in got["properties"]}
    assert "holds" not in {p["verdict"] for p in got["properties"]}
    assert got["stopped"].startswith("time cap: ")
    assert verdicts["get-appends-nothing"]["verdict"] == "undetermined"
    assert verdicts["get-appends-nothing"]["message"].startswith("time cap")
