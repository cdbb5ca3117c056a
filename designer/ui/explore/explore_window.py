"""Tools > Explore Design Space: sweep one cluster's fabrics and pick from the Pareto front.

The form sets the axes of the sweep (technologies, oversubscriptions, planes, tiers, uplink speeds,
templates) and what is measured (a collective at a message size). Run sweeps off the UI
thread with progress and cancel; the scatter shows every built design, coloured by fabric
family, with the Pareto front of the chosen axes drawn as a line through ringed points.
Hover a point for its figures; click it (or a table row) to select it, then open it as a
design of its own or add it to Compare beside the open design.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from designer.catalog import Catalog
from designer.model.common.units import duration_label, parse_size, ratio_label, size_label
from designer.model.decisions.design_space import SweepPoint, SweepResult, SweepSpec, pareto
from designer.model.intent.design import FabricDesign
from designer.model.topology.presets import TEMPLATES
from designer.model.topology.sizing import parse_ratio
from designer.ui.compare.palette import short_technology
from designer.ui.explore.explore_service import SweepService
from designer.ui.panels.tables import pick_table
from designer.ui.theme import FAMILY_LABEL, Theme

# Axes a user can pick: (attribute, label, unit scale, unit). Lower is better on every one.
X_AXES = {"capex": ("capex_usd", "Capex", 1e-6, "$M"), "tco": ("tco_usd", "TCO", 1e-6, "$M"),
          "power": ("power_w", "Network power", 1e-3, "kW")}
Y_AXES = {"time": ("time_us", "Collective time", 1e-3, "ms"), "power": ("power_w", "Network power", 1e-3, "kW"),
          "tco": ("tco_usd", "TCO", 1e-6, "$M"), "switches": ("switches", "Switches", 1.0, "")}
COLLECTIVES = ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast")
TIER_CHOICES = {"Fewest that fit": (None,), "2 tiers": (2,), "3 tiers": (3,), "2 and 3 tiers": (2, 3)}
# Switch-to-switch speeds offered (None: at the server links' speed); a switch without a port mode
# at one refuses that combination, with its reason under Refused.
UPLINK_SPEEDS: tuple[int | None, ...] = (None, 200, 400, 800, 1600)
# The legend's corners in the order preferred when as many points lie under each: (the corner as
# a fraction of the plot, the legend's offset from it in pixels).
LEGEND_MARGIN = 10
POINT_RADIUS = 7                       # half the ringed front mark (15 px), so a ring is not cut
LEGEND_CORNERS = (((0, 0), (LEGEND_MARGIN, LEGEND_MARGIN)), ((1, 0), (-LEGEND_MARGIN, LEGEND_MARGIN)),
                  ((1, 1), (-LEGEND_MARGIN, -LEGEND_MARGIN)), ((0, 1), (LEGEND_MARGIN, -LEGEND_MARGIN)))
COLUMNS = ("#", "Front", "Technology", "Switch", "Asked", "Achieved", "Planes", "Tiers", "Up", "Switches",
           "Capex", "Power", "TCO", "Time")


def _uplink_cell(gbps: int | None) -> str:
    """The Up column: the uplink speed swept, '=' where uplinks run at the server links' speed."""
    return "=" if gbps is None else _uplink_label(gbps)


def _uplink_label(gbps: int | None) -> str:
    if gbps is None:
        return "As links"
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps}G"


