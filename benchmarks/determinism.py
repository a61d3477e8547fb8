"""Determinism under load: the same check, mutation classification and gate on an idle machine and
beside CPU-bound processes must answer alike (everything but timings).

    .venv/bin/python benchmarks/determinism.py [--examples N] [--mutants N] [--hogs N] [--gate]

Each part runs twice: alone, then beside `--hogs` processes that spin on a core each. It prints,
per part, `identical` or the first difference. A verdict is a fact about the model, the scope and
the work budget (examples, states, rlimit); only an outer wall-clock cap may cut work, and then it
says `time cap`, which this benchmark would show as a difference.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMINGS = {"elapsed", "seconds", "steps_per_second", "states_per_second"}
TASKMODEL = [sys.executable, "-c", "import sys; from verifier.cli import main; sys.exit(main())"]


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def first_difference(a, b, where="") -> str | None:
    if type(a) is not type(b):
        return f"{where or '.'}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{where}.{k}: only on one side"
            got = first_difference(a[k], b[k], f"{where}.{k}")
            if got:
                return got
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            got = first_difference(x, y, f"{where}[{i}]")
            if got:
                return got
        return None
    return None if a == b else f"{where}: {a!r} vs {b!r}"


@contextmanager
def hogs(n: int):
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def run_check(examples: int, out: Path) -> dict:
    proc = subprocess.run(TASKMODEL + ["check", "--variant", "detach-on-disconnect", "--examples", str(examples),
                                       "--json", "--out", str(out), "--no-counterexamples"],
                          capture_output=True, text=True, cwd=ROOT, env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"})
    return {"exit": proc.returncode, **json.loads(proc.stdout)}


def run_mutants(n: int, out: Path) -> list:
    subprocess.run([sys.executable, "benchmarks/mutation.py", "--limit", str(n), "--seed", "1", "--json", str(out)],
                   capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.read_text())


def run_gate() -> dict:
    proc = subprocess.run(TASKMODEL + ["gate", "--jobs", "2"], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"})
    return {"exit": proc.returncode,
            "lines": [line for line in proc.stdout.splitlines() if line.startswith(("DRIFT", "UNDETERMINED"))]}


def compare(name: str, run, n_hogs: int) -> bool:
    started = time.monotonic()
    idle = without_timings(run("idle"))
    t_idle = time.monotonic() - started
    with hogs(n_hogs):
        started = time.monotonic()
        loaded = without_timings(run("loaded"))
        t_loaded = time.monotonic() - started
    diff = first_difference(idle, loaded)
    print(f"{name:28s} idle {t_idle:7.1f} s, beside {n_hogs} CPU-bound processes {t_loaded:7.1f} s: "
          + ("identical" if diff is None else f"DIFFERS at {diff}"), flush=True)
    return diff is None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=2_000)
    ap.add_argument("--mutants", type=int, default=20)
    ap.add_argument("--hogs", type=int, default=2)
    ap.add_argument("--gate", action="store_true", help="also the gate over every built-in variant (long)")
    opts = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="determinism-"))
    same = compare(f"check ({opts.examples} examples)", lambda tag: run_check(opts.examples, tmp / tag), opts.hogs)
    if opts.mutants:
        same &= compare(f"mutation ({opts.mutants} mutants)",
                        lambda tag: run_mutants(opts.mutants, tmp / f"mutants-{tag}.json"), opts.hogs)
    if opts.gate:
        same &= compare("gate", lambda tag: run_gate(), opts.hogs)
    print("target: identical;", "met" if same else "NOT met")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
