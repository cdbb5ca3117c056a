"""The mouse wheel changes a field only when the field has keyboard focus.

Qt's spin boxes, combo boxes and sliders take the wheel (and the focus with it) whenever the
pointer passes over them, so scrolling the Inspector could re-size the fabric without the user
noticing. One filter on the application holds for every window: a field takes focus only by click
or Tab, and an unfocused field hands the wheel to the panel that scrolls around it.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

_GUARDED = (QAbstractSpinBox, QComboBox, QAbstractSlider)


def _guarded(obj: QObject) -> bool:
    return isinstance(obj, _GUARDED) and not isinstance(obj, QScrollBar)


def _field_of(obj: QObject) -> QWidget | None:
    """The guarded field that `obj` is, or is part of (a spin box's line edit gets the wheel too)."""
    widget = obj if isinstance(obj, QWidget) else None
    for _ in range(3):
        if widget is None:
            return None
        if _guarded(widget):
            return widget
        widget = widget.parentWidget()
    return None


class WheelGuard(QObject):
    """Application event filter: no focus by wheel, and no value change by wheel without focus."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(watched, QWidget) and _guarded(watched):
            watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)   # click or Tab, never the wheel
        elif kind == QEvent.Type.Wheel:
            field = _field_of(watched)
            if field is not None and not field.hasFocus():
                self._scroll_around(field, event)
                return True
        return False

    @staticmethod
    def _scroll_around(field: QWidget, event: QEvent) -> None:
        """Give the wheel to the nearest scrolling panel around the field, as if the field were not there."""
        parent = field.parentWidget()
        while parent is not None and not isinstance(parent, QAbstractScrollArea):
            parent = parent.parentWidget()
        if parent is not None:
            QApplication.sendEvent(parent.viewport(), event)


_GUARD: WheelGuard | None = None


def install_wheel_guard(app: QCoreApplication | None = None) -> WheelGuard | None:
    """Install the filter on the application once; later calls return the same guard."""
    global _GUARD
    app = app or QApplication.instance()
    if app is None:
        return None
    if _GUARD is None or _GUARD.parent() is not app:
        _GUARD = WheelGuard(app)
        app.installEventFilter(_GUARD)
        for widget in QApplication.allWidgets():   # fields polished before the guard came
            if _guarded(widget):
                widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    return _GUARD
