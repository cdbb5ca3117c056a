"""A missing X11 library is one line with the install command, then the metrics: never a Qt abort."""

from pathlib import Path

import pytest

from designer.cli.main import main
from designer.ui import display_check, x11_libraries

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dgx-h100-superpod-1su.json"

LDD = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f)
\tlibxcb-icccm.so.4 => not found
"""


def test_ldd_output_names_each_missing_library_once():
    assert x11_libraries.parse_ldd(LDD) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert x11_libraries.parse_ldd("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_advice_names_the_packages_for_debian_and_fedora():
    line = x11_libraries.advice(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert "\n" not in line
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in line
    assert "sudo dnf install xcb-util-keysyms xcb-util-wm" in line


def test_the_real_plugin_is_checked_without_loading_qt():
    import subprocess
    import sys

    code = ("import sys; from designer.ui import x11_libraries as x; x.missing_libraries(); "
            "print(any(m.startswith('PySide6.Qt') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                         timeout=120)
    assert out.stdout.strip() == "False"


@pytest.fixture
def x11_without_libraries(monkeypatch):
    monkeypatch.setattr(display_check, "display_available", lambda: True)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(display_check.sys, "platform", "linux")
    monkeypatch.setattr(x11_libraries, "missing_libraries", lambda plugin=None: ["libxcb-icccm.so.4"])

    def no_window(*_):
        raise AssertionError("the window must not start")

    monkeypatch.setattr("designer.ui.app.run_window", no_window)


def test_gui_prints_one_line_and_the_metrics(x11_without_libraries, capsys):
    assert main(["gui", str(EXAMPLE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("fabric-designer gui: Qt's X11 platform plugin cannot load: libxcb-icccm.so.4")
    assert "apt-get install libxcb-icccm4" in lines[0] and lines[0].endswith("showing the design's metrics instead")
    assert any(line.startswith("GPUs / servers / endpoints") and "256" in line for line in lines[1:])


def test_the_gui_launcher_says_the_same_in_one_line(x11_without_libraries, capsys, monkeypatch):
    from designer.ui import app

    monkeypatch.setattr(app.sys, "argv", ["fabric-designer-gui", str(EXAMPLE)])
    assert app.main() == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot load: libxcb-icccm.so.4" in err


def test_wayland_or_offscreen_need_no_xcb(monkeypatch):
    monkeypatch.setattr(display_check.sys, "platform", "linux")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert not display_check.uses_x11()
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    assert display_check.uses_x11()
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert not display_check.uses_x11()
