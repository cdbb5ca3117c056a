"""Charts of a comparison (pyqtgraph): capex, power and TCO bars, and all-reduce busbw curves.

The plot items are made once and updated in place (setOpts, setData): a new comparison, an
edited assumption or another design only changes their data.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from designer.model.common.units import size_label
from designer.model.decisions.comparison import Comparison
from designer.ui.compare.palette import DesignStyle, soften
from designer.ui.theme import Theme


class ChartKey(QLabel):
    """A chart's key under the plot, wrapped to its width: with five designs an in-plot legend
    covered the curves of a short plot and ran out of it."""

    def __init__(self, name: str):
        super().__init__()
        self.setObjectName(name)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.entries: list[str] = []

    def show_entries(self, entries: list[tuple[str, str, str]], theme: Theme) -> None:
        """(colour name, glyph, text) per design."""
        self.entries = [text for _, _, text in entries]
        cells = [f'<span style="color:{colour}">{glyph}</span>&nbsp;{text}' for colour, glyph, text in entries]
        self.setText(f'<span style="color:{theme.text.name()}">' + " &nbsp; ".join(cells) + "</span>")


CHARTS_HEIGHT = 470   # three bar charts, the busbw curves and the draws, each readable

# Size ticks every 16x, from 16 B to 4 GiB: evenly spaced on the log axis.
SIZE_TICKS = [(math.log10(1 << k), size_label(1 << k).replace(" ", "\u2009")) for k in range(4, 33, 4)]


def money_short(value: float, bars: int = 2) -> str:
    """'$1.06M'; one digit less when three or four bars share the chart."""
    for factor, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            digits = (2 if abs(value) / factor < 10 else 1) - (1 if bars > 2 else 0)
            return f"${value / factor:,.{max(digits, 0)}f}{suffix}"
    return f"${value:,.0f}"


def _kw(value: float, bars: int = 2) -> str:
    return f"{value:,.{0 if value >= 100 else 1}f}"  # the axis says kW


def _style(plot: pg.PlotWidget, theme: Theme) -> None:
    plot.setBackground(theme.background)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(pg.mkPen(theme.muted))
        axis.setTextPen(pg.mkPen(theme.text))
    item = plot.getPlotItem()
    item.titleLabel.setText(item.titleLabel.text, color=theme.text, size="9.5pt", bold=True)


class _Plot(pg.PlotWidget):
    """A plot that asks for a readable height, not pyqtgraph's 480 px: in the charts' scroll
    area the hint decides the height of the whole column."""

    def sizeHint(self) -> QSize:
        return QSize(200, 130)


def _plot(name: str, title: str) -> pg.PlotWidget:
    plot = _Plot()
    plot.setObjectName(name)
    plot.setTitle(title, size="9.5pt")
    plot.hideButtons()
    plot.setMenuEnabled(False)
    plot.getPlotItem().layout.setContentsMargins(4, 2, 8, 4)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).enableAutoSIPrefix(False)
    return plot


class BarChart:
    """One bar per design, its value written above it; `stacked` adds a paler second segment."""

    def __init__(self, name: str, title: str, axis_label: str, fmt, stacked: bool = False):
        self.fmt = fmt
        self.widget = _plot(name, title)
        self.widget.setMouseEnabled(False, False)
        self.widget.setLabel("left", axis_label)
        self.widget.showGrid(x=False, y=True, alpha=0.18)
        self.widget.getAxis("left").setWidth(46)
        self.widget.getAxis("bottom").setHeight(40)  # room for two lines of tick text
        self.bars = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.62)
        self.widget.addItem(self.bars)
        self.top = None
        if stacked:
            self.top = pg.BarGraphItem(x=np.zeros(0), y0=np.zeros(0), height=np.zeros(0), width=0.62)
            self.widget.addItem(self.top)
        self.labels: list[pg.TextItem] = []
        self.theme = Theme()
        self._tick_styles: list[DesignStyle] = []
        self._top = 1e-9
        # The technology under each bar's number only while it fits under its bar (at 1280x800
        # 'IB NDR 400G' and 'RoCE 400GbE' ran into each other): fitted again on every resize.
        self.widget.getViewBox().sigResized.connect(lambda *_: self._fit_ticks())

    def _fit_ticks(self) -> None:
        styles = self._tick_styles
        n = len(styles)
        if not n:
            return
        fm = QFontMetrics(self.widget.getAxis("bottom").style.get("tickFont") or self.widget.font())
        room = self.widget.getViewBox().width() / n - 8
        named = n <= 2 and all(fm.horizontalAdvance(s.tech_short) <= room for s in styles)
        ticks = [(i, f"[{i + 1}]\n{s.tech_short}" if named else f"[{i + 1}]") for i, s in enumerate(styles)]
        self.widget.getAxis("bottom").setTicks([ticks])
        self._fit_labels(n)

    def _fit_labels(self, n: int) -> None:
        """Each bar's number upright while the numbers fit side by side; turned up along its bar
        when they would run into each other (five bars in a narrow chart), with room above."""
        shown = [lab for lab in self.labels[:n] if lab.isVisible()]
        if not shown:
            return
        fm = QFontMetrics(shown[0].textItem.font())
        widest = max(fm.horizontalAdvance(lab.textItem.toPlainText()) for lab in shown)
        vb = self.widget.getViewBox()
        turned = widest + 4 > vb.width() / max(n, 1)
        for lab in shown:
            lab.setAngle(90 if turned else 0)
            lab.setAnchor((0.0, 0.5) if turned else (0.5, 1.0))
        # Headroom for the numbers: a line's height upright, the widest number's length turned up.
        text_px = (widest + 6) if turned else fm.height() + 4
        plot_px = max(vb.height(), 1.0)
        share = min(0.6, text_px / plot_px)
        self.widget.setYRange(0, self._top / (1 - share), padding=0)

    def _label(self, i: int) -> pg.TextItem:
        while len(self.labels) <= i:
            text = pg.TextItem("", anchor=(0.5, 1.0))

            self.widget.addItem(text)
            self.labels.append(text)
        return self.labels[i]

    def show(self, base: list[float], top: list[float] | None, styles: list[DesignStyle]) -> None:
        n = len(base)
        x = np.arange(n, dtype=float)
        base_a = np.asarray(base, dtype=float)
        top_a = np.asarray(top if top is not None else [0.0] * n, dtype=float)
        pen = pg.mkPen(self.theme.background, width=1)
        self.bars.setOpts(x=x, height=base_a, brushes=[s.colour for s in styles], pens=[pen] * n)
        if self.top is not None:
            self.top.setOpts(x=x, y0=base_a, height=top_a,
                             brushes=[soften(s.colour, self.theme) for s in styles], pens=[pen] * n)
        total = base_a + top_a
        font = self.widget.font()
        font.setPointSizeF(8.0 if n <= 2 else 7.0)
        for i in range(max(n, len(self.labels))):
            label = self._label(i)
            if i < n:
                label.setText(self.fmt(total[i], n), color=self.theme.text)
                label.setFont(font)
                label.setPos(i, total[i])
                label.setVisible(True)
            else:
                label.setVisible(False)
        # Technology under its number while two bars share the chart and it fits; numbers only beyond.
        self._tick_styles = list(styles)
        self._top = max(1e-9, float(total.max(initial=0)))
        self.widget.setXRange(-0.6, n - 0.4, padding=0)
        self._fit_ticks()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        _style(self.widget, theme)


class BusbwChart:
    """All-reduce bus bandwidth against message size, one curve per design, log size axis."""

    def __init__(self):
        self.widget = _plot("compareBusbwPlot", "All-reduce busbw vs message size (estimate)")
        self.widget.setLogMode(x=True, y=False)
        self.widget.showGrid(x=True, y=True, alpha=0.18)
        self.widget.setLabel("left", "busbw (GB/s)")
        self.widget.setLabel("bottom", "message size")
        self.widget.getAxis("bottom").setTicks([SIZE_TICKS])
        self.widget.getAxis("left").setWidth(48)
        self.widget.setMouseEnabled(True, False)
        self.key = ChartKey("compareBusbwKey")
        self.curves: list[pg.PlotDataItem] = []
        self._names: list[str] = []
        self.markers: list[pg.InfiniteLine] = []
        self.theme = Theme()

    def show(self, curves, names: list[str], styles: list[DesignStyle], sizes: tuple[int, ...], gpus: int) -> None:
        item = self.widget.getPlotItem()
        while len(self.curves) < len(curves):
            curve = pg.PlotDataItem([], [])
            self.curves.append(curve)
            self._names.append("")
        for i, curve in enumerate(self.curves):
            shown = curve in item.items
            if i < len(curves):
                x, y = curves[i]
                style = styles[i]
                curve.setData(x, y)
                curve.setPen(pg.mkPen(style.colour, width=2.4 if i == 0 else 2.0,
                                      style=Qt.PenStyle.SolidLine if i < 2 else Qt.PenStyle.DashLine))
                self._names[i] = f"[{i + 1}] {style.tech_short}"
                if not shown:
                    item.addItem(curve)
            elif shown:
                item.removeItem(curve)
                self._names[i] = ""
        self.key.show_entries([(styles[i].colour.name(), "\u2501\u2501" if i < 2 else "\u254d\u254d",
                                self._names[i]) for i in range(len(curves))], self.theme)
        self._show_markers(sizes)
        item.setTitle(f"All-reduce busbw vs message size, {gpus:,} GPUs (estimate)",
                      color=self.theme.text, size="9.5pt", bold=True)
        ymax = max((float(np.max(y)) for _, y in curves if len(y)), default=1.0)
        xs = [x for x, _ in curves if len(x)]
        if xs:
            self.widget.setXRange(math.log10(min(float(x[0]) for x in xs)), math.log10(max(float(x[-1]) for x in xs)),
                                  padding=0.02)
        self.widget.setYRange(0, ymax * 1.1, padding=0)

    def _show_markers(self, sizes: tuple[int, ...]) -> None:
        """A dashed line at each message size of the table's collective rows."""
        pen = pg.mkPen(self.theme.muted, width=1, style=Qt.PenStyle.DashLine)
        while len(self.markers) < len(sizes):
            line = pg.InfiniteLine(angle=90, movable=False, label="", labelOpts={"position": 0.96})
            self.widget.addItem(line)
            self.markers.append(line)
        for i, line in enumerate(self.markers):
            if i < len(sizes):
                line.setPos(math.log10(sizes[i]))
                line.setPen(pen)
                line.label.setFormat(size_label(sizes[i]))
                line.label.setColor(self.theme.muted)
                line.setVisible(True)
            else:
                line.setVisible(False)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        _style(self.widget, theme)


