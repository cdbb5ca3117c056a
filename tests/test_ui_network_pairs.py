"""The converged network's canvas draws each leaf pair to the racks the model gives it."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.networks.sizing import servers_per_rack
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("network-pairs-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("network-pairs-window")


GB300 = Path(__file__).resolve().parent.parent / "examples" / "gb300-nvl72-8rack.json"


def _texts(scene):
    from PySide6.QtWidgets import QGraphicsTextItem

    return [i.toPlainText() for i in scene.items() if isinstance(i, QGraphicsTextItem)]


def _lines_between(scene, y_top: float, y_bottom: float):
    from PySide6.QtWidgets import QGraphicsLineItem

    found = []
    for item in scene.items():
        if isinstance(item, QGraphicsLineItem):
            line = item.line()
            if abs(line.y1() - y_top) < 0.5 and abs(line.y2() - y_bottom) < 0.5:
                found.append((line.x1(), line.x2()))
    return found


def test_each_leaf_pair_is_drawn_to_the_racks_it_serves(open_window):
    from designer.ui.canvas.network_view import BOX_H, ROW_GAP

    design = load_design(GB300)
    window = open_window(design)
    window.controller.set_network("converged")
    scene = window.network_scene
    size = scene.size
    server = default_catalog().server(design.cluster.server)
    rack = servers_per_rack(design, server)
    per_pair = int(size.extra["servers_per_pair"])
    pairs = next(g.count for g in size.switches if g.tier == "leaf") // 2
    # Racks each pair serves, from the pair's size and the rack's (not read back from the drawing).
    expected = [math.ceil(min(per_pair, design.cluster.servers - p * per_pair) / rack) for p in range(pairs)]
    assert expected == [3, 3, 2]
    assert scene.pair_lines == expected
    leaf_row = next(i for i, r in enumerate(scene.rows) if r.key == "leaf")
    server_row = next(i for i, r in enumerate(scene.rows) if r.key == "servers")
    lines = _lines_between(scene, leaf_row * ROW_GAP + BOX_H, server_row * ROW_GAP)
    assert len(lines) == sum(expected) == size.racks          # one line per rack, not every leaf to every rack
    assert len({round(x2) for _, x2 in lines}) == size.racks  # each rack reached once
    assert len({round(x1) for x1, _ in lines}) == pairs       # from its pair's box
    texts = _texts(scene)
    boxes = sorted(t for t in texts if t.startswith("Leaf pair"))
    assert boxes == ["Leaf pair 1\nracks 1-3", "Leaf pair 2\nracks 4-6", "Leaf pair 3\nracks 7-8"]
    ports = next(g for g in size.links if g.kind == "server-leaf")
    per_rack = f"{rack * ports.count // design.cluster.servers} x {ports.gbps}G"
    assert sum(1 for t in texts if t == per_rack) == size.racks              # each rack's count on its line
    assert any(t.startswith(f"{ports.count:,} x {ports.gbps}G server-leaf") and "racks per leaf pair" in t
               for t in texts)
    # Spines reach every leaf pair: the leaf-spine bundle is a full mesh.
    spines = next(g.count for g in size.switches if g.tier == "spine")
    spine_row = next(i for i, r in enumerate(scene.rows) if r.key == "spine")
    assert len(_lines_between(scene, spine_row * ROW_GAP + BOX_H, leaf_row * ROW_GAP)) == spines * pairs


def test_the_pairs_view_is_readable_at_fit_in_a_1280x800_window(make_window):
    from PySide6.QtWidgets import QGraphicsTextItem

    from designer.ui.canvas.network_view import NetworkView

    window = make_window(load_design(GB300))
    window.resize(1280, 800)
    window.controller.set_network("converged")
    view = window.findChild(NetworkView)
    view.resize(660, 420)
    view._fit()
    scale = view.transform().m11()
    fonts = [i.font().pointSizeF() for i in window.network_scene.items() if isinstance(i, QGraphicsTextItem)]
    assert min(fonts) * 96 / 72 * scale >= 8.0, scale


def test_many_racks_are_drawn_as_each_pair_s_group(open_window):
    design = load_design(GB300)
    design = dataclasses.replace(design, cluster=dataclasses.replace(design.cluster, servers=18 * 40))
    window = open_window(design)
    window.controller.set_network("converged")
    scene = window.network_scene
    pairs = len(scene.size.pair_racks)
    assert scene.size.racks == 40 and pairs <= 24
    assert scene.pair_lines == [1] * pairs                      # one line from each pair to its own group
    texts = _texts(scene)
    assert "Racks 1-3\n54 servers" in texts and "Rack 40\n18 servers" in texts
    assert sum(1 for t in texts if t.startswith("Rack")) == pairs


def test_an_edit_and_its_undo_redraw_the_pairs(open_window):
    from designer.ui.editing.commands import DesignCommand

    design = load_design(GB300)
    window = open_window(design)
    window.controller.set_network("converged")
    scene = window.network_scene
    bigger = dataclasses.replace(design, cluster=dataclasses.replace(design.cluster, servers=18 * 12))
    window.document.push(DesignCommand(window.document, bigger, "More racks"))
    assert scene.size.racks == 12 and scene.pair_lines == [3, 3, 3, 3]
    window.document.undo_stack.undo()
    assert scene.pair_lines == [3, 3, 2]


def test_current_view_exports_the_network_shown_with_its_pairs(open_window, qtbot, tmp_path):
    from tests.test_ui_export_actions import exported

    window = open_window(load_design(GB300), GB300)
    window.controller.set_network("converged")
    svg = exported(window, qtbot, "view_svg", tmp_path / "converged.svg").read_text()
    for text in ("Leaf pair 1", "racks 1-3", "Leaf pair 3", "racks 7-8", "Rack 8", "36 x 400G",
                 "2-3 racks per leaf pair"):
        assert text in svg, text
    assert "Converged / storage" in svg
    png = exported(window, qtbot, "view_png", tmp_path / "converged.png")
    assert png.read_bytes().startswith(b"\x89PNG")
    # Back on the compute fabric, the current view is the fabric's diagram again.
    window.controller.set_network("compute")
    fabric = exported(window, qtbot, "view_svg", tmp_path / "fabric.svg").read_text()
    assert "Leaf pair 1" not in fabric


def test_another_networks_picture_is_drawn_on_the_ui_thread(open_window, qtbot, tmp_path, monkeypatch):
    """A network's figure is a QGraphicsScene of text items, which Qt makes on the GUI thread
    only (built on the export's worker it could hang the window): SVG, PDF, PNG and the copied
    diagram of the network shown are drawn on the UI thread, and the files are still written."""
    import threading

    from PySide6.QtGui import QGuiApplication

    from designer.ui.export import network_figure
    from tests.test_ui_export_actions import exported

    threads = []
    made = network_figure.NetworkFigure.__init__

    def noting(self, *args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        made(self, *args, **kwargs)

    monkeypatch.setattr(network_figure.NetworkFigure, "__init__", noting)
    window = open_window(load_design(GB300), GB300)
    window.controller.set_network("converged")
    for fmt in ("svg", "pdf", "png"):
        path = exported(window, qtbot, f"view_{fmt}", tmp_path / f"converged.{fmt}")
        assert path.stat().st_size > 1000, fmt
    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(window.exports.finished, timeout=60_000) as blocker:
        window.exports.actions["copy_diagram"].trigger()
    assert blocker.args == ["clipboard", ""]
    assert b"Leaf pair 1" in bytes(QGuiApplication.clipboard().mimeData().data("image/svg+xml").data())
    QGuiApplication.clipboard().clear()   # the offscreen platform crashes tearing down a filled one
    assert len(threads) >= 5 and all(threads), threads
