"""Drag-resizing a tier, and undo/redo: one gesture is one step, undo restores the exact design."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from designer.catalog import default_catalog
from designer.model.topology.derive import derive, plan_only
from designer.model.topology.presets import new_design
from designer.ui.canvas.tier_item import HandleItem
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("resize-undo-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("resize-undo-window")


def _leaf_spine(gpus=256):
    return new_design(default_catalog(), "leaf-spine", gpus=gpus)


def _handle_point(window, tier: str) -> QPoint:
    handle = window.scene.handles[tier]
    at = window.view.mapFromScene(handle.pos())
    return at + QPoint(int(HandleItem.OFFSET + HandleItem.SIZE / 2), 0)


def _spines_card(window) -> str:
    return window.metrics.cards["switches"].detail.text()


def test_dragging_the_spine_handle_previews_live_and_pushes_one_step(open_window):
    design = _leaf_spine()
    window = open_window(design)
    viewport = window.view.viewport()
    start = _handle_point(window, "spine")
    assert isinstance(window.view.itemAt(start), HandleItem)
    assert "spine 4" in _spines_card(window)

    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    gesture = window.view._active
    step_px = gesture.px_per_device
    for k in range(1, 9):  # many small moves: still one undo step in the end
        QTest.mouseMove(viewport, start + QPoint(int(k * step_px / 4), 0))
    QTest.mouseMove(viewport, start + QPoint(int(2 * step_px), 0))
    # While dragging: the canvas and the metrics show 6 spines, the document still has 4.
    assert window.view.drag_label.isVisible()
    assert window.view.drag_label.text().startswith("6 spine switches")
    assert window.scene.layout.rows["spine"].count == 6
    assert "spine 6" in _spines_card(window)
    assert window.document.design is design
    assert window.document.undo_stack.count() == 0

    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       start + QPoint(int(2 * step_px), 0))
    stack = window.document.undo_stack
    assert stack.count() == 1
    assert stack.undoText() == "Resize spine tier to 6"
    assert window.actions_["undo"].text() == "&Undo Resize spine tier to 6"
    assert window.document.design.fabric.spine.count == 6
    assert derive(window.document.design).metrics.switches_by_tier["spine"] == 6
    assert "spine 6" in _spines_card(window)
    assert not window.view.drag_label.isVisible()

    stack.undo()
    assert window.document.design is design
    assert "spine 4" in _spines_card(window)
    stack.redo()
    assert window.document.design.fabric.spine.count == 6


def test_escape_cancels_a_drag_and_leaves_nothing_behind(open_window):
    design = _leaf_spine()
    window = open_window(design)
    viewport = window.view.viewport()
    start = _handle_point(window, "leaf")
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(300, 0))
    assert window.scene.layout.rows["leaf"].count > 8
    QTest.keyClick(window.view, Qt.Key.Key_Escape)
    assert window.scene.layout.rows["leaf"].count == 8
    assert window.document.undo_stack.count() == 0
    assert window.metrics.cards["switches"].value.text() == "12"
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    assert window.document.design is design


def test_undo_redo_round_trip_restores_the_exact_design(make_window):
    window = make_window()
    c = window.controller
    stack = window.document.undo_stack
    c.drop_block("template:leaf-spine")
    first = window.document.design
    layout = c.display.layout
    base = window.document.design
    assert c.commit_resize(base, "spine", 8)
    c.drop_block("block:servers")
    assert c.connect_devices("leaf-1", "spine-2") is True
    c.selection.set(["tier:core"])  # nothing to delete: no core tier
    assert c.delete_selection() is False
    c.drop_block("block:core")
    c.selection.set(["tier:core"])
    assert c.delete_selection() is True
    final = window.document.design
    assert stack.count() == 6
    snapshots = []
    while stack.canUndo():
        snapshots.append(window.document.design)
        stack.undo()
    assert window.document.design is None  # back to the empty canvas before the first drop
    while stack.canRedo():
        stack.redo()
    assert window.document.design == final
    assert window.document.design.content_key() == final.content_key()
    stack.setIndex(1)
    assert window.document.design is first
    assert layout is not None


class _Clock:
    """A clock the test moves by hand: the merge window never depends on the machine's speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def merge_clock(monkeypatch):
    from designer.ui.editing import commands

    fake = _Clock()
    monkeypatch.setattr(commands, "clock", fake)
    return fake


def test_quick_spin_box_steps_on_one_field_merge_into_one_step(open_window, merge_clock):
    design = _leaf_spine()
    window = open_window(design)
    page = window.inspector.fabric_page
    assert window.inspector.stack.currentWidget() is page
    for _ in range(3):
        page.servers.stepUp()
        merge_clock.now += 0.3            # three quick clicks, 0.3 s apart
    stack = window.document.undo_stack
    assert window.document.design.cluster.servers == 35
    assert stack.count() == 1
    assert stack.undoText() == "Set servers to 35"
    stack.undo()
    assert window.document.design is design
    # stepping back to where it started leaves no step at all
    page.servers.stepUp()
    merge_clock.now += 0.3
    page.servers.stepDown()
    assert stack.count() == 0 or window.document.design == design


def test_slow_spin_box_steps_are_separate_undo_steps(open_window, merge_clock):
    from designer.ui.editing.commands import FIELD_MERGE_SECONDS

    window = open_window(_leaf_spine())
    page = window.inspector.fabric_page
    for _ in range(2):
        page.servers.stepUp()
        merge_clock.now += FIELD_MERGE_SECONDS + 0.5   # the user paused between the clicks
    assert window.document.undo_stack.count() == 2


def test_undo_text_names_inspector_edits(open_window):
    window = open_window(_leaf_spine())
    page = window.inspector.fabric_page
    page.planes.setValue(2)
    assert window.document.undo_stack.undoText() == "Set planes to 2"
    _, plan = plan_only(window.document.design)
    assert plan.endpoints == 128  # 32 servers x 8 ports over 2 planes
