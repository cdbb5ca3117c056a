"""The recommendation of a comparison, its reasons and warnings, and the assumptions behind it.

The recommendation is a rule of thumb applied to the designs' own numbers, and says so. The
assumptions (TCO period, energy price, PUE, the example training job, its fleet (rank placement,
busy servers, other jobs' uplink load) and batch (global batch, micro-batch, pipeline schedule),
the message sizes of the collective rows) are the user's to set; a change asks for a new comparison.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from designer.model.common.units import parse_size, size_label
from designer.model.decisions.comparison import CompareSettings, Comparison
from designer.model.intent.serde import DesignValidationError
from designer.model.performance.fleet import PLACEMENT_NAMES, PLACEMENTS, fleet_defaults
from designer.model.performance.workload import presets
from designer.ui.theme import FAMILY_LABEL, Theme

HEURISTIC_TIP = ("The recommendation applies the InfiniBand-vs-Ethernet rules of thumb of the literature "
                 "(GPU-count bands, share of step time spent communicating) to these designs' estimated "
                 "numbers. Its thresholds are editable per design (performance.advice_*). It is not a "
                 "measurement: validate with the vendors and your own workload.")


def parse_sizes(text: str) -> tuple[int, ...]:
    """'1MiB, 1GiB' -> (1048576, 1073741824); raises ValueError with a user-ready message."""
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    if not parts:
        raise ValueError("give at least one message size, such as 1MiB or 1GiB")
    if len(parts) > 4:
        raise ValueError("give at most 4 message sizes")
    sizes = []
    for part in parts:
        sizes.append(parse_size(part))
    return tuple(sorted(set(sizes)))


def sizes_text(sizes: tuple[int, ...]) -> str:
    return ", ".join(size_label(s).replace(" ", "") for s in sizes)


class AssumptionsBox(QGroupBox):
    """The editable assumptions of a comparison."""

    settingsChanged = Signal(object)
    """The user changed an assumption; carries the new, valid CompareSettings."""

    def __init__(self, parent=None):
        super().__init__("Assumptions", parent)
        self.setObjectName("assumptionsBox")
        self._settings = CompareSettings()
        grid = QGridLayout(self)
        grid.setContentsMargins(10, 8, 10, 8)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(6)

        self.years = QSpinBox()
        self.years.setRange(1, 30)
        self.years.setSuffix(" years")
        self.years.setToolTip("Period of the TCO: capex plus the energy bought over this many years")
        self.energy = QDoubleSpinBox()
        self.energy.setRange(0.0, 2.0)
        self.energy.setDecimals(3)
        self.energy.setSingleStep(0.01)
        self.energy.setPrefix("$ ")
        self.energy.setSuffix(" /kWh")
        self.energy.setToolTip("Energy price: an assumption, set your site's tariff")
        self.pue = QDoubleSpinBox()
        self.pue.setRange(1.0, 3.0)
        self.pue.setDecimals(2)
        self.pue.setSingleStep(0.05)
        self.pue.setToolTip("Power usage effectiveness of the data hall: facility power / IT power")
        self.params = QDoubleSpinBox()
        self.params.setRange(0.001, 100_000)
        self.params.setDecimals(1)
        self.params.setSuffix(" B params")
        self.params.setToolTip("Example training job: model parameters, in billions (gradients are all-reduced "
                               "every step)")
        self.compute_ms = QDoubleSpinBox()
        self.compute_ms.setRange(0.0, 1e6)
        self.compute_ms.setDecimals(0)
        self.compute_ms.setSingleStep(100)
        self.compute_ms.setGroupSeparatorShown(True)
        self.compute_ms.setSuffix(" ms")
        self.compute_ms.setToolTip("Example training job: compute time per step (illustrative)")
        self.workload = QComboBox()
        for wid, w in presets().items():
            self.workload.addItem(w.name, wid)
            self.workload.setItemData(self.workload.count() - 1, f"{w.source}\n\nPlan: {w.plan_source}",
                                      Qt.ItemDataRole.ToolTipRole)
        self.workload.addItem("Gradients only (parameters and compute below)", "")
        self.workload.setToolTip("Example training job: a named workload that fits in GPU memory (TP/PP/DP/EP "
                                 "plan, compute from FLOPs at an editable MFU), or the gradient-only view")
        self.workload.currentIndexChanged.connect(self._edited)
        self.sizes = QLineEdit()
        self.sizes.setToolTip("Message sizes of the collective rows, such as 1MiB, 1GiB (K, M, G are binary)")
        self._job_controls()
        for spin in (self.years, self.energy, self.pue, self.params, self.compute_ms, self.occupancy,
                     self.background, self.global_batch, self.micro_batch):
            spin.setKeyboardTracking(False)  # one recomputation per finished entry, not per keystroke
            spin.setAlignment(Qt.AlignmentFlag.AlignRight)
            spin.valueChanged.connect(self._edited)
        self.sizes.editingFinished.connect(self._edited)
        self.reset = QPushButton("Defaults")
        self.reset.setToolTip("Back to the default assumptions")
        self.reset.clicked.connect(self._reset)
        self.problem = QLabel("")
        self.problem.setObjectName("assumptionProblem")
        self.problem.setWordWrap(True)
        self.problem.setVisible(False)

        def label(text: str) -> QLabel:
            lab = QLabel(text)
            lab.setObjectName("assumptionLabel")
            return lab

        def page(rows: tuple[tuple[tuple[str, QWidget], ...], ...]) -> QWidget:
            widget = QWidget()
            inner = QGridLayout(widget)
            inner.setContentsMargins(2, 4, 2, 0)
            inner.setHorizontalSpacing(10)
            inner.setVerticalSpacing(4)
            for r, pairs in enumerate(rows):
                for k, (text, control) in enumerate(pairs):
                    inner.addWidget(label(text), r, 2 * k)
                    inner.addWidget(control, r, 2 * k + 1, 1, 3 if len(pairs) == 1 else 1)
            for column in (1, 3):
                inner.setColumnStretch(column, 1)
            return widget

        # Two pages, so the box keeps its height: the costs, and the job and its fleet.
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.pages.addTab(page(((("TCO period", self.years), ("Energy price", self.energy)),
                                (("PUE", self.pue), ("Message sizes", self.sizes)),
                                (("Example job", self.params), ("Compute per step", self.compute_ms)),
                                (("Workload", self.workload),))), "Costs and job")
        self.pages.addTab(page(((("Rank placement", self.placement), ("Busy servers", self.occupancy)),
                                (("Other jobs' load", self.background), ("Global batch", self.global_batch)),
                                (("Micro-batch", self.micro_batch), ("Pipeline", self.schedule)))),
                          "Fleet and batch")
        self.pages.setTabToolTip(1, "Where the job's ranks sit, other jobs' load on the uplinks, and the job's "
                                    "batch and pipeline schedule: the verdict names what it assumed")
        # "Defaults" sits beside the tabs, so the box is no taller than its pages.
        self.pages.setCornerWidget(self.reset, Qt.Corner.TopRightCorner)
        # A combo box is as wide as its longest item by default; the items are named in full in
        # the open list, so the box keeps a laptop's width (the whole Compare window fits 1280 px).
        for combo in self.pages.findChildren(QComboBox):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        grid.addWidget(self.pages, 0, 0, 1, 4)
        grid.addWidget(self.problem, 1, 0, 1, 4)
        for column in (1, 3):
            grid.setColumnStretch(column, 1)
        self.set_settings(self._settings)

    def _job_controls(self) -> None:
        """The fleet the example job runs in and its batch: the same choices as compare's options."""
        d = fleet_defaults()
        self.placement = QComboBox()
        self.placement.addItem(f"Fleet default ({d.placement})", "")
        self.placement.setItemData(0, d.placement_basis, Qt.ItemDataRole.ToolTipRole)
        for key in PLACEMENTS:
            self.placement.addItem(key.capitalize(), key)
            self.placement.setItemData(self.placement.count() - 1, PLACEMENT_NAMES[key], Qt.ItemDataRole.ToolTipRole)
        self.placement.setToolTip("Where the job's ranks sit: packed (a topology-aware scheduler), scattered "
                                  "(servers drawn where free, ranked in that order) or spread over the SUs")
        self.placement.currentIndexChanged.connect(self._edited)
        self.occupancy = QSpinBox()
        self.occupancy.setRange(1, 100)
        self.occupancy.setSuffix(" %")
        self.occupancy.setToolTip("Share of the cluster's servers busy when a scattered job is placed.\n"
                                  + d.occupancy_basis)
        self.background = QSpinBox()
        self.background.setRange(0, 95)
        self.background.setSuffix(" % of uplinks")
        self.background.setToolTip("Other jobs' traffic on every uplink, a share of its capacity.\n"
                                   + d.background_basis)
        self.global_batch = QDoubleSpinBox()
        self.global_batch.setRange(0.0, 1e6)
        self.global_batch.setDecimals(1)
        self.global_batch.setSuffix(" M tokens")
        self.global_batch.setSpecialValueText("Workload's (grows with DP)")
        self.global_batch.setToolTip("The job's global batch in millions of tokens (2^20). At its lowest, the "
                                     "workload's batch grown with data parallelism up to the largest published "
                                     "for its class (resources/perf/workloads.toml)")
        self.micro_batch = QSpinBox()
        self.micro_batch.setRange(0, 1024)
        self.micro_batch.setSpecialValueText("Workload's")
        self.micro_batch.setSuffix(" sequences")
        self.micro_batch.setToolTip("Sequences per micro-batch; at its lowest, the workload's")
        self.schedule = QComboBox()
        for text, data in (("1F1B", ""), ("Interleaved, 2 virtual stages", "interleaved:2"),
                           ("Interleaved, 4 virtual stages", "interleaved:4")):
            self.schedule.addItem(text, data)
        self.schedule.setToolTip("Pipeline schedule: the bubble is (PP - 1) / (virtual stages x micro-batches) "
                                 "of the compute (Narayanan et al., SC21)")
        self.schedule.currentIndexChanged.connect(self._edited)

    @property
    def settings(self) -> CompareSettings:
        return self._settings

    def set_settings(self, s: CompareSettings) -> None:
        """Show `s` without announcing it as an edit."""
        self._settings = s
        widgets = (self.years, self.energy, self.pue, self.params, self.compute_ms, self.sizes, self.workload,
                   self.placement, self.occupancy, self.background, self.global_batch, self.micro_batch,
                   self.schedule)
        for w in widgets:
            w.blockSignals(True)
        index = self.workload.findData(s.workload or "")
        self.workload.setCurrentIndex(max(0, index))
        gradient_only = not s.workload
        self.params.setEnabled(gradient_only)
        self.compute_ms.setEnabled(gradient_only)
        self.years.setValue(s.years)
        self.energy.setValue(s.energy_usd_per_kwh)
        self.pue.setValue(s.pue)
        self.params.setValue(s.params / 1e9)
        self.compute_ms.setValue(s.compute_ms)
        self.sizes.setText(sizes_text(s.sizes))
        d = fleet_defaults()
        self.placement.setCurrentIndex(max(0, self.placement.findData(s.placement or "")))
        self.occupancy.setValue(round(100 * (s.occupancy if s.occupancy is not None else d.occupancy)))
        self.background.setValue(round(100 * (s.background_load if s.background_load is not None
                                              else d.background_load)))
        self.global_batch.setValue((s.global_batch_tokens or 0) / 2**20)
        self.micro_batch.setValue(s.micro_batch or 0)
        sched = f"interleaved:{s.virtual_stages or 2}" if s.pipeline_schedule == "interleaved" else ""
        self.schedule.setCurrentIndex(max(0, self.schedule.findData(sched)))
        self.occupancy.setEnabled((s.placement or d.placement) == "scattered")
        for w in widgets:
            w.blockSignals(False)
        self._show_problem("")

    def _read(self) -> CompareSettings:
        workload = self.workload.currentData() or None
        self.params.setEnabled(workload is None)
        self.compute_ms.setEnabled(workload is None)
        d = fleet_defaults()
        placement = self.placement.currentData() or None
        self.occupancy.setEnabled((placement or d.placement) == "scattered")
        # A value equal to the fleet default stays "the default", so its basis is still named.
        occupancy = self.occupancy.value() / 100
        background = self.background.value() / 100
        batch = round(self.global_batch.value() * 2**20) or None
        schedule, _, stages = (self.schedule.currentData() or "").partition(":")
        return CompareSettings(years=self.years.value(), energy_usd_per_kwh=round(self.energy.value(), 6),
                               pue=round(self.pue.value(), 4), sizes=parse_sizes(self.sizes.text()),
                               params=round(self.params.value() * 1e9), compute_ms=self.compute_ms.value(),
                               workload=workload, placement=placement,
                               occupancy=None if abs(occupancy - d.occupancy) < 1e-9 else occupancy,
                               background_load=None if abs(background - d.background_load) < 1e-9 else background,
                               global_batch_tokens=batch, micro_batch=self.micro_batch.value() or None,
                               pipeline_schedule=schedule or None, virtual_stages=int(stages) if stages else None)

    def _edited(self, *_) -> None:
        try:
            settings = self._read()
        except (ValueError, DesignValidationError) as exc:
            self._show_problem(f"Not applied: {exc}")
            return
        self._show_problem("")
        if settings != self._settings:
            self._settings = settings
            self.sizes.setText(sizes_text(settings.sizes))
            self.settingsChanged.emit(settings)

    def _reset(self) -> None:
        if self._settings != CompareSettings():
            self.set_settings(CompareSettings())
            self.settingsChanged.emit(self._settings)

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))
        self.sizes.setProperty("invalid", bool(text))
        self.sizes.style().unpolish(self.sizes)
        self.sizes.style().polish(self.sizes)


