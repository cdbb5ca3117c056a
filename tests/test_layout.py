"""What the import-linter contracts in pyproject.toml cannot say about the layout.

The import rules themselves (the model's stages as layers, the window's rooms as layers, no Qt
in the model, no circles) are contracts that `lint-imports` checks in `make lint` and
`make test`. A contract only binds the packages it names, so these tests hold that every
package is named, and that every package says what it holds and may import.
"""

import ast
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
DESIGNER = ROOT / "designer"


def _contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]


def _layer_names(container: str) -> set[str]:
    for contract in _contracts():
        if contract["type"] == "layers" and contract.get("containers") == [container]:
            return {name.strip() for layer in contract["layers"] for name in layer.replace(":", "|").split("|")}
    raise AssertionError(f"no layers contract for {container}")


def _children(folder: pathlib.Path) -> set[str]:
    packages = {p.parent.name for p in folder.glob("*/__init__.py")}
    modules = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
    return packages | modules


def test_every_model_module_sits_in_a_stage_that_a_contract_names():
    loose = [str(p.relative_to(ROOT)) for p in (DESIGNER / "model").glob("*.py") if p.name != "__init__.py"]
    assert loose == [], "model modules belong in a stage subpackage"
    assert _children(DESIGNER / "model") == _layer_names("designer.model")


def test_every_window_package_and_module_is_a_named_layer():
    assert _children(DESIGNER / "ui") == _layer_names("designer.ui")


def test_every_package_says_what_it_holds_and_may_import():
    for init in DESIGNER.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc, f"{init.relative_to(ROOT)} has no docstring"
        if init.parent.parent.name in ("model", "ui") or init.parent.name in ("model", "ui", "io"):
            assert "import" in doc.lower(), f"{init.relative_to(ROOT)} does not say what it may import"
