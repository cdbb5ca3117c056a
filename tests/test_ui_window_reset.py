"""A window shared by a module's tests is set back to what a new window gives before each test:
whatever a test left behind (an edit, a selection, a dialog, a hidden dock, a setting, another
network, a failure view, a read-only file) must not reach the next test."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.io.project import save_design
from designer.model.topology.presets import new_design
from tests.window_fixtures import example, window_per_module

_module_window, _open_window = window_per_module("reset-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("reset-window")


def _state(window) -> dict:
    """What a test can see of a window, short of its pixels."""
    from PySide6.QtWidgets import QDialog

    document = window.document
    return {
        "design": document.design,
        "path": document.path,
        "modified": document.modified,
        "undo steps": document.undo_stack.count(),
        "selection": sorted(window.controller.selection.elements),
        "network": window.controller.network,
        "technology": window.controller.default_technology,
        "palette technology": window.palette_panel.technology.currentData(),
        "docks shown": sorted(name for name, dock in window.docks.items() if dock.isVisibleTo(window)),
        "settings": window.settings.allKeys(),
        "dialogs shown": [d.windowTitle() for d in window.findChildren(QDialog) if d.isVisible()],
        "errors": window.dialogs.errors,
        "asked": window.dialogs.asked,
        "compare window": window.compare_launcher.window,
        "spawned windows": len(window.spawned_windows),
        "failure view": window.fail_mode.restore_action.isEnabled(),
        "presenting": window.presentation.active,
        "designs to present compared": window.presentation.comparison_provider(),
        "legend": window.actions_["legend"].isChecked(),
        "each link": window.scene.each_link,
        "read only": window.files.read_only,
        "recent": [a.text() for a in window.recent_menu.actions()],
        "status": window.statusBar().currentMessage(),
        "exporting": window.exports.busy,
        "title": window.windowTitle(),
    }


def _leave_everything_changed(window, tmp_path: Path) -> None:
    """What tests do to a window and leave as they end; returns the design it was showing."""
    from PySide6.QtWidgets import QDialog

    design = window.document.design
    path = tmp_path / "left-open.json"
    save_design(window.document.design, path)
    window.dialogs.open_answer = str(path)
    window.files.open(path, ask=False)                 # a recent file in the settings
    window.files._set_read_only(True)
    window.controller.selection.set(["tier:leaf"])
    window.inspector.tier_page.count.setValue(window.inspector.tier_page.count.value() + 2)
    window.dialogs.show_error("left", "by a test")
    window.dialogs.ask_save_changes("left by a test")
    window.open_in_new_window(window.document.design, None, modified=False)
    palette = window.palette_panel.technology
    palette.setCurrentIndex(palette.findData("roce-400g"))   # what a block dropped next is built on
    window.docks["palette"].hide()
    window.docks["phases"].show()
    window.fail_mode.n1_panel()                          # a dock made on first use
    window.docks["n1"].show()
    window.settings.setValue("left/by", "a test")
    window.actions_["legend"].trigger()
    window.actions_["each_link"].trigger()
    window.controller.selection.set(["tier:leaf"])
    window.fail_mode.fail_selection()
    window.compare_launcher.add_counterpart("roce-400g")
    left_open = QDialog(window)
    left_open.setWindowTitle("left open")
    left_open.show()
    window.presentation.comparison_provider = lambda: [design, design]
    window.presentation.start()
    window.statusBar().showMessage("left by a test")
    return design


def test_reset_leaves_nothing_of_the_test_before(open_window, make_window, tmp_path):
    design = new_design(default_catalog(), "leaf-spine", gpus=512)
    window = open_window(design)
    _leave_everything_changed(window, tmp_path)
    left = _state(window)

    again = open_window()   # no design: nothing opened replaces what the palette was left at
    fresh = make_window()
    fresh.statusBar().clearMessage()
    assert again is window
    after, expected = _state(again), _state(fresh)
    changed_by_the_test = {key for key in expected if left[key] != expected[key]}
    # The test changed all it can see but an export under way and the network shown (one network
    # here: tests/test_ui_networks.py switches between two); set back, each is as a new window has it.
    assert changed_by_the_test >= set(expected) - {"exporting", "network"}, set(expected) - changed_by_the_test
    assert after == expected


def test_the_view_is_fitted_again_after_a_zoom(open_window, make_window):
    design = example("dgx-h100-superpod-1su.json")
    window = open_window(design)
    fitted = window.view.transform().m11()
    window.view.zoom_by(3.0)
    window.view.horizontalScrollBar().setValue(window.view.horizontalScrollBar().maximum())
    assert window.view.transform().m11() != fitted
    assert open_window(design).view.transform().m11() == fitted


def test_a_question_no_test_answered_fails_the_test_instead_of_waiting_forever(open_window):
    """Offscreen, a real modal dialog (a file dialog, "Export Anyway?") waits for a click that
    never comes: the run would hang. The shared window fails the test that reaches one."""
    window = open_window(example("dgx-h100-superpod-1su.json"))
    for ask in (window.exports.ask_path, window.ecosystem_export.ask_path, window.ecosystem_export.ask_force,
                window.audit.ask_capture):
        with pytest.raises(AssertionError, match="would open a modal dialog"):
            ask("a question")
