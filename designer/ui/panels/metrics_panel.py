"""Live metrics: one card per headline figure, and the findings list.

Cards show the newest computed result: the document's design, or the preview while a tier
is being dragged (marked as such). Cost, power, cables and optics come from the BOM, the
all-reduce card from the collective estimate; each card says so when its figure is an
estimate or still being computed. Clicking a finding selects the element it is about.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from designer.model.common.units import bandwidth_label, duration_label, power_label, ratio_label, size_label
from designer.ui.panels.network_cards import money, show_cluster_card, show_network_cards
from designer.ui.services.compute import ComputeResult
from designer.ui.theme import Theme

MESSAGE_SIZES = [(f"{n} {u}", n * m) for u, m in (("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30))
                 for n in (1, 4, 16, 64, 256) if not (u == "GiB" and n > 16)]
_ROLE_ELEMENT = Qt.ItemDataRole.UserRole + 1
# The figure's sizes, largest first: the style sheet's (cardValue), then smaller where it does not fit.
VALUE_POINT_SIZES = (13.5, 12.5, 11.5, 10.5, 9.5)
_UNIT = re.compile(r"^([kMGTP]?W|[TPG]b/s|GB/s|[kMB])$")


def _money(value: float, currency: str) -> str:
    return money(value, currency)


def _bandwidth(gbps: float) -> str:
    return bandwidth_label(gbps)


class MetricCard(QFrame):
    """A title, a big value and a line or two of detail."""

    def __init__(self, title: str, tip: str, parent=None):
        super().__init__(parent)
        self.setObjectName("metricCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setToolTip(tip)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.title = QLabel(title.upper())
        self.title.setObjectName("cardTitle")
        self.value = QLabel("—")
        self.value.setObjectName("cardValue")
        self.value.setTextFormat(Qt.TextFormat.RichText)
        self.detail = QLabel("")
        self.detail.setObjectName("cardDetail")
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.header = QHBoxLayout()
        self.header.setContentsMargins(0, 0, 0, 0)
        self.header.addWidget(self.title, 1)
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 7, 8, 8)   # room for "13.11 Pb/s" at 1280 px wide
        box.setSpacing(1)
        box.addLayout(self.header)
        box.addWidget(self.value)
        box.addWidget(self.detail)
        self.setMinimumWidth(112)
        self.invalid = False
        self._reason: str | None = None
        self._detail = ""      # the whole detail; the label shows what fits where `_fit`
        self._value = ("—", "")   # the figure and its unit as shown, before fitting
        self._fit = False
        self._shorter = ""

    def fit_detail_lines(self, lines: int = 2) -> None:
        """Room for `lines` lines of detail, so a wrapped detail is never cut off."""
        self.detail.setMinimumHeight(int(self.detail.fontMetrics().lineSpacing() * lines + 2))

    def mark_invalid(self, reason: str) -> None:
        """The design has errors: grey the figure and say why it cannot be trusted."""
        self._reason = reason
        self._fit_invalid_note()
        self.detail.setToolTip(reason)
        self.invalid = True
        self.value.setProperty("tone", "stale")
        self.value.style().unpolish(self.value)
        self.value.style().polish(self.value)

    def _fit_invalid_note(self) -> None:
        """The reason in full where the card has room for it, else a pointer to the Findings
        (which lists it in full): a note is never cut off mid-sentence."""
        reason = self._reason
        if reason is None:
            return
        texts = (f"invalid design: {reason}", "invalid design: see Findings", "invalid")
        self.detail.setText(next((t for t in texts if self._fits(t)), texts[-1]))

    def _fits(self, text: str) -> bool:
        """Whether `text` wraps within the detail's lines (two at least) and width."""
        fm = self.detail.fontMetrics()
        width = max(self.detail.width(), 40)
        # The lines the card shows, not the label's own height: in a short grid row the label
        # can be taller than the card lets it be seen (a third line drawn under the frame).
        shown = min(self.detail.height(), self.contentsRect().bottom() - 8 - self.detail.y())
        lines = max(2, shown // max(fm.lineSpacing(), 1))
        rect = fm.boundingRect(0, 0, width, 10_000, int(Qt.TextFlag.TextWordWrap), text)
        return rect.height() <= lines * fm.lineSpacing() and rect.width() <= width

    def _fit_detail(self) -> None:
        """A detail of ' · '-separated parts keeps the parts that fit and says how many more
        there are; the whole detail is the label's tooltip. A figure is never cut mid-line."""
        full = self._detail
        text = full
        if self.isVisible() and self._shorter and not self._fits(full):
            text = self._shorter
        parts = text.split(" · ")
        # Before the card is laid out its size says nothing: the whole detail until it is.
        for keep in range(len(parts) - 1, 0, -1) if self.isVisible() else ():
            if self._fits(text):
                break
            text = " · ".join(parts[:keep]) + f" · +{len(parts) - keep} more"
        else:
            if self.isVisible() and len(parts) > 1 and not self._fits(text):
                text = f"{len(parts)} kinds, each in the tooltip"   # not even one part and the count
        self.detail.setText(text)
        self.detail.setToolTip(full if text != full else "")

    def _fit_value(self) -> None:
        """The figure in the card's size, or a smaller one where it would not fit the card's width
        (a million GPUs' '1,048,576' in a card of a 1280-pixel window): never cut off."""
        number, unit = self._value
        self.value.setText(number + unit)
        room = self.contentsRect().width() - 16     # the card's side margins
        # The size is a style property (the style sheet's cardValue rules), so the text stays the figure.
        for i in range(len(VALUE_POINT_SIZES)):
            if self.value.property("fit") != str(i):
                self.value.setProperty("fit", str(i))
                self.value.style().unpolish(self.value)
                self.value.style().polish(self.value)
            if room <= 0 or self.value.sizeHint().width() <= room:
                return

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_value()
        if self.invalid:
            self._fit_invalid_note()
        elif self._fit:
            self._fit_detail()

    def show_value(self, value: str, detail: str = "", tone: str | None = None, *, fit: bool = False,
                   shorter: str = "") -> None:
        """`fit`: a detail of many ' · '-separated parts shows those that fit (first in the
        `shorter` wording where given), the whole detail in its tooltip."""
        self.invalid = False
        self._fit = fit
        self._shorter = shorter
        self._reason = None
        number, _, unit = value.rpartition(" ")
        if number and _UNIT.match(unit):
            # The unit in a smaller size keeps the figure readable in a narrow card.
            self._value = (html.escape(number), f"<span style='font-size:9.5pt'>&nbsp;{html.escape(unit)}</span>")
        else:
            self._value = (value, "")
        self._fit_value()
        self._detail = detail
        if fit:
            self._fit_detail()
        else:
            self.detail.setText(detail)
            self.detail.setToolTip("")
        self.value.setProperty("tone", tone or "")
        self.value.style().unpolish(self.value)
        self.value.style().polish(self.value)


def _dot(color: QColor) -> QIcon:
    pm = QPixmap(12, 12)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color)
    p.drawEllipse(1, 1, 10, 10)
    p.end()
    return QIcon(pm)


