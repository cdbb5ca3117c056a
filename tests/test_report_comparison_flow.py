"""The report's comparison loses nothing: with five designs, or with source lines that carry
URLs, every row and every line of the recommendation is drawn whole, on continuation pages as
needed, and a table's group heading stays on the page of its rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.counterpart import ETHERNET_CHOICES, make_counterpart, optics_twin
from designer.model.topology.presets import new_design
from tests.helpers import examples

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CAT = default_catalog()


def _five():
    ib = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    made = [make_counterpart(ib, t, CAT).design for t in ETHERNET_CHOICES]
    return ib, made[0], tuple(made[1:])


def _optics_twins():
    plug = new_design(CAT, "rail-optimized", nodes=144, server="dgx-b300-xdr", switch="q3400")
    return plug, optics_twin(plug, CAT).design, ()


def _flat(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("designs", [_five, _optics_twins], ids=["five-designs", "sources-with-urls"])
def test_nothing_on_the_comparison_pages_is_cut(qapp, designs):
    from designer.ui.export.report import Report

    first, other, extra = designs()
    report = Report(first, other, extra=extra, date="2026-01-01")
    _, inks = report.render()
    c = report.comparison
    pages = [ink for ink, section in zip(inks, report.sections, strict=True) if section.startswith("Comparison")]
    assert len(pages) >= 2
    for ink, section in zip(inks, report.sections, strict=True):
        if section.startswith("Comparison"):
            assert ink.elided == [], (section, ink.elided[:3])
    drawn = _flat(" ".join(text for ink in pages for _, text in ink.texts))
    for row in c.rows:
        assert _flat(row.label) in drawn, row.label
    for line in (c.recommendation.verdict, *c.recommendation.reasons, *(f.line() for f in c.recommendation.flips),
                 *c.sources, *c.warnings):
        assert _flat(line) in drawn, line[:80]
    for i, name in enumerate(c.names):
        assert _flat(f"[{i + 1}] {name} ({c.technologies[i]})") in drawn
    # Each group heading of the table shares its page with the group's first row.
    by_group = {}
    for row in c.rows:
        by_group.setdefault(row.group, row.label)
    for group, first_row in by_group.items():
        holding = [ink for ink in pages if any(text == group for _, text in ink.texts)]
        assert holding and _flat(first_row) in _flat(" ".join(t for _, t in holding[0].texts)), group
    if designs is _optics_twins:     # the premise: source lines with URLs, each drawn whole above
        assert c.sources and any("http" in line for line in c.sources)


def test_a_group_heading_never_ends_a_page_and_a_group_that_fits_moves_whole(qapp):
    from designer.ui.export import page
    from designer.ui.export.ink import Ink

    image = QImage(400, 400, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        ink = Ink(painter)
        cols = [page.Column("Metric", 1.0), page.Column("Value", 1.0)]
        rows = [("A",), ("a1", "1"), ("a2", "2"), ("B",), ("b1", "1"), ("b2", "2"), ("b3", "3")]
        styles = ["group", "", "", "group", "", "", ""]
        line = page.row_heights(ink, 200, cols, rows[:1], 8, styles[:1])[0]
        # Room for the header and four rows: group B's heading would fit, its rows would not.
        chunks = page.table_pages(ink, 200, [line * 5.5, line * 8.5], cols, rows, 8, styles)
        assert chunks == [(0, 3), (3, 7)]
        assert all(styles[end - 1] != "group" for _, end in chunks)
        # A group longer than a page is split, its heading with at least its first row.
        chunks = page.table_pages(ink, 200, [line * 3.5], cols, rows, 8, styles)
        assert all(styles[end - 1] != "group" for _, end in chunks)
        assert [i for c in chunks for i in range(*c)] == list(range(len(rows)))
    finally:
        painter.end()


def test_a_long_url_wraps_instead_of_ending_in_an_ellipsis(qapp):
    from designer.ui.export.ink import Ink

    image = QImage(600, 600, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        ink = Ink(painter)
        url = "https://docs.nvidia.com/networking/display/quantum-x-photonics-q3450-ld-user-manual/specifications"
        width = ink.width(url, 8) / 3
        lines = ink.wrap_lines(f"Source of power: {url} (2026-01-01)", width, 8)
        assert all(ink.width(line, 8) <= width for line in lines)
        assert _flat(" ".join(lines)) == _flat(f"Source of power: {url} (2026-01-01)")
        used = ink.paragraph(QRectF(0, 0, width, 1000), f"Source of power: {url}", 8)
        assert used > 0 and ink.elided == [] and not any("…" in t for _, t in ink.texts)
    finally:
        painter.end()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(text=st.text(st.characters(codec="ascii", categories=("L", "N", "P", "S", "Zs")), max_size=300),
       width_pt=st.floats(20, 400))
def test_wrapped_lines_fit_and_keep_every_character(qapp, text, width_pt):
    from designer.ui.export.ink import Ink

    image = QImage(50, 50, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        ink = Ink(painter)
        width = ink.pt(width_pt)
        lines = ink.wrap_lines(text, width, 8)
        widest_char = max((ink.width(ch, 8) for ch in text), default=0)
        assert all(ink.width(line, 8) <= max(width, widest_char) for line in lines)
        assert _flat("".join(lines)) == _flat(text)
        assert ink.paragraph_height(width, text, 8) == len(lines) * ink.metrics(8).lineSpacing()
    finally:
        painter.end()


def test_a_page_like_the_one_before_measures_with_its_fonts_and_keeps_its_own_texts(qapp):
    """The report's pages share one set of fonts and measured widths (`Ink(like=...)`): a page
    measures as a fresh Ink would, records only its own labels, and an Ink on another device
    shares nothing."""
    from designer.ui.export.ink import Ink

    image = QImage(600, 300, QImage.Format.Format_RGB32)
    other = QImage(600, 300, QImage.Format.Format_RGB32)
    other.setDotsPerMeterX(other.dotsPerMeterX() * 2)
    other.setDotsPerMeterY(other.dotsPerMeterY() * 2)
    painter, elsewhere = QPainter(image), QPainter(other)
    try:
        first = Ink(painter)
        assert first.text(first.rect(0, 0, 200, 20), "Spine tier, 2,048 switches", 9, bold=True)
        page = Ink(painter, like=first)
        fresh = Ink(painter)
        for size, bold in ((9, True), (7.5, False), (12, False)):
            for words in ("Spine tier, 2,048 switches", "Resilience and growth"):
                assert page.width(words, size, bold) == fresh.width(words, size, bold)
            assert page.line_height(size, bold) == fresh.line_height(size, bold)
        assert page.font(9, True) == fresh.font(9, True)
        assert page.theme is first.theme
        assert page.texts == [] and page.elided == []
        assert page.text(page.rect(0, 40, 200, 20), "Resilience and growth", 9)
        assert [t for _, t in first.texts] == ["Spine tier, 2,048 switches"]
        apart = Ink(elsewhere, like=first)   # twice the resolution: its own fonts and widths
        assert apart.theme is not first.theme
        assert apart.width("Resilience and growth", 9) == Ink(elsewhere).width("Resilience and growth", 9)
        assert apart.width("Resilience and growth", 9) != first.width("Resilience and growth", 9)
    finally:
        painter.end()
        elsewhere.end()
