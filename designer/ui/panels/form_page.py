"""The inspector's building blocks: a form page with hints, and the combo boxes it uses.

May import: the ui foundation modules (theme). The inspector and the network page build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QVBoxLayout,
    QWidget,
)

from designer.model.intent.design import FabricDesign
from designer.ui.theme import ERROR_HUE, WARNING_HUE

_W = TypeVar("_W", bound=QWidget)


class Hint(QLabel):
    """A red (or amber) line under a form: why an edit was refused, or what is wrong."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.hide()

    def show_lines(self, lines: list[tuple[str, str]]) -> None:
        """`lines` of (severity, text); severity 'error' is red, anything else amber."""
        if not lines:
            self.clear()
            self.hide()
            return
        html = "<br>".join(
            f"<span style='color:{ERROR_HUE if sev == 'error' else WARNING_HUE}'>&#9888; {text}</span>"
            for sev, text in lines)
        self.setText(html)
        self.show()


class WholeCombo(QComboBox):
    """A choice that asks for room for its whole text, so the form wraps it under its label
    rather than cutting it off; never more than `cap` (the panel's width, set by the panel), so
    that one long name cannot push every row of the form past the panel's edge: the rare name
    longer than the panel is shortened with an ellipsis, whole in the list and the tooltip."""

    cap = 0     # pixels; 0: no cap

    def set_cap(self, width: int) -> None:
        if width != self.cap:
            self.cap = width
            self.updateGeometry()

    def minimumSizeHint(self):
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        text = QSize(self.fontMetrics().horizontalAdvance(self.currentText()) + 4, self.fontMetrics().height())
        size = self.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option, text, self)
        width = min(size.width(), self.cap) if self.cap > 0 else size.width()
        return QSize(width, super().minimumSizeHint().height())


class InspectorHost(Protocol):
    """What a page asks of the inspector that holds it (the inspector imports this module)."""

    def design(self) -> FabricDesign: ...

    def commit(self, new: FabricDesign, field: str, text: str) -> str | None: ...

    def reload(self, *_) -> None: ...


class FormPage(QWidget):
    """A form page, the base of every inspector form; subclasses fill it from a design and
    report edits to the inspector."""

    def __init__(self, inspector: InspectorHost):
        super().__init__()
        self.inspector = inspector
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        # A choice too long for the column beside its label goes under it, whole, never cut off.
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.title = QLabel()
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() + 2)
        font.setBold(True)
        self.title.setFont(font)
        self.subtitle = QLabel()
        self.subtitle.setWordWrap(True)
        self.subtitle.setEnabled(False)
        self.refused = Hint()
        self.problems = Hint()
        box = QVBoxLayout(self)
        box.setContentsMargins(10, 10, 10, 10)
        box.addWidget(self.title)
        box.addWidget(self.subtitle)
        box.addSpacing(6)
        box.addLayout(self.form)
        box.addWidget(self.refused)
        box.addWidget(self.problems)
        box.addStretch(1)
        self._loading = False

    def add(self, label: str, widget: _W, tip: str) -> _W:
        widget.setToolTip(tip)
        self.form.addRow(label, widget)
        return widget

    def combo(self, label: str, tip: str, on_change) -> QComboBox:
        box = WholeCombo()
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        box.currentIndexChanged.connect(lambda _: box.updateGeometry())
        box.currentIndexChanged.connect(lambda _: None if self._loading else on_change())
        return self.add(label, box, tip)

    def spin(self, label: str, tip: str, on_change, low: int = 1, high: int = 1_000_000) -> QSpinBox:
        box = QSpinBox()
        box.setRange(low, high)
        box.setKeyboardTracking(False)  # commit on Enter, focus out or arrows, not per keystroke
        box.setGroupSeparatorShown(True)
        box.setAccelerated(True)
        box.valueChanged.connect(lambda _: None if self._loading else on_change())
        return self.add(label, box, tip)

    @staticmethod
    def fill(box: QComboBox, items: Sequence[tuple[str, object]], current) -> None:
        box.clear()
        for text, data in items:
            box.addItem(text, data)
        index = box.findData(current)
        box.setCurrentIndex(index if index >= 0 else 0)

    def edit(self, new: FabricDesign, field: str, text: str) -> None:
        problem = self.inspector.commit(new, field, text)
        self.refused.show_lines([("error", f"Not applied: {problem}")] if problem else [])
        if problem:
            self.inspector.reload()
