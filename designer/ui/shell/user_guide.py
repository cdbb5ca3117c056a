"""Help > User Guide: the guide shipped with the package, read offline in a window of its own.

The pages are the Markdown the online guide is built from, in the same order; links between
pages stay in the viewer, links to the web open in the browser.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.io.user_guide import GuidePage, guide_pages, guide_root, read_page
from designer.limits import InputError

_PATH_ROLE = Qt.ItemDataRole.UserRole


class UserGuide(QDialog):
    """Contents on the left, the page on the right; modeless, so the design stays at hand."""

    def __init__(self, docs: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.docs = docs
        self.setWindowTitle("Fabric Designer User Guide")
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        self.contents = QTreeWidget()
        self.contents.setHeaderHidden(True)
        self.page = QTextBrowser()
        self.page.setOpenLinks(False)
        self.page.anchorClicked.connect(self._follow)
        self.items: dict[str, QTreeWidgetItem] = {}
        self._fill(guide_pages(docs))
        self.contents.currentItemChanged.connect(self._chosen)
        split = QSplitter()
        split.addWidget(self.contents)
        split.addWidget(self.page)
        split.setStretchFactor(1, 1)
        split.setSizes([240, 760])
        self.where = QLabel(f"Shipped with this version, read offline from {docs}")
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.where.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        row = QHBoxLayout()
        row.addWidget(self.where, 1)
        layout.addLayout(row)
        self.resize(1000, 700)
        first = next(iter(self.items), None)
        if first is not None:
            self.show_page(first)

    def _fill(self, pages: list[GuidePage]) -> None:
        sections: dict[str, QTreeWidgetItem] = {}
        for page in pages:
            parent: QTreeWidget | QTreeWidgetItem = self.contents
            if page.section:
                if page.section not in sections:
                    sections[page.section] = QTreeWidgetItem(self.contents, [page.section])
                    sections[page.section].setFlags(Qt.ItemFlag.ItemIsEnabled)
                    sections[page.section].setExpanded(True)
                parent = sections[page.section]
            item = QTreeWidgetItem(parent, [page.title])
            item.setData(0, _PATH_ROLE, page.path)
            self.items[page.path] = item
        self.contents.expandAll()

    def _chosen(self, item: QTreeWidgetItem | None, _previous=None) -> None:
        path = item.data(0, _PATH_ROLE) if item is not None else None
        if path and path != getattr(self, "current", None):
            self.show_page(path)

    def show_page(self, path: str, anchor: str = "") -> None:
        try:
            text = read_page(self.docs, path)
        except (InputError, OSError) as exc:
            self.page.setPlainText(f"This page cannot be read: {exc}")
            return
        self.current = path
        folder = (self.docs / path).parent
        self.page.setSearchPaths([str(folder)])
        self.page.document().setBaseUrl(QUrl.fromLocalFile(str(folder) + "/"))
        self.page.setMarkdown(text)
        if path in self.items:
            self.contents.setCurrentItem(self.items[path])
        if anchor:
            self.page.scrollToAnchor(anchor)

    def _follow(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            return
        if not url.path():   # an anchor on this page
            self.page.scrollToAnchor(url.fragment())
            return
        here = PurePosixPath(self.current).parent
        target = PurePosixPath(*(here / url.path()).parts)
        parts: list[str] = []
        for part in target.parts:   # resolve "../" without touching the file system
            if part == "..":
                if parts:
                    parts.pop()
            elif part != ".":
                parts.append(part)
        page = "/".join(parts)
        if page.endswith(".md"):
            self.show_page(page, url.fragment())
        else:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.docs / page)))


def open_user_guide(parent: QWidget, show_error) -> UserGuide | None:
    """Show the guide (one window per main window); say so in one line when the install lacks it."""
    docs = guide_root()
    if docs is None:
        show_error("User guide", "The user guide is not in this installation (no docs folder was shipped "
                                 "with the package). Reinstall Fabric Designer from its wheel or source.")
        return None
    viewer = getattr(parent, "_user_guide", None)
    if viewer is None:
        viewer = UserGuide(docs, parent)
        parent._user_guide = viewer  # type: ignore[attr-defined]
    viewer.show()
    viewer.raise_()
    viewer.activateWindow()
    return viewer
