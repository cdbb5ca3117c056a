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


def _global_rect(widget):
    from PySide6.QtCore import QRect

    return QRect(widget.mapToGlobal(widget.rect().topLeft()), widget.size())


def cut_panels(window) -> list[str]:
    """Panels cut by the window's own layout: an inspector form that scrolls, a dock's content
    that runs under another dock, plot text (titles, tick labels, axis names) outside its plot."""
    from PySide6.QtCore import QPointF

    out = []
    inspector = window.inspector
    page = inspector.stack.currentWidget()
    need = max(page.sizeHint().height(),
               page.heightForWidth(inspector.viewport().width()) if page.hasHeightForWidth() else 0)
    if inspector.viewport().height() < need:
        out.append(f"inspector: its form needs {need}px, the panel shows "
                   f"{inspector.viewport().height()}px (its last row is cut)")
    docks = {name: dock for name, dock in window.docks.items() if dock.isVisible() and not dock.isFloating()}
    for name, dock in docks.items():
        content = _global_rect(dock.widget())
        for other_name, other in docks.items():
            if other is not dock and content.intersects(_global_rect(other)):
                out.append(f"the {name} panel's content runs under the {other_name} panel")
    for child in window.metrics.findChildren(type(window.metrics.findings)):
        if not _global_rect(window.docks["metrics"]).contains(_global_rect(child)):
            out.append("the Findings list runs beyond the Metrics panel")
    for plot in (window.plots.ports, window.plots.busbw):
        if not plot.isVisible():
            continue
        item = plot.getPlotItem()
        bounds = plot.mapToScene(plot.viewport().rect()).boundingRect()
        def glyphs(text_item):
            """The text's own box: the item's bounding box less its document's margin."""
            m = text_item.document().documentMargin()
            return text_item.mapRectToScene(text_item.boundingRect().adjusted(m, m, -m, -m))

        texts = [("title", glyphs(item.titleLabel.item))]
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            if axis.label.isVisible():
                texts.append((f"{side} axis name", glyphs(axis.label)))
        # The bottom axis's tick labels: the last one ("10^10" on the busbw plot) must be whole.
        axis = item.getAxis("bottom")
        low, high = item.getViewBox().viewRange()[0]
        # (Named ticks, the port plot's leaf/spine/core, sit under their bars: not checked here.)
        levels = [] if axis._tickLevels is not None else axis.tickValues(low, high, axis.geometry().width())
        for _spacing, values in levels:
            for value, text in zip(values, axis.tickStrings(values, 1.0, _spacing), strict=True):
                x = item.getViewBox().mapViewToScene(QPointF(value, 0)).x()
                half = axis.fontMetrics().horizontalAdvance(text) / 2 if hasattr(axis, "fontMetrics") else \
                    plot.fontMetrics().horizontalAdvance(text) / 2
                texts.append((f"tick '{text}'", type(bounds)(x - half, bounds.top(), 2 * half, 1)))
        for what, rect in texts:
            if rect.left() < bounds.left() - 1 or rect.right() > bounds.right() + 1 \
                    or rect.bottom() > bounds.bottom() + 1 or rect.top() < bounds.top() - 1:
                out.append(f"{plot.objectName()}: the {what} runs out of the plot")
    return out


@pytest.fixture(scope="module", params=["dgx-h100-superpod-1su.json", "k64-fat-tree-hosts.json",
                                        "b300-roce-two-plane.json", "dgx-h100-superpod-4su.json",
                                        "gb300-nvl72-8rack.json"])
def example_window(request, shared_window):
    """One window per example, shared by its sizes: the test only reads it, after laying it out
    again at its size as a first start does (`_initial_dock_sizes`)."""
    return shared_window(request, load_design(EXAMPLES / request.param), EXAMPLES / request.param)


@pytest.mark.parametrize("size", [(1280, 800), (1500, 950), (1600, 1000)])
def test_no_label_is_clipped(example_window, qtbot, size):
    window = example_window
    window.resize(*size)
    window._initial_dock_sizes()
    qtbot.wait(50)
    window.view.fit()
    assert clipped(window) == []
    assert cut_panels(window) == []


@pytest.mark.parametrize("start, end", [((1500, 950), (1280, 800)), ((1280, 800), (1600, 1000))])
def test_resizing_the_window_keeps_every_panel_whole(make_window, qtbot, start, end):
    example = EXAMPLES / "dgx-h100-superpod-4su.json"
    window = make_window(load_design(example), example)
    window.resize(*start)
    window._initial_dock_sizes()
    qtbot.wait(50)
    window.resize(*end)
    # Low: the plots stand side by side under a whole inspector; tall again: stacked.
    qtbot.waitUntil(lambda: cut_panels(window) == [] and window.plots.side_by_side == (end[1] < 900), timeout=10_000)
    assert clipped(window) == []


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_the_compare_header_wraps_instead_of_cutting_names(make_window, qtbot, size):
    """The legend of the compared designs read '· Infi…' and '1,024 G…' in a narrow window."""
    example = EXAMPLES / "dgx-h100-superpod-4su.json"
    window = make_window(load_design(example), example)
    launcher = window.compare_launcher
    launcher.update_actions()
    launcher.counterpart_actions["roce-400g"].trigger()
    compare = launcher.window
    compare.resize(*size)
    qtbot.wait(50)
    assert compare.legend.rows
    for row in compare.legend.rows:
        for label in row[2:]:
            if not label.isVisible():
                continue
            assert label.text() == label.full_text() and "…" not in label.text()
            need = label.heightForWidth(label.width())
            assert need <= label.height() + 1, f"'{label.text()}' needs {need}px, has {label.height()}px"
    assert clipped(compare) == []
    window.close()


def test_a_restored_layout_that_would_cut_the_inspector_gives_it_room(make_window, qtbot, tmp_path):
    """Docks come back as the user left them, except that the inspector's form stays whole: a
    design with more rows (a rail-optimized one's servers per SU) or a lower window gets room."""
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    example = EXAMPLES / "b300-roce-two-plane.json"
    first = make_window(load_design(example), example, settings=settings)
    first.resize(1280, 800)
    first._initial_dock_sizes()
    qtbot.wait(20)
    column = first.docks["inspector"].height() + first.docks["plots"].height()
    first.resizeDocks([first.docks["inspector"], first.docks["plots"]], [250, column - 250], Qt.Orientation.Vertical)
    qtbot.wait(20)
    assert cut_panels(first)          # the layout the user leaves behind cuts the form
    first.close()
    again = make_window(load_design(example), example, settings=settings)
    qtbot.waitUntil(lambda: cut_panels(again) == [], timeout=10_000)
