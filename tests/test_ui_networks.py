"""The window draws each network of the cluster and edits it through the one undo stack."""

from __future__ import annotations

import dataclasses

import pytest

from designer.catalog import default_catalog
from designer.model.networks.defaults import ra_networks
from designer.model.topology.presets import new_design
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("networks-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("networks-window")


CAT = default_catalog()


def _superpod():
    design = new_design(CAT, "rail-optimized", nodes=128, server="dgx-h100")
    return dataclasses.replace(design, networks=ra_networks(CAT.server("dgx-h100")))


def test_the_compute_fabric_is_the_default_view_and_the_selector_lists_every_network(open_window):
    window = open_window(_superpod())
    selector = window.network_selector
    assert window.controller.network == "compute"
    assert window.canvas_stack.currentWidget() is window.view
    roles = [selector.itemData(i) for i in range(selector.count())]
    assert roles == ["compute", "storage", "inband", "oob"]


def test_choosing_a_network_draws_it_and_shows_its_form(open_window):
    window = open_window(_superpod())
    selector = window.network_selector
    selector.setCurrentIndex(selector.findData("storage"))
    assert window.controller.network == "storage"
    assert window.canvas_stack.currentWidget() is window.network_view
    scene = window.network_scene
    assert [r.key for r in scene.rows] == ["spine", "leaf", "servers"]
    assert [r.count for r in scene.rows] == [4, 8, 128]
    assert window.inspector.stack.currentWidget() is window.inspector.network_page
    assert "8 leaf" in window.inspector.network_page.summary.text()
    # back to the compute fabric: its canvas again, nothing pushed on the undo stack
    selector.setCurrentIndex(0)
    assert window.canvas_stack.currentWidget() is window.view
    assert window.document.undo_stack.count() == 0


def test_a_network_edit_is_one_undo_step_and_redraws_the_network(open_window):
    window = open_window(_superpod())
    window.controller.set_network("storage")
    page = window.inspector.network_page
    page.ratio.setValue(3.0)
    assert window.document.design.network("storage").oversubscription == 3.0
    assert window.document.undo_stack.count() == 1
    leaves = window.network_scene.rows[1].count
    assert leaves < 8            # fewer, fuller leaf pairs at 3:1
    window.document.undo_stack.undo()
    assert window.document.design.network("storage").oversubscription == 1.0
    assert window.network_scene.rows[1].count == 8


def test_the_fabric_form_switches_the_arrangement_and_undo_brings_it_back(open_window):
    window = open_window(_superpod())
    page = window.inspector.fabric_page
    box = page.networks
    box.setCurrentIndex(box.findData("compute"))
    assert window.document.design.networks == ()
    assert window.network_selector.count() == 1 and not window.network_selector.isEnabled()
    window.document.undo_stack.undo()
    assert [n.role for n in window.document.design.networks] == ["storage", "inband", "oob"]
    box = window.inspector.fabric_page.networks
    assert box.findData("merged") < 0          # merging needs an Ethernet compute fabric
    box.setCurrentIndex(box.findData("hybrid"))
    assert [n.role for n in window.document.design.networks] == ["converged", "inband", "oob"]


def test_an_ethernet_design_offers_the_merged_arrangement(open_window):
    design = new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100", technology="roce-400g")
    window = open_window(dataclasses.replace(design, networks=ra_networks(CAT.server("hgx-h100"))))
    box = window.inspector.fabric_page.networks
    box.setCurrentIndex(box.findData("merged"))
    assert window.document.design.network("converged").template == "merged"
    window.controller.set_network("converged")
    assert window.network_scene.rows[0].title.startswith("compute fabric leaves")


def test_the_view_falls_back_to_compute_when_the_shown_network_goes_away(open_window):
    window = open_window(_superpod())
    window.controller.set_network("oob")
    assert window.network_scene.rows[-1].key == "endpoints"
    page = window.inspector.fabric_page
    window.controller.set_network("compute")
    page.networks.setCurrentIndex(page.networks.findData("compute"))
    window.controller.set_network("oob")       # no such network any more: stays on compute
    assert window.controller.network == "compute"
    assert window.canvas_stack.currentWidget() is window.view


def test_expected_interruptions_list_each_networks_failures_after_the_compute_fabrics(open_window):
    from designer.model.decisions.interruptions import interruptions
    from designer.model.networks.resilience import design_resilience
    from designer.model.topology.derive import derive

    design = _superpod()
    window = open_window(design)
    window.fail_mode.interruptions_action.trigger()
    panel = window.interruptions
    compute = interruptions(derive(design, CAT))
    networks = design_resilience(derive(design, CAT), CAT)
    table = panel.expected
    kinds = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert kinds[:len(compute.expected)] == [e.rate.label for e in compute.expected]
    assert kinds[len(compute.expected):] == [f"{n.size.label}: {e.rate.label}" for n in networks for e in n.expected]
    stops = {panel.stops.item(r, 0).text(): panel.stops.item(r, 1).text() for r in range(panel.stops.rowCount())}
    assert stops["Storage: leaf"] == "job continues"
    assert "Out-of-band management: one management" in panel.notes.text()


def test_a_gb300_nvl72_design_shows_in_band_as_a_segment_of_the_converged_network(open_window):
    design = new_design(CAT, "rail-optimized", gpus=576, server="gb300-nvl72-tray")
    window = open_window(dataclasses.replace(design, networks=ra_networks(CAT.server("gb300-nvl72-tray"))))
    selector = window.network_selector
    roles = [selector.itemData(i) for i in range(selector.count())]
    assert roles == ["compute", "converged", "inband", "oob"]
    assert selector.itemText(roles.index("inband")) == "In-band management"
    selector.setCurrentIndex(selector.findData("inband"))
    assert window.canvas_stack.currentWidget() is window.network_view
    rows = window.network_scene.rows
    assert [(r.key, r.count) for r in rows] == [("leaf", 0), ("servers", 144)]
    assert rows[0].title == "carried by Converged / storage (north-south)"
    summary = window.inspector.network_page.summary.text()
    assert "no switches or cables of its own" in summary and "288 x 400G" in summary
    assert not window.inspector.network_page.form.isRowVisible(window.inspector.network_page.switch)
    assert window.document.undo_stack.count() == 0
    # the converged network that carries it keeps its own switches and its form
    selector.setCurrentIndex(selector.findData("converged"))
    assert window.network_scene.rows[-1].key == "servers" and window.network_scene.rows[1].count > 0
    assert window.inspector.network_page.form.isRowVisible(window.inspector.network_page.switch)


def test_the_compare_window_prices_the_cluster_networks_and_the_arrangements(qtbot):
    from designer.model.networks.arrangements import arrangements
    from designer.model.networks.defaults import converged_networks
    from designer.model.physical.prices import default_prices
    from designer.ui.compare.compare_window import CompareWindow, Entry

    ib = new_design(CAT, "rail-optimized", gpus=576, server="gb300-nvl72-tray")
    ib = dataclasses.replace(ib, networks=ra_networks(CAT.server("gb300-nvl72-tray")))
    eth = new_design(CAT, "rail-optimized", gpus=576, server="gb300-nvl72-tray-eth")
    eth = dataclasses.replace(eth, networks=converged_networks(CAT.server("gb300-nvl72-tray-eth"), merged=True))
    window = CompareWindow(CAT, synchronous=True)
    qtbot.addWidget(window)
    assert window.set_entries([Entry(ib), Entry(eth)])
    table = window.network_costs
    assert table.isVisibleTo(window)
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    expected = arrangements(ib, CAT, default_prices())
    assert len(labels) == len(expected) + 1 and labels[0].startswith("[1] ") and labels[-1].startswith("[2] ")
    assert any("merged" in label for label in labels) and any("separate compute" in label for label in labels)
    for r, option in enumerate(expected):
        if option.available:
            assert table.item(r, 3).text() == f"${option.total_cost:,.0f}"
            assert table.item(r, 4).text() == f"{option.total_power_w / 1000:,.1f} kW"
    # compute-only designs: no networks to price, the table hides
    plain = [dataclasses.replace(ib, networks=()), dataclasses.replace(eth, networks=())]
    assert window.set_entries([Entry(d) for d in plain])
    assert not table.isVisibleTo(window) and table.rowCount() == 0


def test_the_segment_caption_and_the_oob_switches_per_rack_say_what_they_mean(make_window):
    from PySide6.QtWidgets import QGraphicsTextItem

    design = new_design(CAT, "rail-optimized", gpus=576, server="gb300-nvl72-tray")
    window = make_window(dataclasses.replace(design, networks=ra_networks(CAT.server("gb300-nvl72-tray"))))
    selector = window.network_selector
    selector.setCurrentIndex(selector.findData("inband"))
    texts = [i.toPlainText() for i in window.network_scene.items() if isinstance(i, QGraphicsTextItem)]
    carrier = next(t for t in texts if t.startswith("carried by"))
    assert ": 0" not in carrier and carrier.endswith("(no switches of its own)")
    selector.setCurrentIndex(selector.findData("oob"))
    page = window.inspector.network_page
    assert page.per_rack.value() == 0 and page.per_rack.text() == "As the RA gives it (2)"
    plain = new_design(CAT, "rail-optimized", nodes=32, server="dgx-h100")
    window = make_window(dataclasses.replace(plain, networks=ra_networks(CAT.server("dgx-h100"))))
    window.network_selector.setCurrentIndex(window.network_selector.findData("oob"))
    assert window.inspector.network_page.per_rack.text() == "By port count"
