"""Liquid cooling as a rack attribute in the window: the canvas marks the rows of liquid-cooled
servers and switches (a droplet and a band), the legend and the row headers say so, the tooltip
and the inspector name the parts; an air-cooled design shows none of it."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design
from designer.ui.theme import COOLANT_HUE
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("liquid-cooling-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("liquid-cooling-window")


CAT = default_catalog()


def _coolant_pixels(widget) -> int:
    """Pixels of the canvas painted in the coolant colour exactly (the mark's opaque core)."""
    image = widget.grab().toImage()
    want = QColor(COOLANT_HUE).rgb()
    return sum(1 for y in range(image.height()) for x in range(image.width()) if image.pixel(x, y) == want)


def test_a_gb300_nvl72_design_marks_its_liquid_cooled_racks(open_window):
    design = new_design(CAT, "rail-optimized", gpus=1152, server="gb300-nvl72-tray", technology="ib-xdr")
    window = open_window(design)
    layout = window.scene.layout
    assert layout.rows["servers"].liquid_cooled
    assert not layout.rows["leaf"].liquid_cooled   # Q3400 takes pluggable optics, air-cooled
    kinds = {kind: texts[0] for kind, texts, _ in window.view.legend.entries()}
    assert kinds["coolant"] == "Liquid-cooled racks"
    assert "Liquid-cooled racks" in window.controller.describe("tier:servers")
    assert "liquid-cooled rack" in window.controller.describe(window.scene.device_id("servers", 0))
    assert "liquid-cooled" not in window.controller.describe("tier:leaf").lower()
    page = window.inspector.fabric_page
    assert page.cooling.text() == "liquid-cooled server racks" and page.form.isRowVisible(page.cooling)
    assert CAT.server("gb300-nvl72-tray").name in page.cooling.toolTip()
    assert _coolant_pixels(window.view.viewport()) > 20


def test_a_cpo_switch_marks_the_network_racks(open_window):
    design = new_design(CAT, "rail-optimized", gpus=2048, server="dgx-b300-xdr", technology="ib-xdr",
                        switch="q3450-ld")
    window = open_window(design)
    rows = window.scene.layout.rows
    assert not rows["servers"].liquid_cooled
    assert all(rows[tier].liquid_cooled for tier in rows if tier != "servers")
    assert window.inspector.fabric_page.cooling.text() == "liquid-cooled network racks"


def test_an_air_cooled_dgx_h100_design_has_no_mark(open_window):
    window = open_window(new_design(CAT, "rail-optimized", gpus=1024, server="dgx-h100"))
    layout = window.scene.layout
    assert not any(row.liquid_cooled for row in layout.rows.values())
    assert "coolant" not in {kind for kind, *_ in window.view.legend.entries()}
    assert "Liquid-cooled" not in window.controller.describe("tier:servers")
    page = window.inspector.fabric_page
    # Nothing to say: the row stays hidden, so the form keeps its height at 1280x800.
    assert page.cooling.text() == "air-cooled" and not page.form.isRowVisible(page.cooling)
    assert _coolant_pixels(window.view.viewport()) == 0


def test_the_exported_diagram_and_report_mark_liquid_cooled_racks(qapp):
    import io

    from pypdf import PdfReader

    from designer.ui.export.diagram import DiagramSource
    from designer.ui.export.report import Report
    from designer.ui.theme import Theme

    gb300 = new_design(CAT, "rail-optimized", gpus=1152, server="gb300-nvl72-tray", technology="ib-xdr")
    h100 = new_design(CAT, "rail-optimized", gpus=1024, server="dgx-h100")
    theme = Theme()
    assert ("coolant", "Liquid-cooled racks", theme.coolant) in DiagramSource(gb300, CAT).legend_entries(theme)
    assert "coolant" not in [kind for kind, *_ in DiagramSource(h100, CAT).legend_entries(theme)]
    first = PdfReader(io.BytesIO(Report(gb300).render()[0])).pages[0].extract_text()
    assert "Liquid-cooled racks" in " ".join(first.split())
    first = PdfReader(io.BytesIO(Report(h100).render()[0])).pages[0].extract_text()
    assert "Liquid-cooled" not in first