class RecommendationPanel(QWidget):
    """Verdict, reasons, warnings and counterpart notes, above the assumptions."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.theme = Theme()
        self.title = QLabel("RECOMMENDATION")
        self.title.setObjectName("panelTitle")
        self.badge = QLabel("HEURISTIC")
        self.badge.setObjectName("heuristicBadge")
        self.badge.setToolTip(HEURISTIC_TIP)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title)
        head.addWidget(self.badge)
        head.addStretch(1)
        self.verdict = QLabel("")
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict.setToolTip(HEURISTIC_TIP)
        self.reasons = QTextBrowser()
        self.reasons.setObjectName("reasons")
        self.reasons.setOpenLinks(False)
        self.reasons.setFrameShape(QFrame.Shape.NoFrame)
        self.assumptions = AssumptionsBox()
        # The assumptions keep their height; the reasons above scroll instead.
        self.assumptions.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.reasons.setMinimumHeight(40)
        box = self.box = QVBoxLayout(self)
        box.setContentsMargins(8, 6, 8, 8)
        box.setSpacing(6)
        box.addLayout(head)
        box.addWidget(self.verdict)
        box.addWidget(self.reasons, 1)
        box.addWidget(self.assumptions)
        self._comparison: Comparison | None = None
        self._notes: dict[str, tuple[str, ...]] = {}
        self.apply_theme(self.theme)
        self.show_placeholder("Add a second design or a counterpart to compare.")

    def _hold_verdict(self) -> None:
        """The verdict keeps the height its wrapped text needs at the panel's width; the reasons
        below scroll instead (a vertical layout would otherwise share the squeeze and cut it)."""
        width = self.verdict.width() or max(1, self.width() - 16)
        self.verdict.setMinimumHeight(self.verdict.heightForWidth(width))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._hold_verdict()

    def needed_height(self, width: int) -> int:
        """The height at `width` that shows the verdict and the assumptions whole, the reasons
        (which scroll) at their least: the Compare window gives the panel at least this."""
        box = self.box
        margins = box.contentsMargins()
        inner = max(1, width - margins.left() - margins.right())
        return (margins.top() + margins.bottom() + 3 * box.spacing() + self.title.sizeHint().height()
                + self.verdict.heightForWidth(inner) + self.reasons.minimumHeight()
                + self.assumptions.sizeHint().height())

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._restyle()
        if self._comparison is not None:
            self.show_comparison(self._comparison, self._notes)

    def _restyle(self) -> None:
        theme = self.theme
        border = theme.grid.darker(125) if not theme.dark else theme.grid.lighter(170)
        self.setStyleSheet(f"""
            QLabel#panelTitle {{ color: {theme.muted.name()}; font-size: 8pt; font-weight: 600; }}
            QLabel#heuristicBadge {{ color: {theme.warning.name()}; border: 1px solid {theme.warning.name()};
                                     border-radius: 3px; padding: 0px 4px; font-size: 7pt; font-weight: 600; }}
            QLabel#verdict {{ font-size: 11pt; font-weight: 700; padding: 6px 8px;
                              background: {theme.background.name()}; border: 1px solid {border.name()};
                              border-left: 4px solid {self._verdict_colour()}; border-radius: 3px; }}
            QTextBrowser#reasons {{ background: {theme.background.name()}; border: 1px solid {border.name()};
                                    border-radius: 3px; }}
            QLabel#assumptionLabel {{ color: {theme.muted.name()}; }}
            QLabel#assumptionProblem {{ color: {theme.error.name()}; }}
            QLineEdit[invalid="true"] {{ border: 1px solid {theme.error.name()}; }}
        """)

    def _verdict_colour(self) -> str:
        family = self._comparison.recommendation.family if self._comparison is not None else ""
        return self.theme.family(family).name() if family else self.theme.muted.name()

    def show_placeholder(self, text: str) -> None:
        self._comparison = None
        self.verdict.setText(text)
        self.reasons.setHtml("")
        self.badge.setText("HEURISTIC")
        self._restyle()

    def show_comparison(self, comparison: Comparison, notes: dict[str, tuple[str, ...]] | None = None) -> None:
        """`notes`: what changed in each counterpart design, by design name."""
        first = self._comparison is None or self._comparison.recommendation.family != comparison.recommendation.family
        self._comparison = comparison
        self._notes = dict(notes or {})
        rec = comparison.recommendation
        self.verdict.setText(rec.verdict)
        self._hold_verdict()
        muted = self.theme.muted.name()
        warn = self.theme.warning.name()
        parts = []
        if rec.flips:   # first: the answer is only as firm as its break-evens
            parts.append(f"<p style='margin:0 0 2px 0; color:{muted}'><b>When it would flip</b> "
                         "(each assumption alone, the rest held)</p><ul style='margin-left:-14px'>")
            parts += [f"<li style='margin-bottom:4px'>{html.escape(_sentence(f.line()))}</li>" for f in rec.flips]
            parts.append("</ul>")
        assumed = comparison.job_lines()
        if assumed:   # which fleet and batch the verdict rests on, before why
            parts.append(f"<p style='margin:0 0 2px 0; color:{muted}'><b>Assumed</b> (change them below)</p>"
                         "<ul style='margin-left:-14px'>")
            parts += [f"<li style='margin-bottom:4px'>{html.escape(_sentence(line))}</li>" for line in assumed]
            parts.append("</ul>")
        parts += [f"<p style='margin:0 0 4px 0; color:{muted}'>Why "
                 f"(<i>a rule of thumb applied to these estimates, not a measurement</i>):</p>",
                 "<ul style='margin-left:-14px'>"]
        parts += [f"<li style='margin-bottom:4px'>{html.escape(_sentence(r))}</li>" for r in rec.reasons]
        parts.append("</ul>")
        if comparison.warnings:
            parts.append(f"<p style='margin:8px 0 2px 0; color:{warn}'><b>Warnings</b></p><ul"
                         f" style='margin-left:-14px'>")
            parts += [f"<li style='color:{warn}'>{html.escape(_sentence(w))}</li>" for w in comparison.warnings]
            parts.append("</ul>")
        noted = [(name, lines) for name, lines in self._notes.items() if lines and name in comparison.names]
        if noted:
            parts.append(f"<p style='margin:8px 0 2px 0; color:{muted}'><b>Counterpart notes</b></p>"
                         "<ul style='margin-left:-14px'>")
            for name, lines in noted:
                k = comparison.names.index(name) + 1
                parts += [f"<li>[{k}] {html.escape(_sentence(line))}</li>" for line in lines]
            parts.append("</ul>")
        family = FAMILY_LABEL.get(rec.family, "")
        # A close call (the draws back another design than the point verdict) is named in the badge too.
        self.badge.setText("HEURISTIC" + (f" · favours {family}" if family else "")
                           + (" · close call" if rec.close_call is not None else ""))
        self.reasons.setHtml("".join(parts))
        if first:
            self._restyle()  # the verdict's border takes the favoured family's colour


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "." if text else text
