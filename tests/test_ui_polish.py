"""Small things a user notices: the save name, the palette's server, the empty busbw plot."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design
from designer.ui.shell.files import file_stem
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("polish-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("polish-window")


@pytest.mark.parametrize("name, stem", [
    ("DGX H100 SuperPOD, 4 SU (1,024 GPUs)", "dgx-h100-superpod-4-su-1024-gpus"),
    ("été 1:1", "été-1-1"),
    ("  ", "design"),
    ("../../etc/passwd", "etc-passwd"),
    ("a_b  c", "a-b-c"),
])
def test_the_default_save_name_has_no_commas_or_spaces(name, stem):
    assert file_stem(name) == stem


def test_save_as_suggests_the_clean_name(open_window):
    window = open_window(new_design(default_catalog(), "rail-optimized", nodes=128, server="dgx-h100"))
    asked = []
    window.dialogs.save_path = lambda suggestion="": asked.append(suggestion)   # the user cancels
    window.files.save_as()
    assert asked and " " not in asked[0] and "," not in asked[0] and asked[0].endswith(".json")


def test_the_palette_names_the_open_designs_server(open_window):
    catalog = default_catalog()
    window = open_window(new_design(catalog, "rail-optimized", nodes=64, server="dgx-h100", technology="ib-ndr"))
    assert window.palette_panel.server_note.text().startswith(f"on {catalog.server('dgx-h100').name}")
    window.document.load(new_design(catalog, "rail-optimized", nodes=64, server="dgx-b200", technology="ib-ndr"))
    assert window.palette_panel.server_note.text().startswith(f"on {catalog.server('dgx-b200').name}")


def test_an_empty_busbw_plot_shows_no_tick_values(open_window):
    window = open_window()
    plot = window.plots.busbw
    assert not plot.getAxis("bottom").style["showValues"] and not plot.getAxis("left").style["showValues"]
    assert window.plots.busbw_empty.isVisible()
    # the note sits whole inside the plot's view, not half outside its corner
    view = plot.getPlotItem().getViewBox()
    note = window.plots.busbw_empty.mapRectToItem(view, window.plots.busbw_empty.boundingRect())
    assert view.boundingRect().contains(note), (note, view.boundingRect())
    window.document.load(new_design(default_catalog(), "leaf-spine", gpus=256))
    assert plot.getAxis("bottom").style["showValues"]
    assert not window.plots.busbw_empty.isVisible()


def test_findings_take_one_line_each_with_the_whole_text_in_the_tooltip(open_window):
    from PySide6.QtCore import Qt

    from designer.model.intent.design import replace_path

    design = replace_path(new_design(default_catalog(), "leaf-spine", gpus=1024), "fabric.leaf.count", 8)
    window = open_window(design)   # 1,024 endpoints on 8 leaves: more ports than a leaf has
    findings = window.metrics.findings
    assert not findings.wordWrap() and findings.textElideMode() == Qt.TextElideMode.ElideRight
    assert findings.count() >= 1
    item = findings.item(0)
    assert item.text() in item.toolTip()
    row = findings.visualItemRect(item)
    assert row.height() <= findings.fontMetrics().lineSpacing() * 2


def test_the_plots_follow_the_dark_theme(open_window):
    window = open_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    window.theme_choice.choose("dark")
    try:
        assert window.theme.dark
        for plot in (window.plots.ports, window.plots.busbw):
            assert plot.backgroundBrush().color() == window.theme.background
            assert plot.getAxis("left").textPen().color() == window.theme.text
    finally:
        window.theme_choice.choose("system")


def test_the_metric_cards_follow_the_theme_both_ways(open_window):
    # The cards' style sheet is set only when it changes: a change of theme must still reach it.
    window = open_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    try:
        for name in ("dark", "light", "dark"):
            window.theme_choice.choose(name)
            assert window.theme.dark == (name == "dark")
            assert f"background: {window.theme.background.name()}" in window.metrics.styleSheet()
    finally:
        window.theme_choice.choose("system")


def test_the_port_bars_have_no_context_menu_and_the_busbw_curve_keeps_its_own(open_window):
    # The bars are fixed (no zoom, no pan), so pyqtgraph's view menu would offer nothing that applies.
    window = open_window()
    ports, busbw = window.plots.ports.getPlotItem(), window.plots.busbw.getPlotItem()
    assert not ports.menuEnabled() and ports.getViewBox().menu is None
    assert busbw.menuEnabled() and busbw.getViewBox().menu is not None
