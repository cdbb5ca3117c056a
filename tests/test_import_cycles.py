"""No two modules of designer/ import each other, type-only imports included.

`lint-imports` enforces it with the `acyclic_siblings` contract in pyproject.toml; these tests
hold the contract to that promise: the package has no cycle of modules at all (package
`__init__` modules included, which the siblings check does not look at), and the contract as
configured refuses a cycle made only of `if TYPE_CHECKING:` imports.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import grimp
import networkx as nx
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent


def _cycles(package: str) -> list[set[str]]:
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    imports = nx.DiGraph()
    for module in graph.modules:
        imports.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            imports.add_edge(module, imported)
    return [group for group in nx.strongly_connected_components(imports) if len(group) > 1]


def test_no_module_of_designer_imports_itself_round_a_circle():
    assert _cycles("designer") == []


def _project_cycle_settings() -> tuple[dict, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = [c for c in config["contracts"] if c["type"] == "acyclic_siblings"]
    assert len(contracts) == 1
    return config, contracts[0]


def _probe_package(tmp_path: Path, name: str, b_imports_a: str) -> None:
    pkg = tmp_path / name / "inner"
    pkg.mkdir(parents=True)
    (tmp_path / name / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(f"from {name}.inner.b import B\n\n\nclass A(B):\n    pass\n")
    (pkg / "b.py").write_text(
        "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\n"
        f"{b_imports_a}\n\n\nclass B:\n    def twin(self) -> A: ...\n")


def _lint(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> int:
    config, contract = _project_cycle_settings()
    text = (
        "[importlinter]\n"
        f"root_package = {name}\n"
        f"exclude_type_checking_imports = {config['exclude_type_checking_imports']}\n\n"
        "[importlinter:contract:cycles]\n"
        f"name = {contract['name']}\n"
        f"type = {contract['type']}\n"
        f"ancestors = {name}\n"
        f"depth = {contract['depth']}\n"
    )
    ini = tmp_path / ".importlinter"
    ini.write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        return lint_imports(config_filename=str(ini), no_cache=True, no_logo=True)
    finally:
        for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
            del sys.modules[module]


def test_the_contract_refuses_a_cycle_of_type_only_imports(tmp_path, monkeypatch):
    name = f"cycle_probe_{tmp_path.name.replace('-', '_')}"
    _probe_package(tmp_path, name, f"if TYPE_CHECKING:\n    from {name}.inner.a import A")
    assert len(_cycles_in(tmp_path, name)) == 1
    assert _lint(tmp_path, name, monkeypatch) == 1


def test_the_contract_passes_the_same_modules_without_the_cycle(tmp_path, monkeypatch):
    name = f"cycle_probe_{tmp_path.name.replace('-', '_')}"
    _probe_package(tmp_path, name, "A = object")
    assert _lint(tmp_path, name, monkeypatch) == 0


def _cycles_in(tmp_path: Path, name: str) -> list[set[str]]:
    sys.path.insert(0, str(tmp_path))
    try:
        return _cycles(name)
    finally:
        sys.path.remove(str(tmp_path))
