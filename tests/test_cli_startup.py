"""The command line starts in a blink: only the chosen command's module is imported, and numpy,
networkx and the window load only where a command needs them."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from designer.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dgx-h100-superpod-1su.json"
PROBE = """
import json, sys
from designer.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nLOADED " + json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in
                                      ("networkx", "numpy", "PySide6", "pyqtgraph", "designer"))))
"""


def _loaded(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("LOADED "))
    return set(json.loads(line[len("LOADED "):]))


def test_help_imports_no_numpy_networkx_model_or_window():
    loaded = _loaded("--help")
    assert not {m for m in loaded if m.split(".")[0] in ("networkx", "numpy", "PySide6", "pyqtgraph")}
    assert not {m for m in loaded if m.startswith(("designer.ui", "designer.model", "designer.cli.cmd_"))}


def test_failing_a_switch_loads_neither_the_bill_of_materials_nor_the_failure_rates():
    """`whatif --fail` measures the fabric on its switch pairs; the bill of materials and the
    failure-rate table are for `--interruptions` (and the report), not a failed switch."""
    loaded = _loaded("whatif", str(EXAMPLE), "--fail", "spine-1")
    assert "designer.model.decisions.whatif" in loaded
    assert not {m for m in loaded if m.startswith(("designer.model.physical.bom",
                                                   "designer.model.decisions.interruptions", "networkx"))}
    interruptions = _loaded("whatif", str(EXAMPLE), "--interruptions")
    assert "designer.model.decisions.interruptions" in interruptions


def test_metrics_of_a_template_design_imports_neither_networkx_nor_the_window():
    loaded = _loaded("metrics", str(EXAMPLE))
    assert "designer.cli.cmd_metrics" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("networkx", "PySide6", "pyqtgraph")}
    assert not {m for m in loaded if m.startswith(("designer.ui", "designer.cli.cmd_"))} - {"designer.cli.cmd_metrics"}


@pytest.mark.parametrize("name, module, summary", COMMANDS)
def test_each_listed_help_line_is_its_commands_own(name, module, summary):
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(module).add_parser(sub)
    assert {a.dest: a.help for a in sub._choices_actions}[name] == summary


def test_every_command_is_listed_and_parses_in_full_when_chosen():
    full = build_parser()
    names = [name for name, _, _ in COMMANDS]
    assert list(full._subparsers._group_actions[0].choices) == names
    for name in names:
        parser = build_parser(name)
        chosen = parser._subparsers._group_actions[0].choices[name]
        assert any(a.option_strings == ["-h", "--help"] for a in chosen._actions), name


def test_a_report_refused_for_bad_input_loads_neither_the_sizing_nor_qt(tmp_path):
    """`report` parses its counterpart choices without the counterpart's sizing and pricing: a
    file that is not there is refused before the physical model, the decisions or Qt load."""
    loaded = _loaded("report", str(tmp_path / "missing.json"), "-o", str(tmp_path / "out.pdf"),
                     "--counterpart", "ethernet")
    assert "designer.cli.cmd_report" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("networkx", "PySide6", "pyqtgraph")}
    assert not {m for m in loaded if m.startswith(("designer.ui", "designer.model.physical",
                                                   "designer.model.topology.switch_choice"))}
    assert "designer.model.decisions.counterpart" not in loaded
    assert not (tmp_path / "out.pdf").exists()
