"""The designer window's Compare menu, and the Compare window it opens.

Add Counterpart (one action) rebuilds the open design on another fabric technology and
shows both side by side; Compare With Designs asks for one to four project files to set
beside the open design. Each designer window has at most one Compare window, closed with it.

The launcher knows the window's document, catalog and compute mode, not the window itself:
opening a compared design in a designer window of its own is asked for with
`openDesignRequested`, which the window answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu

from designer.catalog import UnknownPartError
from designer.io.project import ProjectFileError, load_design
from designer.model.decisions.counterpart import COUNTERPART_TECHNOLOGIES, make_counterpart
from designer.model.topology.sizing import SizingError
from designer.ui.compare.compare_dialogs import CompareDialogs
from designer.ui.compare.compare_window import MAX_DESIGNS, CompareWindow, Entry


class CompareLauncher(QObject):
    """Owned by a designer window: builds its Compare menu and its Compare window.

    `document` is the window's open document, `catalog` its hardware catalog and
    `synchronous` whether it computes on the UI thread (tests); `parent` owns the menu.
    """

    openDesignRequested = Signal(object, object, bool)
    """(design, path or None, modified): open this design in a designer window of its own."""

    def __init__(self, parent, document, catalog, synchronous: bool = False, dialogs=None):
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.synchronous = synchronous
        self.dialogs = dialogs or CompareDialogs(parent)
        self.window: CompareWindow | None = None
        self.menu = QMenu("&Compare", parent)
        self.menu.setObjectName("compareMenu")
        self.counterpart_menu = self.menu.addMenu("Add &Counterpart")
        self.counterpart_menu.setToolTipsVisible(True)
        self.counterpart_actions = {}
        for tech_id in COUNTERPART_TECHNOLOGIES:
            tech = catalog.technologies.get(tech_id)
            if tech is None:
                continue
            action = self.counterpart_menu.addAction(tech.name)
            action.setObjectName(f"counterpart-{tech_id}")
            tip = f"Rebuild this cluster on {tech.name} and compare the two side by side"
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.triggered.connect(lambda _=False, t=tech_id: self.add_counterpart(t))
            self.counterpart_actions[tech_id] = action
        self.compare_files_action = self.menu.addAction("Compare &With Designs…")
        self.compare_files_action.setStatusTip("Set one to four project files beside this design")
        self.compare_files_action.triggered.connect(lambda _=False: self.compare_with_files())
        self.menu.addSeparator()
        self.show_action = self.menu.addAction("Show Compare &Window")
        self.show_action.setStatusTip("Bring the Compare window to the front")
        self.show_action.triggered.connect(lambda _=False: self.show_window())
        self.menu.aboutToShow.connect(self.update_actions)
        document.designChanged.connect(self.update_actions)
        self.update_actions()

    def update_actions(self, *_) -> None:
        design = self.document.design
        for tech_id, action in self.counterpart_actions.items():
            action.setEnabled(design is not None and design.fabric.technology != tech_id)
        self.show_action.setEnabled(self.window is not None and self.window.comparison is not None)

    # --- the commands ----------------------------------------------------------------------------

    def _current(self) -> Entry | None:
        design = self.document.design
        if design is None:
            return None
        doc = self.document
        return Entry(design, doc.path, unsaved=doc.modified or doc.path is None)

    def _compare_window(self) -> CompareWindow:
        if self.window is None:
            self.window = CompareWindow(self.catalog, self.dialogs,
                                        synchronous=self.synchronous, opener=self.open_in_designer)
        return self.window

    def add_counterpart(self, tech_id: str) -> bool:
        """Build the counterpart of the open design on `tech_id` and compare [design, counterpart]."""
        current = self._current()
        if current is None:
            return False
        try:
            counterpart = make_counterpart(current.design, tech_id, self.catalog)
        except (SizingError, UnknownPartError, ValueError) as exc:
            tech = self.catalog.technologies.get(tech_id)
            self.dialogs.show_error("Cannot build counterpart",
                                    f"“{current.name}” cannot be rebuilt on {tech.name if tech else tech_id}.",
                                    str(exc))
            return False
        entry = Entry(counterpart.design, None, counterpart.notes, current.name, unsaved=True)
        return self._open([current, entry])

    def compare_with_files(self, paths: Sequence[str | Path] | None = None) -> bool:
        """Compare the open design (if any) with 1 to 4 project files (asked for unless given)."""
        current = self._current()
        if paths is None:
            start = str(self.document.path.parent) if self.document.path else ""
            paths = self.dialogs.open_designs(start)
            if not paths:
                return False
        room = MAX_DESIGNS - (1 if current else 0)
        if len(paths) > room:
            self.dialogs.show_error("Too many designs", f"A comparison holds at most {MAX_DESIGNS} designs.",
                                    f"Pick at most {room} file{'s' if room > 1 else ''}"
                                    + (" to set beside the open design." if current else "."))
            return False
        entries = [current] if current else []
        for path in map(Path, paths):
            try:
                entries.append(Entry(load_design(path), path))
            except ProjectFileError as exc:
                self.dialogs.show_error("Cannot add design", f"“{path.name}” could not be opened.", str(exc))
                return False
        if len(entries) < 2:
            self.dialogs.show_error("Nothing to compare", "A comparison needs two designs.",
                                    "Open a design first, or pick at least two files.")
            return False
        return self._open(entries)

    def compare_with_design(self, design, note: str = "") -> bool:
        """Add `design` (made elsewhere, unsaved) to the comparison on screen, or compare it with the open design."""
        entry = Entry(design, None, (note,) if note else (), unsaved=True)
        shown = list(self.window.entries) if self.window is not None and self.window.isVisible() else []
        if 2 <= len(shown) < MAX_DESIGNS:
            return self._open(shown + [entry])   # joins the comparison on screen
        current = self._current()
        if current is None:
            self.dialogs.show_error("Nothing to compare", "A comparison needs two designs.",
                                    "Open a design first, then add this one to Compare.")
            return False
        return self._open([current, entry])

    def _open(self, entries: list[Entry]) -> bool:
        window = self._compare_window()
        if not window.set_entries(entries):
            return False
        self.show_window()
        return True

    def show_window(self) -> None:
        if self.window is None:
            return
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()

    def open_in_designer(self, design, path, modified: bool) -> None:
        """Ask for a designer window of its own for `design` (a counterpart opens as unsaved work)."""
        self.openDesignRequested.emit(design, path, modified)

    def shutdown(self) -> None:
        """Close the Compare window and stop its worker. Idempotent."""
        if self.window is not None:
            self.window.shutdown()
            self.window.close()
