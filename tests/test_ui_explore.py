"""Tools > Explore Design Space: a sweep in the window, its Pareto front, and what a pick does."""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QStyle

from designer.catalog import default_catalog
from designer.model.decisions.design_space import dominates
from designer.model.topology.presets import new_design

CAT = default_catalog()


@pytest.fixture
def window_with_design(make_window):
    design = new_design(CAT, "rail-optimized", gpus=256, technology="ib-ndr", name="Open design")
    return make_window(design)


def _explore(window):
    explore = window.explore.show()
    for tech, box in explore.tech_boxes.items():
        box.setChecked(tech in ("ib-ndr", "roce-400g"))
    explore.ratios.setText("1:1, 2:1, 3:1")
    explore.planes.setText("1")
    return explore


def test_tools_menu_opens_explore_seeded_from_the_open_design(window_with_design):
    window = window_with_design
    window.explore.action.trigger()
    explore = window.explore.window
    assert explore.isVisible()
    assert explore.gpus.value() == 256 and explore.server.currentData() == "dgx-h100"
    assert explore.count_label.text().startswith(f"{explore.spec().count:,} combinations")
    explore.ratios.setText("1:1, 0:1")
    assert not explore.run_button.isEnabled() and "oversubscription" in explore.error_label.text()


def test_sweep_runs_plots_every_built_design_and_draws_the_front(window_with_design):
    explore = _explore(window_with_design)
    explore.run()
    result = explore.result
    assert result is not None and len(result.points) == 6 and len(result.built) == 6
    assert explore.progress.value() == explore.progress.maximum() == 6
    plotted = sum(len(item.data) for item in explore.scatters.values())
    assert plotted == 6
    xy = explore.points_xy()
    assert np.allclose(xy[:, 0], [p.capex_usd / 1e6 for p in result.built])
    front = explore.front()
    assert front and all(not any(dominates(q, p, "capex_usd", "time_us") for q in result.built) for p in front)
    fx, fy = explore.front_line.getData()
    assert list(fx) == pytest.approx([p.capex_usd / 1e6 for p in front])
    # Another vertical axis gives the front of that pair.
    explore.y_axis.setCurrentIndex(explore.y_axis.findData("power"))
    power_front = {p.index for p in explore.front()}
    assert power_front == {p.index for p in result.built if p.front_cost_power}
    assert explore.table.rowCount() == 6


def test_refused_combinations_are_listed_with_their_reason(window_with_design):
    explore = _explore(window_with_design)
    explore.tech_boxes["ib-xdr"].setChecked(True)
    explore.run()
    refused = explore.result.refused
    assert refused and explore.refused.rowCount() == len(refused)
    assert explore.refused.item(0, 1).text() == refused[0].error
    assert f"({len(refused)})" in explore.tabs.tabText(1)


def test_a_picked_point_opens_as_a_design_or_joins_compare(window_with_design, qtbot):
    from PySide6.QtWidgets import QApplication

    from designer.ui.shell.main_window import MainWindow

    window = window_with_design
    explore = _explore(window)
    explore.run()
    assert not explore.open_button.isEnabled()
    point = explore.front()[0]
    explore.pick(point)
    assert explore.open_button.isEnabled() and point.name in explore.pick_label.text()
    assert explore.table.currentRow() == explore._shown.index(point)
    explore.open_button.click()
    opened = [w for w in QApplication.topLevelWidgets()
              if isinstance(w, MainWindow) and w is not window and w.isVisible()]
    assert len(opened) == 1
    assert opened[0].document.design.meta.name == point.name and opened[0].document.modified
    opened[0].close_without_asking()
    explore.compare_button.click()
    compare = window.compare_launcher.window
    assert compare is not None and [e.design.meta.name for e in compare.entries] == ["Open design", point.name]
    explore.close()
    compare.close()


