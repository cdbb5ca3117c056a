"""MkDocs hook: the guide's screenshots are made by the tool itself at build time.

Each picture is `fabric-designer gui EXAMPLE --screenshot PNG` rendered offscreen, so the guide
always shows the window as the code in this tree draws it. The pictures are build output
(docs/images/generated/ is git-ignored); a failed render fails the build.

The pictures render side by side, one process per core, and a picture is made again only when
what it shows may have changed: its example, its size, or any file of designer/ or resources/
(a digest of them is kept beside the pictures). `make test` builds the guide on every run, so
an unchanged tree costs it nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "images" / "generated"
DIGESTS = OUT / "digests.json"
TIMEOUT_S = 300

# picture name -> (example design, window size)
SHOTS: dict[str, tuple[str, str]] = {
    "window-dgx-h100-4su.png": ("examples/dgx-h100-superpod-4su.json", "1600x1000"),
    "window-roce-512.png": ("examples/roce-512-leaf-spine-sn5600.json", "1600x1000"),
    "window-k64-1280.png": ("examples/k64-fat-tree-hosts.json", "1280x800"),
    "window-b300-two-plane.png": ("examples/b300-roce-two-plane.json", "1600x1000"),
}


def _tree_digest() -> str:
    """A digest of every file the window's drawing may read: the code and the data."""
    digest = hashlib.sha256()
    for folder in ("designer", "resources"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(ROOT).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _shot_digest(tree: str, example: str, size: str) -> str:
    return hashlib.sha256(f"{tree}|{size}|".encode() + (ROOT / example).read_bytes()).hexdigest()


def _stored() -> dict[str, str]:
    try:
        data = json.loads(DIGESTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def on_pre_build(config: Any, **_: Any) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    tree = _tree_digest()
    stored = _stored()
    wanted = {name: _shot_digest(tree, example, size) for name, (example, size) in SHOTS.items()}
    todo = [name for name in SHOTS if stored.get(name) != wanted[name] or not (OUT / name).is_file()]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    at_once = max(1, os.cpu_count() or 1)
    running: list[tuple[str, subprocess.Popen[str]]] = []
    done: dict[str, str] = {k: v for k, v in stored.items() if k in SHOTS and k not in todo}
    try:
        while todo or running:
            while todo and len(running) < at_once:
                name = todo.pop(0)
                example, size = SHOTS[name]
                (OUT / name).unlink(missing_ok=True)
                command = [sys.executable, "-m", "designer.cli.main", "gui", str(ROOT / example),
                           "--screenshot", str(OUT / name), "--size", size]
                running.append((name, subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                                        stderr=subprocess.PIPE, text=True)))
            name, process = running[0]
            out, err = process.communicate(timeout=TIMEOUT_S)
            running.pop(0)
            if process.returncode != 0 or not (OUT / name).is_file():
                raise RuntimeError(f"screenshot {name} failed: {err.strip() or out.strip()}")
            done[name] = wanted[name]
    finally:
        for _, process in running:   # a failure or a timeout stops the others too
            process.kill()
            process.communicate()
        DIGESTS.write_text(json.dumps(done, indent=1, sort_keys=True), encoding="utf-8")