class CostDistributionChart:
    """Cost per million tokens (or per step) of each design over the seeded draws, as step
    histograms in the design's colour; the legend gives each design's share of wins."""

    def __init__(self):
        self.widget = _plot("compareCostDistributionPlot", "Cost per token over the draws")
        self.widget.setMouseEnabled(False, False)
        self.widget.showGrid(x=True, y=False, alpha=0.18)
        self.widget.getAxis("left").setWidth(36)
        self.widget.setLabel("left", "draws")
        self.key = ChartKey("compareCostKey")
        self.curves: list[pg.PlotDataItem] = []
        self.theme = Theme()
        self.widget.setToolTip("How often each design costs least per token when every price varies within its "
                               "class band and every efficiency within its stated range (seeded draws)")

    def show(self, confidence, names: list[str], styles: list[DesignStyle]) -> None:
        for curve in self.curves:
            self.widget.removeItem(curve)
        self.curves = []
        self.key.show_entries([], self.theme)
        if confidence is None:
            self.widget.setTitle("Cost per token: no GPU server price", color=self.theme.muted, size="9.5pt")
            return
        per = "million tokens" if "token" in confidence.unit else "step"
        self.widget.setTitle(f"Cost per {per} over {confidence.draws:,} price and efficiency draws",
                             color=self.theme.text,
                             size="9.5pt", bold=True)
        edges = np.asarray(confidence.hist_edges)
        for counts, style in zip(confidence.hist_counts, styles, strict=False):
            curve = pg.PlotDataItem(edges, np.asarray(counts, dtype=float), stepMode="center",
                                    pen=pg.mkPen(style.colour, width=2))
            self.widget.addItem(curve)
            self.curves.append(curve)
        self.key.show_entries([(style.colour.name(), "\u2501\u2501", f"[{i + 1}] wins {share:.0%}")
                               for i, (share, style) in enumerate(zip(confidence.win_share, styles, strict=False))],
                              self.theme)
        peak = max((float(np.max(c)) for c in confidence.hist_counts if len(c)), default=1.0)
        self.widget.setYRange(0, peak * 1.1, padding=0)
        self.widget.getAxis("bottom").tickStrings = _cents_ticks

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        _style(self.widget, theme)


