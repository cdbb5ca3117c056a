"""The window's Fail action and Phases panel."""

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from designer.io.project import load_design
from tests.helpers import superpod
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("whatif-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("whatif-window")


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_fail_selection_greys_and_shows_before_and_after(open_window, qtbot):
    design = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")
    window = open_window(design)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)   # shortcuts reach the active window only
    window.view.setFocus()
    fail = window.fail_mode
    window.controller.selection.set({"spine-3"})
    before_undo = window.actions_["undo"].shortcut()
    fail.fail_action.trigger()
    assert fail.result is not None and fail.result.failure.devices == ("spine-3",)
    assert fail.overlay.active and fail.overlay.failed == ("spine-3",)
    assert "93.8%" in window.metrics.cards["bisection"].value.text()
    assert "before 100%" in window.metrics.cards["bisection"].detail.text()
    assert window.document.design is design            # failing never edits the design
    assert not window.document.undo_stack.canUndo()
    # Undo's key now restores the view; Esc does too.
    assert window.actions_["undo"].shortcut().isEmpty()
    qtbot.keyClick(window.view, Qt.Key.Key_Escape)
    assert not fail.overlay.active and fail.result is None
    assert window.actions_["undo"].shortcut() == before_undo
    assert "100%" in window.metrics.cards["bisection"].detail.text()


def test_failing_a_leaf_cuts_off_servers_on_the_canvas(open_window):
    window = open_window(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"))
    window.controller.selection.set({"leaf-1"})
    window.fail_mode.fail_action.trigger()
    w = window.fail_mode.result
    assert w.gpus_cut == 32 and len(w.cut_servers) == 32
    assert window.fail_mode.overlay.cut_servers == tuple(range(32))
    assert "stops" in window.statusBar().currentMessage()


def test_an_edit_restores_the_normal_view(open_window):
    window = open_window(superpod(1))
    window.controller.selection.set({"tier:spine"})
    window.fail_mode.fail_action.trigger()
    result = window.fail_mode.result
    assert result is not None and len(result.failure.devices) == 4 and not result.job_continues
    window.document.set_design(superpod(2))
    assert not window.fail_mode.overlay.active


def test_phases_panel_plans_and_draws_a_phase(make_window, tmp_path):
    from designer.catalog import default_catalog
    from designer.model.topology.presets import new_design
    design = new_design(default_catalog(), "rail-optimized", nodes=64, server="dgx-b200", switch="qm9700")
    window = make_window(design)
    panel = window.phases
    panel.target.setValue(8 * 256)
    panel.phases.setText("2,4,8")
    panel.compute()
    assert panel.growth is not None and panel.table.rowCount() == 6
    assert "needs recabling" in panel.summary.text()
    # The model's notes close the summary as sentences (it read "... not a quote. recabling labour")
    last = panel.summary.text().splitlines()[-1]
    assert panel.growth.notes and all(f"{n[:1].upper()}{n[1:]}" in last for n in panel.growth.notes)
    panel.table.selectRow(3)   # the alternative's first phase
    panel._draw()
    other = window.spawned_windows[-1]
    ghosts = other.fail_mode.overlay
    assert ghosts.ghost and len(ghosts.failed) == 48 and len(ghosts.cut_servers) == 192
    window.dialogs.save_path = lambda suggestion="": str(tmp_path / suggestion)
    panel._export()
    text = (tmp_path / "phase-1-bom.csv").read_text(encoding="utf-8-sig")
    assert "Switches" in text and "Total" in text
    other.close()