class MetricsPanel(QWidget):
    """Cards and findings for the newest result."""

    findingActivated = Signal(str)
    """A finding was clicked; carries the element id it is about (a device id or a tier name)."""

    messageSizeChosen = Signal(int)
    """Another all-reduce message size was picked; carries the size in bytes."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.theme = Theme()
        self.cards: dict[str, MetricCard] = {}
        grid_host = QWidget()
        grid = QGridLayout(grid_host)
        grid.setContentsMargins(6, 6, 6, 6)
        grid.setSpacing(6)
        specs = [
            ("gpus", "GPUs", "GPUs, servers and fabric endpoints"),
            ("switches", "Switches", "Switches in all planes, by tier"),
            ("oversub", "Oversub.", "Worst downlink : uplink bandwidth per tier (1:1 is non-blocking)"),
            ("bisection", "Bisection", "Bandwidth across the worst halving of the fabric, and its share of full"),
            ("hops", "Max hops", "Switches on the longest path between two GPUs"),
            ("links", "Links", "Fabric links by tier (all planes)"),
            ("cables", "Cables", "Cables and transceivers, from the bill of materials"),
            ("cost", "Cost", "Network cost from the bill of materials; prices are illustrative unless a "
                             "price book is loaded"),
            ("power", "Power", "Network power (switches, NICs, optics) from the bill of materials"),
            ("allreduce", "All-reduce", "Estimated bus bandwidth and time of one all-reduce over every GPU "
                                        "(an estimate; see the collectives model)"),
            ("cluster", "Whole cluster", "Every network of the cluster together: the compute fabric and the "
                                         "storage, in-band and out-of-band networks"),
        ]
        places = {"gpus": (0, 0, 1), "switches": (0, 1, 1), "oversub": (0, 2, 1), "bisection": (0, 3, 1),
                  "hops": (0, 4, 1), "links": (0, 5, 1), "cables": (1, 0, 1), "cost": (1, 1, 1),
                  "power": (1, 2, 1), "allreduce": (1, 3, 3), "cluster": (2, 0, 6)}
        for key, title, tip in specs:
            card = MetricCard(title, tip)
            self.cards[key] = card
            row, column, span = places[key]
            grid.addWidget(card, row, column, 1, span)
        for column in range(6):
            grid.setColumnStretch(column, 1)
        self.size_box = QComboBox()
        self.size_box.setToolTip("Message size of the all-reduce estimate")
        for text, value in MESSAGE_SIZES:
            self.size_box.addItem(text, value)
        self.size_box.setCurrentIndex(self.size_box.findData(1 << 30))
        self.size_box.activated.connect(lambda _: self.messageSizeChosen.emit(self.size_box.currentData()))
        self.cards["allreduce"].header.addWidget(self.size_box)
        self.status = QLabel("")
        self.status.setObjectName("metricsStatus")
        # Wrapped: on one line, the note that the cards show another network widened the panel
        # and pushed the Findings list under the Plots panel.
        self.status.setWordWrap(True)
        grid.addWidget(self.status, 3, 0, 1, 6)
        grid.setRowStretch(4, 1)

        self.findings = QListWidget()
        self.findings.setObjectName("findingsList")
        # One line per finding, cut with an ellipsis: wrapped, each took five lines of a narrow
        # column. The whole text is in the row's tooltip, and a click selects what it is about.
        self.findings.setWordWrap(False)
        self.findings.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.findings.setUniformItemSizes(True)
        self.findings.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.findings.setAlternatingRowColors(True)
        self.findings.setToolTip("Problems and notes about the design; click one to select what it is about")
        self.findings.itemClicked.connect(self._clicked)
        self.findings.itemActivated.connect(self._clicked)
        findings_box = QWidget()
        findings_box.setMinimumWidth(160)   # with six cards, fits beside the inspector at 1280 px
        fl = QVBoxLayout(findings_box)
        fl.setContentsMargins(6, 6, 6, 6)
        self.findings_title = QLabel("FINDINGS")
        self.findings_title.setObjectName("cardTitle")
        fl.addWidget(self.findings_title)
        fl.addWidget(self.findings, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(grid_host)
        split.addWidget(findings_box)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        box = QHBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(split)
        self._cost_tip = self.cards["cost"].toolTip()
        self._titles = {key: card.title.text() for key, card in self.cards.items()}
        self._tips = {key: card.toolTip() for key, card in self.cards.items()}
        self.network = "compute"          # the network whose figures the cards show
        self._result: ComputeResult | None = None
        self.apply_theme(self.theme)
        self.show_result(None)

    def show_network(self, role: str) -> None:
        """Follow the network selected on the canvas: its figures, or the compute fabric's."""
        self.network = role or "compute"
        self.show_result(self._result)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._restyle(theme)
        for card in self.cards.values():
            card.fit_detail_lines(2)

    def _restyle(self, theme: Theme) -> None:
        border = theme.grid.darker(125) if not theme.dark else theme.grid.lighter(170)
        fit_sizes = " ".join(f'QLabel#cardValue[fit="{i}"] {{ font-size: {pt}pt; }}'
                             for i, pt in enumerate(VALUE_POINT_SIZES) if i)
        sheet = f"""
            QFrame#metricCard {{ background: {theme.background.name()}; border: 1px solid {border.name()};
                                 border-radius: 6px; }}
            QLabel#cardTitle {{ color: {theme.muted.name()}; font-size: 7.5pt; font-weight: 600; }}
            QLabel#cardValue {{ font-size: {VALUE_POINT_SIZES[0]}pt; font-weight: 600; }}
            {fit_sizes}
            QLabel#cardValue[tone="error"] {{ color: {theme.error.name()}; }}
            QLabel#cardValue[tone="warning"] {{ color: {theme.warning.name()}; }}
            QLabel#cardValue[tone="stale"] {{ color: {theme.muted.name()}; }}
            QLabel#cardDetail {{ color: {theme.muted.name()}; font-size: 8pt; }}
            QLabel#metricsStatus {{ color: {theme.muted.name()}; font-size: 8.5pt; }}
        """
        # The window applies its theme once more after building the panel: the same sheet set
        # again would re-polish every card for nothing.
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)

    def set_messagesize_label(self, size: int) -> None:
        index = self.size_box.findData(size)
        if index < 0:
            self.size_box.addItem(size_label(size), size)
            index = self.size_box.count() - 1
        self.size_box.setCurrentIndex(index)

    # --- results ---------------------------------------------------------------------------

    def show_result(self, result: ComputeResult | None) -> None:
        self._result = result
        self._restore_titles()
        self._show_compute(result)
        self._show_cluster(result)
        if self.network != "compute" and result is not None and result.metrics is not None:
            show_network_cards(self, result, self.network)

    def _restore_titles(self) -> None:
        for key, card in self.cards.items():
            card.title.setText(self._titles[key])
            card.setToolTip(self._tips[key])

    def _show_cluster(self, result: ComputeResult | None) -> None:
        show_cluster_card(self.cards["cluster"], result)

    def _show_compute(self, result: ComputeResult | None) -> None:
        c = self.cards
        m = result.metrics if result is not None else None
        if result is None or result.design is None:
            for card in c.values():
                card.show_value("—", "")
            self.status.setText("No design")
            self.findings.clear()
            self.findings_title.setText("FINDINGS")
            return
        if m is None:
            for card in c.values():
                card.show_value("—", "")
            c["gpus"].show_value("Cannot size", result.error or "", "error")
            self.status.setText("")
            self._show_findings([("error", result.error or "", "")], None)
            return
        self.set_messagesize_label(result.design.performance.message_size_bytes)
        planes = f" · {m.planes} planes" if m.planes > 1 else ""
        # In a narrow card the planes outrank the port count (the tooltip keeps the whole line).
        c["gpus"].show_value(f"{m.gpus:,}", f"{m.servers:,} servers · {m.endpoints:,} ports" + planes,
                             fit=True, shorter=f"{m.servers:,} servers" + planes if planes else "")
        tiers = [t for t in ("leaf", "spine", "core") if m.switches_by_tier.get(t)]
        c["switches"].show_value(f"{m.switches_total:,}", " · ".join(f"{t} {m.switches_by_tier[t]:,}" for t in tiers))
        leaf, spine = m.oversubscription("leaf"), m.oversubscription("spine") if m.tiers == 3 else None
        target = result.design.fabric.leaf.oversubscription
        tone = "warning" if leaf is not None and leaf > target * 1.001 else None
        detail = f"spine {ratio_label(spine)}" if m.tiers == 3 else "spine: top tier"
        c["oversub"].show_value(ratio_label(leaf), f"leaf · {detail}", tone)
        ratio = m.bisection_ratio
        c["bisection"].show_value(_bandwidth(m.bisection_gbps),
                                  f"{ratio:.0%} of full ({_bandwidth(m.full_bisection_gbps)})",
                                  "warning" if ratio < 0.999 else None)
        c["hops"].show_value(f"{m.max_hops}", f"same rail {m.max_hops_same_rail} · {m.tiers} tiers")
        names = {"node-leaf": "server–leaf", "leaf-spine": "leaf–spine", "spine-core": "spine–core",
                 "manual": "manual"}
        c["links"].show_value(f"{m.links_total:,}", " / ".join(f"{v:,}" for v in m.links_by_tier.values()))
        c["links"].setToolTip("Fabric links by tier (all planes): " + ", ".join(
            f"{names.get(k, k)} {v:,}" for k, v in m.links_by_tier.items()))
        self._show_bom(result)
        self._show_allreduce(result)
        if m.errors:
            reason = m.errors[0].message
            for key in ("oversub", "bisection", "hops", "cables", "cost", "power", "allreduce"):
                c[key].mark_invalid(reason)
        parts = []
        if result.preview:
            parts.append("Preview while dragging")
        if result.bom_ms:
            metrics_ms = result.elapsed_ms - result.bom_ms
            parts.append(f"metrics in {metrics_ms:,.0f} ms ({m.bisection_method} bisection), "
                         f"BOM in {result.bom_ms:,.0f} ms")
        else:
            parts.append(f"computed in {result.elapsed_ms:,.0f} ms ({m.bisection_method} bisection)")
        if result.bom_pending:
            parts.append("bill of materials is being computed…")
        if result.extras_error:
            parts.append(f"not available: {result.extras_error}")
        self.status.setText(" · ".join(parts))
        findings = [(f.severity, f.message, f.element) for f in m.findings]
        if result.bom is not None:
            findings += [(f.severity, f.message, f.element) for f in getattr(result.bom, "findings", ())]
        self._show_findings(findings, result)

    def _show_bom(self, result: ComputeResult) -> None:
        c = self.cards
        bom = result.bom
        if bom is None:
            note = "being computed…" if result.bom_pending else "shown when the drag ends" if result.preview else "—"
            for key in ("cables", "cost", "power"):
                c[key].show_value("…" if result.bom_pending or result.preview else "—", note, "stale")
            return
        c["cables"].show_value(f"{bom.cable_count:,}", f"{bom.optics_count:,} transceivers")
        label = "illustrative prices" if getattr(bom, "illustrative_prices", False) else "price book"
        incomplete = bom.incomplete_note() if hasattr(bom, "incomplete_note") else ""
        if incomplete:
            # Unpriced parts count as 0: the figure is a lower bound and must not read as a total.
            c["cost"].show_value(_money(bom.total_cost, bom.currency), incomplete, "warning")
            c["cost"].setToolTip(f"Network cost without the unpriced parts ({incomplete}); add their prices "
                                 "to your price book")
        else:
            c["cost"].setToolTip(self._cost_tip)
            c["cost"].show_value(_money(bom.total_cost, bom.currency),
                                 f"{_money(bom.cost_per_gpu, bom.currency)} per GPU · {label}")
        c["power"].show_value(power_label(bom.total_power_w), f"{bom.power_per_gpu_w:,.0f} W per GPU (network)")

    def _show_allreduce(self, result: ComputeResult) -> None:
        est = result.allreduce
        if est is None:
            self.cards["allreduce"].show_value("—", "")
            return
        detail = (f"busbw · {duration_label(est.time_us)} at {size_label(est.size_bytes)} · "
                  f"{est.algorithm}, {est.bottleneck}-bound · estimate")
        m = result.metrics
        oversubscribed = m is not None and any(
            (m.oversubscription(t) or 1.0) > 1.001 for t in ("leaf", "spine") if t in m.ports_by_tier)
        if result.allreduce_uplinks and oversubscribed:
            # On an oversubscribed fabric the card says how much of the traffic meets the uplinks,
            # so a NIC-bound figure after an edit reads as a measured fact, not as a stale one.
            detail += f"\n{result.allreduce_uplinks}"
        if result.allreduce_other and oversubscribed:
            # what the oversubscription costs the same job when its ranks land the other way
            detail += f"\n{result.allreduce_other}"
        self.cards["allreduce"].show_value(f"{est.busbw_GBps:,.0f} GB/s", detail)
        self.cards["allreduce"].setToolTip(
            "Estimated bus bandwidth and time of one all-reduce over every GPU (an estimate; see the "
            "collectives model)" + (f"\nUplinks: {result.allreduce_uplinks}" if result.allreduce_uplinks else "")
            + (f"\nThe same {result.allreduce_other}" if result.allreduce_other else ""))

    def _show_findings(self, findings: list[tuple[str, str, str]], result) -> None:
        self.findings.clear()
        order = {"error": 0, "warning": 1, "info": 2}
        findings = sorted(findings, key=lambda f: order.get(f[0], 3))
        for severity, message, element in findings[:500]:
            item = QListWidgetItem(_dot(self.theme.severity(severity)), message)
            item.setData(_ROLE_ELEMENT, element)
            item.setToolTip(f"{severity.capitalize()}: {message}" + (f"\nClick to select {element}" if element else ""))
            self.findings.addItem(item)
        if not findings:
            item = QListWidgetItem(_dot(QColor("#3aa55d")), "No problems found")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.findings.addItem(item)
        errors = sum(1 for f in findings if f[0] == "error")
        warnings = sum(1 for f in findings if f[0] == "warning")
        counts = [f"{n} {word}{'' if n == 1 else 's'}" for n, word in ((errors, "error"), (warnings, "warning")) if n]
        self.findings_title.setText("  ·  ".join(["FINDINGS", ", ".join(counts)]) if counts else "FINDINGS")

    def _clicked(self, item: QListWidgetItem) -> None:
        element = item.data(_ROLE_ELEMENT)
        if element:
            self.findingActivated.emit(element)
