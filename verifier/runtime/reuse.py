"""Results of deterministic work read back rather than done again, where a run asks for it.

The main job explores the baseline twice with the same seed and budget: `check` (the random engine)
and then the gate, whose manifest records the baseline as that same exploration. Nothing differs
between the two runs but the process, so the second is the first's result, read back. A result is
kept under a key made of everything it is a function of: the tool's code (the model, the catalogue
and the engines: every `.py` under `model/`, `properties/` and `verifier/`), the versions of Python
and Hypothesis, `PYTHONHASHSEED`, and the work's own settings. Work that may differ from run to run is
never kept: a run under a wall-clock cap (the cap may cut it), or one whose string hashing is random.

Opt-in: only where `TASKMODEL_RESULT_CACHE` names a folder (`scripts/verify.sh` sets it). A result
read back says so (`CheckResult.reused`, printed with the check's budget line), with when it was
computed and the seconds it took then. An unreadable entry is computed again and rewritten.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

ENV = "TASKMODEL_RESULT_CACHE"
ROOT = Path(__file__).resolve().parents[2]
CODE = ("model", "properties", "verifier")
_DIGEST: list = []


def folder() -> Path | None:
    """Where results are kept, or None: not asked for."""
    got = os.environ.get(ENV)
    return Path(got) if got else None


def deterministic() -> bool:
    """Whether this process's string hashing is fixed, so that the same work gives the same result."""
    seed = os.environ.get("PYTHONHASHSEED")
    return seed is not None and seed != "random"


def code_digest(root: Path = ROOT) -> str:
    """A digest of the tool's code (read once per process, as `bfs.incremental.model_hash` does) and of
    what else decides a result: the Python and Hypothesis versions and PYTHONHASHSEED."""
    if root == ROOT and _DIGEST:
        return _DIGEST[0]
    from importlib.metadata import version
    h = hashlib.sha256(f"{sys.version}\0{version('hypothesis')}\0{os.environ.get('PYTHONHASHSEED')}\0".encode())
    got = sources_digest(h, root, CODE)
    if root == ROOT:
        _DIGEST.append(got)
    return got


def sources_digest(h, root: Path, tops, skip: tuple = ()) -> str:
    """`h` (a hashlib object) updated with every `.py` file under the folders `tops` of `root`, by
    path and content, but those under `skip` (a path's leading parts): its hex digest."""
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root)
            if skip and rel.parts[:len(skip)] == skip:
                continue
            h.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def recalled(kind: str, settings: tuple, compute):
    """`compute()`'s result, read back where the same work (`kind`, `settings`, this code) was kept
    before, else computed and kept: (result, None) or (result, the words saying it was read back).
    Without a folder asked for, or in a process whose hashing is random, simply `compute()`."""
    where = folder()
    if where is None or not deterministic():
        return compute(), None
    key = hashlib.sha256(repr((kind, settings, code_digest())).encode()).hexdigest()[:32]
    path = where / f"{kind}-{key}.pickle"
    try:
        with open(path, "rb") as fh:
            result, when, seconds = pickle.load(fh)
        return result, f"read back: the same {kind} (this code, these settings) ran {when}, in {seconds:.1f} s"
    except FileNotFoundError:
        pass
    except Exception as e:       # a torn or foreign entry: the work is done again, and the entry rewritten
        print(f"taskmodel: {path}: not read back ({type(e).__name__}); computed again", file=sys.stderr)
    started = time.monotonic()
    result = compute()
    _keep(path, (result, time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), time.monotonic() - started))
    return result, None


def _keep(path: Path, entry) -> None:
    """Write the entry beside its place and rename it in (a reader never sees half of one); a folder
    that cannot be written keeps nothing, said in one line."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-{os.getpid()}-", dir=path.parent)
    except OSError as e:
        print(f"taskmodel: {ENV}: {path.parent}: nothing kept ({e.strerror or type(e).__name__})", file=sys.stderr)
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(entry, fh, protocol=5)
        os.replace(tmp, path)
    except Exception:
        Path(tmp).unlink(missing_ok=True)
