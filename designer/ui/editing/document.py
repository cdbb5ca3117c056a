"""The open document: one design, its file and its undo history.

The design is immutable, so the document just swaps references: commands on the undo stack
hold the design before and after, and every view redraws from `designChanged`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from designer.model.intent.design import FabricDesign


class Document(QObject):
    """The single source of truth of the window: the current design, its path, its history.

    `design` is None for an empty canvas (File > New before anything is dropped).
    Only commands call `set_design`; opening a file or starting anew calls `load`, which
    also clears the history.
    """

    designChanged = Signal(object)
    """The design was replaced (edit, undo, redo, open, new); carries the new FabricDesign or None."""

    pathChanged = Signal(object)
    """The document's file changed (open, save as, new); carries a pathlib.Path or None."""

    loaded = Signal()
    """A document was started afresh (open, new, recover); emitted just before its designChanged."""

    modifiedChanged = Signal(bool)
    """The document gained or lost unsaved changes; carries True when it has them."""

    def __init__(self, design: FabricDesign | None = None, path: Path | None = None, parent=None):
        super().__init__(parent)
        self._design = design
        self._path = Path(path) if path else None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)

    def _on_clean_changed(self, clean: bool) -> None:
        self.modifiedChanged.emit(not clean)

    @property
    def design(self) -> FabricDesign | None:
        return self._design

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    def display_name(self) -> str:
        if self._path:
            return self._path.name
        if self._design is not None:
            return self._design.meta.name
        return "Untitled"

    def set_design(self, design: FabricDesign | None) -> None:
        """Replace the design; called by undo commands only, so every change is on the stack."""
        if design is self._design:
            return
        self._design = design
        self.designChanged.emit(design)

    def push(self, command: QUndoCommand) -> None:
        """Run `command` and put it on the undo stack."""
        self.undo_stack.push(command)

    def load(self, design: FabricDesign | None, path: Path | None = None, modified: bool = False) -> None:
        """Start over with `design` (open, new, recover): the history is cleared.

        `modified` marks the loaded design as unsaved, as for a recovered autosave.
        """
        was_modified = self.modified
        self.undo_stack.clear()
        self.undo_stack.setClean()
        if modified:
            self.undo_stack.resetClean()
        self._path = Path(path) if path else None
        self.pathChanged.emit(self._path)
        self._design = design
        self.loaded.emit()
        self.designChanged.emit(design)
        if self.modified != was_modified:
            self.modifiedChanged.emit(self.modified)

    def mark_saved(self, path: Path) -> None:
        """The design was written to `path`: it is the document's file now and has no unsaved changes."""
        path = Path(path)
        if path != self._path:
            self._path = path
            self.pathChanged.emit(path)
        self.undo_stack.setClean()
