"""`fabric-designer gui`: the designer window, or a screenshot of it.

Without a display (a Linux session with neither DISPLAY nor WAYLAND_DISPLAY, and no Qt
platform chosen), or without the X11 libraries Qt needs, the command says so in one line and
prints the design's metrics instead.
"""

from __future__ import annotations

import os
import socket
import sys

from designer.cli import x11_libraries
from designer.cli.common import CommandError

# Qt platforms that need no display server.
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb")


def add_parser(sub) -> None:
    p = sub.add_parser("gui", help="open the designer window",
                       description="Open the designer window, optionally with a design file. With "
                                   "--screenshot, render the window offscreen to a PNG and exit.")
    p.add_argument("file", nargs="?", help="project file to open")
    p.add_argument("--screenshot", metavar="PNG", help="render the window to this PNG file and exit")
    p.add_argument("--size", default="1600x1000", help="window size for --screenshot, e.g. 1600x1000")
    p.set_defaults(run=run)


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
    return bool(display) and _x11_reachable(display)


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


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CommandError(f"malformed --size '{text}' (use a form like 1600x1000)") from None
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise CommandError(f"--size {text} is out of range (200 to 10000 pixels a side)")
    return w, h


def run(args) -> int:
    if args.screenshot:
        size = _size(args.size)
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before the QApplication exists
        if args.file:
            from designer.io.project import load_design

            load_design(args.file)  # a bad file: one line from the caller, no window
        from designer.ui.app import render_screenshot

        render_screenshot(args.file, args.screenshot, size)
        print(f"wrote {args.screenshot}")
        return 0
    blocker = window_blocker()
    if blocker:
        print(f"fabric-designer gui: {blocker}; "
              + ("showing the design's metrics instead" if args.file else "give a design file to see its metrics"))
        if args.file:
            from designer.cli.cmd_metrics import summary
            from designer.io.project import load_design
            from designer.model.topology.derive import derive

            print(summary(derive(load_design(args.file)).metrics))
        return 0
    from designer.ui.app import run_window

    return run_window(args.file)
