"""File > Export in the window: the entries for the tools around the fabric, off-thread writes,
the question for a design with errors, and errors shown once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from designer.io.export_source import ExportError
from designer.io.exporters import FORMATS
from designer.io.hostlist import expand
from designer.io.project import load_design
from designer.model.intent.design import Edit
from tests.window_fixtures import window_per_module

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


_module_window, _open_window = window_per_module("ecosystem-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("ecosystem-window")


def _export_menu(window):
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "File")
    return next(a.menu() for a in file_menu.actions() if a.menu() and a.menu().title().replace("&", "") == "Export")


def test_file_export_lists_every_format_and_follows_the_technology(open_window):
    window = open_window(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"))
    menu = _export_menu(window)
    names = {a.objectName() for a in menu.actions()}
    assert {f"export-{name}" for name in FORMATS} <= names
    actions = window.ecosystem_export.actions
    assert actions["ndt"].isEnabled() and not actions["clab"].isEnabled()
    window.document.load(load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json"))
    assert actions["clab"].isEnabled() and not actions["ndt"].isEnabled()
    window.document.load(None)
    assert not any(a.isEnabled() for a in actions.values())


def test_exporting_writes_the_file_with_the_chosen_options(open_window, tmp_path):
    window = open_window(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"))
    exporter = window.ecosystem_export
    target = tmp_path / "topology.conf"
    asked = []
    exporter.ask_path = lambda fmt, suggestion: asked.append(suggestion) or str(target)
    exporter.set_options(dataclasses.replace(exporter.options, node_pattern="h{n:03d}", view="su:2"))
    messages = []
    exporter.finished.connect(messages.append)
    exporter.actions["slurm-tree"].trigger()
    assert asked and asked[0].endswith(".conf")
    text = target.read_text()
    nodes = [n for line in text.splitlines() if "Nodes=" in line for n in expand(line.split("Nodes=")[1].split()[0])]
    assert nodes == [f"h{n:03d}" for n in range(33, 65)]
    assert messages and "SU 2" in messages[0]
    assert window.dialogs.errors == []


def test_a_design_with_errors_asks_before_exporting(open_window, tmp_path):
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    window = open_window(dataclasses.replace(design, edits=(Edit("add-links", "leaf-1", "spine-1", 40),)))
    exporter = window.ecosystem_export
    target = tmp_path / "fabric.graphml"
    exporter.ask_path = lambda fmt, suggestion: str(target)
    questions = []
    exporter.ask_force = lambda text: questions.append(text) or False
    exporter.actions["graphml"].trigger()
    assert questions and "ports" in questions[0] and not target.exists()
    exporter.ask_force = lambda text: questions.append(text) or True
    exporter.actions["graphml"].trigger()
    assert target.exists() and len(questions) == 2


def test_a_failed_export_shows_one_error_and_changes_nothing(open_window, tmp_path):
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    window = open_window(design)
    exporter = window.ecosystem_export
    exporter.ask_path = lambda fmt, suggestion: str(tmp_path / "missing" / "x.dot")
    exporter.actions["dot"].trigger()
    assert len(window.dialogs.errors) == 1
    title, text, detail = window.dialogs.errors[0]
    assert title == "Cannot export" and "does not exist" in detail
    assert window.document.design == design and not window.document.modified
    exporter.ask_path = lambda fmt, suggestion: None  # cancelled: nothing happens
    exporter.actions["dot"].trigger()
    assert len(window.dialogs.errors) == 1


def test_background_export_reports_back_on_the_ui_thread(make_window, qtbot, tmp_path):
    window = make_window(load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json"), synchronous=False,
                         compute_backend="thread")
    exporter = window.ecosystem_export
    exporter.ask_path = lambda fmt, suggestion: str(tmp_path / "lab.clab.yml")
    with qtbot.waitSignal(exporter.finished, timeout=20000) as blocker:
        exporter.actions["clab"].trigger()
    assert "containerlab" in blocker.args[0]
    assert (tmp_path / "lab.clab.yml").exists()
    window.close()


def test_bad_export_options_are_refused_and_the_old_ones_kept(open_window):
    window = open_window(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"))
    exporter = window.ecosystem_export
    before = exporter.options
    for bad in (dataclasses.replace(before, node_pattern="{x}"), dataclasses.replace(before, view="rack:2")):
        with pytest.raises(ExportError):
            exporter.set_options(bad)
        assert exporter.options == before


def test_a_folder_export_into_a_busy_folder_gets_its_own_folder(open_window, tmp_path):
    window = open_window(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"), path=tmp_path / "pod.json")
    exporter = window.ecosystem_export
    (tmp_path / "keep.txt").write_text("mine")
    exporter.ask_path = lambda fmt, suggestion: str(tmp_path)
    exporter.actions["netbox"].trigger()
    assert (tmp_path / "pod-netbox" / "06-devices.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "pod-netbox"]
    empty = tmp_path / "empty"
    empty.mkdir()
    exporter.ask_path = lambda fmt, suggestion: str(empty)
    exporter.actions["netbox"].trigger()
    assert (empty / "08-cables.csv").exists()


def test_the_window_writes_ufms_ndt_kinds_and_hca_names(open_window, tmp_path):
    window = open_window(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"))
    exporter = window.ecosystem_export
    target = tmp_path / "to-host.csv"
    exporter.ask_path = lambda fmt, suggestion: str(target)
    exporter.set_options(dataclasses.replace(exporter.options, ndt_kind="switch-to-host",
                                             hca_names=tuple(f"mlx5_{k}" for k in (0, 3, 4, 5, 6, 9, 10, 11))))
    exporter.actions["ndt"].trigger()
    rows = target.read_text().splitlines()[1:]
    assert len(rows) == 256 and all(" mlx5_" in row.split(",")[1] for row in rows)
    assert {row.split(",")[1].split(" ")[1] for row in rows} == {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6",
                                                                  "mlx5_9", "mlx5_10", "mlx5_11"}
    assert window.dialogs.errors == []
