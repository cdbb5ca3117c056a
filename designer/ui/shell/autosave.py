"""Autosave and crash recovery.

Each running window owns one autosave file in the user data directory and holds a lock
file beside it. A clean exit removes both. At the next start, an autosave whose lock is no
longer held by a live process was left by a crash; it is offered for recovery if it is
newer than the file it belongs to (else the work was saved after all and it is dropped).
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QTimer, Signal

from designer.io.atomic import write_atomic
from designer.io.project import ProjectFileError, design_from_json, design_to_json
from designer.model.intent.design import FabricDesign
from designer.ui.editing.document import Document

AUTOSAVE_FORMAT = "fabric-designer-autosave"
AUTOSAVE_INTERVAL_MS = 60_000
_SUFFIX = ".autosave.json"


@dataclass(frozen=True)
class Recovery:
    """Unsaved work left behind by a window that did not close cleanly."""

    autosave: Path
    source: Path | None        # the project file the work belongs to, None if never saved
    saved_at: datetime
    design: FabricDesign

    def describe(self) -> str:
        what = f"“{self.source.name}”" if self.source else f"the unsaved design “{self.design.meta.name}”"
        when = self.saved_at.astimezone().strftime("%Y-%m-%d %H:%M")
        return f"Unsaved changes to {what} from {when} were found after Fabric Designer closed unexpectedly."

    def discard(self) -> None:
        _remove(self.autosave)
        _remove(_lock_path(self.autosave))


def _lock_path(autosave: Path) -> Path:
    return autosave.with_name(autosave.name[: -len(_SUFFIX)] + ".lock")


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


class AutosaveManager(QObject):
    """Writes the document's unsaved design every `interval_ms` to its own autosave file."""

    saved = Signal(object)
    """An autosave was written; carries its pathlib.Path."""

    def __init__(self, document: Document, directory: Path, interval_ms: int = AUTOSAVE_INTERVAL_MS,
                 parent=None):
        super().__init__(parent)
        self.document = document
        self.directory = Path(directory)
        session = f"session-{uuid.uuid4().hex[:12]}"
        self.path = self.directory / f"{session}{_SUFFIX}"
        self._lock: QLockFile | None = None
        self._last_key: tuple | None = None
        self.keep_on_exit = False   # set when the program is told to end (SIGTERM): keep the work
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.autosave_now)

    def start(self) -> None:
        """Take this session's lock and start the periodic autosave."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = QLockFile(str(_lock_path(self.path)))
        self._lock.setStaleLockTime(0)  # stale only when its process is gone, never by age
        self._lock.tryLock(0)
        self.timer.start()

    def autosave_now(self) -> bool:
        """Write the design if it has unsaved changes not yet autosaved; True when written."""
        design = self.document.design
        if design is None or not self.document.modified:
            self._clear_file()
            return False
        source = self.document.path
        key = (design.content_key(), str(source))
        if key == self._last_key and self.path.exists():
            return False
        payload = {
            "format": AUTOSAVE_FORMAT,
            "source_path": str(source) if source else None,
            "saved_at": datetime.now(timezone.utc).isoformat(),
            "project": design_to_json(design),
        }
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps(payload, indent=1))
        except OSError:
            return False  # a full disk must not disturb editing; the next tick tries again
        self._last_key = key
        self.saved.emit(self.path)
        return True

    def _clear_file(self) -> None:
        self._last_key = None
        _remove(self.path)

    def stop(self) -> None:
        """A clean exit: stop the timer, remove the autosave and release the lock.

        When the program was told to end from outside, the autosave stays (its lock goes), so
        the next start offers it for recovery."""
        self.timer.stop()
        if not self.keep_on_exit:
            self._clear_file()
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None


def _read(path: Path) -> Recovery | None:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        if payload.get("format") != AUTOSAVE_FORMAT:
            return None
        source = Path(payload["source_path"]) if payload.get("source_path") else None
        saved_at = datetime.fromisoformat(payload["saved_at"])
        design = design_from_json(payload["project"], str(path))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ProjectFileError):
        return None
    return Recovery(path, source, saved_at, design)


def find_recoverable(directory: Path) -> list[Recovery]:
    """Autosaves left by windows that crashed, newest first; obsolete or unreadable ones are removed."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    for lock_path in directory.glob("*.lock"):  # locks left by sessions that had nothing unsaved
        autosave = lock_path.with_name(lock_path.name[: -len(".lock")] + _SUFFIX)
        if not autosave.exists():
            lock = QLockFile(str(lock_path))
            lock.setStaleLockTime(0)
            if lock.tryLock(0):
                lock.unlock()  # removes the stale lock file
    found = []
    for path in directory.glob(f"*{_SUFFIX}"):
        lock = QLockFile(str(_lock_path(path)))
        lock.setStaleLockTime(0)
        if not lock.tryLock(0):
            continue  # a running window owns it
        lock.unlock()
        recovery = _read(path)
        if recovery is None:
            _remove(path)
            continue
        if recovery.source is not None and recovery.source.exists() \
                and os.path.getmtime(recovery.source) >= os.path.getmtime(path):
            recovery.discard()  # the file was saved after the last autosave: nothing was lost
            continue
        found.append(recovery)
    found.sort(key=lambda r: r.saved_at, reverse=True)
    return found
