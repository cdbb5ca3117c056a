"""A Qt application for drawing without a window: the render and report commands use it."""

from __future__ import annotations

import os
import sys


def ensure_gui_application():
    """The running QGuiApplication, or a new one; on a Linux box without a display, offscreen."""
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance()
    if app is not None:
        return app
    if (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
            and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    return QGuiApplication(sys.argv[:1] or ["fabric-designer"])
