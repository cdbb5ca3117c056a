"""Plots (pyqtgraph): port use per tier, and all-reduce bus bandwidth against message size.

The plot items are made once; each new result updates their data in place (setOpts and
setData), which is what keeps a drag smooth.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QBoxLayout, QVBoxLayout, QWidget

from designer.ui.services.compute import ComputeResult
from designer.ui.theme import Theme

TIERS = ("leaf", "spine", "core")
STACKED_MIN_HEIGHT = 330   # below this the two plots stand side by side, each keeping its axis labels


class PlotsPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        pg.setConfigOptions(antialias=True)
        self.theme = Theme()
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        self.box = box
        # No context menu on the bars: said at construction, pyqtgraph does not build one to throw away.
        self.ports = pg.PlotWidget(enableMenu=False)
        self.ports.setObjectName("portUsePlot")
        self._titles = {}
        self._set_titles(self.ports, ["Port use per tier (solid: used · pale: free)", "Port use per tier", "Port use",
                                      "Ports"])
        self.ports.setLabel("left", "ports")
        self.ports.getAxis("left").enableAutoSIPrefix(False)
        self.ports.setMouseEnabled(False, False)
        self.ports.hideButtons()
        self.used_bars = pg.BarGraphItem(x=np.arange(3), height=np.zeros(3), width=0.6, name="used")
        self.free_bars = pg.BarGraphItem(x=np.arange(3), y0=np.zeros(3), height=np.zeros(3), width=0.6, name="free")
        self.ports.addItem(self.used_bars)
        self.ports.addItem(self.free_bars)
        self.ports.getAxis("bottom").setTicks([[(i, t) for i, t in enumerate(TIERS)]])
        box.addWidget(self.ports, 1)

        self.busbw = pg.PlotWidget()
        self.busbw.setObjectName("busbwPlot")
        self._set_titles(self.busbw, ["All-reduce busbw (estimate)", "All-reduce busbw", "busbw (est.)", "busbw"])
        self.busbw.getPlotItem().layout.setContentsMargins(0, 0, 30, 0)   # room for the last tick label (6·10¹⁰)
        self.busbw.setLabel("left", "GB/s")
        self.busbw.setLabel("bottom", "message size (bytes)")
        for name in ("left", "bottom"):
            self.busbw.getAxis(name).enableAutoSIPrefix(False)  # plain bytes and GB/s on the ticks
        self.busbw.setLogMode(x=True, y=False)
        self.busbw.showGrid(x=True, y=True, alpha=0.25)
        self.busbw.hideButtons()
        self.busbw_curve = self.busbw.plot([], [])
        self.size_marker = self.busbw.plot([], [], pen=None, symbol="d", symbolSize=12)
        # Shown in place of the curve while there is none (no design, or no estimate for it).
        self.busbw_empty = pg.TextItem("no estimate yet", anchor=(0.5, 0.5))
        view = self.busbw.getPlotItem().getViewBox()
        self.busbw_empty.setParentItem(view)   # in the view's own pixels: kept at its centre
        view.sigResized.connect(self._centre_busbw_empty)
        self._centre_busbw_empty(view)
        box.addWidget(self.busbw, 1)
        for plot in (self.ports, self.busbw):   # side by side in a 370-pixel column: each may be narrow
            plot.setMinimumSize(120, 120)
        self.ports.setYRange(0, 1, padding=0)
        self._used = self._free = None
        self._family = ""
        self._marker = None
        self.apply_theme(self.theme)
        self._show_busbw_axes(False)

    def _set_titles(self, plot, variants: list[str]) -> None:
        """A plot's title and its shorter forms; the longest that fits the plot is shown."""
        self._titles[plot] = variants
        plot.setTitle(variants[0], size="9pt")

    def _fit_titles(self) -> None:
        from PySide6.QtGui import QFont, QFontMetrics

        font = QFont(self.font())
        font.setPointSizeF(9)
        fm = QFontMetrics(font)
        for plot, variants in self._titles.items():
            room = plot.width() - 16
            text = next((v for v in variants if fm.horizontalAdvance(v) <= room), variants[-1])
            label = plot.getPlotItem().titleLabel
            if label.text != text:
                plot.setTitle(text, size="9pt", color=self.theme.text)
                # A shorter title lowers the plot's minimum width, but the plot item keeps the
                # geometry the longer one forced on it until it is given the view's rectangle again.
                pg.GraphicsView.setRange(plot, QRectF(0, 0, plot.width(), plot.height()), padding=0,
                                         disableAutoPixel=False)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # A low panel (a 1280x800 screen, where the inspector's form takes the column's height)
        # puts the plots side by side: each keeps room for its title, tick labels and axis names.
        direction = (QBoxLayout.Direction.LeftToRight if self.height() < STACKED_MIN_HEIGHT
                     and self.width() >= 300 else QBoxLayout.Direction.TopToBottom)
        if self.box.direction() != direction:
            self.box.setDirection(direction)
            self.box.activate()   # the plots take their new widths before their titles are fitted
        self._fit_titles()

    @property
    def side_by_side(self) -> bool:
        return self.box.direction() == QBoxLayout.Direction.LeftToRight

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        for plot in (self.ports, self.busbw):
            plot.setBackground(theme.background)
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(theme.muted))
                axis.setTextPen(pg.mkPen(theme.text))
            plot.getPlotItem().titleLabel.setText(plot.getPlotItem().titleLabel.text, color=theme.text)
        self.used_bars.setOpts(brushes=[theme.tier(t) for t in TIERS], pen=pg.mkPen(theme.muted))
        free = [theme.tier_fill(t) for t in TIERS]
        self.free_bars.setOpts(brushes=free, pen=pg.mkPen(theme.muted, style=pg.QtCore.Qt.PenStyle.DashLine))
        self.busbw_curve.setPen(pg.mkPen(theme.family("infiniband"), width=2))
        self.busbw_empty.setColor(theme.muted)
        self.size_marker.setSymbolBrush(theme.highlight)
        self.size_marker.setSymbolPen(pg.mkPen(theme.text))

    def _centre_busbw_empty(self, view) -> None:
        rect = view.boundingRect()
        self.busbw_empty.setPos(rect.center())

    def _show_busbw_axes(self, shown: bool) -> None:
        """An empty plot shows no ticks: pyqtgraph's default range would put stray numbers there."""
        if shown == getattr(self, "_busbw_axes_shown", None):
            return
        self._busbw_axes_shown = shown
        for name in ("left", "bottom"):
            self.busbw.getAxis(name).setStyle(showValues=shown)
        self.busbw.showGrid(x=shown, y=shown, alpha=0.25)
        if shown:
            self.busbw.getPlotItem().getViewBox().setMouseEnabled(True, True)
        self.busbw_empty.setVisible(not shown)

    def show_result(self, result: ComputeResult | None) -> None:
        m = result.metrics if result is not None else None
        used = np.zeros(3)
        free = np.zeros(3)
        if m is not None:
            for i, tier in enumerate(TIERS):
                tp = m.ports_by_tier.get(tier)
                if tp is not None:
                    used[i], free[i] = tp.ports_used, tp.ports_free
        # Only changed data is handed to the plots: every update repaints them.
        if not (np.array_equal(used, self._used) and np.array_equal(free, self._free)):
            self._used, self._free = used, free
            self.used_bars.setOpts(height=used)
            self.free_bars.setOpts(y0=used, height=free)
            self.ports.setYRange(0, max(1.0, float((used + free).max())) * 1.1, padding=0)
        curve = result.busbw_curve if result is not None else None
        if result is None or curve is None:
            self.busbw_curve.setData([], [])
            self.size_marker.setData([], [])
            self._marker = None
            self._show_busbw_axes(False)
            return
        self._show_busbw_axes(True)
        if result.family != self._family:
            self._family = result.family
            self.busbw_curve.setPen(pg.mkPen(self.theme.family(result.family), width=2))
        x, y = curve
        old_x, old_y = self.busbw_curve.getData()
        if old_x is None or not (np.array_equal(x, old_x) and np.allclose(y, old_y)):
            self.busbw_curve.setData(x, y)
        est = result.allreduce
        if est is not None:
            point = ([est.size_bytes], [est.busbw_GBps])
            if point != self._marker:
                self._marker = point
                self.size_marker.setData(*point)
