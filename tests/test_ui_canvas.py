"""The canvas: level of detail, selection, connecting, deleting and findings that select."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from designer.catalog import default_catalog
from designer.model.intent.design import Edit
from designer.model.topology.presets import new_design
from designer.ui.canvas.lod import BLOCK, DEVICE, ROW, row_lod
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("canvas-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("canvas-window")


def _press_drag_release(viewport, a: QPoint, b: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifiers, a)
    for k in range(1, 6):
        QTest.mouseMove(viewport, a + (b - a) * (k / 5))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifiers, b)


def _device_point(window, device: str) -> QPoint:
    pos = window.scene.element_position(device)
    return window.view.mapFromScene(pos)


def test_a_32k_gpu_fabric_is_drawn_aggregated_and_expands_when_zoomed(open_window):
    design = new_design(default_catalog(), "rail-optimized", gpus=32768, server="dgx-b300-xdr")
    window = open_window(design)
    window.view.fit()
    leaf = window.scene.layout.rows["leaf"]
    # 4,096 nodes in SUs of 72 (the B300 XDR reference SU): 57 SUs of 8 rail leaves.
    assert design.fabric.nodes_per_su == 72 and leaf.count == 57 * 8
    assert row_lod(leaf, window.view.sx) == ROW
    center = window.view.viewport().rect().center()
    window.view.zoom_by(0.1 / window.view.sx, QPointF(center))  # about 14x
    assert row_lod(leaf, window.view.sx) == BLOCK
    window.view.set_zoom(1.0)
    assert row_lod(leaf, window.view.sx) == DEVICE
    # What the pointer finds follows what is drawn.
    point = window.view.mapFromScene(QPointF(leaf.device_x(10), leaf.y))
    assert window.view.element_at(QPointF(point)) == "leaf-11"
    window.view.fit()
    point = window.view.mapFromScene(QPointF(leaf.device_x(10), leaf.y))
    assert window.view.element_at(QPointF(point)) == "tier:leaf"
    image = window.view.grab()  # paints without trouble at both zooms
    assert not image.isNull()


def test_clicking_selects_and_the_inspector_follows(open_window):
    window = open_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    viewport = window.view.viewport()
    point = _device_point(window, "spine-2")
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    assert window.controller.selection.elements == {"spine-2"}
    assert window.inspector.stack.currentWidget() is window.inspector.tier_page
    assert window.inspector.tier_page.title.text() == "Spine tier"
    # a click on the background clears it
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(5, 5))
    assert window.controller.selection.elements == frozenset()
    assert window.inspector.stack.currentWidget() is window.inspector.fabric_page


def test_rubber_band_selects_the_switches_inside(open_window):
    window = open_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    viewport = window.view.viewport()
    a = _device_point(window, "leaf-1") + QPoint(-30, -40)
    b = _device_point(window, "leaf-3") + QPoint(10, 40)
    _press_drag_release(viewport, a, b)
    assert window.controller.selection.elements == {"leaf-1", "leaf-2", "leaf-3"}


def test_dragging_from_a_leaf_to_a_spine_adds_a_manual_link(open_window):
    window = open_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    viewport = window.view.viewport()
    _press_drag_release(viewport, _device_point(window, "leaf-2"), _device_point(window, "spine-3"))
    design = window.document.design
    assert design.edits == (Edit("add-links", "leaf-2", "spine-3", 1),)
    assert window.document.undo_stack.undoText() == "Connect leaf-2 to spine-3 (1 link)"
    assert window.compute.latest.metrics.links_by_tier.get("manual") == 1
    assert window.scene.layout.manual_links == ((0, "leaf-2", "spine-3", 1),)
    # the link can be picked on the canvas and deleted with the Delete key
    path = window.scene.manual.path_of("leaf-2", "spine-3")
    mid = window.view.mapFromScene(path.pointAtPercent(0.5))
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, mid)
    assert window.controller.selection.elements == {"edit:0"}
    window.actions_["delete"].trigger()
    assert window.document.design.edits == ()


def test_connecting_two_switches_of_one_tier_is_refused(open_window):
    window = open_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    viewport = window.view.viewport()
    _press_drag_release(viewport, _device_point(window, "leaf-1"), _device_point(window, "leaf-4"))
    assert window.document.design.edits == ()
    assert window.document.undo_stack.count() == 0


def test_deleting_a_switch_and_the_core_tier(open_window):
    window = open_window(new_design(default_catalog(), "fat-tree", gpus=256, tiers=3))
    c = window.controller
    c.selection.set(["spine-1"])
    window.actions_["delete"].trigger()
    assert window.document.design.edits == (Edit("remove-device", "spine-1"),)
    assert window.compute.latest.metrics.switches_by_tier["spine"] == 7
    c.selection.set(["tier:core"])
    window.actions_["delete"].trigger()
    assert "core" not in window.scene.rows
    assert window.document.undo_stack.undoText() == "Delete core tier"
    c.select_all()
    window.actions_["delete"].trigger()
    assert window.document.design is None
    window.document.undo_stack.undo()
    assert "spine" in window.scene.rows


def test_clicking_a_finding_selects_the_offending_element(open_window):
    design = new_design(default_catalog(), "leaf-spine", gpus=1024)
    window = open_window(design)
    window.controller.selection.set(["tier:leaf"])
    window.inspector.tier_page.count.setValue(8)  # too few leaves: ports beyond the radix
    findings = window.metrics.findings
    item = next(findings.item(i) for i in range(findings.count()) if "needs" in findings.item(i).text())
    findings.itemClicked.emit(item)
    selected = window.controller.selection.elements
    assert len(selected) == 1
    element = next(iter(selected))
    assert element.startswith("leaf-")
    leaf = window.scene.layout.rows["leaf"]
    assert row_lod(leaf, window.view.sx) == DEVICE  # zoomed in far enough to see it
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.contains(window.scene.element_position(element))


def test_fit_zoom_and_pan_keep_the_fabric_in_reach(open_window):
    design = new_design(default_catalog(), "rail-optimized", gpus=16384, switch="qm9700")
    window = open_window(design)
    view = window.view
    view.fit()
    fitted = view.sx
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    content = window.scene.content_rect()
    assert visible.left() <= content.left() and visible.right() >= content.right()
    QTest.keyClick(view, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    window.actions_["zoom_in"].trigger()
    assert view.sx > fitted
    before = view.horizontalScrollBar().value()
    view.scroll_by(200, 0)
    assert view.horizontalScrollBar().value() > before
    window.actions_["fit"].trigger()
    assert abs(view.sx - fitted) < 1e-9


def test_a_one_tier_fabric_is_drawn_as_one_switch_and_its_servers(open_window):
    design = new_design(default_catalog(), "rail-optimized", gpus=64, switch="qm9700")
    window = open_window(design)
    window.view.fit()
    rows = window.scene.layout.rows
    assert rows["leaf"].count == 1 and rows["spine"].count == 0 and "core" not in rows
    assert not [b for b in window.scene.layout.bundles if b.upper == "spine"]


def test_show_each_link_draws_every_link_and_back_without_an_undo_step(open_window):
    design = new_design(default_catalog(), "leaf-spine", gpus=256)
    window = open_window(design)
    window.view.fit()
    layout = window.scene.layout
    expected = {pair: int(layout.link_arrays(pair[0])[2].sum()) for pair in window.scene.bundles}
    assert sum(expected.values()) > len(window.scene.bundles)   # bundles stand for many links

    def drawn():
        window.view.grab()   # paints the bundles at the current zoom
        return {pair: item.links_drawn for pair, item in window.scene.bundles.items()}

    action = window.actions_["each_link"]
    assert not action.isChecked()
    assert set(drawn().values()) == {0}             # off by default: bundles with counts
    undo_before = window.document.undo_stack.count()
    modified_before = window.document.modified
    action.trigger()
    assert action.isChecked()
    assert drawn() == expected                       # one line per link of the design
    assert window.document.undo_stack.count() == undo_before
    assert window.document.modified == modified_before
    action.trigger()
    assert set(drawn().values()) == {0}
    assert window.controller.display.design == design
