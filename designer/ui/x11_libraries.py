"""Can Qt's X11 platform plugin load here? Asked before the window starts.

Qt aborts the whole program (SIGABRT) when its xcb plugin cannot load, with a message that
often blames the wrong library. So, before a QApplication exists, the plugin's shared-library
dependencies are checked: with `ldd` where it exists (every glibc system), else by loading
the libraries Qt 6 documents for X11 one by one. Missing ones are named with the packages
that provide them on Debian/Ubuntu and Fedora.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
from pathlib import Path

# Libraries of Qt 6's xcb platform plugin that desktop systems often lack ("Qt for X11
# Requirements" in Qt's documentation), with the package of each: (Debian/Ubuntu, Fedora).
PACKAGES = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
}


def xcb_plugin() -> Path | None:
    """PySide6's xcb platform plugin, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        plugin = Path(root) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def parse_ldd(text: str) -> list[str]:
    """The libraries `ldd` reports as 'not found', in order, once each."""
    missing = []
    for line in text.splitlines():
        name, _, where = line.strip().partition("=>")
        if where.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def missing_libraries(plugin: Path | None = None) -> list[str]:
    """Shared libraries the xcb plugin needs and cannot find; [] when it can load (or is absent)."""
    plugin = plugin or xcb_plugin()
    if plugin is None:
        return []
    ldd = shutil.which("ldd")
    if ldd:
        try:
            out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            out = None
        if out is not None and out.returncode == 0:
            return parse_ldd(out.stdout)
    missing = []
    for name in PACKAGES:
        try:
            ctypes.CDLL(name)
        except OSError:
            missing.append(name)
    return missing


def advice(missing: list[str]) -> str:
    """One line: what is missing and how to install it on Debian/Ubuntu and Fedora."""
    debian = sorted({PACKAGES.get(m, (m,))[0] for m in missing})
    fedora = sorted({PACKAGES.get(m, (None, m))[1] for m in missing})
    return (f"Qt's X11 platform plugin cannot load: {', '.join(missing)} not installed "
            f"(Debian/Ubuntu: sudo apt-get install {' '.join(debian)}; Fedora: sudo dnf install {' '.join(fedora)})")
