"""The main job on a fresh clone: `make verify` timed step by step, against issue 27's targets (the
gate within 5 minutes, the whole job within 10, the stored graphs' first build included).

    .venv/bin/python benchmarks/main_job.py              # a fresh clone of HEAD in a temporary folder
    .venv/bin/python benchmarks/main_job.py --keep DIR   # ... in DIR (left there, for its out/)

The clone gets the shared folder beside it (a link to this checkout's `../shared`) and no graph
cache: every stored graph is built as on a fresh machine. Set-up (`make setup`: the virtual
environment's packages, Graphviz) is timed apart, since it depends on the network and the package
cache more than on the tool. Figures are wall-clock on this machine: they mean something only on a
machine doing nothing else.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"gate": 300.0, "verify": 600.0}


def _run_timed(cmd, cwd, env) -> tuple[int, list[tuple[str, float]]]:
    """Run `cmd`, echoing its output; (exit code, [(step, seconds)]) from its "== step" lines."""
    steps, name, since = [], "start", time.monotonic()
    with subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as p:
        for line in p.stdout:
            sys.stdout.write(line)
            if line.startswith("== "):
                now = time.monotonic()
                steps.append((name, now - since))
                name, since = line[3:].strip(), now
        code = p.wait()
    steps.append((name, time.monotonic() - since))
    return code, steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", default=None, help="clone into this folder and leave it there")
    args = ap.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="main-job-"))
    base.mkdir(parents=True, exist_ok=True)
    clone = base / "main"
    if clone.exists():
        shutil.rmtree(clone)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    shared = (ROOT.parent / "shared").resolve()
    if not (base / "shared").exists():
        (base / "shared").symlink_to(shared)
    env = {k: v for k, v in os.environ.items() if k != "TASKMODEL_GRAPH_CACHE"}
    try:
        t = time.monotonic()
        subprocess.run(["make", "setup"], cwd=clone, env=env, check=True, stdout=subprocess.DEVNULL)
        setup = time.monotonic() - t
        t = time.monotonic()
        code, steps = _run_timed(["bash", "scripts/verify.sh"], clone, env)
        total = time.monotonic() - t
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"\nset-up {setup:.0f} s (apart)")
    for name, seconds in steps:
        print(f"  {seconds:7.0f} s  {name}")
    gate = sum(s for n, s in steps if " gate" in n)
    print(f"gate: {gate:.0f} s (target: at most {TARGETS['gate']:.0f} s) "
          + ("met" if gate <= TARGETS["gate"] else "NOT met"))
    print(f"make verify: {total:.0f} s after set-up, exit {code} (target: at most {TARGETS['verify']:.0f} s) "
          + ("met" if total <= TARGETS["verify"] else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
