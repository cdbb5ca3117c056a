"""The inspector says which port mode the fabric's switches run their cages in."""

from __future__ import annotations

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design

CAT = default_catalog()


def test_the_inspector_shows_a_split_port_mode(make_window):
    design = new_design(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                        uplink_speed=800)
    window = make_window(design)
    text = window.inspector.fabric_page.port_mode.text()
    assert text == "512 x 200G to the servers, 128 x 800G between switches"


def test_the_inspector_shows_one_mode_when_every_link_runs_it(make_window):
    window = make_window(new_design(CAT, "rail-optimized", nodes=64, server="dgx-h100", technology="ib-ndr"))
    assert window.inspector.fabric_page.port_mode.text() == "64 x 400G"
