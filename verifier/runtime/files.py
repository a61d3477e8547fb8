"""Atomic writes: a failed or interrupted run never leaves a half-written result behind.

A file is written beside its destination and renamed into place; a folder is built whole beside
its destination and swapped in. What is staged beside a destination is named for the process that
stages it (`.NAME.new-PID-...`, `.NAME.old-PID-...`, `.NAME.tmp-PID-...`), so that a command's
`sweep` clears what a killed one left: never the staging of a writer still running. A path that
cannot be written is bad input (one line, exit 3), found before the work by `check_folder` and
`check_file`, which create nothing: an empty path, a file where a folder goes, a device
(`/dev/null`, `/dev/full`) where a file goes, a folder no file can be made in (`/proc`).
"""
from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import stat
import tempfile
from pathlib import Path

from verifier.runtime.exitcodes import UsageError


def unwritable(path: Path, e: OSError) -> UsageError:
    return UsageError(f"taskmodel: {path}: cannot be written ({e.strerror or type(e).__name__})")


def path_arg(text: str) -> str:
    """An argparse type for a path: an empty one is refused (it would mean the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    return text


def _folder_problem(path: Path) -> str | None:
    """Why files cannot be made in folder `path` (made if missing), or None; nothing is left behind."""
    if "\x00" in str(path):
        return "a NUL byte in the name"
    probe = path
    try:
        while not probe.exists():           # the nearest existing folder is where it would be made
            if probe.parent == probe:
                break
            probe = probe.parent
        if not probe.is_dir():
            return f"{probe} is not a folder"
    except OSError as e:                    # a name too long
        return e.strerror or str(e)
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable"
    try:                                    # permission bits do not bind root, nor tell of /proc or a
        os.rmdir(tempfile.mkdtemp(prefix=".probe-", dir=probe))   # read-only mount: make and remove one
    except OSError as e:
        return f"{probe}: {e.strerror or e}"
    return None


def check_folder(path: Path | str, flag: str) -> None:
    """Refuse (exit 3, one line) a folder the run could not write its output into: before the work."""
    problem = _folder_problem(Path(path)) if str(path) else "an empty path"
    if problem:
        raise _refused(path, flag, problem)


def check_file(path: Path | str, flag: str) -> None:
    """Refuse a file the run could not write (a folder or a device in its place, or its folder):
    before the work. It is written by renaming a new file into place, so whatever stood there is gone."""
    if not str(path):
        raise _refused(path, flag, "an empty path")
    path = Path(path)
    problem = _folder_problem(path) if "\x00" in str(path) else _folder_problem(path.parent)
    if problem is None:
        try:
            problem = ("a folder is there" if path.is_dir() else
                       "not a regular file" if path.exists() and not path.is_file() else None)
        except OSError as e:                # a name too long
            problem = e.strerror or str(e)
    if problem:
        raise _refused(path, flag, problem)


def _refused(path, flag: str, problem: str) -> UsageError:
    return UsageError(f"taskmodel: {flag}{f' {path}' if str(path) else ''}: cannot be written ({problem})")


def write_atomic(path: Path | str, text: str) -> Path:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-{os.getpid()}-", dir=path.parent)
    except OSError as e:
        raise unwritable(path, e) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, _mode(path))      # mkstemp's 0600 is not what a plain write would give
        os.replace(tmp, path)
    except OSError as e:
        _remove(tmp)
        raise unwritable(path, e) from None
    except BaseException:
        _remove(tmp)
        raise
    return path


def _mode(path: Path) -> int:
    """The mode of the file at `path`, or what a new file gets under the process's umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _remove(path) -> None:
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.exists(path):
        os.unlink(path)


def recover(dest: Path) -> None:
    """Undo what a killed `write_folder` left beside `dest`: the old folder moved away and not yet
    replaced is put back; half-built new folders and moved-away old ones are removed."""
    parent = dest.parent
    if not parent.is_dir():
        return
    old = sorted(parent.glob(f".{dest.name}.old-*"))
    if old and not dest.exists():
        os.rename(old.pop(), dest)
    for leftover in (*old, *parent.glob(f".{dest.name}.new-*")):
        _remove(leftover)


STAGED = re.compile(r"\.(?P<name>.+)\.(?P<kind>new|old|tmp)-(?P<pid>\d+)-\w+")


def sweep(root: Path | str, depth: int = 2) -> None:
    """Clear, in `root` and the folders `depth` levels below it, what a killed write left: the
    staging of a process no longer running is removed, and an old folder it moved away whose
    replacement never arrived is put back."""
    root = Path(root)
    try:
        entries = list(root.iterdir())
    except OSError:                 # not there (yet), or not a folder: nothing left in it
        return
    for entry in entries:
        staged = STAGED.fullmatch(entry.name)
        if staged is None:
            if depth > 0 and not entry.name.startswith(".") and entry.is_dir() and not entry.is_symlink():
                sweep(entry, depth - 1)
        elif not _running(int(staged["pid"])):
            dest = root / staged["name"]
            if staged["kind"] == "old" and not dest.exists():
                os.rename(entry, dest)
            else:
                _remove(entry)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:                 # another user's: running
        pass
    return True


def write_folder(dest: Path | str, files: dict[str, str], keep_others: bool = True) -> Path:
    """Make `dest` hold exactly `files` (name -> text), plus, with `keep_others`, the files another
    step wrote there (e.g. the highlighted lifecycle of `taskmodel diagrams`). A SIGKILL at any
    point leaves the old folder or the new one at `dest` (or, between the two renames, the old
    one beside it, which the next write puts back): never a mix."""
    dest = Path(dest)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        recover(dest)
        new = Path(tempfile.mkdtemp(prefix=f".{dest.name}.new-{os.getpid()}-", dir=dest.parent))
    except OSError as e:
        raise unwritable(dest, e) from None
    try:
        if keep_others and dest.is_dir():
            for f in dest.iterdir():
                if f.is_file() and f.name not in files:
                    shutil.copy2(f, new / f.name)
        for name, text in files.items():
            with open(new / name, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        os.chmod(new, 0o755)        # mkdtemp makes it 0700; a committed folder is readable
        if dest.exists():
            old = dest.parent / f".{dest.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
            os.rename(dest, old)
            os.rename(new, dest)
            _remove(old)
        else:
            os.rename(new, dest)
    except OSError as e:
        recover(dest)
        raise unwritable(dest, e) from None
    except BaseException:
        recover(dest)
        raise
    return dest
