"""Catalog currency in the window: the palette names the server a new fabric starts on, and the
inspector's server and switch lists say which parts ship, are announced or are preliminary."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("catalog-currency-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("catalog-currency-window")


def test_the_palette_names_the_newest_shipping_server_of_the_technology(open_window):
    window = open_window()
    palette = window.palette_panel
    index = palette.technology.findData("ib-xdr")
    palette.technology.setCurrentIndex(index)
    note = palette.server_note.text()
    server = default_catalog().server("dgx-b300-xdr")
    assert server.name in note and "shipping since 2025-Q3" in note
    assert "Source:" in palette.server_note.toolTip()


def test_the_inspector_lists_parts_with_their_currency(open_window):
    catalog = default_catalog()
    window = open_window(new_design(catalog, "rail-optimized", gpus=1152, server="gb300-nvl72-tray",
                                    technology="ib-xdr"))
    page = window.inspector.fabric_page
    assert page.server.currentData() == "gb300-nvl72-tray"
    # The quarter on a line of its own (in the choices it made the panel wider than the window)...
    assert page.server.currentText() == catalog.server("gb300-nvl72-tray").name
    assert page.availability.text().startswith("server 2025-Q3 · switch 20")
    assert "Source:" in page.availability.toolTip()
    # ... and the choices say which parts do not ship yet.
    texts = {page.server.itemData(i): page.server.itemText(i) for i in range(page.server.count())}
    assert texts["vera-rubin-nvl72-tray"].endswith("(preliminary)")
    assert texts["generic-8gpu"] == catalog.server("generic-8gpu").name
    switches = {page.switch.itemData(i): page.switch.itemText(i) for i in range(page.switch.count())}
    assert switches["q3450-ld"] == catalog.switch("q3450-ld").name
    assert "estimate" in catalog.switch("q3400").currency_note()


def test_the_network_page_shows_its_management_switch_currency(open_window):
    import dataclasses

    from designer.model.networks.defaults import ra_networks

    catalog = default_catalog()
    design = new_design(catalog, "rail-optimized", nodes=128, server="dgx-h100")
    window = open_window(dataclasses.replace(design, networks=ra_networks(catalog.server("dgx-h100"))))
    selector = window.network_selector
    selector.setCurrentIndex(selector.findData("oob"))
    page = window.inspector.network_page
    switch = catalog.switch(page.switch.currentData())
    assert switch.available, "a management switch states its quarter"
    assert page.availability.text().startswith(f"{switch.name} {switch.available}")
    assert "Source:" in page.availability.toolTip() and "estimate" in page.switch.toolTip()
