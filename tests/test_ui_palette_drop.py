"""Dropping palette items on the canvas: a real drag-and-drop with the palette's MIME type."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from designer.catalog import default_catalog
from designer.model.topology.derive import plan_only
from designer.ui.blocks import MIME_TYPE
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("palette-drop-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("palette-drop-window")


def _drop(window, block_id: str) -> None:
    """Drag the palette entry for `block_id` and drop it in the middle of the canvas."""
    tree = window.palette_panel.tree
    item = tree.item_for(block_id)
    mime = tree.mimeData([item])
    assert mime.hasFormat(MIME_TYPE)
    viewport = window.view.viewport()
    pos = QPointF(viewport.width() / 2, viewport.height() / 2)
    actions = Qt.DropAction.CopyAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(pos.toPoint(), actions, mime, buttons, mods)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(viewport, QDragMoveEvent(pos.toPoint(), actions, mime, buttons, mods))
    drop = QDropEvent(pos, actions, mime, buttons, mods)
    QApplication.sendEvent(viewport, drop)
    assert drop.isAccepted()


def test_dropping_a_leaf_spine_template_on_an_empty_canvas_makes_two_tiers(open_window):
    window = open_window()
    assert window.document.design is None
    _drop(window, "template:leaf-spine")
    design = window.document.design
    _, plan = plan_only(design)
    assert design.fabric.template == "leaf-spine"
    assert design.fabric.technology == "ib-ndr"
    assert design.cluster.servers * 8 == 256
    assert plan.tiers == 2
    assert set(window.scene.rows) == {"spine", "leaf", "servers"}
    assert window.document.undo_stack.count() == 1
    assert window.document.undo_stack.undoText() == "New Leaf-spine fabric"
    # the metrics follow the drop
    assert window.metrics.cards["gpus"].value.text() == "256"


def test_dropping_a_fat_tree_sizes_it_as_the_new_command_does(open_window):
    from designer.catalog import default_catalog
    from designer.model.topology.presets import new_design

    window = open_window()
    _drop(window, "template:fat-tree")
    design = window.document.design
    same = new_design(default_catalog(), "fat-tree", gpus=256, technology=design.fabric.technology)
    _, plan = plan_only(design)
    _, expected = plan_only(same)
    assert (plan.tiers, plan.leaves, plan.spines, plan.cores) == \
        (expected.tiers, expected.leaves, expected.spines, expected.cores) == (2, 8, 4, 0)
    assert set(window.scene.rows) == {"spine", "leaf", "servers"}
    _drop(window, "block:core")  # the core-tier block still makes three tiers
    assert plan_only(window.document.design)[1].tiers == 3


def test_a_rail_optimized_su_uses_the_technology_chosen_in_the_palette(open_window):
    window = open_window()
    combo = window.palette_panel.technology
    combo.setCurrentIndex(combo.findData("roce-400g"))
    _drop(window, "template:rail-optimized")
    design = window.document.design
    resolved, plan = plan_only(design)
    assert design.fabric.template == "rail-optimized"
    assert resolved.family == "ethernet"
    # One SU; the SN5600's 64 downlinks take two rails of the 32-node SU per leaf (the cheaper layout).
    assert plan.sus == 1 and plan.leaves * plan.rails_per_leaf == resolved.rails and plan.rails_per_leaf == 2


def test_building_blocks_add_servers_and_a_core_tier(open_window):
    window = open_window()
    _drop(window, "template:leaf-spine")
    before = window.document.design.cluster.servers
    _drop(window, "block:servers")
    assert window.document.design.cluster.servers == before + 32
    _drop(window, "block:core")
    assert "core" in window.scene.rows
    assert window.document.undo_stack.undoText() == "Add core tier"
    # a tier that exists already: a message, no change, no undo step
    count = window.document.undo_stack.count()
    _drop(window, "block:spine")
    assert window.document.undo_stack.count() == count


def test_a_foreign_drag_is_refused(open_window):
    from PySide6.QtCore import QMimeData

    window = open_window()
    mime = QMimeData()
    mime.setText("template:leaf-spine")  # plain text, not the palette's type
    viewport = window.view.viewport()
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    enter.ignore()
    QApplication.sendEvent(viewport, enter)
    assert not enter.isAccepted()
    assert window.document.design is None


def test_double_clicking_a_palette_entry_adds_it_without_dragging(open_window):
    window = open_window()
    tree = window.palette_panel.tree
    tree.itemActivated.emit(tree.item_for("template:fat-tree"), 0)
    assert window.document.design.fabric.template == "fat-tree"
    assert default_catalog().technology(window.document.design.fabric.technology).family == "infiniband"
