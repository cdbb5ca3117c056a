"""What If > Expected Interruptions shows the full estimate in a dock, exportable as CSV."""

import csv
from pathlib import Path

import pytest

from designer.io.project import load_design
from designer.model.decisions.interruptions import UNIT_NAMES, interruptions
from tests.helpers import derived, superpod
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("interruptions-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("interruptions-window")


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _column(table, name):
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    c = headers.index(name)
    return [table.item(r, c).text() for r in range(table.rowCount())]


def test_expected_interruptions_fill_a_dock_with_the_models_figures(open_window):
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    window = open_window(design)
    dock = window.docks["interruptions"]
    assert not dock.isVisible()
    window.fail_mode.interruptions_action.trigger()
    panel = window.interruptions
    assert dock.isVisible() and panel.report is not None
    expected = interruptions(derived(design))
    table = panel.expected
    assert table.rowCount() == len(expected.expected)
    assert _column(table, "Kind") == [e.rate.label for e in expected.expected]
    assert _column(table, "Count") == [f"{e.units:,} {UNIT_NAMES.get(e.rate.applies_to, e.rate.applies_to)}"
                                       for e in expected.expected]
    assert not any("gpus" in text or "links." in text for text in _column(table, "Count"))
    per_day = _column(table, "Per day")
    per_year = _column(table, "Per year")
    sources = _column(table, "Source")
    for k, e in enumerate(expected.expected):
        if e.per_day is None:        # never guessed: the table marks the figure unpublished, and says so
            assert per_day[k] == per_year[k] == "—" and sources[k] == "—"
            assert "No published rate: not estimated" in table.item(k, 0).toolTip()
        else:
            assert float(per_day[k]) == float(f"{e.per_day:.3g}")
            assert abs(float(per_year[k]) - e.per_day * 365) <= 0.01 * e.per_day * 365
            assert sources[k] == e.rate.source
            assert e.rate.measured in table.item(k, 0).toolTip()
    assert any(s == "—" for s in per_day)      # the shipped table has unpublished kinds
    assert "— no published rate, not estimated" in panel.heading.text()
    stops = panel.stops
    headers = [stops.horizontalHeaderItem(c).text() for c in range(stops.columnCount())]
    assert headers[1] == "This design" and "two planes" in headers[2].lower()
    rows = {stops.item(r, 0).text(): [stops.item(r, c).text() for c in range(1, stops.columnCount())]
            for r in range(stops.rowCount())}
    assert rows["node-leaf"] == ["stops a job", "job continues"]
    share = expected.design_share.share
    assert rows["Share that stops a job (estimated)"][0] == f"{share:.0%}"
    assert "256 GPUs" in panel.counts.text() and "not estimated" in panel.notes.text()
    assert "links." not in panel.counts.text()


def test_the_estimate_follows_the_design_and_exports_as_csv(open_window, tmp_path):
    window = open_window(superpod(1))
    window.fail_mode.interruptions_action.trigger()
    panel = window.interruptions
    first = panel.report
    window.document.set_design(superpod(2))       # an edit: estimated again while on screen
    assert panel.report is not None and panel.report is not first
    assert panel.report.counts["gpus"] == 512
    window.dialogs.save_answer = str(tmp_path / "interruptions.csv")
    panel.export_button.click()
    with open(tmp_path / "interruptions.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    header = rows[1]
    assert header[:3] == ["Kind", "Counted", "Count"]
    body = {r[0]: r for r in rows[2:2 + len(panel.report.expected)]}
    link = body["link failures (NIC-ToR links)"]
    assert float(link[header.index("Expected per day")]) == float(f"{panel.report.expected[0].per_day:.6g}")
    assert body["link flaps"][header.index("Expected per day")] == "no published rate"
    modules = body["transceiver failures (pluggable modules)"]
    assert float(modules[header.index("Expected per day")]) > 0
    assert ["gpus", "512"] in rows
    # A refused write leaves no file and says why.
    window.dialogs.save_answer = str(tmp_path / "missing" / "x.csv")
    panel.export_button.click()
    assert window.dialogs.errors and not (tmp_path / "missing").exists()


def test_interruptions_dock_is_listed_in_view_panels_without_a_shortcut(open_window):
    window = open_window(superpod(1))
    toggles = {a.text().replace("&", ""): a for a in window.panels_menu.actions()}
    assert "Expected Interruptions" in toggles and toggles["Expected Interruptions"].shortcut().isEmpty()
    toggles["Expected Interruptions"].trigger()
    assert window.docks["interruptions"].isVisible() and window.interruptions.report is not None
