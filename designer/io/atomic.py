"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import codecs
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _write_chunks(fh, chunks: Iterable[str], encoding: str) -> None:
    """Encode text chunks as they come (a large file never sits whole in memory)."""
    encoder = codecs.getincrementalencoder(encoding)()
    for chunk in chunks:
        fh.write(encoder.encode(chunk))
    fh.write(encoder.encode("", final=True))


def write_atomic(path: str | os.PathLike, data: bytes | str | Iterable[str], encoding: str = "utf-8") -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename over `path`.

    `data` may be an iterable of str chunks, written as they are produced; if producing them
    fails, the temporary file is removed and `path` is left as it was.
    """
    target = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(payload, (bytes, bytearray, memoryview)):
                fh.write(payload)
            else:
                _write_chunks(fh, payload, encoding)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
