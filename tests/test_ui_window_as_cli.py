"""The window does what the command line does: the same technology rule as `counterpart`, NetBox
folders created, export views picked from the design, a theme chosen and remembered."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.counterpart import make_counterpart
from designer.model.topology.sizing import SizingError
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("window-as-cli-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("window-as-cli-window")


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_the_inspector_refuses_xdr_on_a_dgx_h100_as_counterpart_does(open_window):
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    with pytest.raises(SizingError) as refused:
        make_counterpart(design, "ib-xdr", default_catalog())
    window = open_window(design)
    page = window.inspector.fabric_page
    reasons = []
    window.inspector.editRefused.connect(reasons.append)
    page.generation.setCurrentIndex(page.generation.findData("ib-xdr"))
    assert window.document.design is design and window.document.undo_stack.count() == 0
    assert reasons == [str(refused.value)]
    assert "ConnectX-7" in page.refused.text() and page.generation.currentData() == design.fabric.technology


def test_a_chassis_with_a_variant_for_the_technology_takes_it_as_counterpart_does(open_window):
    design = load_design(EXAMPLES / "b300-roce-two-plane.json")
    assert design.cluster.server == "dgx-b300-eth"
    window = open_window(design)
    page = window.inspector.fabric_page
    page._use_technology(window.catalog.technology("ib-xdr"))   # what both technology fields call
    assert not page.refused.isVisible(), page.refused.text()
    now = window.document.design
    expected = make_counterpart(design, "ib-xdr", default_catalog()).design
    assert now.cluster.server == expected.cluster.server == "dgx-b300-xdr"
    assert now.fabric.technology == "ib-xdr" and window.document.undo_stack.count() == 1
    assert "DGX B300" in window.document.undo_stack.text(0)


def test_netbox_from_the_window_creates_its_folder_as_the_cli_does(make_window, tmp_path):
    window = make_window(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"), path=tmp_path / "pod.json")
    exporter = window.ecosystem_export
    asked = []
    target = tmp_path / "new" / "netbox-import"
    (tmp_path / "new").mkdir()
    exporter.ask_path = lambda fmt, suggestion: asked.append(suggestion) or str(target)
    exporter.actions["netbox"].trigger()
    assert asked == [str(tmp_path / "pod-netbox")]   # a folder name to create, beside the project
    assert (target / "06-devices.csv").exists() and window.dialogs.errors == []


def test_the_export_view_is_picked_from_the_designs_sus_and_planes(open_window):
    from designer.ui.shell.ecosystem_export import ExportOptionsDialog, design_views

    catalog = default_catalog()
    four = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")
    assert [v for _, v in design_views(four, catalog)] == ["fabric", "su:1", "su:2", "su:3", "su:4"]
    two_planes = load_design(EXAMPLES / "b300-roce-two-plane.json")
    assert {"plane:1", "plane:2"} <= {v for _, v in design_views(two_planes, catalog)}
    window = open_window(four)
    exporter = window.ecosystem_export
    dialog = ExportOptionsDialog(exporter.options, window, design_views(four, catalog))
    assert dialog.view.count() == 5 and not dialog.view.isEditable()
    dialog.view.setCurrentIndex(dialog.view.findData("su:3"))
    exporter.set_options(dialog.options())
    assert exporter.options.view == "su:3"
    # A view kept from another design is shown as such, not silently changed.
    one = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    dialog = ExportOptionsDialog(exporter.options, window, design_views(one, catalog))
    assert dialog.view.currentData() == "su:3" and "not in this design" in dialog.view.currentText()


def test_view_theme_sets_light_or_dark_and_is_remembered(make_window, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = make_window(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"), settings=settings)
    choice = window.theme_choice
    assert [a.text().replace("&", "") for a in choice.submenu.actions()] == ["System", "Light", "Dark"]
    system = QApplication.palette()
    try:
        choice.actions["dark"].trigger()
        assert window.theme.dark and QApplication.palette().base().color().lightness() < 128
        assert settings.value("theme") == "dark"
        choice.actions["light"].trigger()
        assert not window.theme.dark and settings.value("theme") == "light"
        choice.actions["dark"].trigger()
        again = make_window(None, settings=settings)   # the next start reads it back
        assert again.theme_choice.current == "dark" and again.theme_choice.actions["dark"].isChecked()
        choice.actions["system"].trigger()
        assert QApplication.palette() == system and settings.value("theme") == "system"
    finally:
        QApplication.setPalette(system)


def test_n_minus_one_in_the_window_gets_the_per_tier_table_of_the_cli_and_report(open_window, qtbot):
    from designer.model.decisions.whatif import n1_rows, n_minus_one
    from designer.model.topology.derive import derive

    design = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")
    window = open_window(design)
    window.fail_mode.n1_action.trigger()
    panel = window.fail_mode.n1_panel()
    assert window.docks["n1"].isVisibleTo(window)
    expected = n1_rows(n_minus_one(derive(design, window.catalog)))
    shown = [tuple(panel.table.item(r, c).text() for c in range(panel.table.columnCount()))
             for r in range(panel.table.rowCount())]
    assert shown == expected and {row[0] for row in shown} == {"leaf", "spine"}
    # Picking a tier shows its worst failure on the canvas, without a new run.
    spine_row = [row[0] for row in shown].index("spine")
    panel.table.selectRow(spine_row)
    assert window.fail_mode.result.failure.label == shown[spine_row][3]
    assert window.fail_mode.overlay.failed == window.fail_mode.result.failure.devices
    # The GPUs card says what a failure that cuts nobody off means.
    assert "none cut off, all at full NIC bandwidth" in window.metrics.cards["gpus"].detail.text()
    # An edit leaves no stale table behind.
    window.inspector.fabric_page.servers.setValue(64)
    assert panel.table.rowCount() == 0 and "changed" in panel.heading.text()


def test_the_phases_panel_plans_when_it_opens(open_window, qtbot):
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    assert not design.growth.stored
    window = open_window(design)
    window.docks["phases"].show()
    window.docks["phases"].raise_()
    qtbot.waitUntil(lambda: window.phases.table.rowCount() > 0, timeout=5000)
    assert "first proposal" in window.phases.summary.text()
    assert window.document.design is design      # a proposal is not stored until Plan
