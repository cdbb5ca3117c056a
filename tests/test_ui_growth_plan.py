"""The Phases panel edits the design's stored target and phases: undoable, saved, in View > Panels."""

import pytest
from PySide6.QtCore import Qt

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.intent.growth_plan import GrowthPlan
from designer.model.topology.presets import new_design
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("growth-plan-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("growth-plan-window")


def b200(sus):
    return new_design(default_catalog(), "rail-optimized", nodes=32 * sus, server="dgx-b200", switch="qm9700")


def _type(qtbot, widget, text):
    widget.setFocus()
    widget.selectAll() if hasattr(widget, "selectAll") else None
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


def test_editing_the_plan_is_one_undo_step_per_commit_and_is_saved(open_window, qtbot, tmp_path):
    window = open_window(b200(2))
    window.docks["phases"].show()
    panel = window.phases
    stack = window.document.undo_stack
    assert window.document.design.growth == GrowthPlan()
    _type(qtbot, panel.target, "4096")
    assert window.document.design.growth == GrowthPlan(4096, ())
    assert stack.count() == 1 and "4,096 GPUs" in stack.undoText()
    _type(qtbot, panel.phases, "2,4,8")
    assert window.document.design.growth == GrowthPlan(4096, (2, 4, 8))
    assert stack.count() == 2 and "2,4,8" in stack.undoText()
    assert window.isWindowModified()
    # Undo puts back the design's plan, and the fields follow it.
    stack.undo()
    assert window.document.design.growth == GrowthPlan(4096, ())
    assert panel.phases.text() == "" and panel.target.value() == 4096
    stack.redo()
    assert panel.phases.text() == "2,4,8"
    # Saved with the project.
    window.dialogs.save_answer = str(tmp_path / "planned.json")
    window.files.save_as()
    assert load_design(tmp_path / "planned.json").growth == GrowthPlan(4096, (2, 4, 8))


def test_a_bad_plan_changes_nothing_and_says_why(open_window, qtbot):
    window = open_window(b200(2))
    window.docks["phases"].show()
    panel = window.phases
    _type(qtbot, panel.phases, "8,4")
    assert window.document.design.growth == GrowthPlan()
    assert not window.document.undo_stack.canUndo()
    assert "must increase" in panel.summary.text()
    panel.phases.setText("two")
    panel.commit()
    assert "whole numbers" in panel.summary.text()
    assert not window.document.undo_stack.canUndo()


def test_passing_through_the_suggested_target_stores_nothing_but_plan_does(open_window):
    window = open_window(b200(2))
    panel = window.phases
    suggested = panel.target.value()
    assert suggested > 0 and "Suggested" in panel.stored_label.text()
    panel.target.editingFinished.emit()       # focus left the field, value untouched
    assert not window.document.undo_stack.canUndo()
    panel.compute()                            # Plan stores what was planned
    assert window.document.design.growth == GrowthPlan(suggested, ())
    assert window.document.undo_stack.count() == 1
    assert "stored with the design" in panel.stored_label.text()
    assert panel.growth is not None and panel.growth.target_gpus == suggested


def test_a_stored_plan_fills_the_panel_when_a_design_opens(open_window):
    from dataclasses import replace
    window = open_window(replace(b200(2), growth=GrowthPlan(8 * 256, (2, 4))))
    panel = window.phases
    assert panel.target.value() == 2048 and panel.phases.text() == "2,4"
    panel.compute()
    assert not window.document.undo_stack.canUndo()     # nothing changed: no step
    assert [p.sus for p in panel.growth.path.phases] == [2, 4, 8]


def test_phases_dock_is_listed_in_view_panels(open_window):
    window = open_window(b200(1))
    toggles = {a.text().replace("&", ""): a for a in window.panels_menu.actions()}
    assert "Phases" in toggles
    dock = window.docks["phases"]
    assert not dock.isVisible()
    toggles["Phases"].trigger()
    assert dock.isVisible() and toggles["Phases"].isChecked()
    toggles["Phases"].trigger()
    assert not dock.isVisible()
    for name in ("Palette", "Inspector", "Plots", "Metrics"):
        assert name in toggles
