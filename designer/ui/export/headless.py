"""A Qt application for drawing without a window: the render and report commands use it."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication


def ensure_gui_application() -> QCoreApplication:
    """The running Qt application, or a new QGuiApplication.

    On Linux it draws offscreen unless told otherwise (QT_QPA_PLATFORM): exporting never needs
    a display, and a DISPLAY that points nowhere would otherwise abort the process.
    """
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance()
    if app is not None:
        return app
    if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    return QGuiApplication(sys.argv[:1] or ["fabric-designer"])
