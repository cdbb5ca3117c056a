"""Atomic file writes: a reader sees the old file or the new one, never half of one.

The new file is written beside the target under a hidden temporary name, flushed to disk,
given the mode a normal write would give it, renamed over the target, and the folder is
flushed so that the rename itself survives a power cut. A file that is replaced keeps its
mode (and its group, where the user may set it), so a design on a shared drive stays readable
to the team; a new file gets the user's umask, as `open()` would give it.

A save killed half-way leaves its temporary file behind (nothing can remove it then); the
next save to the same folder removes such leftovers once they are a minute old, when no
other save can still be writing them.

A target that is a symbolic link is written through: the file it points to is replaced and the
link stays a link, as editors do.

A folder of files (NetBox's CSVs) is replaced as a set: written whole into a hidden sibling
folder, then exchanged with the old folder in one rename (renameat2 RENAME_EXCHANGE on Linux;
elsewhere two renames, the old folder kept aside until the new one is in place). Killed at any
point, the old folder is whole (or, between the two renames, kept aside and put back by the next
write); leftovers are removed by the next write beside them.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

TMP_SUFFIX = ".tmp"
# A save takes seconds; a leftover older than this belongs to no save still running.
STALE_AFTER_S = 60
# What tempfile.mkstemp names our files: ".<target>.<8 random characters>.tmp".
_OURS = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp\Z")
# A folder write's new folder (".<target>.<8>.new") and, where no exchange is possible, the old
# folder kept aside (".<target>.<8>.old").
FOLDER_NEW, FOLDER_OLD = ".new", ".old"
_OUR_FOLDER = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}(?P<kind>\.new|\.old)\Z")


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
    return removed + _remove_stale_folders(folder, now)


def _remove_stale_folders(folder: Path, now: float) -> int:
    """Leftovers of killed folder writes: a new folder never swapped in is removed; an old
    folder kept aside is put back when its target is missing (killed between the two renames),
    else removed."""
    removed = 0
    try:
        candidates = [(p, _OUR_FOLDER.match(p.name)) for p in folder.iterdir()]
    except OSError:
        return 0
    for path, match in candidates:
        if match is None:
            continue
        try:
            if not path.is_dir() or path.is_symlink() or now - path.stat().st_mtime < STALE_AFTER_S:
                continue
            target = folder / match.group("target")
            if match.group("kind") == FOLDER_OLD and not os.path.lexists(target):
                os.rename(path, target)
                continue
            shutil.rmtree(path)
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


def through_link(target: Path) -> Path:
    """The file a write to `target` replaces: the file a symbolic link points to (the link stays
    a link), else `target` itself."""
    if not target.is_symlink():
        return target
    return Path(os.path.realpath(target))


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
    target = through_link(check_target(path))
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
    target = through_link(check_target(path))
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



def write_folder_atomic(path: str | os.PathLike[str], files: Mapping[str, bytes | str | Iterable[str]],
                        encoding: str = "utf-8") -> list[Path]:
    """Replace the folder `path` by one holding `files` (name -> content), as a set: a reader
    sees the old folder or the new one, never some new files beside old ones.

    Files of the old folder that the new set does not write (a note the user keeps there) are
    carried over, linked or copied. Returns the paths written.
    """
    out = Path(path)
    out = through_link(out) if out.is_symlink() else out
    parent = out.parent if str(out.parent) else Path(".")
    if os.path.lexists(out) and not out.is_dir():
        raise WriteRefused(f"{out} is a file; a folder of files goes there")
    if not parent.is_dir():
        raise WriteRefused(f"cannot write {out}: folder {parent} does not exist")
    remove_stale_temporaries(parent)
    try:
        new = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=FOLDER_NEW, dir=parent))
    except OSError as exc:
        raise _refusal(out, parent, exc) from None
    try:
        os.chmod(new, (stat.S_IMODE(out.stat().st_mode) if out.is_dir() else 0o777 & ~_umask()))
        for name, data in files.items():
            parts = Path(name).parts
            if not parts or Path(name).is_absolute() or ".." in parts:
                raise WriteRefused(f"{out}: a file of the folder may not be named {name!r}")
            if len(parts) > 1:   # a name may hold folders of its own (frr: `<switch>/frr.conf`)
                (new / name).parent.mkdir(parents=True, exist_ok=True)
            write_atomic(new / name, data, encoding)
            old_file = out / name
            if old_file.is_file():  # a replaced file keeps its mode, as write_atomic gives it
                with contextlib.suppress(OSError):
                    os.chmod(new / name, stat.S_IMODE(old_file.stat().st_mode))
        if out.is_dir():
            _carry_over(out, new, {Path(name).parts[0] for name in files})
        _fsync_dir(new)
        _swap_in(new, out, parent)
    except BaseException as exc:
        shutil.rmtree(new, ignore_errors=True)
        if isinstance(exc, OSError) and not isinstance(exc, WriteRefused):
            raise _refusal(out, parent, exc) from None
        raise
    _fsync_dir(parent)
    return [out / name for name in files]


def _carry_over(old: Path, new: Path, written: set[str]) -> None:
    for entry in os.scandir(old):
        if entry.name in written or _OURS.match(entry.name):
            continue
        source, dest = Path(entry.path), new / entry.name
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(source, dest, symlinks=True)
        elif entry.is_symlink():
            os.symlink(os.readlink(source), dest)
        else:
            try:
                os.link(source, dest)
            except OSError:
                shutil.copy2(source, dest)


def _swap_in(new: Path, out: Path, parent: Path) -> None:
    """Put the finished folder `new` at `out` and remove the old one."""
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    if _exchange(new, out):
        shutil.rmtree(new, ignore_errors=True)   # `new` now holds the old folder
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=FOLDER_OLD, dir=parent))
    os.rmdir(aside)
    os.rename(out, aside)          # killed after this: the next write puts `aside` back
    os.rename(new, out)
    shutil.rmtree(aside, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where not offered."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if result == 0:
        return True
    errno = ctypes.get_errno()
    if errno in (22, 38, 95):      # EINVAL, ENOSYS, EOPNOTSUPP: the file system cannot; use renames
        return False
    raise OSError(errno, os.strerror(errno), str(b))
