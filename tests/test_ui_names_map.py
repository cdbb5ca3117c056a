"""A GUID name map chosen in the window (Import Fabric Capture, Audit Against) gives what the
command line gives with `--names MAP`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.io.project import load_design
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("names-map-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("names-map-window")


X5 = Path(__file__).parent / "data" / "real_captures" / "ltaulell-HPC_toolset"


@pytest.fixture
def capture(tmp_path) -> tuple[Path, Path]:
    """The X5 capture alone in its folder, and its site's map under another name (not beside it)."""
    shutil.copy(X5 / "X5.topofile", tmp_path / "X5.topofile")
    shutil.copy(X5 / "X5.map", tmp_path / "site-names.txt")
    return tmp_path / "X5.topofile", tmp_path / "site-names.txt"


def _cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def _json(report) -> dict:
    return json.loads(json.dumps(report.to_json()))


def test_import_with_a_names_map_is_the_command_line_s_import_names(open_window, capture, tmp_path, capsys):
    topo, names = capture
    cli_report = _cli_json(capsys, "audit", str(topo), "--names", str(names), "--json")
    without = _cli_json(capsys, "audit", str(topo), "--json")
    assert cli_report != without                     # the map changes the answer: the test can fail
    assert main(["import", str(topo), "--names", str(names), "-o", str(tmp_path / "p.json")]) == 0
    window = open_window()
    asked = []
    window.audit.ask_capture = lambda title: asked.append(title) or (str(topo), str(names))
    assert window.audit.import_file()                # File > Import Fabric Capture, the dialog answered
    assert asked == ["Import Fabric Capture"]
    assert window.document.design == load_design(tmp_path / "p.json")
    assert _json(window.audit.report) == cli_report
    facts = window.audit.answer.inference.facts
    assert facts[0].subject == "host names" and facts[0].value == "86 from site-names.txt"
    # Audit Against with the same map: `audit --against --names`.
    cli_against = _cli_json(capsys, "audit", str(topo), "--names", str(names), "--against",
                            str(tmp_path / "p.json"), "--json")
    window.audit.ask_capture = lambda title: asked.append(title) or (str(topo), str(names))
    window.audit.audit_file()
    assert asked[-1] == "Audit Against Capture"
    assert _json(window.audit.report) == cli_against


def test_without_a_map_the_window_reads_what_the_command_line_reads(open_window, capture, capsys):
    topo, _ = capture
    window = open_window()
    window.audit.ask_capture = lambda title: (str(topo), None)
    assert window.audit.import_file()
    assert _json(window.audit.report) == _cli_json(capsys, "audit", str(topo), "--json")


def test_correcting_the_inference_keeps_the_names_map(open_window, capture, capsys):
    topo, names = capture
    window = open_window()
    assert window.audit.import_file(str(topo), names=str(names))
    servers = window.audit.answer.inference.design.cluster.servers
    assert window.audit.correct_inference({"servers": str(servers + 4)})
    assert window.audit.answer.inference.facts[0].value == "86 from site-names.txt"
    cli = _cli_json(capsys, "audit", str(topo), "--names", str(names), "--set", f"servers={servers + 4}", "--json")
    assert _json(window.audit.report) == cli


def test_a_file_that_is_not_a_map_is_one_message_and_changes_nothing(open_window, capture, tmp_path):
    topo, _ = capture
    (tmp_path / "bad.map").write_text("hello\n")
    window = open_window()
    before = window.document.design
    assert not window.audit.import_file(str(topo), names=str(tmp_path / "bad.map"))
    assert window.document.design is before
    assert len(window.dialogs.errors) == 1 and "not a GUID name map" in window.dialogs.errors[0][2]


def test_the_capture_dialog_says_which_map_it_reads(qtbot, capture, tmp_path):
    from PySide6.QtWidgets import QDialogButtonBox

    from designer.ui.shell.capture_dialog import CaptureDialog

    topo, names = capture
    dialog = CaptureDialog(None, "Import Fabric Capture")
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Open)
    assert not ok.isEnabled()                                        # no capture yet
    dialog.capture.setText(str(topo))
    assert ok.isEnabled() and "No map beside the capture" in dialog.map_note.text()
    assert dialog.chosen() == (str(topo), None)
    dialog.names.setText(str(tmp_path / "missing.map"))
    assert not ok.isEnabled() and "missing.map" in dialog.map_note.text()
    dialog.names.setText(str(names))
    assert ok.isEnabled() and "site-names.txt" in dialog.map_note.text()
    assert dialog.chosen() == (str(topo), str(names))
    shutil.copy(names, topo.with_suffix(".map"))                     # a map beside the capture
    dialog.names.clear()
    assert "X5.map, beside the capture" in dialog.map_note.text() and dialog.chosen() == (str(topo), None)
