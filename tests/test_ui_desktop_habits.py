"""Desktop habits: both redo keys, transient status messages that go away, a zoom label that
never reads 0%."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design


def test_ctrl_y_and_ctrl_shift_z_both_redo(make_window):
    window = make_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    keys = {k.toString() for k in window.actions_["redo"].shortcuts()}
    assert {"Ctrl+Y", "Ctrl+Shift+Z"} <= keys
    assert not ({"Ctrl+Y", "Ctrl+Shift+Z"} & {k.toString() for a in window.findChildren(type(window.actions_["redo"]))
                                            if a is not window.actions_["redo"] for k in a.shortcuts()})
    window.inspector.fabric_page.servers.setValue(64)
    stack = window.document.undo_stack
    for key in ("Ctrl+Y", "Ctrl+Shift+Z"):
        stack.undo()
        assert window.document.design.cluster.servers == 32
        assert QKeySequence(key) in window.actions_["redo"].shortcuts()
        window.actions_["redo"].trigger()
        assert window.document.design.cluster.servers == 64


def test_the_link_hint_leaves_the_status_bar_when_the_drag_ends(make_window):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = make_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    viewport = window.view.viewport()
    a = window.view.mapFromScene(window.scene.element_position("leaf-2"))
    b = window.view.mapFromScene(window.scene.element_position("spine-3"))
    shown = []
    window.statusBar().messageChanged.connect(shown.append)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for k in range(1, 6):
        QTest.mouseMove(viewport, a + (b - a) * (k / 5))
    assert "release to add a link" in window.statusBar().currentMessage()
    window.view.cancel_gesture()   # as Esc does
    assert "release" not in window.statusBar().currentMessage()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for k in range(1, 6):
        QTest.mouseMove(viewport, a + (b - a) * (k / 5))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    assert window.document.design.edits
    assert "release" not in window.statusBar().currentMessage()
    assert any("release to add a link" in m for m in shown)


def test_zoom_label_never_reads_zero(make_window):
    window = make_window()
    window._show_zoom(0.00028)
    assert window.zoom_label.text() == "Zoom 0.028%"
    window._show_zoom(0.23)
    assert window.zoom_label.text() == "Zoom 23%"
