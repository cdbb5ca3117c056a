"""Atomic file writes: a reader sees the old file or the new one, never half of one.

The new file is written beside the target under a hidden temporary name, flushed to disk,
given the mode a normal write would give it, renamed over the target, and the folder is
flushed so that the rename itself survives a power cut. A file that is replaced keeps its
mode (and its group, where the user may set it), so a design on a shared drive stays readable
to the team; a new file gets the user's umask, as `open()` would give it.

A save killed half-way leaves its temporary file behind (nothing can remove it then); the
next save to the same folder removes such leftovers once they are a minute old, when no
other save can still be writing them.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

TMP_SUFFIX = ".tmp"
# A save takes seconds; a leftover older than this belongs to no save still running.
STALE_AFTER_S = 60
# What tempfile.mkstemp names our files: ".<target>.<8 random characters>.tmp".
_OURS = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


def _umask() -> int:
    # os.umask can only be read by setting it; set it back at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(target: Path) -> tuple[int, int | None]:
    """(mode, gid or None) for the new file: the replaced file's, else 0666 less the umask."""
    try:
        st = target.stat()
    except FileNotFoundError:
        return 0o666 & ~_umask(), None
    return stat.S_IMODE(st.st_mode), st.st_gid


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return  # Windows has no directory handles to flush; the rename is durable there
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems (network shares) refuse fsync on a folder
    finally:
        os.close(fd)


def remove_stale_temporaries(folder: Path, now: float | None = None) -> int:
    """Remove the temporary files that killed saves left in `folder`; returns how many."""
    now = time.time() if now is None else now
    removed = 0
    try:
        candidates = [p for p in folder.iterdir() if _OURS.match(p.name)]
    except OSError:
        return 0
    for path in candidates:
        try:
            if now - path.stat().st_mtime >= STALE_AFTER_S:
                path.unlink()
                removed += 1
        except OSError:
            continue
    return removed


def _write_chunks(fh: BinaryIO, chunks: Iterable[str], encoding: str) -> None:
    """Encode text chunks as they come (a large file never sits whole in memory)."""
    encoder = codecs.getincrementalencoder(encoding)()
    for chunk in chunks:
        fh.write(encoder.encode(chunk))
    fh.write(encoder.encode("", final=True))


class WriteRefused(OSError):
    """A write that cannot be made, said in one line that names the target, never a temporary."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "cannot write"


def check_target(path: str | os.PathLike[str]) -> Path:
    """Refuse, before any work, a target that cannot take a file: a folder, a FIFO, a device, a
    missing folder. Returns the path."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise WriteRefused(f"cannot write {target}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise WriteRefused(f"{target} is a folder; give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise WriteRefused(f"{target} is {kind}, not a file; give a file name")
    if not folder.is_dir():
        raise WriteRefused(f"cannot write {target}: folder {folder} does not exist")
    return target


def _refusal(target: Path, folder: Path, exc: OSError) -> WriteRefused:
    """The reason a write failed, naming the target and its folder, not the temporary file."""
    if isinstance(exc, PermissionError):
        return WriteRefused(f"cannot write {target}: folder {folder} is read-only or not yours")
    if isinstance(exc, IsADirectoryError):
        return WriteRefused(f"{target} is a folder; give a file name")
    reason = exc.strerror or str(exc) or type(exc).__name__
    return WriteRefused(f"cannot write {target}: {reason}")


def write_atomic(path: str | os.PathLike[str], data: bytes | str | Iterable[str], encoding: str = "utf-8") -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename over `path`.

    `data` may be an iterable of str chunks, written as they are produced; if producing them
    fails, the temporary file is removed and `path` is left as it was. A failure of the file
    system is raised as WriteRefused, one line naming `path` and its folder.
    """
    target = check_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    payload = data.encode(encoding) if isinstance(data, str) else data
    mode, gid = _mode_for(target)
    remove_stale_temporaries(folder)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise _refusal(target, folder, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(payload, (bytes, bytearray, memoryview)):
                fh.write(payload)
            else:
                _write_chunks(fh, payload, encoding)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
                if gid is not None and hasattr(os, "fchown"):
                    # Not a member of that group: the file keeps the user's.
                    with contextlib.suppress(OSError):
                        os.fchown(fh.fileno(), -1, gid)
            os.fsync(fh.fileno())
        if not hasattr(os, "fchmod"):
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, WriteRefused):
            raise _refusal(target, folder, exc) from None
        raise
    _fsync_dir(folder)


def move_into_place(temp: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """Rename a finished file (written beside `path`, e.g. by an export off the UI thread) over
    `path`, with the mode a normal write gives: the replaced file's, else the user's umask. A
    temporary made by mkstemp is 0600, which must not reach the user's file."""
    target = check_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    mode, gid = _mode_for(target)
    try:
        os.chmod(temp, mode)
        if gid is not None and hasattr(os, "chown"):
            with contextlib.suppress(OSError):
                os.chown(temp, -1, gid)
        os.replace(temp, target)
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise _refusal(target, folder, exc) from None
    _fsync_dir(folder)

