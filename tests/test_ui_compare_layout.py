"""Compare on a laptop: the window on screen, the winner beside the baseline, a headline in
dollars, the metric names fixed while the designs scroll, a short title."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.counterpart import ETHERNET_CHOICES
from designer.ui.compare.headline import headline
from tests.window_fixtures import counterpart

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dgx-h100-superpod-4su.json"


class _Dialogs:
    def open_designs(self, directory=""):
        return []

    def save_design_path(self, suggestion=""):
        return None

    def save_csv_path(self, suggestion=""):
        return None

    def show_error(self, title, text, detail=""):
        raise AssertionError(text)


@pytest.fixture
def every_ethernet(qtbot):
    from designer.ui.compare.compare_window import CompareWindow, Entry

    catalog = default_catalog()
    design = load_design(EXAMPLE)
    entries = [Entry(design, EXAMPLE)]
    for tech in ETHERNET_CHOICES:
        cp = counterpart(design, tech, catalog)
        entries.append(Entry(cp.design, notes=cp.notes, counterpart_of=design.meta.name, unsaved=True))
    window = CompareWindow(catalog, _Dialogs(), synchronous=True)
    qtbot.addWidget(window)
    assert window.set_entries(entries)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_the_winner_sits_beside_the_baseline_and_the_headline_says_by_how_much(every_ethernet):
    window = every_ethernet
    comparison = window.table_model.comparison
    top = headline(comparison)
    assert top.winner is not None and top.winner > 0    # an Ethernet fabric wins the 4-SU example
    units = [c.cost_per_mtok for c in comparison.costs]
    assert units[top.winner] == min(units)
    header = window.table.horizontalHeader()
    model = window.table_model
    assert header.visualIndex(model.value_column(top.winner)) == model.value_column(0) + 1
    assert header.visualIndex(model.value_column(top.winner) + 1) == model.value_column(0) + 2
    text = window.headline.text()
    assert text == top.text and text.startswith(f"Recommended: [{top.winner + 1}] ")
    assert "less than the baseline [1]" in text and "$" in text
    assert ("Close call" in text) or ("Not a close call" in text)
    # in view without scrolling: the winner's value column ends inside the table's viewport
    x = window.table.columnViewportPosition(model.value_column(top.winner))
    assert x > 0 and x + window.table.columnWidth(model.value_column(top.winner)) <= window.table.viewport().width()


def test_the_metric_column_stays_while_the_designs_scroll(every_ethernet, qtbot):
    window = every_ethernet
    bar = window.table.horizontalScrollBar()
    assert bar.maximum() > 0, "five designs at 1280 px should scroll sideways"
    frozen = window.frozen.view
    assert frozen.isVisible() and frozen.x() <= window.table.frameWidth()
    assert frozen.width() == window.table.columnWidth(0)
    assert all(frozen.isColumnHidden(c) for c in range(1, window.table_model.columnCount()))
    bar.setValue(bar.maximum())
    assert frozen.isVisible() and frozen.geometry().left() <= window.table.frameWidth()
    # rows line up: the same row sits at the same height in both views
    row = window.table_model.row_of("switches")
    assert frozen.rowViewportPosition(row) + frozen.horizontalHeader().height() == \
        window.table.rowViewportPosition(row) + window.table.horizontalHeader().height()


def test_the_title_is_short_and_the_window_fits_the_screen(every_ethernet):
    window = every_ethernet
    title = window.windowTitle()
    assert len(title) <= 90 and title.startswith("Compare: ") and "+ 4 designs" in title
    from PySide6.QtCore import QRect

    room = QRect(0, 0, 1280, 800)            # a laptop screen (the test screen is smaller)
    window.move(300, 200)                    # placed partly off it, as a window manager may
    window._fit_screen(room)
    assert room.contains(window.frameGeometry()), window.frameGeometry()
    assert window.minimumSizeHint().width() <= 1280 and window.minimumSizeHint().height() <= 800
    # nothing in the recommendation is cut: the verdict's wrapped text and the assumptions whole
    panel = window.panel
    assert panel.verdict.height() >= panel.verdict.heightForWidth(panel.verdict.width())
    assert panel.assumptions.height() >= panel.assumptions.sizeHint().height()


def test_an_unpriced_comparison_names_no_winner():
    from dataclasses import replace

    from designer.model.decisions.comparison import compare

    design = load_design(EXAMPLE)
    comparison = compare([design, counterpart(design, "roce-400g", default_catalog()).design])
    unpriced = replace(comparison, costs=())
    assert headline(unpriced).winner is None and "No winner in dollars" in headline(unpriced).text
