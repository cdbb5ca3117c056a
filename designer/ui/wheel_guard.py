"""The mouse wheel changes a field only when the field has keyboard focus.

Qt's spin boxes, combo boxes and sliders take the wheel (and the focus with it) whenever the
pointer passes over them, so scrolling the Inspector could re-size the fabric without the user
noticing. One guard holds for every window: a field takes focus only by click or Tab, and an
unfocused field hands the wheel to the panel that scrolls around it.

The guard is the application's own style wrapped in a proxy that changes nothing it draws: the
style polishes every widget once, when it is first shown, and that is where each field gets its
focus policy and a filter of its own. An application-wide event filter would see the same fields,
but it would run Python for every event of every widget (thousands per window opened).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QProxyStyle,
    QScrollBar,
    QStyle,
    QWidget,
)

_GUARDED = (QAbstractSpinBox, QComboBox, QAbstractSlider)


def _guarded(obj: QObject) -> bool:
    return isinstance(obj, _GUARDED) and not isinstance(obj, QScrollBar)


class FieldWheelFilter(QObject):
    """Installed on each guarded field: no value change by wheel without focus.

    A wheel turned over a field's inner line edit reaches the field too (the line edit ignores it
    and Qt hands it to its parent), so the field alone needs the filter."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            self._scroll_around(watched, event)
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


class WheelGuard(QProxyStyle):
    """The application's style, unchanged, guarding each field as it polishes it."""

    def __init__(self, base: QStyle | None = None):
        super().__init__(base)
        self.field_filter = FieldWheelFilter(self)

    def polish(self, target):   # one Python method for Qt's three overloads (widget, application, palette)
        result = super().polish(target)
        if isinstance(target, QWidget) and _guarded(target):
            self.guard(target)
        return result

    def guard(self, field: QWidget) -> None:
        field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)   # click or Tab, never the wheel
        field.installEventFilter(self.field_filter)        # installed once, however often polished


def install_wheel_guard(app: QCoreApplication | None = None) -> WheelGuard | None:
    """Wrap the application's style in the guard once; later calls return the same guard (and
    wrap the style again if something replaced it since)."""
    app = app or QApplication.instance()
    if not isinstance(app, QApplication):
        return None
    style = app.style()
    if isinstance(style, WheelGuard):
        return style
    guard = WheelGuard(style)     # takes the current style as its base: it looks the same
    app.setStyle(guard)           # re-polishes the widgets already polished through the guard
    for widget in QApplication.allWidgets():   # and fields made but not yet polished
        if _guarded(widget):
            guard.guard(widget)
    return guard
