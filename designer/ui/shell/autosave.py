"""Autosave and crash recovery.

Each running window owns one autosave file (named for its session, so two instances never
write the same file) in the user data directory, and holds a lock file beside it. It writes
a few seconds after the last edit and on a 60 s timer. A clean exit removes both. At the
next start, an autosave whose lock is no longer held by a live process was left by a crash;
it is offered for recovery unless its file holds the same design (the work was saved after
all), even when the file is newer: another window may have saved other work over it.

A recovered autosave is not deleted: the window that recovered it takes it over (its lock
and its name), so a second crash before the next save or autosave still leaves the work.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QTimer, Signal

from designer.io.atomic import write_atomic
from designer.io.project import ProjectFileError, design_from_json, design_to_json, load_design
from designer.limits import InputError, read_text
from designer.model.intent.design import FabricDesign
from designer.ui.editing.document import Document

AUTOSAVE_FORMAT = "fabric-designer-autosave"
AUTOSAVE_INTERVAL_MS = 60_000
AUTOSAVE_DEBOUNCE_MS = 3_000   # after the last edit: a crash soon after an edit loses at most this
_SUFFIX = ".autosave.json"


@dataclass(frozen=True)
class Recovery:
    """Unsaved work left behind by a window that did not close cleanly."""

    autosave: Path
    source: Path | None        # the project file the work belongs to, None if never saved
    saved_at: datetime
    design: FabricDesign
    file_changed_since: bool = False   # the file was saved (by another window?) after this autosave

    def describe(self) -> str:
        what = f"“{self.source.name}”" if self.source else f"the unsaved design “{self.design.meta.name}”"
        when = self.saved_at.astimezone().strftime("%Y-%m-%d %H:%M")
        text = f"Unsaved changes to {what} from {when} were found after Fabric Designer closed unexpectedly."
        if self.file_changed_since:
            text += (" The file was saved again after them, with other content (perhaps from another "
                     "window): recovering opens these changes as unsaved work beside it, without touching the file.")
        return text

    def discard(self) -> None:
        _remove(self.autosave)
        _remove(_lock_path(self.autosave))


def _lock_path(autosave: Path) -> Path:
    return autosave.with_name(autosave.name[: -len(_SUFFIX)] + ".lock")


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


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
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(min(AUTOSAVE_DEBOUNCE_MS, interval_ms))
        self.debounce.timeout.connect(self.autosave_now)
        document.designChanged.connect(self._edited)
        document.modifiedChanged.connect(self._modified_changed)

    def _edited(self, *_) -> None:
        if self.timer.isActive():
            self.debounce.start()   # restarted by every edit: writes once the edits pause

    def _modified_changed(self, modified: bool) -> None:
        if not modified and self._lock is not None:
            self._clear_file()   # saved (or undone back to the file): the autosave holds nothing more

    def _take_lock(self) -> None:
        if self._lock is not None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = QLockFile(str(_lock_path(self.path)))
        self._lock.setStaleLockTime(0)  # stale only when its process is gone, never by age
        self._lock.tryLock(0)

    def adopt(self, recovery: Recovery) -> None:
        """Take over a recovered autosave: it stays on disk, under this session's lock, until the
        recovered work is saved (then removed) or autosaved again (then rewritten)."""
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None
        self.path = recovery.autosave
        self._take_lock()
        self._last_key = (recovery.design.content_key(), str(recovery.source))

    def start(self) -> None:
        """Take this session's lock and start the periodic autosave."""
        self._take_lock()
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
            "saved_at": datetime.now(UTC).isoformat(),
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
        self.debounce.stop()
        if not self.keep_on_exit:
            self._clear_file()
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None


def _read(path: Path) -> Recovery | None:
    try:
        payload = json.loads(read_text(path, "autosave"))
        if payload.get("format") != AUTOSAVE_FORMAT:
            return None
        source = Path(payload["source_path"]) if payload.get("source_path") else None
        saved_at = datetime.fromisoformat(payload["saved_at"])
        design = design_from_json(payload["project"], str(path))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ProjectFileError, InputError):
        return None
    return Recovery(path, source, saved_at, design)


def _design_in(path: Path) -> FabricDesign | None:
    try:
        return load_design(path)
    except (ProjectFileError, OSError, ValueError):
        return None


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
            on_disk = _design_in(recovery.source)
            if on_disk is not None and on_disk.content_key() == recovery.design.content_key():
                recovery.discard()  # the file holds this very work: nothing was lost
                continue
            # Saved later with other content (another window, another tool): the autosave holds
            # work no file holds, so it is offered, never dropped without asking.
            recovery = dataclasses.replace(recovery, file_changed_since=True)
        found.append(recovery)
    found.sort(key=lambda r: r.saved_at, reverse=True)
    return found
