"""The metric cards follow the selected network, and a Whole cluster card totals every network."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.networks.bom import cluster_bom_json, compute_switch_count, network_boms
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import default_prices
from designer.model.topology.derive import derive
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("network-cards-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("network-cards-window")


GB300 = Path(__file__).resolve().parent.parent / "examples" / "gb300-nvl72-8rack.json"


def _expected(design):
    catalog = default_catalog()
    bom = build_bom(derive(design, catalog), catalog)
    sections = network_boms(design, catalog, default_prices(), compute_switch_count(bom))
    return bom, sections, cluster_bom_json(bom, sections)["cluster_total"]


def test_the_whole_cluster_card_totals_every_network(open_window):
    design = load_design(GB300)
    assert len(design.networks) >= 3
    window = open_window(design)
    bom, sections, total = _expected(design)
    card = window.metrics.cards["cluster"]
    counts = total["counts_by_category"]
    detail = card.detail.text()
    assert f"{counts['Switches']:,} switches" in detail
    assert f"{counts['Copper cables'] + counts['Fiber']:,} cables" in detail
    assert f"{counts['Transceivers']:,} transceivers" in detail
    assert counts["Switches"] > sum(i.quantity for i in bom.by_category("Switches"))   # more than the fabric
    assert "out-of-band" in card.toolTip().lower() and "storage" in card.toolTip().lower()
    assert window.metrics.cards["cluster"].value.text() != window.metrics.cards["cost"].value.text()


def test_the_cards_follow_the_selected_network_and_come_back(open_window):
    design = load_design(GB300)
    window = open_window(design)
    cards = window.metrics.cards
    fabric_switches = cards["switches"].value.text()
    _, sections, _ = _expected(design)
    oob = next(s for s in sections if s.size.role == "oob")
    window.controller.set_network("oob")
    assert cards["switches"].value.text() == f"{sum(g.count for g in oob.size.switches):,}"
    assert cards["switches"].value.text() != fabric_switches
    assert cards["bisection"].detail.text() == "compute fabric only"
    assert "out-of-band" in window.metrics.status.text().lower()
    window.controller.set_network("compute")
    assert cards["switches"].value.text() == fabric_switches
    assert cards["bisection"].detail.text() != "compute fabric only"


def test_the_report_has_a_whole_cluster_page_with_the_same_totals(qapp, tmp_path, capsys):
    from pypdf import PdfReader

    from designer.cli.main import main

    out = tmp_path / "r.pdf"
    assert main(["report", str(GB300), "-o", str(out)]) == 0
    pages = [" ".join(p.extract_text().split()) for p in PdfReader(out).pages]
    page = next(p for p in pages if p.startswith("GB300") and "Whole cluster every network together" in p)
    _, _, total = _expected(load_design(GB300))
    counts = total["counts_by_category"]
    cables = counts["Copper cables"] + counts["Fiber"]
    assert f"Whole cluster {counts['Switches']:,} {cables:,} {counts['Transceivers']:,}" in page
    assert "Out-of-band management" in page and "Compute (east-west)" in page


def test_the_oob_view_is_drawn_per_rack_and_readable_at_fit(make_window):
    from PySide6.QtWidgets import QGraphicsTextItem

    design = load_design(GB300)
    window = make_window(design)
    window.resize(1280, 800)
    window.controller.set_network("oob")
    scene = window.network_scene
    texts = [i.toPlainText() for i in scene.items() if isinstance(i, QGraphicsTextItem)]
    racks = scene.size.racks
    assert racks == 8
    assert sum(1 for t in texts if t.startswith("Rack ") and t.endswith("2 switches")) == racks
    # one line per rack from its switches to the endpoints, not one per switch and endpoint
    assert scene.drawn_bundles and all(lines <= racks for lines, _ in scene.drawn_bundles)
    # fitted to a 1280x800 window's canvas, the scene's text is no smaller than 8 pixels
    from designer.ui.canvas.network_view import NetworkView

    view = window.findChild(NetworkView)
    view.resize(660, 420)
    view._fit()
    scale = view.transform().m11()
    font = next(i for i in scene.items() if isinstance(i, QGraphicsTextItem)).font()
    assert font.pointSizeF() * 96 / 72 * scale >= 8.0, scale


def test_every_out_of_band_bundle_has_its_count_and_each_rack_its_own(open_window):
    from designer.model.networks.sizing import PDUS_PER_RACK, servers_per_rack

    design = load_design(GB300)
    window = open_window(design)
    window.controller.set_network("oob")
    scene = window.network_scene
    size = scene.size
    links = {g.kind: g for g in size.links}
    server = default_catalog().server(design.cluster.server)
    # The model's count for each rack: its servers' BMC ports, its other management ports, its PDUs.
    rack = servers_per_rack(design, server)
    bmc = links["BMC"].count // design.cluster.servers
    expected = [min(rack, design.cluster.servers - k * rack) * bmc + server.rack_mgmt_ports + PDUS_PER_RACK
                for k in range(size.racks)]
    assert list(size.rack_links) == expected
    assert all(text for _, text in scene.drawn_bundles)                  # no bundle without its count
    assert all(" x " in text and "G" in text for _, text in scene.drawn_bundles)
    racked = [labels for labels in scene.rack_labels if labels]
    assert len(racked) == 1 and len(racked[0]) == size.racks == 8
    assert racked[0] == [f"{n} x {links['BMC'].gbps}G" for n in expected]
    texts = {i.toPlainText() for i in scene.items() if hasattr(i, "toPlainText")}
    assert set(racked[0]) <= texts                                       # drawn on the canvas
    # The in-band view (a segment on the converged network) counts per rack too.
    window.controller.set_network("inband")
    assert [labels for labels in scene.rack_labels if labels]


def test_a_networks_link_classes_are_never_cut_off_in_their_card(make_window, qtbot):
    """The converged network has three link classes: at 1280x800 the Links card shows those that
    fit its lines and counts the rest, with every class in its tooltip, never half a line."""
    design = load_design(GB300)
    window = make_window(design)
    window.resize(1280, 800)
    _, sections, _ = _expected(design)
    role = next(s.size.role for s in sections if len(s.size.links) >= 3)
    window.controller.set_network(role)
    size = next(s.size for s in sections if s.size.role == role)
    card = window.metrics.cards["links"]
    qtbot.waitUntil(lambda: card.value.text() == f"{sum(g.count for g in size.links):,}")
    label = card.detail
    fm = label.fontMetrics()
    whole = " · ".join(f"{g.count:,} × {g.gbps:g}G {g.kind}" for g in size.links)
    shown = label.text()
    lines = max(2, label.height() // fm.lineSpacing())
    rect = fm.boundingRect(0, 0, label.width(), 10_000, int(Qt.TextFlag.TextWordWrap), shown)
    assert rect.height() <= lines * fm.lineSpacing()
    if shown != whole:
        assert label.toolTip() == whole
        hidden = len(size.links) - len(shown.split(" · ")) + 1
        short = " · ".join(f"{g.count:,} {g.kind}" for g in size.links)   # the speeds in the tooltip
        assert (shown == short
                or shown.endswith(f"+{hidden} more")
                and shown.split(" · ")[0] in (whole.split(" · ")[0], short.split(" · ")[0])
                or shown == f"{len(size.links)} kinds, each in the tooltip")
    # Narrowed to the smallest card, still no cut line; widened again, the whole detail comes back.
    card.setFixedWidth(card.minimumWidth())
    qtbot.waitUntil(lambda: label.text() != whole and label.toolTip() == whole)
    rect = fm.boundingRect(0, 0, label.width(), 10_000, int(Qt.TextFlag.TextWordWrap), label.text())
    assert rect.height() <= max(2, label.height() // fm.lineSpacing()) * fm.lineSpacing()
    card.setMinimumWidth(0)
    card.setMaximumWidth(16_777_215)
    card.setFixedWidth(900)
    qtbot.waitUntil(lambda: label.text() == whole)
