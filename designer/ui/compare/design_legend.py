"""The designs of a comparison, one row each: colour, number, name, technology and origin."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget


class WrappedLabel(QLabel):
    """A label that wraps onto more lines when it is too narrow: a name or a technology is never
    cut to '…' (a narrow window shows '· InfiniBand NDR 400G' whole on the next line)."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self._full = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self.setText(text)

    def full_text(self) -> str:
        return self._full


class DesignLegend(QWidget):
    """Rows of (swatch, [k], name, detail); rebuilt when the designs change (at most four rows)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("designLegend")
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(2, 0, 2, 2)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(2)
        self.grid.setColumnStretch(2, 3)
        self.grid.setColumnStretch(3, 2)
        self.rows: list[tuple[QLabel, QLabel, WrappedLabel, WrappedLabel]] = []
        self.muted = QColor("#888888")

    def show_designs(self, lines: list[tuple[QColor, str, str]]) -> None:
        """`lines`: (colour, name, detail) per design."""
        while len(self.rows) < len(lines):
            swatch, number, name, detail = QLabel("■"), QLabel(""), WrappedLabel(), WrappedLabel()
            number.setObjectName("legendNumber")
            name.setObjectName("legendName")
            detail.setObjectName("legendDetail")
            r = len(self.rows)
            for c, w in enumerate((swatch, number, name, detail)):
                self.grid.addWidget(w, r, c, Qt.AlignmentFlag.AlignTop)   # a wrapped row keeps its mark on top
            self.rows.append((swatch, number, name, detail))
        for i, widgets in enumerate(self.rows):
            shown = i < len(lines)
            for w in widgets:
                w.setVisible(shown)
            if shown:
                colour, text, more = lines[i]
                swatch, number, name, detail = widgets
                swatch.setStyleSheet(f"color: {colour.name()}; font-size: 13pt;")
                number.setText(f"[{i + 1}]")
                name.set_full_text(text)
                detail.set_full_text(more)
