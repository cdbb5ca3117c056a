"""Small things a user notices: the save name, the palette's server, the empty busbw plot."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design
from designer.ui.shell.files import file_stem


@pytest.mark.parametrize("name, stem", [
    ("DGX H100 SuperPOD, 4 SU (1,024 GPUs)", "dgx-h100-superpod-4-su-1024-gpus"),
    ("été 1:1", "été-1-1"),
    ("  ", "design"),
    ("../../etc/passwd", "etc-passwd"),
    ("a_b  c", "a-b-c"),
])
def test_the_default_save_name_has_no_commas_or_spaces(name, stem):
    assert file_stem(name) == stem


def test_save_as_suggests_the_clean_name(make_window):
    window = make_window(new_design(default_catalog(), "rail-optimized", nodes=128, server="dgx-h100"))
    asked = []
    window.dialogs.save_path = lambda suggestion="": asked.append(suggestion)   # the user cancels
    window.files.save_as()
    assert asked and " " not in asked[0] and "," not in asked[0] and asked[0].endswith(".json")


def test_the_palette_names_the_open_designs_server(make_window):
    catalog = default_catalog()
    window = make_window(new_design(catalog, "rail-optimized", nodes=64, server="dgx-h100", technology="ib-ndr"))
    assert window.palette_panel.server_note.text().startswith(f"on {catalog.server('dgx-h100').name}")
    window.document.load(new_design(catalog, "rail-optimized", nodes=64, server="dgx-b200", technology="ib-ndr"))
    assert window.palette_panel.server_note.text().startswith(f"on {catalog.server('dgx-b200').name}")


def test_an_empty_busbw_plot_shows_no_tick_values(make_window):
    window = make_window()
    plot = window.plots.busbw
    assert not plot.getAxis("bottom").style["showValues"] and not plot.getAxis("left").style["showValues"]
    assert window.plots.busbw_empty.isVisible()
    window.document.load(new_design(default_catalog(), "leaf-spine", gpus=256))
    assert plot.getAxis("bottom").style["showValues"]
    assert not window.plots.busbw_empty.isVisible()
