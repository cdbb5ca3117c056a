"""Links through failed switches, and failed cables, are drawn failed; the legend says so."""

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from designer.io.project import load_design
from designer.ui.canvas.bundle_item import _failure_pairs
from designer.ui.canvas.layout import compute_layout
from designer.ui.canvas.link_failure import LinkFailure
from designer.ui.canvas.lod import BLOCK, DEVICE, ROW
from tests.helpers import derived
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("failed-links-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("failed-links-window")


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _layout(name):
    d = derived(load_design(EXAMPLES / name))
    return compute_layout(d.design, d.resolved, d.plan)


def _red_pixels(window) -> int:
    """Pixels in the error colour between the spine and leaf rows of the canvas."""
    view, layout = window.view, window.scene.layout
    top = view.mapFromScene(QPointF(0, layout.rows["spine"].y + 30)).y()
    bottom = view.mapFromScene(QPointF(0, layout.rows["leaf"].y - 30)).y()
    image = view.viewport().grab().toImage()
    error = QColor(window.theme.error)
    count = 0
    for y in range(max(0, top), min(image.height(), bottom), 2):
        for x in range(0, image.width(), 2):
            c = image.pixelColor(x, y)
            if abs(c.red() - error.red()) < 40 and abs(c.green() - error.green()) < 40 \
                    and abs(c.blue() - error.blue()) < 40:
                count += 1
    return count


def test_links_of_a_failed_spine_are_drawn_failed_until_esc(open_window, qtbot):
    window = open_window(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"))
    assert _red_pixels(window) == 0
    window.controller.selection.set({"spine-2"})
    window.fail_mode.fail_action.trigger()
    failure = window.scene.link_failure
    assert failure is not None and failure.devices == {"spine": frozenset({1})}
    links, failed = failure.failed_links("leaf")
    a, b, _ = failure.layout.link_arrays("leaf")
    assert failed.sum() == links[b == 1].sum() == 8 * 8       # every leaf's links to spine-2
    assert not failed[b != 1].any()
    assert not failure.touches("servers")                      # server links do not reach spines
    kinds = [labels[0] for _, labels, _ in window.view.legend.entries()]
    assert "Failed switch" in kinds and "Failed link" in kinds
    qtbot.waitUntil(lambda: _red_pixels(window) > 50)
    window.fail_mode.restore()
    assert window.scene.link_failure is None
    assert "Failed link" not in [labels[0] for _, labels, _ in window.view.legend.entries()]
    window.view.viewport().repaint()
    assert _red_pixels(window) == 0


def test_a_design_change_draws_every_link_live_again(open_window):
    from tests.helpers import superpod
    window = open_window(superpod(1))
    window.controller.selection.set({"leaf-3"})
    window.fail_mode.fail_action.trigger()
    failure = window.scene.link_failure
    assert failure.touches("servers") and failure.touches("leaf")
    assert "Server with GPUs cut off" in [labels[0] for _, labels, _ in window.view.legend.entries()]
    window.document.set_design(superpod(2))
    assert window.scene.link_failure is None
    assert window.view.legend.failure is None


def test_a_switch_failed_only_in_plane_two_leaves_plane_one_links_live():
    layout = _layout("b300-roce-two-plane.json")
    failure = LinkFailure.build(layout, ["p2.spine-3", "p1.spine-5"])
    assert failure.devices == {"spine": frozenset({4})}
    assert failure.other_planes == {"spine": frozenset({2})}
    a, b, links = layout.link_arrays("leaf")
    _, failed = failure.failed_links("leaf")
    assert failed.sum() == links[b == 4].sum() and not failed[b == 2].any()


def test_failed_cables_take_down_their_links_only():
    layout = _layout("dgx-h100-superpod-1su.json")
    failure = LinkFailure.build(layout, [], cables=[("spine-2", "leaf-1"), ("srv-4.nic-3", "leaf-3")])
    assert failure.any_links and not failure.devices
    a, b, links = layout.link_arrays("leaf")
    _, failed = failure.failed_links("leaf")
    assert failed.sum() == 1 and failed[(a == 0) & (b == 1)].sum() == 1
    a, b, links = layout.link_arrays("servers")
    _, failed = failure.failed_links("servers")
    assert failed.sum() == 1 and failed[(a == 3) & (b == 2)].sum() == 1


def test_drawn_bundles_add_up_at_every_level_of_detail():
    layout = _layout("ndr-8k-fat-tree.json")
    failure = LinkFailure.build(layout, [f"spine-{i}" for i in range(33, 65)])
    for lower, upper in (("leaf", "spine"), ("spine", "core")):
        links, failed = failure.failed_links(lower)
        assert failed.sum() > 0
        for lod_lo in (DEVICE, BLOCK, ROW):
            for lod_up in (DEVICE, BLOCK, ROW):
                xa, xb, live, down = _failure_pairs(failure, lower, layout.rows[lower], layout.rows[upper],
                                                    lod_lo, lod_up)
                assert np.isclose(live.sum() + down.sum(), links.sum())
                assert np.isclose(down.sum(), failed.sum())
                assert len(xa) == len(xb) == len(live)
