"""Starting the designer window: the application object, the window, and screenshots.

`fabric-designer gui` and the `fabric-designer-gui` launcher both come here. A screenshot
run renders offscreen, waits for the metrics, writes a PNG and exits.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from pathlib import Path

from designer import __version__

SCREENSHOT_SIZE = (1600, 1000)


def create_application(argv: list[str] | None = None):
    """The QApplication, created once, sharp on high-DPI screens and following the system theme."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None:
        return app
    # Fractional scale factors (1.25, 1.5) are used as they are, so nothing is blurred or rounded.
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication(argv if argv is not None else [sys.argv[0]])
    app.setApplicationName("Fabric Designer")
    app.setApplicationDisplayName("Fabric Designer")
    app.setOrganizationName("fabric-designer")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("fabric-designer")
    if sys.platform.startswith("linux") and app.style().name().lower() not in ("fusion", "breeze", "kvantum"):
        app.setStyle("Fusion")  # follows the light/dark palette of the platform theme
    from designer.ui.services.collector import install_collector

    install_collector(app)
    from designer.ui.wheel_guard import install_wheel_guard

    install_wheel_guard(app)
    return app


def render_screenshot(path: str | None, out: str | Path, size: tuple[int, int] = SCREENSHOT_SIZE) -> None:
    """Render the window with `path` open to a PNG at `out` (offscreen), then close it."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from designer.io.atomic import write_atomic
    from designer.io.project import load_design
    from designer.ui.shell.main_window import MainWindow

    design = load_design(path) if path else None  # a bad file fails here, before any window
    app = create_application()
    window = MainWindow(synchronous=True, persist=False)
    try:
        window.resize(*size)
        if design is not None and path:
            window.document.load(design, Path(path))
        window.show()
        for _ in range(5):
            app.processEvents()
        window.view.fit()
        app.processEvents()
        pixmap = window.grab()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        pixmap.save(buffer, "PNG")
        buffer.close()
        write_atomic(out, bytes(data.data()))
    finally:
        window.shutdown()
        window.close()
        window.deleteLater()
        app.processEvents()


def settle_memory() -> None:
    """Exempt everything alive now (modules, catalog, Qt wrappers) from garbage collection.

    A full collection walks every object, and with all of these it takes tens of
    milliseconds: long enough to make a drag stutter. What the program makes later is
    still collected as usual.
    """
    gc.collect()
    gc.freeze()


def _watch_signals(app, window):
    """Ctrl+C closes the window as the close button does; SIGTERM autosaves and quits.

    Qt's event loop runs in C++, where Python cannot see a signal until something wakes it:
    the signal handler writes to a socket that the event loop watches.
    """
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    previous = signal.set_wakeup_fd(writer.fileno())
    received: list[int] = []

    def on_signal(signum, frame):
        received.append(signum)

    def on_wake():
        with contextlib.suppress(OSError):
            reader.recv(64)
        while received:
            signum = received.pop()
            if signum == signal.SIGTERM:
                window.autosave.autosave_now()  # offered for recovery at the next start
                window.autosave.keep_on_exit = True
                window.close_without_asking()
                app.quit()
            else:
                window.close()

    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(on_wake)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)

    def restore():
        notifier.setEnabled(False)
        signal.set_wakeup_fd(previous)
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        reader.close()
        writer.close()

    return restore


def run_window(path: str | None = None) -> int:
    """Open the window (with `path` if given) and run until it closes."""
    from designer.ui.shell.main_window import MainWindow

    app = create_application()
    window = MainWindow()
    window.show()
    window.startup(path)
    settle_memory()
    restore = _watch_signals(app, window) if sys.platform != "win32" else (lambda: None)
    try:
        code = app.exec()
    finally:
        window.shutdown()
        restore()
    return code


def main() -> int:
    """The `fabric-designer-gui` launcher: an optional design file as the only argument.

    Like `fabric-designer gui`, it first checks that a window can open at all, and says in one
    line why not instead of letting Qt abort.
    """
    from designer.ui.display_check import window_blocker

    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    blocker = window_blocker()
    if blocker:
        print(f"fabric-designer-gui: {blocker}", file=sys.stderr)
        return 1
    os.environ.setdefault("QT_ENABLE_HIGHDPI_SCALING", "1")
    return run_window(args[0] if args else None)


if __name__ == "__main__":
    sys.exit(main())
