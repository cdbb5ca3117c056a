"""The model layer must stay importable and usable without Qt."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PURE_PACKAGES = ["designer/model", "designer/catalog", "designer/io"]
QT_NAMES = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "pyqtgraph", "qtpy")


def _imports(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_no_qt_import_in_model_sources():
    offenders = []
    for package in PURE_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for name in _imports(path):
                if name.split(".")[0] in QT_NAMES:
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_importing_every_model_module_loads_no_qt():
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for package in PURE_PACKAGES for p in (ROOT / package).rglob("*.py")
        if p.name != "__init__.py")
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT_NAMES!r}]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         timeout=120)
    assert out.stdout.strip() == ""
    assert len(modules) >= 8
