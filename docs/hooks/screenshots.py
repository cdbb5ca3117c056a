"""MkDocs hook: the guide's screenshots are made by the tool itself at build time.

Each picture is `fabric-designer gui EXAMPLE --screenshot PNG` rendered offscreen, so the guide
always shows the window as the code in this tree draws it. The pictures are build output
(docs/images/generated/ is git-ignored); a failed render fails the build.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "images" / "generated"

# picture name -> (example design, window size)
SHOTS: dict[str, tuple[str, str]] = {
    "window-dgx-h100-4su.png": ("examples/dgx-h100-superpod-4su.json", "1600x1000"),
    "window-roce-512.png": ("examples/roce-512-leaf-spine-sn5600.json", "1600x1000"),
    "window-k64-1280.png": ("examples/k64-fat-tree-hosts.json", "1280x800"),
    "window-b300-two-plane.png": ("examples/b300-roce-two-plane.json", "1600x1000"),
}


def on_pre_build(config: Any, **_: Any) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    for name, (example, size) in SHOTS.items():
        target = OUT / name
        command = [sys.executable, "-m", "designer.cli.main", "gui", str(ROOT / example),
                   "--screenshot", str(target), "--size", size]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or not target.is_file():
            raise RuntimeError(f"screenshot {name} failed: {done.stderr.strip() or done.stdout.strip()}")