def _numbers(text: str, parse, what: str) -> tuple:
    items = [t.strip() for t in text.replace(";", ",").split(",") if t.strip()]
    if not items:
        raise ValueError(f"give at least one {what}")
    try:
        return tuple(dict.fromkeys(parse(t) for t in items))
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _planes(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 16:
        raise ValueError(f"planes must be 1 to 16, got {value}")
    return value


class ExploreWindow(QMainWindow):
    """One per designer window; `start_design` seeds the form from the open design."""

    openDesignRequested = Signal(object)
    """A design (FabricDesign) to open in a designer window of its own."""

    compareRequested = Signal(object)
    """A design (FabricDesign) to compare beside the open design."""

    def __init__(self, catalog: Catalog, synchronous: bool = False, parent=None):
        super().__init__(parent)
        self.setObjectName("exploreWindow")
        self.setWindowTitle("Explore Design Space — Fabric Designer")
        self.catalog = catalog
        self.service = SweepService(synchronous=synchronous, parent=self)
        self.service.progressChanged.connect(self._on_progress)
        self.service.finished.connect(self._on_finished)
        self.service.failed.connect(self._on_failed)
        self.result: SweepResult | None = None
        self.selected: SweepPoint | None = None
        self._shown: list[SweepPoint] = []
        self.theme = Theme(self.palette())
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._make_form())
        splitter.addWidget(self._make_results())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([320, 1000])
        self.setCentralWidget(splitter)
        self.statusBar().showMessage("Set the axes of the sweep and press Run")
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        self.resize(min(1320, screen.width()) if screen else 1320, min(800, screen.height()) if screen else 800)

    # --- the form ----------------------------------------------------------------------------------

    def _make_form(self) -> QWidget:
        box = QWidget()
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.gpus = QSpinBox()
        self.gpus.setRange(1, 1_000_000)
        self.gpus.setSingleStep(256)
        self.gpus.setValue(1024)
        self.gpus.setGroupSeparatorShown(True)
        form.addRow("GPUs", self.gpus)
        self.server = QComboBox()
        for server in self.catalog.servers.values():
            self.server.addItem(server.name, server.id)
            self.server.setItemData(self.server.count() - 1, server.name, Qt.ItemDataRole.ToolTipRole)
        # Server names run to 60 characters: the box gives way (its list opens at full width), so
        # that the form does not push the results table into cutting its columns short.
        self.server.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.server.setMinimumContentsLength(22)
        self.server.view().setMinimumWidth(self.server.view().sizeHintForColumn(0) + 24)
        self.server.currentTextChanged.connect(self.server.setToolTip)
        form.addRow("Server", self.server)
        self.template_boxes = {}
        column = QVBoxLayout()
        for template in TEMPLATES:
            check = QCheckBox(template.replace("-", " ").capitalize())
            check.setChecked(template == "rail-optimized")
            self.template_boxes[template] = check
            column.addWidget(check)
        form.addRow("Templates", column)
        self.tech_boxes = {}
        column = QVBoxLayout()
        for tech in self.catalog.technologies_by_speed():
            # The short name keeps the form narrow, so that the results table beside it shows
            # every column whole at 1280 pixels; the full name is in the tooltip.
            check = QCheckBox(short_technology(tech.name))
            check.setToolTip(f"{tech.name} ({tech.id})")
            check.setChecked(True)
            self.tech_boxes[tech.id] = check
            column.addWidget(check)
        form.addRow("Technologies", column)
        self.ratios = QLineEdit("1:1, 2:1, 3:1")
        self.ratios.setToolTip("Leaf oversubscriptions, comma-separated (1:1, 1.5:1, 3:1 ...)")
        form.addRow("Oversubscription", self.ratios)
        self.planes = QLineEdit("1, 2")
        self.planes.setToolTip("Plane counts, comma-separated")
        form.addRow("Planes", self.planes)
        self.tiers = QComboBox()
        self.tiers.addItems(list(TIER_CHOICES))
        form.addRow("Tiers", self.tiers)
        self.uplink_boxes: dict[int | None, QCheckBox] = {}
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        for k, gbps in enumerate(UPLINK_SPEEDS):
            check = QCheckBox(_uplink_label(gbps))
            check.setChecked(gbps is None)
            check.setToolTip("Switch-to-switch links at the server links' speed" if gbps is None else
                             f"Switch-to-switch links at {_uplink_label(gbps)}, where the switch has a port mode "
                             "at that speed (speed-asymmetric uplinks: fewer uplink cables for the same bandwidth)")
            self.uplink_boxes[gbps] = check
            grid.addWidget(check, k // 3, k % 3)
        form.addRow("Uplink speeds", grid)
        self.collective = QComboBox()
        self.collective.addItems(COLLECTIVES)
        form.addRow("Collective", self.collective)
        self.size_edit = QLineEdit("1GiB")
        form.addRow("Message size", self.size_edit)
        self.count_label = QLabel()
        self.count_label.setWordWrap(True)
        form.addRow("", self.count_label)
        buttons = QHBoxLayout()
        self.run_button = QPushButton("&Run")
        self.run_button.setObjectName("exploreRun")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        form.addRow(buttons)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m designs")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)   # until a sweep runs
        form.addRow(self.progress)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {self.theme.error.name()}")
        form.addRow(self.error_label)
        for widget in (self.ratios, self.planes, self.size_edit):
            widget.textChanged.connect(self._update_count)
        for check in [*self.template_boxes.values(), *self.tech_boxes.values(), *self.uplink_boxes.values()]:
            check.toggled.connect(self._update_count)
        self.tiers.currentIndexChanged.connect(self._update_count)
        self.gpus.valueChanged.connect(self._update_count)
        self._update_count()
        return box

    def start_design(self, design: FabricDesign | None) -> None:
        """Seed the form from the open design: its GPU count, server, template, technology, leaf
        ratio, planes and tier count, each among the values swept around it."""
        if design is None:
            return
        self.gpus.setValue(design.cluster.servers * (design.cluster.gpus_per_server
                                                     or self.catalog.server(design.cluster.server).gpus))
        index = self.server.findData(design.cluster.server)
        if index >= 0:
            self.server.setCurrentIndex(index)
        f = design.fabric
        for template, check in self.template_boxes.items():
            check.setChecked(template == f.template)
        if f.technology in self.tech_boxes:
            self.tech_boxes[f.technology].setChecked(True)
        ratios = sorted({1.0, 2.0, 3.0, float(f.leaf.oversubscription)})
        self.ratios.setText(", ".join(f"{r:g}:1" for r in ratios))
        self.planes.setText(", ".join(str(p) for p in sorted({1, 2, f.planes})))
        tiers = {None: "Fewest that fit", 2: "2 tiers", 3: "3 tiers"}.get(f.tiers, "Fewest that fit")
        self.tiers.setCurrentText(tiers)
        for gbps, check in self.uplink_boxes.items():
            check.setChecked(gbps is None or gbps == f.uplink_gbps)

    def spec(self) -> SweepSpec:
        """The sweep the form describes; raises ValueError with a message for the form."""
        templates = tuple(t for t, c in self.template_boxes.items() if c.isChecked())
        techs = tuple(t for t, c in self.tech_boxes.items() if c.isChecked())
        if not templates:
            raise ValueError("tick at least one template")
        if not techs:
            raise ValueError("tick at least one technology")
        uplinks = tuple(g for g, c in self.uplink_boxes.items() if c.isChecked())
        if not uplinks:
            raise ValueError("tick at least one uplink speed")
        return SweepSpec(gpus=self.gpus.value(), server=self.server.currentData(), templates=templates,
                         technologies=techs, oversubscriptions=_numbers(self.ratios.text(), parse_ratio,
                                                                         "oversubscription"),
                         planes=_numbers(self.planes.text(), _planes, "planes"),
                         tiers=TIER_CHOICES[self.tiers.currentText()], uplink_speeds=uplinks,
                         collective=self.collective.currentText(),
                         size_bytes=parse_size(self.size_edit.text()))

    def _update_count(self, *_) -> None:
        try:
            spec = self.spec()
        except ValueError as exc:
            self.count_label.setText("")
            self.error_label.setText(str(exc))
            self.run_button.setEnabled(False)
            return
        self.error_label.setText("")
        self.run_button.setEnabled(True)
        self.count_label.setText(f"{spec.count:,} combinations of {spec.gpus:,} GPUs")

    # --- running -------------------------------------------------------------------------------------

    def run(self) -> None:
        try:
            spec = self.spec()
        except ValueError as exc:
            self.error_label.setText(str(exc))
            return
        self.progress.setRange(0, spec.count)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.statusBar().showMessage(f"Sweeping {spec.count:,} designs…")
        self.service.start(spec)

    def cancel(self) -> None:
        self.service.cancel()
        self.cancel_button.setEnabled(False)
        self.statusBar().showMessage("Cancelling after the designs in progress…")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_failed(self, message: str) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.error_label.setText(message)
        self.statusBar().showMessage("The sweep failed")

    def _on_finished(self, result: SweepResult, cancelled: bool) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.result = result
        self.selected = None
        built, refused = len(result.built), len(result.refused)
        done = "Cancelled: " if cancelled else ""
        self.statusBar().showMessage(f"{done}{len(result.points):,} of {result.spec.count:,} combinations: "
                                     f"{built:,} built, {refused:,} refused")
        self._fill_refused()
        self.redraw()

    # --- results -------------------------------------------------------------------------------------

    def _make_results(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        axes = QHBoxLayout()
        self.x_axis = QComboBox()
        for key, (_, label, _, unit) in X_AXES.items():
            self.x_axis.addItem(f"{label} ({unit})", key)
        self.y_axis = QComboBox()
        for key, (_, label, _, unit) in Y_AXES.items():
            self.y_axis.addItem(f"{label} ({unit})" if unit else label, key)
        axes.addWidget(QLabel("Horizontal"))
        axes.addWidget(self.x_axis)
        axes.addWidget(QLabel("Vertical"))
        axes.addWidget(self.y_axis)
        axes.addStretch(1)
        self.x_axis.currentIndexChanged.connect(self.redraw)
        self.y_axis.currentIndexChanged.connect(self.redraw)
        layout.addLayout(axes)
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("explorePlot")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.getViewBox().setDefaultPadding(0.06)   # points at the edges stay whole
        self.plot.setBackground(self.theme.background)
        self.legend = self.plot.addLegend(offset=(LEGEND_MARGIN, LEGEND_MARGIN))
        self.legend_corner = LEGEND_CORNERS[0][0]
        # The legend takes the corner of the plot with the fewest points under it, chosen again
        # whenever the points or the plot's size change, so that it never hides a design.
        self.plot.getViewBox().sigResized.connect(self.place_legend)
        self.front_line = self.plot.plot([], [], pen=pg.mkPen(self.theme.text, width=1.5,
                                                              style=Qt.PenStyle.DashLine), name="Pareto front")
        self.scatters = {}
        for family in ("infiniband", "ethernet"):
            item = pg.ScatterPlotItem(size=9, hoverable=True, hoverSize=13, tip=self._tip,
                                      brush=pg.mkBrush(self.theme.family(family)), pen=pg.mkPen(None),
                                      name=FAMILY_LABEL[family])
            item.sigClicked.connect(self._on_click)
            self.plot.addItem(item)
            self.scatters[family] = item
        self.front_marks = pg.ScatterPlotItem(size=15, brush=pg.mkBrush(None), pen=pg.mkPen(self.theme.text, width=2))
        self.front_marks.sigClicked.connect(self._on_click)   # the ring lies over its point
        self.plot.addItem(self.front_marks)
        self.pick_mark = pg.ScatterPlotItem(size=20, symbol="+", brush=pg.mkBrush(self.theme.highlight),
                                            pen=pg.mkPen(self.theme.highlight, width=2))
        self.plot.addItem(self.pick_mark)
        layout.addWidget(self.plot, 3)
        pick = QHBoxLayout()
        self.pick_label = QLabel("Click a point or a row to pick a design")
        self.pick_label.setWordWrap(True)
        self.open_button = QPushButton("Open as Design")
        self.open_button.setObjectName("exploreOpen")
        self.compare_button = QPushButton("Add to Compare")
        self.compare_button.setObjectName("exploreCompare")
        for button in (self.open_button, self.compare_button):
            button.setEnabled(False)
        self.open_button.clicked.connect(lambda: self._emit_design(self.openDesignRequested))
        self.compare_button.clicked.connect(lambda: self._emit_design(self.compareRequested))
        pick.addWidget(self.pick_label, 1)
        pick.addWidget(self.open_button)
        pick.addWidget(self.compare_button)
        layout.addLayout(pick)
        tabs = QTabWidget()
        self.table = pick_table(COLUMNS)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The two text columns give way (their full text in a tooltip) so that every figure, the
        # Time column last, stays in view on a 1280-pixel screen instead of scrolling sideways.
        for col in (COLUMNS.index("Technology"), COLUMNS.index("Switch")):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        up_header = self.table.horizontalHeaderItem(COLUMNS.index("Up"))
        if up_header is not None:
            up_header.setToolTip("Uplink speed: switch to switch ('=': at the server links' speed)")
        self.table.itemSelectionChanged.connect(self._on_row)
        tabs.addTab(self.table, "Built designs")
        self.refused = QTableWidget(0, 2)
        self.refused.setHorizontalHeaderLabels(("Combination", "Refused because"))
        self.refused.verticalHeader().setVisible(False)
        self.refused.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.refused.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.refused.horizontalHeader().setStretchLastSection(True)
        self.refused.setWordWrap(True)
        tabs.addTab(self.refused, "Refused")
        self.tabs = tabs
        layout.addWidget(tabs, 2)
        return box

    def _axes(self):
        return X_AXES[self.x_axis.currentData()], Y_AXES[self.y_axis.currentData()]

    def front(self) -> list[SweepPoint]:
        """The Pareto front of the built designs on the chosen axes, cheapest first."""
        if self.result is None:
            return []
        (x, *_), (y, *_) = self._axes()
        ids = pareto(self.result.built, x, y)
        return sorted((p for p in self.result.built if p.index in ids), key=lambda p: getattr(p, x))

    def redraw(self, *_) -> None:
        if self.result is None:
            return
        (x, xl, xs, xu), (y, yl, ys, yu) = self._axes()
        self.plot.setLabel("bottom", xl, units="" if not xu else "")
        self.plot.getAxis("bottom").setLabel(f"{xl} ({xu})")
        self.plot.getAxis("left").setLabel(f"{yl} ({yu})" if yu else yl)
        built = self.result.built
        for family, item in self.scatters.items():
            pts = [p for p in built if p.family == family]
            item.setData([getattr(p, x) * xs for p in pts], [getattr(p, y) * ys for p in pts], data=pts)
        front = self.front()
        fx = [getattr(p, x) * xs for p in front]
        fy = [getattr(p, y) * ys for p in front]
        self.front_line.setData(fx, fy)
        self.front_marks.setData(fx, fy, data=front)
        ids = {p.index for p in front}
        self._fill_table(sorted(built, key=lambda p: (getattr(p, x), getattr(p, y))), ids)
        self._show_pick()
        self.plot.enableAutoRange()
        self.place_legend()

    def place_legend(self, *_) -> None:
        """Anchor the legend in the corner of the plot that covers the fewest plotted points."""
        vb = self.plot.getViewBox()
        box = vb.sceneBoundingRect()
        size = self.legend.boundingRect()
        xy = self.points_xy() if self.result is not None else np.empty((0, 2))
        scene = [vb.mapViewToScene(pg.Point(float(x), float(y))) for x, y in xy]
        pad = LEGEND_MARGIN - POINT_RADIUS      # a point whose mark reaches into the legend counts
        covered = []
        for corner in LEGEND_CORNERS:
            (fx, fy), _ = corner
            left = box.left() + pad if fx == 0 else box.right() - pad - size.width() - 2 * POINT_RADIUS
            top = box.top() + pad if fy == 0 else box.bottom() - pad - size.height() - 2 * POINT_RADIUS
            w, h = size.width() + 2 * POINT_RADIUS, size.height() + 2 * POINT_RADIUS
            covered.append(sum(left <= p.x() <= left + w and top <= p.y() <= top + h for p in scene))
        (anchor, offset) = LEGEND_CORNERS[covered.index(min(covered))]
        self.legend.anchor(itemPos=anchor, parentPos=anchor, offset=offset)
        self.legend_corner = anchor

    def _tip(self, x, y, data) -> str:
        return self._describe(data) if isinstance(data, SweepPoint) else ""

    def _describe(self, p: SweepPoint) -> str:
        s = self.result.spec if self.result else None
        what = f"{s.collective} {size_label(s.size_bytes)}" if s else "collective"
        assert p.capex_usd is not None and p.power_w is not None and p.tco_usd is not None \
            and p.time_us is not None   # a built point measured them all
        uplink = p.choice.get("uplink_speed")
        lines = [p.name, f"{p.choice['template']}: {p.switches:,} switches ({p.switch}), {p.tiers} tiers, "
                 f"{p.planes} plane(s)" + (f", {_uplink_label(uplink)} uplinks" if uplink else ""),
                 f"capex ${p.capex_usd / 1e6:,.2f}M{' (incomplete: unpriced parts)' if p.unpriced else ''}, "
                 f"power {p.power_w / 1000:,.0f} kW, TCO ${p.tco_usd / 1e6:,.2f}M",
                 f"{what}: {duration_label(p.time_us)} ({p.algorithm}, estimate); "
                 f"bisection {p.bisection_tbps:,.1f} Tb/s"]
        if p.oversubscription:
            lines.append(f"oversubscription {p.choice['oversubscription']:g}:1 asked, "
                         f"{ratio_label(p.oversubscription)} achieved")
        return "\n".join(lines)

    def _fill_table(self, points: list[SweepPoint], front: set[int]) -> None:
        self._shown = points
        self.table.blockSignals(True)
        self.table.setRowCount(len(points))
        for row, p in enumerate(points):
            assert p.capex_usd is not None and p.power_w is not None and p.tco_usd is not None \
                and p.time_us is not None   # a built point measured them all
            tech = self.catalog.technologies.get(p.choice["technology"])
            tech_name = tech.name if tech is not None else p.choice["technology"]
            values = (str(p.index + 1), "\u2605" if p.index in front else "", short_technology(tech_name), p.switch,
                      f"{p.choice['oversubscription']:g}:1",
                      ratio_label(p.oversubscription) if p.oversubscription else "—",
                      str(p.planes), str(p.tiers), _uplink_cell(p.choice.get("uplink_speed")), f"{p.switches:,}",
                      f"${p.capex_usd / 1e6:,.2f}M" + ("*" if p.unpriced else ""), f"{p.power_w / 1000:,.0f} kW",
                      f"${p.tco_usd / 1e6:,.2f}M", duration_label(p.time_us))
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                if col == 2:
                    item.setToolTip(f"{tech_name} ({p.choice['technology']})")
                elif col == 3:
                    item.setToolTip(text)
                elif col == COLUMNS.index("Up"):
                    item.setToolTip("Switch-to-switch links at the server links' speed" if text == "=" else
                                    f"Switch-to-switch links at {text}")
                if col == 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    item.setToolTip("On the Pareto front of the chosen axes")
                elif col not in (2, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
        self.table.blockSignals(False)

    def _fill_refused(self) -> None:
        refused = self.result.refused if self.result else []
        self.refused.setRowCount(len(refused))
        for row, p in enumerate(refused):
            c = p.choice
            label = (f"{c['template']}, {c['technology']}, {c['oversubscription']:g}:1"
                     + (f", {c['planes']} plane(s)" if c["planes"] else "")
                     + (f", {c['tiers']} tiers" if c["tiers"] else ""))
            self.refused.setItem(row, 0, QTableWidgetItem(label))
            self.refused.setItem(row, 1, QTableWidgetItem(p.error or ""))
        self.tabs.setTabText(1, f"Refused ({len(refused)})")
        self.tabs.setTabText(0, f"Built designs ({len(self.result.built) if self.result else 0})")

    # --- picking -------------------------------------------------------------------------------------

    def _on_click(self, item, spots, *_) -> None:
        if len(spots):
            self.pick(spots[0].data())

    def _on_row(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self.pick(self._shown[rows[0].row()], from_table=True)

    def pick(self, point: SweepPoint | None, from_table: bool = False) -> None:
        self.selected = point
        if point is not None and not from_table and point in self._shown:
            self.table.blockSignals(True)
            self.table.selectRow(self._shown.index(point))
            self.table.blockSignals(False)
        self._show_pick()

    def _show_pick(self) -> None:
        p = self.selected
        if p is None or self.result is None:
            self.pick_mark.setData([], [])
            self.pick_label.setText("Click a point or a row to pick a design")
        else:
            (x, _, xs, _), (y, _, ys, _) = self._axes()
            self.pick_mark.setData([getattr(p, x) * xs], [getattr(p, y) * ys])
            self.pick_label.setText(self._describe(p).replace("\n", " · "))
        for button in (self.open_button, self.compare_button):
            button.setEnabled(p is not None)

    def _emit_design(self, signal) -> None:
        if self.selected is None or self.result is None:
            return
        signal.emit(self.result.design(self.selected, self.catalog))

    def points_xy(self) -> np.ndarray:
        """The plotted positions of the built designs (tests check them against the axes)."""
        (x, _, xs, _), (y, _, ys, _) = self._axes()
        return np.array([(getattr(p, x) * xs, getattr(p, y) * ys) for p in (self.result.built if self.result else [])])

    def closeEvent(self, event) -> None:
        self.service.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        self.service.shutdown()
