"""The wheel changes a field only when it has keyboard focus: scrolling a panel edits nothing."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design


def _wheel(widget, clicks: int = -1) -> None:
    """Turn the wheel over the middle of `widget` (negative: towards the user, values go down)."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * clicks), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def _window(make_window):
    window = make_window(new_design(default_catalog(), "rail-optimized", gpus=1024))
    window.resize(1280, 600)   # short enough that the Inspector scrolls
    return window


def test_a_wheel_over_an_unfocused_inspector_field_changes_nothing(make_window, qtbot):
    window = _window(make_window)
    page = window.inspector.fabric_page
    before = window.document.design
    undo_count = window.document.undo_stack.count()
    window.view.setFocus()
    fields = [w for w in page.findChildren(QAbstractSpinBox) + page.findChildren(QComboBox)
              if w.isVisibleTo(page) and w.isEnabled()]
    assert page.servers in fields and len(fields) >= 4
    for field in fields:
        assert not field.hasFocus()
        shown = field.text() if isinstance(field, QAbstractSpinBox) else field.currentIndex()
        _wheel(field, -1)
        _wheel(field, +1)
        _wheel(field, -3)
        assert (field.text() if isinstance(field, QAbstractSpinBox) else field.currentIndex()) == shown, field
        assert not field.hasFocus(), "the wheel gave the field focus"
    assert window.document.design is before
    assert window.document.undo_stack.count() == undo_count


def test_the_wheel_scrolls_the_inspector_instead(make_window):
    window = _window(make_window)
    bar = window.inspector.verticalScrollBar()
    if bar.maximum() == 0:
        window.resize(1280, 300)
        QApplication.processEvents()
    assert bar.maximum() > 0
    bar.setValue(0)
    _wheel(window.inspector.fabric_page.servers, -1)
    assert bar.value() > 0


def test_a_focused_field_still_takes_the_wheel(make_window):
    window = _window(make_window)
    servers = window.inspector.fabric_page.servers
    servers.setFocus()
    QApplication.processEvents()
    assert servers.hasFocus()
    value = servers.value()
    _wheel(servers, -1)
    assert servers.value() == value - servers.singleStep()
    assert window.document.design.cluster.servers == servers.value()


def test_fields_take_focus_by_click_or_tab_not_by_wheel(make_window):
    window = _window(make_window)
    for field in window.findChildren(QAbstractSpinBox) + window.findChildren(QComboBox):
        assert field.focusPolicy() == Qt.FocusPolicy.StrongFocus, field.objectName() or field


def test_a_field_made_after_the_window_is_guarded_too(make_window, qtbot):
    """A dialog's field, made long after the first window: guarded when it is first shown."""
    from PySide6.QtWidgets import QScrollArea, QSpinBox, QVBoxLayout, QWidget

    make_window()
    area = QScrollArea()
    qtbot.addWidget(area)
    inner = QWidget()
    column = QVBoxLayout(inner)
    field = QSpinBox()
    field.setRange(0, 100)
    field.setValue(50)
    column.addWidget(field)
    column.addSpacing(2000)   # room to scroll
    area.setWidget(inner)
    area.resize(200, 200)
    area.show()
    qtbot.waitExposed(area)
    assert field.focusPolicy() == Qt.FocusPolicy.StrongFocus
    area.verticalScrollBar().setValue(0)
    _wheel(field, -1)
    assert field.value() == 50 and not field.hasFocus()
    assert area.verticalScrollBar().value() > 0   # the panel scrolled instead
