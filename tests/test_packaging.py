"""Slow: build the one-folder bundle and start it offscreen to render a screenshot."""

import os
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.slow
# The build's own limit (30 min) and the two runs' (5 + 2), beyond the suite's 10 minutes.
@pytest.mark.timeout(1800 + 300 + 120 + 60)
def test_bundle_builds_and_renders_offscreen(tmp_path):
    subprocess.run(["bash", "packaging/build-linux.sh"], cwd=ROOT, check=True, timeout=1800)
    app = ROOT / "dist" / "fabric-designer" / "fabric-designer"
    assert app.is_file()
    assert (app.parent / "share" / "applications" / "io.fabricdesigner.FabricDesigner.desktop").is_file()
    shot = tmp_path / "bundle.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    run = subprocess.run([str(app), "gui", str(ROOT / "examples" / "dgx-h100-superpod-1su.json"),
                          "--screenshot", str(shot)], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    width, height = _png_size(shot)
    assert width >= 800 and height >= 600
    metrics = subprocess.run([str(app), "metrics", str(ROOT / "examples" / "dgx-h100-superpod-1su.json"),
                              "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert metrics.returncode == 0 and '"gpus": 256' in metrics.stdout
