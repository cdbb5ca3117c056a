"""`fabric-designer gui`: a screenshot offscreen, and one line plus the metrics without a display."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import save_design
from designer.model.topology.presets import new_design

ROOT = Path(__file__).resolve().parents[1]


def _example(tmp_path) -> Path:
    path = tmp_path / "example.json"
    save_design(new_design(default_catalog(), "rail-optimized", gpus=256, name="Screenshot test"), path)
    return path


def test_screenshot_renders_the_window_to_a_png(qapp, tmp_path, capsys):
    out = tmp_path / "shot.png"
    assert main(["gui", str(_example(tmp_path)), "--screenshot", str(out), "--size", "1200x800"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    colours = {image.pixel(x, y) for x in range(0, 1200, 7) for y in range(0, 800, 7)}
    assert len(colours) > 50  # a rendered window, not a blank image
    assert capsys.readouterr().out.strip() == f"wrote {out}"


def test_screenshot_of_a_bad_file_is_one_line_and_no_png(qapp, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{ nope")
    out = tmp_path / "shot.png"
    assert main(["gui", str(bad), "--screenshot", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not valid JSON" in err
    assert not out.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="only Linux finds its display through the environment")
def test_without_a_display_it_says_so_and_prints_the_metrics(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-m", "designer.cli.main", "gui", str(_example(tmp_path))],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("fabric-designer gui: no display available")
    assert any(line.startswith("Design") and "Screenshot test" in line for line in lines[1:])
    assert proc.stderr == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="only Linux finds its display through the environment")
def test_an_unreachable_display_counts_as_none(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["DISPLAY"] = ":4321"  # no X server listens there
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-m", "designer.cli.main", "gui", str(_example(tmp_path))],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == ("fabric-designer gui: no display available (cannot reach display "
                                           ":4321); showing the design's metrics instead")
