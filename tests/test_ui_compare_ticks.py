"""The Compare window's bar charts name each bar's technology under its number only while the
names fit under their bars: at 1280x800 'IB NDR 400G' and 'RoCE 400GbE' ran into each other."""
from __future__ import annotations

from PySide6.QtGui import QColor, QFontMetrics

from designer.ui.compare.compare_charts import BarChart, money_short
from designer.ui.compare.palette import DesignStyle

STYLES = [DesignStyle(QColor("#76b900"), "InfiniBand NDR 400G", "IB NDR 400G", "infiniband"),
          DesignStyle(QColor("#1f77b4"), "RoCE 400GbE (Spectrum-X)", "RoCE 400GbE", "ethernet")]


def _ticks(chart: BarChart) -> list[str]:
    return [text for _, text in chart.widget.getAxis("bottom")._tickLevels[0]]


def test_technology_names_show_under_the_bars_only_where_they_fit(qtbot):
    chart = BarChart("capex", "Capex", "", money_short)
    qtbot.addWidget(chart.widget)
    chart.widget.resize(520, 240)
    chart.widget.show()
    qtbot.waitExposed(chart.widget)
    chart.show([1.0e6, 1.2e6], None, STYLES)
    assert _ticks(chart) == ["[1]\nIB NDR 400G", "[2]\nRoCE 400GbE"]
    chart.widget.resize(150, 240)   # each bar's share of the chart narrower than its name
    qtbot.waitUntil(lambda: _ticks(chart) == ["[1]", "[2]"])
    fm = QFontMetrics(chart.widget.font())
    assert chart.widget.getViewBox().width() / 2 < fm.horizontalAdvance("RoCE 400GbE") + 8
    chart.widget.resize(520, 240)   # room again: the names come back
    qtbot.waitUntil(lambda: _ticks(chart) == ["[1]\nIB NDR 400G", "[2]\nRoCE 400GbE"])
