"""The package layout is the architecture: imports run one way, and no package imports in a circle."""

import ast
import pathlib

import networkx as nx

ROOT = pathlib.Path(__file__).resolve().parents[1]
DESIGNER = ROOT / "designer"

MODEL_STAGES = ["common", "intent", "topology", "physical", "performance", "decisions"]
# The window's packages from the foundations up ("" is designer/ui's own modules but app.py).
UI_ORDER = ["", "services", "canvas", "editing", "panels", "export", "present", "compare", "explore", "shell"]


def _module(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: pathlib.Path):
    """Every designer module a file imports, at any depth of the file (lazy imports included)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("designer"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("designer"):
            for alias in node.names:
                yield f"{node.module}.{alias.name}"


def _unit(module: str) -> str:
    """The package a module belongs to, at the grain the rules speak of."""
    parts = module.split(".")
    if parts[:2] == ["designer", "model"]:
        return "model." + parts[2] if len(parts) > 2 and parts[2] in MODEL_STAGES else "model"
    if parts[:2] == ["designer", "ui"]:
        if len(parts) > 2 and parts[2] in UI_ORDER:
            return "ui." + parts[2]
        return "ui.app" if len(parts) > 2 and parts[2] == "app" else "ui."
    return parts[1] if len(parts) > 1 else "designer"


def _edges():
    edges = set()
    for path in DESIGNER.rglob("*.py"):
        source = _unit(_module(path))
        for target in map(_unit, _imports(path)):
            if target != source:
                edges.add((source, target, str(path.relative_to(ROOT))))
    return edges


def test_every_module_sits_in_a_known_package():
    loose = [str(p.relative_to(ROOT)) for p in (DESIGNER / "model").glob("*.py") if p.name != "__init__.py"]
    assert loose == [], "model modules belong in a stage subpackage"
    for stage in MODEL_STAGES:
        assert (DESIGNER / "model" / stage / "__init__.py").is_file()


def test_model_stages_import_only_the_stages_above_them():
    rank = {f"model.{s}": i for i, s in enumerate(MODEL_STAGES)}
    upward = [f"{where}: {src} imports {dst}" for src, dst, where in _edges()
              if src in rank and dst in rank and rank[dst] > rank[src]]
    assert upward == []


def test_model_catalog_and_io_never_import_the_window_or_the_command_line():
    pure = {"catalog", "io"} | {f"model.{s}" for s in MODEL_STAGES} | {"model"}
    bad = [f"{where}: {src} imports {dst}" for src, dst, where in _edges()
           if src in pure and (dst.startswith("ui") or dst == "cli")]
    assert bad == []
    assert [f"{where}: model imports io" for src, dst, where in _edges()
            if src.startswith("model") and dst == "io"] == []
    assert [f"{where}: catalog imports {dst}" for src, dst, where in _edges()
            if src == "catalog" and dst.startswith("model")] == []


def test_window_packages_import_only_the_ones_below_them():
    rank = {f"ui.{name}": i for i, name in enumerate(UI_ORDER)}
    upward = [f"{where}: {src} imports {dst}" for src, dst, where in _edges()
              if src in rank and dst in rank and rank[dst] > rank[src]]
    assert upward == []
    assert [where for src, dst, where in _edges() if src.startswith("ui") and dst == "cli"] == []


def test_no_import_circle_between_packages():
    graph = nx.DiGraph((src, dst) for src, dst, _ in _edges())
    assert list(nx.simple_cycles(graph)) == []


def test_every_package_says_what_it_holds_and_may_import():
    for init in DESIGNER.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc, f"{init.relative_to(ROOT)} has no docstring"
        if init.parent.parent.name in ("model", "ui") or init.parent.name in ("model", "ui", "io"):
            assert "import" in doc.lower(), f"{init.relative_to(ROOT)} does not say what it may import"
