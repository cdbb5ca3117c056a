"""Can a window open here? Asked before any Qt code runs, because Qt aborts when it cannot.

Two questions: is there a display (a reachable X server or Wayland socket, or a Qt platform
that needs none), and can Qt's X11 plugin load its libraries (designer.ui.x11_libraries).
Plain Python: importing this module loads no Qt.
"""

from __future__ import annotations

import os
import socket
import sys

from designer.ui import x11_libraries

# Qt platforms that need no display server.
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb")


def _x11_reachable(display: str) -> bool:
    """Whether the X server named by DISPLAY (":0", "localhost:10.0") accepts a connection.

    Qt aborts the whole program when it cannot reach the display, so we ask first.
    """
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return True  # a form we do not know: let Qt decide
    try:
        if host in ("", "unix"):
            for address in (f"\0/tmp/.X11-unix/X{number}", f"/tmp/.X11-unix/X{number}"):
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(1.0)
                    try:
                        sock.connect(address)
                        return True
                    except OSError:
                        continue
            return False
        with socket.create_connection((host, 6000 + int(number)), timeout=1.0):
            return True
    except OSError:
        return False


def display_available() -> bool:
    """True when a window can be shown: a reachable display server, or a Qt platform that needs none."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if not sys.platform.startswith("linux"):
        return True
    wayland = os.environ.get("WAYLAND_DISPLAY")
    if wayland:
        runtime = os.environ.get("XDG_RUNTIME_DIR", "")
        if os.path.isabs(wayland) and os.path.exists(wayland) or os.path.exists(os.path.join(runtime, wayland)):
            return True
    display = os.environ.get("DISPLAY")
    return bool(display and _x11_reachable(display))


def uses_x11() -> bool:
    """Whether Qt will pick its X11 (xcb) platform: Linux, no other platform chosen, no Wayland."""
    chosen = os.environ.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(":")[0] == "xcb"
    return sys.platform.startswith("linux") and not os.environ.get("WAYLAND_DISPLAY")


def window_blocker() -> str | None:
    """Why the window cannot open here (one sentence), or None when it can."""
    if not display_available():
        shown = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        why = "DISPLAY and WAYLAND_DISPLAY are unset" if not shown else f"cannot reach display {shown}"
        return f"no display available ({why})"
    if uses_x11():
        missing = x11_libraries.missing_libraries()
        if missing:
            return x11_libraries.advice(missing)
    return None
