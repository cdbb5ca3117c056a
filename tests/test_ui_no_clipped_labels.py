"""At the default size and at 1280x800 no label of the window is cut off: each one-line text
fits its widget, measured with the widget's own font metrics."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QStyle, QStyleOptionComboBox

from designer.io.project import load_design

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _plain(label: QLabel) -> str:
    text = label.text()
    if label.textFormat() == Qt.TextFormat.PlainText or not GuiQt.mightBeRichText(text):
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def _label_width(label: QLabel) -> float:
    if label.textFormat() != Qt.TextFormat.PlainText and GuiQt.mightBeRichText(label.text()):
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(label.text())
        return doc.idealWidth()
    return max((label.fontMetrics().horizontalAdvance(line) for line in label.text().splitlines()), default=0)


def clipped(window) -> list[str]:
    """Every visible one-line text whose width exceeds its widget's room."""
    out = []
    for label in window.findChildren(QLabel):
        if not label.isVisibleTo(window) or label.wordWrap() or not label.text() or not label.isVisible():
            continue
        room = label.contentsRect().width() - 2 * label.margin() - label.indent() if label.indent() > 0 else \
            label.contentsRect().width() - 2 * label.margin()
        need = _label_width(label)
        if need > room + 1:
            out.append(f"label '{_plain(label)[:50]}' ({label.objectName()}): needs {need:.0f}px, has {room}px")
    for box in window.findChildren(QComboBox):
        if not box.isVisible() or box.isEditable():
            continue
        option = QStyleOptionComboBox()
        box.initStyleOption(option)
        rect = box.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                          QStyle.SubControl.SC_ComboBoxEditField, box)
        icon = box.iconSize().width() + 4 if not box.itemIcon(box.currentIndex()).isNull() else 0
        need = box.fontMetrics().horizontalAdvance(box.currentText()) + icon
        if need > rect.width() + 1:
            out.append(f"combo '{box.currentText()}': needs {need}px, has {rect.width()}px")
    for button in window.findChildren(QAbstractButton):
        if not button.isVisible() or not button.text() or button.objectName() == "qt_toolbar_ext_button":
            continue
        hint = button.sizeHint().width()
        if hint > button.width() + 1:
            out.append(f"button '{button.text()}': wants {hint}px, has {button.width()}px")
    return out


@pytest.mark.parametrize("example", ["dgx-h100-superpod-1su.json", "k64-fat-tree-hosts.json",
                                     "b300-roce-two-plane.json"])
@pytest.mark.parametrize("size", [(1280, 800), (1500, 950)])
def test_no_label_is_clipped(make_window, qtbot, example, size):
    window = make_window(load_design(EXAMPLES / example), EXAMPLES / example)
    window.resize(*size)
    window._initial_dock_sizes()
    qtbot.wait(50)
    window.view.fit()
    assert clipped(window) == []