def test_explore_starts_from_the_open_designs_choices_and_shows_the_achieved_ratio(make_window):
    design = new_design(CAT, "leaf-spine", gpus=512, technology="roce-400g", oversubscription=1.5,
                        name="Leaf-spine")
    window = make_window(design)
    explore = window.explore.show()
    assert [t for t, box in explore.template_boxes.items() if box.isChecked()] == ["leaf-spine"]
    assert explore.tech_boxes["roce-400g"].isChecked()
    assert "1.5:1" in explore.ratios.text() and explore.spec().templates == ("leaf-spine",)
    for tech, box in explore.tech_boxes.items():
        box.setChecked(tech == "roce-400g")
    explore.ratios.setText("1.5:1")
    explore.planes.setText("1")
    explore.run()
    built = explore.result.built
    assert built
    headers = [explore.table.horizontalHeaderItem(c).text() for c in range(explore.table.columnCount())]
    asked, achieved = headers.index("Asked"), headers.index("Achieved")
    from designer.model.common.units import ratio_label

    for row, point in enumerate(explore._shown):
        assert explore.table.item(row, asked).text() == "1.5:1"
        assert explore.table.item(row, achieved).text() == ratio_label(point.oversubscription)
    explore.close()


def test_every_column_of_the_results_stays_in_view_at_1280(window_with_design, qtbot):
    """At 1280x800 the results table scrolled sideways and hid the Time column: the text
    columns now give way (their full text in a tooltip) and every figure stays in view."""
    explore = _explore(window_with_design)
    explore.resize(1280, 760)
    explore.run()
    table = explore.table
    qtbot.waitUntil(lambda: table.rowCount() == 6)
    last = table.columnCount() - 1
    header = table.horizontalHeader()
    assert header.sectionViewportPosition(last) + header.sectionSize(last) <= table.viewport().width()
    assert not table.horizontalScrollBar().isVisible() or table.horizontalScrollBar().maximum() == 0
    # ...and no text of the table is cut short: the technology's short name shows whole (its
    # full name and id in the tooltip), and every word of a switch's name fits its column.
    metrics = table.fontMetrics()
    margin = 2 * table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table)
    for row, point in enumerate(explore._shown):
        tech = explore.catalog.technologies[point.choice["technology"]]
        technology, switch = table.item(row, 2), table.item(row, 3)
        assert tech.name in technology.toolTip() and tech.id in technology.toolTip()
        assert len(technology.text()) < len(tech.name) or technology.text() == tech.name
        assert metrics.horizontalAdvance(technology.text()) + margin <= header.sectionSize(2), technology.text()
        for word in switch.text().split():
            assert metrics.horizontalAdvance(word) + margin <= header.sectionSize(3), switch.text()


def _covered(explore):
    """The built designs whose marks lie under the legend, in scene coordinates."""
    vb = explore.plot.getViewBox()
    rect = explore.legend.sceneBoundingRect()
    return [(x, y) for x, y in explore.points_xy() if rect.contains(vb.mapViewToScene(pg.Point(x, y)))]


def test_the_legend_takes_a_corner_where_it_hides_no_design(window_with_design):
    explore = _explore(window_with_design)
    explore.resize(1280, 800)
    explore.show()
    explore.run()
    for axis in ("time", "power", "tco", "switches"):
        explore.y_axis.setCurrentIndex(explore.y_axis.findData(axis))
        assert _covered(explore) == [], axis
    # A design moved under the legend's corner sends the legend elsewhere.
    vb = explore.plot.getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    corner = explore.legend_corner
    target = (x0 + 0.05 * (x1 - x0) if corner[0] == 0 else x1 - 0.05 * (x1 - x0),
              y1 - 0.05 * (y1 - y0) if corner[1] == 0 else y0 + 0.05 * (y1 - y0))
    p = explore.result.built[0]
    (xa, _, xs, _), (ya, _, ys, _) = explore._axes()
    object.__setattr__(p, xa, target[0] / xs)
    object.__setattr__(p, ya, target[1] / ys)
    explore.redraw()
    assert explore.legend_corner != corner
    assert _covered(explore) == []
