"""The Compare view: designs side by side, the Add Counterpart action, charts, assumptions, CSV."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.catalog import default_catalog
from designer.io.compare_csv import compare_to_csv
from designer.io.project import load_design
from designer.model.decisions.comparison import CompareSettings, compare
from designer.model.intent.design import replace_path
from designer.model.performance.collectives import sweep
from designer.model.topology.derive import derive
from tests.window_fixtures import counterpart

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SUPERPOD = EXAMPLES / "dgx-h100-superpod-1su.json"


class ScriptedCompareDialogs:
    """Stands in for CompareDialogs: answers from attributes, records the messages shown."""

    def __init__(self):
        self.open_answer: list[str] = []
        self.design_path = None
        self.csv_path = None
        self.errors: list[tuple[str, str, str]] = []

    def open_designs(self, directory=""):
        return list(self.open_answer)

    def save_design_path(self, suggestion=""):
        return self.design_path

    def save_csv_path(self, suggestion=""):
        return self.csv_path

    def show_error(self, title, text, detail=""):
        self.errors.append((title, text, detail))


@pytest.fixture(autouse=True)
def _no_compare_thread_left():
    yield
    from designer.ui.compare.compare_service import running_compare_services

    assert not running_compare_services(), "a compare worker thread still runs after the test"


@pytest.fixture
def catalog():
    return default_catalog()


@pytest.fixture
def superpod():
    return load_design(SUPERPOD)


@pytest.fixture
def make_compare(qtbot, catalog):
    from designer.ui.compare.compare_window import CompareWindow

    def make(entries=None, synchronous=True, **kw):
        window = CompareWindow(catalog, ScriptedCompareDialogs(), synchronous=synchronous, **kw)
        qtbot.addWidget(window)  # closed at the end of the test, which stops its worker
        if entries is not None:
            assert window.set_entries(entries)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


def _pair(superpod, catalog):
    from designer.ui.compare.compare_window import Entry

    cp = counterpart(superpod, "roce-400g", catalog)
    return [Entry(superpod, SUPERPOD), Entry(cp.design, notes=cp.notes, counterpart_of=superpod.meta.name,
                                             unsaved=True)]


def _cell(window, key, design):
    from designer.ui.compare.compare_table import RAW_ROLE

    m = window.table_model
    index = m.index(m.row_of(key), m.value_column(design))
    return m.data(index, RAW_ROLE), m.data(index)


def test_the_compare_view_opens_with_two_designs_and_the_table_fills(make_compare, superpod, catalog):
    from designer.ui.compare.compare_table import KEY_ROLE

    entries = _pair(superpod, catalog)
    window = make_compare(entries)
    expected = compare([e.design for e in entries], CompareSettings(), catalog)
    m = window.table_model
    groups = list(dict.fromkeys(r.group for r in expected.rows))
    assert m.rowCount() == len(expected.rows) + len(groups)
    assert m.columnCount() == 1 + 2 + 1  # metric, two values, one change
    assert [m.data(m.index(r, 0), KEY_ROLE) for r in range(m.rowCount()) if not m.is_group(r)] == \
           [r.key for r in expected.rows]
    for row in expected.rows:
        for design in range(2):
            raw, text = _cell(window, row.key, design)
            assert raw == row.values[design], row.key
            assert text not in ("", None)
    assert _cell(window, "capex_usd", 0)[1] == f"${expected.row('capex_usd').values[0]:,.0f}"
    assert _cell(window, "gpus", 1)[1] == "256"
    assert window.comparison.technologies == ("ib-ndr", "roce-400g")
    assert window.panel.verdict.text() == expected.recommendation.verdict


def test_the_change_column_is_coloured_by_whether_it_is_better(make_compare, superpod, catalog):
    from PySide6.QtCore import Qt

    from designer.ui.compare.compare_table import RAW_ROLE
    from designer.ui.compare.palette import delta_colours

    window = make_compare(_pair(superpod, catalog))
    m = window.table_model
    good, bad, neutral = delta_colours(window.theme)
    delta_col = m.value_column(1) + 1
    seen = set()
    for row in window.comparison.rows:
        index = m.index(m.row_of(row.key), delta_col)
        delta = m.data(index, RAW_ROLE)
        colour = m.data(index, Qt.ItemDataRole.ForegroundRole).color()
        if delta is None or abs(delta) < 0.05 or not row.better:
            assert colour == neutral, row.key
            continue
        improved = (delta < 0) == (row.better == "lower")
        assert colour == (good if improved else bad), row.key
        seen.add(improved)
    assert seen == {True, False}  # the SuperPOD pair has both better and worse rows


def test_add_counterpart_from_the_designer_window_compares_with_a_reasoned_recommendation(make_window, superpod):
    window = make_window(superpod, SUPERPOD)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    assert launcher.menu in [a.menu() for a in window.menuBar().actions() if a.menu()]
    launcher.update_actions()
    assert not launcher.counterpart_actions["ib-ndr"].isEnabled()  # the design's own technology
    launcher.counterpart_actions["roce-400g"].trigger()
    compare_window = launcher.window
    assert compare_window is not None and compare_window.isVisible()
    comparison = compare_window.comparison
    assert comparison.technologies == ("ib-ndr", "roce-400g")
    assert comparison.names[0] == superpod.meta.name
    reasons = comparison.recommendation.reasons
    assert any("256 GPUs" in reason for reason in reasons)
    shown = compare_window.panel.reasons.toPlainText()
    assert "256 GPUs" in shown
    assert compare_window.panel.verdict.text() == comparison.recommendation.verdict
    assert compare_window.panel.badge.text().startswith("HEURISTIC")
    assert launcher.dialogs.errors == []
    window.close()
    assert not compare_window.isVisible()


def test_charts_have_one_curve_per_design_with_the_sweep_data(make_compare, superpod, catalog):
    from designer.ui.compare.compare_window import Entry

    entries = _pair(superpod, catalog)
    entries.append(Entry(counterpart(superpod, "roce-800g", catalog).design, unsaved=True))
    window = make_compare(entries)
    chart = window.charts.busbw
    plotted = [c for c in chart.curves if c in chart.widget.getPlotItem().items]
    assert len(plotted) == 3
    assert len(chart.key.entries) == 3
    for curve, entry in zip(plotted, entries, strict=True):
        x, y = curve.getOriginalDataset()
        ex, ey = sweep(derive(entry.design, catalog), "allreduce", gpus=256).curve("busbw")
        assert np.allclose(x, ex) and np.allclose(y, ey)
    assert len(window.charts.tco.bars.opts["height"]) == 3
    window.select_design(2)
    assert window.remove_selected()
    plotted = [c for c in chart.curves if c in chart.widget.getPlotItem().items]
    assert len(plotted) == 2 and len(chart.key.entries) == 2
    assert len(window.charts.capex.bars.opts["height"]) == 2


def test_changing_the_energy_price_changes_the_tco_cells_and_bars(make_compare, superpod, catalog):
    entries = _pair(superpod, catalog)
    window = make_compare(entries)
    before = [_cell(window, "tco_usd", d) for d in range(2)]
    window.panel.assumptions.energy.setValue(0.25)
    assert window.settings.energy_usd_per_kwh == 0.25
    expected = compare([e.design for e in entries], CompareSettings(energy_usd_per_kwh=0.25), catalog)
    after = [_cell(window, "tco_usd", d) for d in range(2)]
    for d in range(2):
        assert after[d][0] == expected.row("tco_usd").values[d]
        assert after[d][0] > before[d][0]
        assert after[d][1] != before[d][1]
    tco = window.charts.tco
    assert np.allclose(tco.bars.opts["height"] + tco.top.opts["height"], expected.row("tco_usd").values)


def test_bad_message_sizes_are_refused_in_place(make_compare, superpod, catalog):
    window = make_compare(_pair(superpod, catalog))
    before = window.comparison
    box = window.panel.assumptions
    box.sizes.setText("12 parsecs")
    box.sizes.editingFinished.emit()
    assert box.problem.isVisibleTo(window) and "malformed size" in box.problem.text()
    assert window.comparison is before
    box.sizes.setText("64KiB, 2GiB")
    box.sizes.editingFinished.emit()
    keys = [r.key for r in window.comparison.rows]
    assert "allreduce_65536_time_us" in keys and "allreduce_2147483648_busbw" in keys
    assert not box.problem.isVisibleTo(window)


def test_csv_export_writes_the_comparison(make_compare, superpod, catalog, tmp_path):
    window = make_compare(_pair(superpod, catalog))
    out = tmp_path / "pair.csv"
    window.dialogs.csv_path = str(out)
    assert window.export_action.isEnabled()
    window.export_action.trigger()
    text = out.read_text(encoding="utf-8-sig")
    assert text.replace("\r\n", "\n") == compare_to_csv(window.comparison).replace("\r\n", "\n").lstrip("\ufeff")
    assert superpod.meta.name in text and "Recommendation (heuristic)" in text


def test_a_counterpart_can_be_saved_as_a_project(make_compare, superpod, catalog, tmp_path):
    window = make_compare(_pair(superpod, catalog))
    window.select_design(1)
    out = tmp_path / "roce.json"
    window.dialogs.design_path = str(out)
    window.save_design_action.trigger()
    assert load_design(out) == window.shown[1].design
    assert window.shown[1].path == out and not window.shown[1].unsaved


def test_make_baseline_compares_against_the_new_first_design(make_compare, superpod, catalog):
    entries = _pair(superpod, catalog)
    window = make_compare(entries)
    window.select_design(1)
    window.baseline_action.trigger()
    assert window.comparison.technologies == ("roce-400g", "ib-ndr")
    expected = compare([entries[1].design, entries[0].design], CompareSettings(), catalog)
    assert window.comparison.row("capex_usd").deltas == expected.row("capex_usd").deltas


def test_bad_input_shows_one_message_and_changes_nothing(make_compare, superpod, catalog, tmp_path):
    from designer.ui.compare.compare_window import Entry

    window = make_compare(_pair(superpod, catalog))
    before = window.comparison
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json", encoding="utf-8")
    window.dialogs.open_answer = [str(SUPERPOD), str(bad)]
    assert not window.add_designs_from_dialog()
    assert window.dialogs.errors[-1][0] == "Cannot add design" and "bad.json" in window.dialogs.errors[-1][1]
    assert window.comparison is before and len(window.entries) == 2

    too_many = [str(SUPERPOD)] * 4
    window.dialogs.open_answer = too_many
    assert not window.add_designs_from_dialog()
    assert window.dialogs.errors[-1][0] == "Too many designs"
    assert window.comparison is before and len(window.entries) == 2

    unsizeable = replace_path(load_design(EXAMPLES / "ndr-8k-fat-tree.json"), "fabric.tiers", 2)
    assert not window.add_entries([Entry(unsizeable)])
    assert "cannot be sized" in window.dialogs.errors[-1][1]
    assert window.comparison is before and len(window.entries) == 2
    assert len(window.dialogs.errors) == 3


def test_compare_with_designs_from_the_designer_window(make_window, superpod, tmp_path):
    window = make_window(superpod, SUPERPOD)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    launcher.dialogs.open_answer = [str(EXAMPLES / "dgx-h100-superpod-4su.json"),
                                    str(EXAMPLES / "roce-512-leaf-spine-sn5600.json")]
    launcher.compare_files_action.trigger()
    comparison = launcher.window.comparison
    assert comparison.names[0] == superpod.meta.name and len(comparison.names) == 3
    assert any("different GPU counts" in w for w in comparison.warnings)

    launcher.dialogs.open_answer = [str(SUPERPOD)] * 5
    launcher.compare_files_action.trigger()
    assert launcher.dialogs.errors[-1][0] == "Too many designs"
    assert launcher.window.comparison is comparison


def test_a_design_that_cannot_be_sized_gets_no_counterpart_comparison(make_window):
    unsizeable = replace_path(load_design(EXAMPLES / "ndr-8k-fat-tree.json"), "fabric.tiers", 2)
    window = make_window(unsizeable)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    launcher.counterpart_actions["roce-400g"].trigger()
    assert len(launcher.dialogs.errors) == 1
    assert "cannot be sized" in launcher.dialogs.errors[0][1]
    assert launcher.window is None or launcher.window.comparison is None
    assert window.document.design is unsizeable


def test_open_in_designer_opens_a_designer_window_with_the_design(make_window, superpod):
    from PySide6.QtWidgets import QApplication

    from designer.ui.shell.main_window import MainWindow

    window = make_window(superpod, SUPERPOD)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    launcher.counterpart_actions["roce-400g"].trigger()
    compare_window = launcher.window
    compare_window.select_design(0)  # the original, unchanged since it was opened: nothing to ask on close
    assert compare_window.open_action.isVisible()
    compare_window.open_action.trigger()
    opened = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w is not window
              and w.isVisible()]
    assert len(opened) == 1
    assert opened[0].document.design == superpod and opened[0].document.path == SUPERPOD
    assert not opened[0].document.modified
    opened[0].close()


def test_off_thread_comparison_arrives_and_stale_results_are_dropped(make_compare, superpod, catalog, qtbot):
    window = make_compare(synchronous=False)
    entries = _pair(superpod, catalog)
    service = window.service
    seen = []
    service.resultReady.connect(seen.append)
    window.set_entries(entries)
    window.set_settings(CompareSettings(years=3))
    window.set_settings(CompareSettings(years=7))
    qtbot.waitUntil(lambda: window.comparison is not None and not service.busy, timeout=20000)
    assert [o.job.settings.years for o in seen] == [7]
    assert window.comparison.row("tco_usd").label == "TCO over 7 years"
    assert service.is_running()
    window.close()
    assert not service.is_running()


def test_add_counterpart_in_the_compare_window_adds_a_column(make_compare, superpod, catalog):
    from designer.ui.compare.compare_window import Entry

    window = make_compare([Entry(superpod, SUPERPOD), Entry(counterpart(superpod, "roce-400g", catalog).design)])
    menu = window.counterpart_menu
    menu.aboutToShow.emit()
    actions = {a.objectName(): a for a in menu.actions()}
    assert not actions["counterpart-ib-ndr"].isEnabled()  # the baseline's own technology
    actions["counterpart-roce-800g"].trigger()
    assert window.comparison.technologies == ("ib-ndr", "roce-400g", "roce-800g")
    assert window.shown[2].counterpart_of == superpod.meta.name and window.shown[2].unsaved
    assert window.table_model.columnCount() == 1 + 3 + 2


def test_a_comparison_that_fails_is_refused_and_the_window_goes_back(make_compare, superpod, catalog, monkeypatch):
    from designer.model.topology.sizing import SizingError
    from designer.ui.compare import compare_service

    window = make_compare(_pair(superpod, catalog))
    before, entries = window.comparison, list(window.entries)

    def failing(*args, **kwargs):
        raise SizingError("no switch in the catalog has enough ports")

    monkeypatch.setattr(compare_service, "compare", failing)
    window.panel.assumptions.years.setValue(9)
    assert window.dialogs.errors[-1] == ("Cannot compare", "The designs could not be compared.",
                                         "no switch in the catalog has enough ports")
    assert window.comparison is before and window.entries == entries
    assert window.settings == before.settings and window.panel.assumptions.years.value() == 5


def test_five_fabrics_show_their_costs_and_the_draws_in_the_compare_window(make_compare, superpod, catalog):
    from designer.model.decisions.counterpart import ETHERNET_CHOICES
    from designer.ui.compare.compare_window import Entry

    entries = [Entry(superpod, SUPERPOD)] + [Entry(counterpart(superpod, t, catalog).design, unsaved=True)
                                             for t in ETHERNET_CHOICES]
    window = make_compare(entries)
    c = window.comparison
    assert c.technologies == ("ib-ndr", *ETHERNET_CHOICES)
    model = window.table_model
    labels = [model.index(r, 0).data() for r in range(model.rowCount())]
    for label in ("Capex (network)", "Training step time", "Cost per million tokens"):
        assert label in labels
    assert any(str(label).startswith("Cheapest in") for label in labels)
    chart = window.charts.cost
    plotted = [curve for curve in chart.curves if curve in chart.widget.getPlotItem().items]
    assert len(plotted) == 5 and len(chart.key.entries) == 5
    for curve, counts in zip(plotted, c.confidence.hist_counts, strict=True):
        _, y = curve.getOriginalDataset()
        assert list(y) == list(counts)
    assert chart.key.entries[0] == f"[1] wins {c.confidence.win_share[0]:.0%}"


def test_every_ethernet_fabric_is_one_menu_action(make_compare, superpod, catalog):
    from designer.ui.compare.compare_window import Entry

    spectrum_x = counterpart(superpod, "roce-400g", catalog).design
    window = make_compare([Entry(superpod, SUPERPOD), Entry(spectrum_x, unsaved=True)])
    menu = window.counterpart_menu
    menu.aboutToShow.emit()
    every = {a.objectName(): a for a in menu.actions()}["counterpart-ethernet"]
    assert every.isEnabled()            # three missing fabrics fit beside the two designs
    every.trigger()
    assert window.comparison.technologies == ("ib-ndr", "roce-400g", "roce-ecmp-400g", "roce-eecmp-400g",
                                              "roce-sched-400g")
    menu.aboutToShow.emit()
    every = {a.objectName(): a for a in menu.actions()}["counterpart-ethernet"]
    assert not every.isEnabled()        # nothing left to add
