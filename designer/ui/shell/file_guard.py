"""Guards around the open project file: changed on disk, and open in another window.

- A watcher notices when the open file changes on disk after this window read or wrote it
  (another window, another tool, a sync client). The window says so at once, and Save asks
  before it overwrites that change.
- Each open file is claimed with a lock in the user data folder while a window has it open.
  A second window (of this or another running instance) that opens the same file is told so,
  and may open it read-only (Save then asks for a new name) or anyway.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QLockFile, QObject, Signal


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class FileGuard(QObject):
    changedOnDisk = Signal(object)
    """The open file (pathlib.Path) was changed on disk by someone else."""

    def __init__(self, lock_dir: Path, parent=None):
        super().__init__(parent)
        self.lock_dir = Path(lock_dir)
        self.path: Path | None = None
        self._known: tuple[int, int] | None = None
        self._claim: QLockFile | None = None
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_changed)

    # --- changed on disk ---------------------------------------------------------------------

    def track(self, path: Path | None) -> None:
        """Watch `path` as this window last read or wrote it (None: nothing to watch)."""
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self.path = Path(path) if path else None
        self._known = _signature(self.path) if self.path else None
        if self.path is not None and self.path.exists():
            self.watcher.addPath(str(self.path))

    def changed_since_known(self) -> bool:
        """Whether the file on disk is no longer what this window read or wrote."""
        if self.path is None or self._known is None:
            return False
        return _signature(self.path) != self._known

    def _on_changed(self, name: str) -> None:
        path = Path(name)
        if path != self.path:
            return
        if path.exists() and str(path) not in self.watcher.files():
            self.watcher.addPath(str(path))  # replaced by a rename: watch the new file
        if self.changed_since_known():
            self.changedOnDisk.emit(path)

    # --- open in another window --------------------------------------------------------------

    def _lock_file(self, path: Path) -> Path:
        key = hashlib.sha1(os.path.normcase(str(Path(path).resolve())).encode("utf-8", "surrogatepass")).hexdigest()
        return self.lock_dir / f"open-{key[:20]}.lock"

    def claim(self, path: Path) -> bool:
        """Claim `path` for this window; False when another window holds it (nothing claimed)."""
        self.release()
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        lock = QLockFile(str(self._lock_file(path)))
        lock.setStaleLockTime(0)   # stale only when its process is gone
        if not lock.tryLock(0):
            return False
        self._claim = lock
        return True

    def release(self) -> None:
        if self._claim is not None:
            self._claim.unlock()
            self._claim = None
