"""Exploration speed: Hypothesis steps per second on the composed model with every property
checked, and the wall time of `taskmodel check` at its default budget.

    .venv/bin/python benchmarks/explore.py [--chunks N] [--skip-cli]

Prints figures only; nothing here asserts a time (machines are shared and noisy).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from properties.base import load_catalogue  # noqa: E402
from verifier.engines.random.explore import explore


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=6)
    ap.add_argument("--skip-cli", action="store_true")
    args = ap.parse_args()
    props = list(load_catalogue().values())
    for label, chosen in (("all properties", props), ("no properties", [])):
        r = explore(None, budget=600, seed=7, chunks=args.chunks, props=chosen)
        print(f"hypothesis, composed baseline, {label:15s}: {r.steps:6d} steps in {r.elapsed_s:5.1f} s "
              f"= {r.steps_per_second:6.0f} steps/s ({len(chosen)} properties, {r.examples} examples)")
    if not args.skip_cli:
        t = time.monotonic()
        proc = subprocess.run([str(ROOT / ".venv/bin/taskmodel"), "check", "--json", "--out",
                               str(ROOT / "out/bench")], capture_output=True, text=True)
        print(f"taskmodel check (default budget): {time.monotonic() - t:.1f} s wall, exit {proc.returncode}")


if __name__ == "__main__":
    main()
