"""SPIN's search rate on its peer model (`host.pml`), measured here, for the exhaustive benchmark's ratio.

`rate()` generates the verifier with `spin -a`, compiles it with gcc (-O2, safety properties only:
the exhaustive engine's searches at the default scopes check safety on every transition, liveness
on the graph after) and runs it, timing the run's CPU (not the compiler's) from the child's rusage.
The peer at host-small's dimensions (one tenant, one run, a request and its MRTR retry, one
interrupt) is searched in a hundredth of a second, too little to time: the rate is taken at a size
that runs for about a CPU second, and the states at host-small's dimensions are told beside it.
Debian's package `spin` (apt-get install spin) and gcc; without them `rate()` says which is missing.
"""
from __future__ import annotations

import re
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

MODEL = Path(__file__).resolve().parent / "host.pml"
HOST_SMALL = dict(TENANTS=1, RUNS=1, REQUESTS=2, INTERRUPTS=1)
TIMED = dict(TENANTS=2, RUNS=1, REQUESTS=3, INTERRUPTS=1)


@dataclass
class Peer:
    sizes: dict
    states: int
    cpu: float          # the search's CPU seconds (the generated verifier's, not the compiler's)

    @property
    def rate(self) -> float:
        return self.states / self.cpu if self.cpu else 0.0

    def describe(self) -> str:
        dims = ", ".join(f"{k.lower()}={v}" for k, v in self.sizes.items())
        return f"SPIN peer ({dims}): {self.states:,} states in {self.cpu:.2f} CPU s"


def missing() -> str | None:
    """What the measurement lacks on this machine, or None."""
    gone = [tool for tool in ("spin", "gcc") if shutil.which(tool) is None]
    return f"{' and '.join(gone)} not found (Debian: apt-get install spin gcc)" if gone else None


def search(sizes: dict) -> Peer:
    """The peer model searched whole at `sizes` (TENANTS, RUNS, REQUESTS, INTERRUPTS)."""
    with tempfile.TemporaryDirectory() as tmp:
        defines = [f"-D{k}={v}" for k, v in sizes.items()]
        subprocess.run(["spin", *defines, "-a", str(MODEL)], cwd=tmp, check=True, capture_output=True)
        subprocess.run(["gcc", "-O2", "-DSAFETY", "-o", "pan", "pan.c"], cwd=tmp, check=True, capture_output=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(["./pan", "-m1000000"], cwd=tmp, check=True, capture_output=True, text=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    errors = re.search(r"errors: (\d+)", out)
    if errors is None or errors.group(1) != "0":
        raise RuntimeError(f"the SPIN peer found an error or did not finish:\n{out}")
    states = int(re.search(r"(\d+) states, stored", out).group(1))
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Peer(dict(sizes), states, cpu)


def rate() -> tuple[Peer, Peer] | str:
    """(the peer at host-small's dimensions, the peer at the timed size), or why it cannot be measured."""
    why = missing()
    if why is not None:
        return why
    return search(HOST_SMALL), search(TIMED)