def _cents_ticks(values, scale, spacing):
    return [f"${v:,.2f}" if abs(v) < 100 else f"${v:,.0f}" for v in values]


class CompareCharts(QWidget):
    """Capex, power and TCO bars side by side, the busbw curves and the cost-per-token draws."""

    def __init__(self, parent=None):
        super().__init__(parent)
        pg.setConfigOptions(antialias=True)
        self.capex = BarChart("compareCapexPlot", "Capex", "", money_short)
        self.capex.widget.setToolTip("Network capital cost from the bill of materials (illustrative prices)")
        self.power = BarChart("comparePowerPlot", "Power", "kW", _kw)
        self.power.widget.setToolTip("Network power: switches, NICs and transceivers")
        self.tco = BarChart("compareTcoPlot", "TCO", "", money_short, stacked=True)
        self.tco.widget.setToolTip("Capex (solid) plus energy over the period (pale)")
        self.busbw = BusbwChart()
        self.cost = CostDistributionChart()
        for chart in (self.capex, self.tco):
            chart.widget.getAxis("left").tickStrings = _money_ticks  # "$400k" rather than "400000"
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        grid.addWidget(self.capex.widget, 0, 0)
        grid.addWidget(self.power.widget, 0, 1)
        grid.addWidget(self.tco.widget, 0, 2)
        for row, chart in ((1, self.busbw), (2, self.cost)):
            cell = QVBoxLayout()
            cell.setSpacing(1)
            cell.addWidget(chart.widget, 1)
            cell.addWidget(chart.key)
            grid.addLayout(cell, row, 0, 1, 3)
        grid.setRowStretch(0, 1)
        grid.setRowStretch(1, 1)
        grid.setRowStretch(2, 1)
        self.apply_theme(Theme())


    def show_comparison(self, comparison: Comparison, curves, styles: list[DesignStyle], gpus: int) -> None:
        capex = list(comparison.row("capex_usd").values)
        energy = list(comparison.row("opex_usd").values)
        self.capex.show([v or 0.0 for v in capex], None, styles)
        self.power.show([v or 0.0 for v in comparison.row("power_kw").values], None, styles)
        self.tco.show([v or 0.0 for v in capex], [v or 0.0 for v in energy], styles)
        years = comparison.settings.years
        self.tco.widget.setTitle(f"TCO, {years} years", color=self.tco.theme.text,
                                 size="9.5pt", bold=True)
        self.busbw.show(curves, list(comparison.names), styles, comparison.settings.sizes, gpus)
        self.cost.show(comparison.confidence, list(comparison.names), styles)

    def apply_theme(self, theme: Theme) -> None:
        for chart in (self.capex, self.power, self.tco, self.busbw, self.cost):
            chart.apply_theme(theme)


def _money_ticks(values, scale, spacing):
    out = []
    for v in values:
        for factor, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k"), (1, "")):
            if abs(v) >= factor or factor == 1:
                out.append(f"${v / factor:g}{suffix}" if v else "0")
                break
    return out
