"""File handling in the window: save and open, bad files, the unsaved-changes mark and question."""

from __future__ import annotations

import json

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from designer.catalog import default_catalog
from designer.io.project import load_design, save_design
from designer.model.topology.presets import new_design
from designer.ui.shell.dialogs import Dialogs


def _design(gpus=256):
    return new_design(default_catalog(), "rail-optimized", gpus=gpus)


def test_save_and_open_round_trip(make_window, tmp_path):
    window = make_window()
    window.controller.drop_block("template:fat-tree")
    window.inspector.fabric_page.servers.setValue(40)
    edited = window.document.design
    target = tmp_path / "fabric.json"
    window.dialogs.save_answer = str(target)
    assert window.files.save() is True  # no path yet: asks where
    assert load_design(target) == edited
    assert not window.document.modified
    assert window.document.path == target

    other = make_window()
    assert other.files.open(target) is True
    assert other.document.design == edited
    assert other.document.undo_stack.count() == 0
    assert str(target.resolve()) in other.files.recent()
    assert other.recent_menu.actions()[0].toolTip() == str(target.resolve())


def test_the_title_marks_unsaved_changes(make_window, tmp_path):
    path = tmp_path / "a.json"
    save_design(_design(), path)
    window = make_window()
    window.files.open(path)
    assert not window.isWindowModified()
    assert "*" not in window.windowHandle().title()
    window.inspector.fabric_page.servers.setValue(64)
    assert window.isWindowModified()
    assert window.windowHandle().title().startswith("a.json*")
    window.document.undo_stack.undo()
    assert not window.isWindowModified()


def test_opening_a_bad_file_shows_a_clear_dialog_and_keeps_the_design(make_window, tmp_path):
    """The real dialog: a timer reads and closes the message box while it is open."""
    window = make_window(_design(), dialogs=None)
    window.dialogs = window.files.dialogs = Dialogs(window)
    before = window.document.design
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "fabric-designer", "format_version": 1, "design": {"cluster": {"servers": -3}}}')
    seen = {}

    def read_and_close():
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen["text"] = box.text()
        seen["detail"] = box.informativeText()
        seen["icon"] = box.icon()
        box.accept()

    QTimer.singleShot(0, read_and_close)
    assert window.files.open(bad) is False
    assert seen["text"] == "“broken.json” could not be opened."
    assert "servers" in seen["detail"] and "positive" in seen["detail"]
    assert seen["icon"] == QMessageBox.Icon.Critical
    assert window.document.design is before
    assert window.document.path is None


def test_bad_files_of_every_kind_are_refused(make_window, tmp_path):
    window = make_window(_design())
    before = window.document.design
    cases = {
        "truncated.json": '{"format": "fabric-designer", "format_vers',
        "not-a-project.json": json.dumps({"hello": 1}),
        "binary.json": b"\xff\xfe\x00garbage",
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        assert window.files.open(path) is False
    assert window.files.open(tmp_path / "missing.json") is False
    assert len(window.dialogs.errors) == 4
    assert all(name in text for (_, text, _), name in
               zip(window.dialogs.errors, list(cases) + ["missing.json"], strict=True))
    assert window.document.design is before


def test_closing_with_unsaved_changes_asks_first(make_window, tmp_path):
    window = make_window(_design())
    window.inspector.fabric_page.servers.setValue(48)
    window.dialogs.save_changes = "cancel"
    assert window.close() is False
    assert window.isVisible()
    assert window.dialogs.asked[-1].startswith("save-changes:")
    target = tmp_path / "kept.json"
    window.dialogs.save_changes = "save"
    window.dialogs.save_answer = str(target)
    assert window.close() is True
    assert load_design(target).cluster.servers == 48


def test_new_asks_before_dropping_unsaved_work(make_window):
    window = make_window(_design())
    window.inspector.fabric_page.servers.setValue(48)
    window.dialogs.save_changes = "cancel"
    assert window.files.new() is False
    assert window.document.design.cluster.servers == 48
    window.dialogs.save_changes = "discard"
    assert window.files.new() is True
    assert window.document.design is None
    assert window.scene.layout is None
