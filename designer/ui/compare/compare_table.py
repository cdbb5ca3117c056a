"""The comparison table: one row per metric under its group, a value column per design, and
after each design but the first its change against the baseline in %.

Values carry their unit and share one scale and precision per row, so the digits line up.
A change is green when it is an improvement (by Row.better), red when it is worse, grey
when the metric has no better direction. The best value of a row is bold.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from designer.model.common.units import figure_text, size_label
from designer.model.decisions.comparison import Comparison, Row
from designer.model.decisions.verdict import leader_share_cell
from designer.ui.compare.palette import DesignStyle, delta_colours
from designer.ui.theme import Theme

RAW_ROLE = Qt.ItemDataRole.UserRole + 1      # the unformatted float (None when missing)
KEY_ROLE = Qt.ItemDataRole.UserRole + 2      # the row's metric key ("" on a group row)

_DIRECTION = {"lower": "Lower is better.", "higher": "Higher is better.", "": "Neither higher nor lower is better."}

TOOLTIPS = {
    "gpus": "GPUs in the cluster. When the designs differ, the collective and training rows use the "
            "smallest count on every design.",
    "switches": "Switches in every tier and plane.",
    "optics": "Transceivers from the bill of materials (one at each optical end).",
    "cables": "Copper cables and fibres from the bill of materials.",
    "nics": "Compute NICs from the bill of materials.",
    "capex_usd": "Network capital cost from the bill of materials: switches, NICs, transceivers, cables. "
                 "Prices are illustrative estimates unless a price book is loaded, not quotes.",
    "power_kw": "Network power: switches, NICs and transceivers, from catalog figures (some are estimates).",
    "opex_usd": "Energy bought over the period: network power × PUE × 8,760 h × years × energy price "
                "(assumptions, editable under Assumptions).",
    "tco_usd": "Capex plus energy over the period. Maintenance, space and staff are not included.",
    "tco_per_gpu_usd": "TCO divided by the GPU count.",
    "bisection_tbps": "Bandwidth across the worst halving of the fabric.",
    "bisection_ratio": "Bisection bandwidth as a share of full (non-blocking) bisection.",
    "max_hops": "Switches on the longest path between two GPUs.",
    "base_latency_us": "Estimate: two NIC latencies plus one switch latency per hop on the longest path "
                       "(catalog estimates), without queuing.",
    "step_ms": "Example training job (set under Assumptions): compute time plus the gradient all-reduce "
               "time left exposed. Illustrative.",
    "comm_share": "Share of the example training step spent in communication.",
}


_COLLECTIVE_NAMES = {"allreduce": "all-reduce", "alltoall": "all-to-all", "allgather": "all-gather",
                     "reducescatter": "reduce-scatter", "broadcast": "broadcast"}


def metric_tooltip(row: Row) -> str:
    parts = row.key.split("_")
    if len(parts) >= 3 and parts[0] in _COLLECTIVE_NAMES and parts[1].isdigit():
        what = f"one {_COLLECTIVE_NAMES[parts[0]]} of {size_label(int(parts[1]))} over every GPU of the job"
        if row.key.endswith("_time_us"):
            text = f"Estimated time of {what} (collectives model, best algorithm for each fabric)."
        else:
            text = (f"Estimated bus bandwidth per GPU of {what} (the nccl-tests convention, comparable "
                    "across GPU counts).")
    else:
        text = TOOLTIPS.get(row.key, row.label)
    return f"{text}\n{_DIRECTION.get(row.better, '')}"


# --- formatting --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowFormat:
    """How every value of one row is written: scale, decimals, prefix and suffix."""

    scale: float = 1.0
    decimals: int = 0
    prefix: str = ""
    suffix: str = ""

    unit: str = ""         # the row's unit before scaling; unscaled rows use the one formatter

    def __call__(self, value: float | None) -> str:
        if value is None:
            return "—"
        if self.scale == 1.0 and self.unit not in ("us", "ms"):
            return f"{self.prefix}{figure_text(value, self.unit)}{self.suffix}"
        return f"{self.prefix}{value / self.scale:,.{self.decimals}f}{self.suffix}"


def _decimals(largest: float, values: list[float]) -> int:
    if all(float(v).is_integer() for v in values):
        return 0
    if largest >= 100:
        return 0
    if largest >= 10:
        return 1
    return 2


def row_format(row: Row) -> RowFormat:
    values = [v for v in row.values if v is not None]
    largest = max((abs(v) for v in values), default=0.0)
    unit = row.unit
    if unit == "USD":
        return RowFormat(prefix="$", unit="USD")
    scale = 1.0
    if unit == "us":
        unit = "µs"
        if largest >= 1e6:
            scale, unit = 1e6, "s"
        elif largest >= 1e3:
            scale, unit = 1e3, "ms"
    elif unit == "ms" and largest >= 1e5:
        scale, unit = 1e3, "s"
    scaled = [v / scale for v in values]
    decimals = _decimals(largest / scale, scaled)
    suffix = "" if not unit else (unit if unit == "%" else f" {unit}")
    return RowFormat(scale, decimals, "", suffix, row.unit)


def delta_text(delta: float | None, unit: str = "%") -> str:
    """A change against the baseline: in % or, on a row of shares (unit "pt"), in percentage points."""
    suffix = " pt" if unit == "pt" else "%"
    if delta is None:
        return "—"
    if abs(delta) < 0.05:
        return f"0.0{suffix}"
    return f"{delta:+,.1f}{suffix}"


def delta_verdict(delta: float | None, better: str) -> str:
    """'good', 'bad' or 'neutral' for a change against the baseline."""
    if delta is None or not better or abs(delta) < 0.05:
        return "neutral"
    improved = delta < 0 if better == "lower" else delta > 0
    return "good" if improved else "bad"


def _dot(color: QColor, size: int = 12) -> QIcon:
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color)
    p.drawRoundedRect(1, 1, size - 2, size - 2, 3, 3)
    p.end()
    return QIcon(pm)


# --- the model ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    kind: str      # "metric", "value" or "delta"
    design: int    # design index (-1 for the metric column)


class CompareTableModel(QAbstractTableModel):
    """Rows of a Comparison with their group headings; read-only."""

    def __init__(self, theme: Theme | None = None, parent=None):
        super().__init__(parent)
        self.theme = theme or Theme()
        self.comparison: Comparison | None = None
        self.styles: list[DesignStyle] = []
        self._lines: list[str | Row] = []          # a str is a group heading
        self._columns: list[Column] = []
        self._formats: dict[str, RowFormat] = {}

    # --- content ------------------------------------------------------------------------------

    def set_comparison(self, comparison: Comparison | None, styles: list[DesignStyle]) -> None:
        """Show `comparison`; cells are updated in place when the shape (rows, designs) is unchanged."""
        lines: list[str | Row] = []
        if comparison is not None:
            group = None
            for row in comparison.rows:
                if row.group != group:
                    group = row.group
                    lines.append(group)
                lines.append(row)
        columns = [Column("metric", -1)]
        if comparison is not None:
            for i in range(len(comparison.names)):
                columns.append(Column("value", i))
                if i > 0:
                    columns.append(Column("delta", i))
        shape = [(x if isinstance(x, str) else x.key) for x in lines]
        same = (shape == [(x if isinstance(x, str) else x.key) for x in self._lines]
                and columns == self._columns)
        if not same:
            self.beginResetModel()
        self.comparison = comparison
        self.styles = list(styles)
        self._lines = lines
        self._columns = columns
        self._formats = {x.key: row_format(x) for x in lines if isinstance(x, Row)}
        if same:
            if lines:
                self.dataChanged.emit(self.index(0, 0), self.index(len(lines) - 1, len(columns) - 1))
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(columns) - 1)
        else:
            self.endResetModel()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        if self._lines:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._lines) - 1, len(self._columns) - 1))

    def column(self, col: int) -> Column:
        return self._columns[col]

    def value_column(self, design: int) -> int:
        return self._columns.index(Column("value", design))

    def row_of(self, key: str) -> int:
        """The model row of metric `key`."""
        for i, line in enumerate(self._lines):
            if isinstance(line, Row) and line.key == key:
                return i
        raise KeyError(key)

    def is_group(self, row: int) -> bool:
        return isinstance(self._lines[row], str)

    def metric_rows(self) -> int:
        return sum(1 for line in self._lines if isinstance(line, Row))

    # --- QAbstractTableModel ------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._lines)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._columns)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self.is_group(index.row()):
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        line = self._lines[index.row()]
        col = self._columns[index.column()]
        if isinstance(line, str):
            return self._group_data(line, col, role)
        return self._row_data(line, col, role)

    def _group_data(self, group: str, col: Column, role: int):
        if role == Qt.ItemDataRole.DisplayRole and col.kind == "metric":
            return group.upper()
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            font.setPointSizeF(font.pointSizeF() * 0.85)
            font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 106)
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(self.theme.muted)
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(self.theme.grid)
        if role == KEY_ROLE:
            return ""
        return None

    def _row_data(self, row: Row, col: Column, role: int):
        R = Qt.ItemDataRole
        if role == KEY_ROLE:
            return row.key
        if col.kind == "metric":
            if role == R.DisplayRole:
                return row.label
            if role == R.ToolTipRole:
                return metric_tooltip(row)
            return None
        value = row.values[col.design]
        if col.kind == "value":
            if role == R.DisplayRole:
                if row.key == "win_share_pct":   # a leader of an overlapping close call: never 0% nor 100%
                    close = self.comparison.recommendation.close_call if self.comparison is not None else None
                    shown = leader_share_cell(close, col.design, value)
                    if shown is not None:
                        return shown
                return self._formats[row.key](value)
            if role == RAW_ROLE:
                return value
            if role == R.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if role == R.FontRole and self._is_best(row, col.design):
                font = QFont()
                font.setBold(True)
                return font
            if role == R.BackgroundRole and col.design == 0:
                return QBrush(self._baseline_tint())
            if role == R.ToolTipRole:
                return self._value_tooltip(row, col.design)
            return None
        delta = row.deltas[col.design]
        if role == R.DisplayRole:
            return delta_text(delta, row.delta_unit)
        if role == RAW_ROLE:
            return delta
        if role == R.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == R.ForegroundRole:
            good, bad, neutral = delta_colours(self.theme)
            return QBrush({"good": good, "bad": bad, "neutral": neutral}[delta_verdict(delta, row.better)])
        if role == R.ToolTipRole:
            return self._delta_tooltip(row, col.design, delta)
        return None

    def _is_best(self, row: Row, design: int) -> bool:
        values = [v for v in row.values if v is not None]
        if not row.better or len(set(values)) < 2 or row.values[design] is None:
            return False
        best = min(values) if row.better == "lower" else max(values)
        return row.values[design] == best

    def _baseline_tint(self) -> QColor:
        base, hi = self.theme.background, self.theme.highlight
        t = 0.10 if self.theme.dark else 0.05
        return QColor(round(base.red() + (hi.red() - base.red()) * t),
                      round(base.green() + (hi.green() - base.green()) * t),
                      round(base.blue() + (hi.blue() - base.blue()) * t))

    def _name(self, design: int) -> str:
        assert self.comparison is not None   # design columns exist only with a comparison
        return f"[{design + 1}] {self.comparison.names[design]}"

    def _value_tooltip(self, row: Row, design: int) -> str:
        fmt = self._formats[row.key]
        raw = row.values[design]
        exact = "no value" if raw is None else f"{raw:,.6g} {row.unit}".rstrip()
        return f"{row.label} of {self._name(design)}: {fmt(raw)} ({exact})\n{metric_tooltip(row)}"

    def _delta_tooltip(self, row: Row, design: int, delta: float | None) -> str:
        if delta is None:
            return "No change can be given: a value is missing or the baseline is zero."
        verdict = delta_verdict(delta, row.better)
        word = {"good": "an improvement", "bad": "worse", "neutral": "neither better nor worse"}[verdict]
        direction = "higher" if delta > 0 else "lower"
        size = f"{abs(delta):,.1f} percentage points" if row.delta_unit == "pt" else f"{abs(delta):,.1f}%"
        return (f"{self._name(design)} is {size} {direction} than the baseline "
                f"{self._name(0)}: {word}.\n{_DIRECTION.get(row.better, '')}")

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or section >= len(self._columns):
            return None
        col = self._columns[section]
        R = Qt.ItemDataRole
        c = self.comparison
        if col.kind == "metric":
            if role == R.DisplayRole:
                return "Metric"
            if role == R.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return None
        assert c is not None   # design columns exist only with a comparison
        style = self.styles[col.design] if col.design < len(self.styles) else None
        if col.kind == "delta":
            if role == R.DisplayRole:
                return "Δ vs [1]"
            if role == R.ToolTipRole:
                return (f"Change of {self._name(col.design)} against the baseline {self._name(0)}, in %.\n"
                        "Green: better · red: worse · grey: no better direction.")
            if role == R.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role == R.DisplayRole:
            tech = style.tech_short if style else c.technologies[col.design]
            return f"[{col.design + 1}]" + (" baseline" if col.design == 0 else "") + f"\n{tech}"
        if role == R.DecorationRole and style is not None:
            return _dot(style.colour)
        if role == R.ToolTipRole:
            tech = c.technologies[col.design]
            return (f"{self._name(col.design)}\nTechnology: {style.tech_name if style else tech} "
                    f"({c.families[col.design]})"
                    + ("\nBaseline: the other designs' changes are against this one." if col.design == 0 else "")
                    + "\nRight-click for Save Design As, Open in Designer, Make Baseline, Remove.")
        if role == R.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == R.FontRole and col.design == 0:
            font = QFont()
            font.setBold(True)
            return font
        return None


class CompareTable(QTableView):
    """The table view: group headings span the row; right-click a design's column for its actions."""

    designMenuRequested = Signal(int, QPoint)
    """A design's column (header or cell) was right-clicked; carries the design index and global position."""

    def __init__(self, model: CompareTableModel, parent=None):
        super().__init__(parent)
        self.setObjectName("compareTable")
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setCornerButtonEnabled(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 7)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionsClickable(True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        header.sectionClicked.connect(self._header_clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._cell_menu)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self._widths: dict[int, int] = {}
        model.modelReset.connect(self._relayout)
        model.dataChanged.connect(self._grow_columns)

    def model(self) -> CompareTableModel:  # typed accessor
        model = super().model()
        assert isinstance(model, CompareTableModel)
        return model

    def _relayout(self) -> None:
        m = self.model()
        self.clearSpans()
        for row in range(m.rowCount()):
            if m.is_group(row):
                self.setSpan(row, 0, 1, m.columnCount())
        self.fit_columns()
        self.setCurrentIndex(QModelIndex())

    def _grow_columns(self, *_) -> None:
        """New values (an edited assumption): refit the columns only if a text no longer fits."""
        self.fit_columns(grow_only=True)

    def fit_columns(self, grow_only: bool = False) -> None:
        """Every column as wide as its widest text; spare width goes to the value columns."""
        m = self.model()
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        bold = QFont(self.font())
        bold.setBold(True)
        fmb = QFontMetrics(bold)
        hfm = header.fontMetrics()
        rows = [r for r in range(m.rowCount()) if not m.is_group(r)]
        widths = {}
        for col in range(m.columnCount()):
            texts = [m.data(m.index(r, col)) or "" for r in rows]
            title = m.headerData(col, Qt.Orientation.Horizontal) or ""
            head = max((hfm.horizontalAdvance(line) for line in title.split("\n")), default=0)
            head += 18 if m.column(col).kind == "value" else 0  # the colour swatch
            widths[col] = max([fmb.horizontalAdvance(t) for t in texts] + [head]) + 18
        if grow_only and all(widths[c] <= self._widths.get(c, 0) for c in widths):
            return
        self._widths = widths
        for col in range(m.columnCount()):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        self._distribute()

    def _distribute(self) -> None:
        """Natural widths, and any spare width of the view shared by the value columns."""
        m = self.model()
        if not self._widths or m.columnCount() != len(self._widths):
            return
        header = self.horizontalHeader()
        values = [c for c in self._widths if c > 0 and m.column(c).kind == "value"]
        spare = self.viewport().width() - sum(self._widths.values())
        extra = max(0, spare) // max(1, len(values)) if values else 0
        extra = min(extra, 90)  # beyond this the numbers drift too far from their names
        for col, width in self._widths.items():
            header.resizeSection(col, width + (extra if col in values else 0))
        if spare > extra * len(values):
            header.resizeSection(0, self._widths[0] + spare - extra * len(values))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._distribute()

    def minimum_width(self) -> int:
        """Wide enough for the metric names and every value and change without clipping."""
        return sum(self._widths.values()) + self.verticalScrollBar().sizeHint().width() + 4

    def selected_design(self) -> int | None:
        index = self.currentIndex()
        if not index.isValid():
            return None
        col = self.model().column(index.column())
        return col.design if col.design >= 0 else None

    def _header_clicked(self, section: int) -> None:
        col = self.model().column(section)
        if col.design >= 0:
            self.setCurrentIndex(self.model().index(self._first_metric_row(), section))

    def _first_metric_row(self) -> int:
        m = self.model()
        return next((r for r in range(m.rowCount()) if not m.is_group(r)), 0)

    def _header_menu(self, pos) -> None:
        section = self.horizontalHeader().logicalIndexAt(pos)
        if section < 0:
            return
        col = self.model().column(section)
        if col.design >= 0:
            self._header_clicked(section)
            self.designMenuRequested.emit(col.design, self.horizontalHeader().mapToGlobal(pos))

    def _cell_menu(self, pos) -> None:
        index = self.indexAt(pos)
        if not index.isValid():
            return
        col = self.model().column(index.column())
        if col.design >= 0:
            self.setCurrentIndex(index)
            self.designMenuRequested.emit(col.design, self.viewport().mapToGlobal(pos))
