"""The canvas follows edits in every plane: the plane drawn can be chosen, removed switches take
their links with them, the row header and legend say what was edited, and no legend entry is cut."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.intent.design import Edit
from designer.model.topology.derive import plan_only
from designer.ui.canvas.layout import compute_layout
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("canvas-planes-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("canvas-planes-window")


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TWO_PLANES = EXAMPLES / "b300-roce-two-plane.json"
CAT = default_catalog()


def _layout(design, plane=0):
    r, plan = plan_only(design, CAT)
    return compute_layout(design, r, plan, plane)


def test_a_removed_switch_takes_its_links_in_its_own_plane_only():
    design = load_design(TWO_PLANES)
    edited = dataclasses.replace(design, edits=(Edit("remove-device", "p2.spine-1"),))
    plain = _layout(design)
    plane1, plane2 = _layout(edited, 0), _layout(edited, 1)
    a, b, links = plain.link_arrays("leaf")
    assert (b == 0).any()
    a2, b2, links2 = plane2.link_arrays("leaf")
    assert not (b2 == 0).any(), "spine-1 of plane 2 is gone, and so are its links"
    assert links2.sum() == links.sum() - links[b == 0].sum()
    assert plane1.link_arrays("leaf")[2].sum() == links.sum(), "plane 1 is untouched"
    def bundled(lay):
        return sum(x.links for x in lay.bundles if x.lower == "leaf")
    assert bundled(plane2) == links2.sum() and bundled(plane1) == links.sum()
    assert plane2.removed_in("spine") == 1 and plane1.removed_in("spine") == 0
    assert plane1.differing == plane2.differing == (1,)


def test_removed_links_and_manual_links_follow_the_plane():
    design = load_design(TWO_PLANES)
    r, plan = plan_only(design, CAT)
    edits = (Edit("remove-links", "p2.leaf-1", "p2.spine-1", 1), Edit("add-links", "p2.leaf-2", "p2.spine-3", 2))
    edited = dataclasses.replace(design, edits=edits)
    plane1, plane2 = _layout(edited, 0), _layout(edited, 1)
    assert plane1.manual_links == () and [m[1:] for m in plane2.manual_links] == [("p2.leaf-2", "p2.spine-3", 2)]
    before = dict(((i, j), n) for i, j, n in zip(*[x.tolist() for x in _layout(design).link_arrays("leaf")],
                                                 strict=True))
    after = dict(((i, j), n) for i, j, n in zip(*[x.tolist() for x in plane2.link_arrays("leaf")], strict=True))
    assert after.get((0, 0), 0) == before[(0, 0)] - 1
    assert {k: v for k, v in after.items() if k != (0, 0)} == {k: v for k, v in before.items() if k != (0, 0)}


def test_the_window_draws_the_plane_chosen(open_window, qtbot):
    window = open_window(load_design(TWO_PLANES), TWO_PLANES)
    legend, scene = window.view.legend, window.scene
    assert legend.plane_box.isVisible()
    assert scene.device_id("spine", 0) == "p1.spine-1"
    legend.plane_box.activated.emit(1)
    assert scene.layout.plane == 1 and scene.device_id("spine", 0) == "p2.spine-1"
    stack = [texts[0] for kind, texts, _ in legend.entries() if kind == "stack"]
    assert stack == ["2 identical planes (plane 2 drawn)"]
    # Delete a spine of the plane drawn: one undo step; the plane stays drawn.
    window.controller.selection.set({"p2.spine-1"})
    window.controller.delete_selection()
    assert scene.layout.plane == 1 and "p2.spine-1" in scene.layout.removed
    assert scene.layout.removed_in("spine") == 1
    assert [legend.plane_box.itemText(i) for i in range(legend.plane_box.count())] == ["Plane 1", "Plane 2 (edited)"]
    stack = [texts[0] for kind, texts, _ in legend.entries() if kind == "stack"]
    assert stack == ["2 planes, plane 2 drawn; edits in plane 2"]
    legend.plane_box.activated.emit(0)
    assert scene.layout.plane == 0 and scene.layout.removed_in("spine") == 0
    window.document.undo_stack.undo()
    assert scene.layout.plane == 0 and scene.layout.differing == ()
    assert legend.plane_box.itemText(1) == "Plane 2"


def test_a_finding_in_another_plane_brings_that_plane_up(open_window, qtbot):
    design = load_design(TWO_PLANES)
    window = open_window(design, TWO_PLANES)
    assert window.scene.layout.plane == 0
    window.view.focus_element("p2.leaf-3")
    assert window.scene.layout.plane == 1


@pytest.mark.parametrize("example", ["dgx-h100-superpod-1su.json", "k64-fat-tree-hosts.json",
                                     "b300-roce-two-plane.json"])
def test_no_legend_entry_is_cut_at_1280x800(make_window, qtbot, example):
    design = load_design(EXAMPLES / example)
    edits = (Edit("add-links", "leaf-1", "spine-2"), Edit("remove-device", "spine-3"))
    if "two-plane" in example:
        edits = tuple(dataclasses.replace(e, a=f"p1.{e.a}", b=f"p1.{e.b}" if e.b else "") for e in edits)
    window = make_window(dataclasses.replace(design, edits=edits), EXAMPLES / example)
    window.resize(1280, 800)
    window._initial_dock_sizes()
    qtbot.wait(50)
    legend = window.view.legend
    placed = legend.arrange()
    assert legend.hidden == []
    assert len(placed) == len(legend.entries())
    from PySide6.QtGui import QFontMetricsF

    from designer.ui.canvas.tier_item import label_font

    fm = QFontMetricsF(label_font(8.5))
    for _kind, text, _, x, line in placed:
        end = x + 30 + fm.horizontalAdvance(text)
        limit = legend.plane_box.x() if legend.plane_box.isVisible() and line == 0 else legend.width()
        assert end <= limit, f"'{text}' ends at {end:.0f}px, past {limit}px"
    assert legend.height() == legend.HEIGHT * (1 + max(line for *_, line in placed))


def test_a_failure_is_drawn_in_the_plane_it_happened_in(open_window, qtbot):
    window = open_window(load_design(TWO_PLANES), TWO_PLANES)
    overlay = window.fail_mode.overlay
    overlay.show_failure(("p2.spine-1",), ())
    failure = window.scene.link_failure
    assert failure.devices == {} and failure.other_planes == {"spine": frozenset({0})}
    legend = [labels[0] for _, labels, _ in window.view.legend.entries()]
    assert "Failed in another plane only (plane 1 drawn)" in legend
    window.view.legend.plane_box.activated.emit(1)
    failure = window.scene.link_failure
    assert failure.devices == {"spine": frozenset({0})} and failure.other_planes == {}
    assert failure.any_links


def test_a_link_dragged_in_plane_2_goes_into_plane_2(open_window, qtbot):
    window = open_window(load_design(TWO_PLANES), TWO_PLANES)
    window.view.legend.plane_box.activated.emit(1)
    scene = window.scene
    a, b = scene.device_id("leaf", 0), scene.device_id("spine", 2)
    assert (a, b) == ("p2.leaf-1", "p2.spine-3")
    assert window.controller.connect_devices(a, b)
    assert [m[1:] for m in scene.layout.manual_links] == [("p2.leaf-1", "p2.spine-3", 1)]
    window.view.legend.plane_box.activated.emit(0)
    assert scene.layout.manual_links == ()
