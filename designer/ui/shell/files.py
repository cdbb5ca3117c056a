"""File > New, Open, Save, Save As and Open Recent, with the unsaved-changes question.

Opening reads and checks the whole file before anything changes: a bad file shows one
clear message and the open design stays as it was. Saving is atomic (designer.io.atomic).
A file open in another window is opened read-only or anyway, as the user chooses; Save asks
before it overwrites a change made on disk since this window read the file (file_guard).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, Signal

from designer.io.project import load_design, save_design
from designer.limits import InputError, quote
from designer.ui.editing.document import Document
from designer.ui.shell.dialogs import Dialogs
from designer.ui.shell.file_guard import FileGuard

MAX_RECENT = 8



def file_stem(name: str) -> str:
    """A design's name as a file name a shell and any file system take: '4 SU, DGX H100 (1:1)' ->
    '4-su-dgx-h100-1-1'. Letters and digits stay (any script), the rest become single hyphens."""
    name = re.sub(r"(?<=\d),(?=\d{3})", "", name)   # 1,024 GPUs -> 1024, not 1-024
    stem = re.sub(r"[^\w.]+", "-", name.strip().lower()).replace("_", "-")
    stem = re.sub(r"-{2,}", "-", stem).strip("-.")
    return stem[:80].rstrip("-.") or "design"

class FileController(QObject):
    recentChanged = Signal(list)
    """The recent-files list changed; carries the paths (str), most recent first."""

    readOnlyChanged = Signal(bool)
    """The open file became read-only here (open in another window) or writable again."""

    def __init__(self, document: Document, dialogs: Dialogs, settings: QSettings, parent=None,
                 guard: FileGuard | None = None):
        super().__init__(parent)
        self.document = document
        self.dialogs = dialogs
        self.settings = settings
        self.guard = guard
        self.read_only = False
        document.pathChanged.connect(self._path_changed)

    def _path_changed(self, path) -> None:
        if self.guard is not None and path != self.guard.path:
            self.guard.track(path)

    def _set_read_only(self, value: bool) -> None:
        if value != self.read_only:
            self.read_only = value
            self.readOnlyChanged.emit(value)

    def _claim(self, path: Path) -> str:
        """'ok', 'read-only' or 'cancel' for opening `path` here."""
        if self.guard is None or self.guard.claim(path):
            return "ok"
        answer = self.dialogs.ask_open_elsewhere(path.name)
        return answer if answer in ("read-only", "cancel") else "ok"

    # --- recent files ------------------------------------------------------------------------

    def recent(self) -> list[str]:
        value: Any = self.settings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember(self, path: Path) -> None:
        text = str(Path(path).resolve())
        items = [text] + [p for p in self.recent() if p != text]
        self.settings.setValue("recent_files", items[:MAX_RECENT])
        self.settings.sync()
        self.recentChanged.emit(items[:MAX_RECENT])

    def forget(self, path: str) -> None:
        items = [p for p in self.recent() if p != path]
        self.settings.setValue("recent_files", items)
        self.recentChanged.emit(items)

    # --- the commands -----------------------------------------------------------------------

    def maybe_save(self) -> bool:
        """True when the current document may be replaced (saved, discarded, or unchanged)."""
        if not self.document.modified or self.document.design is None:
            return True
        answer = self.dialogs.ask_save_changes(self.document.display_name())
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new(self) -> bool:
        if not self.maybe_save():
            return False
        if self.guard is not None:
            self.guard.release()
        self._set_read_only(False)
        self.document.load(None)
        return True

    def open(self, path: str | Path | None = None, ask: bool = True) -> bool:
        """Open `path` (or ask for one). On a bad file: a message, and nothing changes."""
        if ask and not self.maybe_save():
            return False
        if path is None:
            start = str(self.document.path.parent) if self.document.path else ""
            path = self.dialogs.open_path(start)
            if path is None:
                return False
        path = Path(path)
        try:
            design = load_design(path)
        except InputError as exc:  # every refusal of outside input, ProjectFileError included
            self.dialogs.show_error("Cannot open design", f"“{path.name}” could not be opened.", str(exc))
            return False
        except Exception as exc:  # a defect must not escape the slot: the open design stays
            self.dialogs.show_error("Cannot open design", f"“{path.name}” could not be opened.",
                                    f"internal error: {type(exc).__name__}: {quote(str(exc))}")
            return False
        how = self._claim(path)
        if how == "cancel":
            return False
        self.document.load(design, path)
        if self.guard is not None:
            self.guard.track(path)
        self._set_read_only(how == "read-only")
        self._remember(path)
        return True

    def save(self) -> bool:
        if self.document.design is None:
            return False
        if self.document.path is None or self.read_only:
            return self.save_as()
        if self.guard is not None and self.guard.changed_since_known():
            answer = self.dialogs.ask_overwrite_changed(self.document.path.name)
            if answer == "save-as":
                return self.save_as()
            if answer != "overwrite":
                return False
        return self._write(self.document.path)

    def save_as(self) -> bool:
        design = self.document.design
        if design is None:
            return False
        suggestion = str(self.document.path) if self.document.path else f"{file_stem(design.meta.name)}.json"
        path = self.dialogs.save_path(suggestion)
        if path is None:
            return False
        return self._write(Path(path))

    def _write(self, path: Path) -> bool:
        if self.guard is not None and path != self.document.path and not self.guard.claim(path):
            answer = self.dialogs.ask_open_elsewhere(path.name)
            if answer != "open-anyway":
                return False
        design = self.document.design
        if design is None:   # nothing to save
            return False
        try:
            save_design(design, path)
        except OSError as exc:
            self.dialogs.show_error("Cannot save design", f"“{path.name}” could not be written.",
                                    exc.strerror or str(exc))
            return False
        except ValueError as exc:  # e.g. text that cannot be encoded; nothing was written
            self.dialogs.show_error("Cannot save design", f"“{path.name}” could not be written.",
                                    quote(str(exc), 200))
            return False
        self.document.mark_saved(path)
        if self.guard is not None:
            self.guard.track(path)
        self._set_read_only(False)
        self._remember(path)
        return True
