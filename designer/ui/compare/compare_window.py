"""The Compare window: two to five designs side by side, with charts and a recommendation.

It sits beside the designer window as a window of its own. The designs it holds are
snapshots (a design file, the designer's design when the comparison was made, or a
counterpart built from one); a counterpart can be saved as a project of its own or opened
in a designer window.

Every change (a design added or removed, an assumption edited) asks the compare service for
a new comparison; the views keep showing the previous one until it arrives. A change that
cannot be compared is refused with one message, and the window goes back to what it showed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEvent, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QMenu,
    QScrollArea,
    QSplitter,
    QStyle,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from designer.catalog import Catalog, UnknownPartError, default_catalog
from designer.io.compare_csv import write_compare_csv
from designer.io.project import ProjectFileError, load_design, save_design
from designer.model.decisions.comparison import MAX_COMPARED, CompareSettings
from designer.model.decisions.counterpart import COUNTERPART_TECHNOLOGIES, ETHERNET_CHOICES
from designer.model.intent.design import FabricDesign
from designer.model.topology.derive import derive
from designer.model.topology.sizing import SizingError
from designer.ui.compare.compare_charts import CHARTS_HEIGHT, CompareCharts
from designer.ui.compare.compare_dialogs import CompareDialogs
from designer.ui.compare.compare_service import CompareOutcome, CompareService
from designer.ui.compare.compare_table import CompareTable, CompareTableModel
from designer.ui.compare.design_legend import DesignLegend
from designer.ui.compare.frozen_column import FrozenFirstColumn
from designer.ui.compare.headline import headline
from designer.ui.compare.network_costs import NetworkCostsTable
from designer.ui.compare.palette import design_styles
from designer.ui.compare.recommendation_panel import RecommendationPanel
from designer.ui.services.counterparts import counterpart as built_counterpart
from designer.ui.theme import Theme

MAX_DESIGNS = MAX_COMPARED


@dataclass(frozen=True)
class Entry:
    """One design of the comparison and where it came from."""

    design: FabricDesign
    path: Path | None = None            # the project file it was read from or saved to
    notes: tuple[str, ...] = ()         # what the counterpart changed
    counterpart_of: str = ""            # the original's name, for a counterpart
    unsaved: bool = False               # not (or no longer) the same as any file

    @property
    def name(self) -> str:
        return self.design.meta.name


def compare_title(names) -> str:
    """A short window title: the baseline and how many designs it is compared with."""
    base = names[0] if names else ""
    base = base if len(base) <= 40 else base[:39].rstrip() + "…"
    more = len(names) - 1
    return f"Compare: {base} + {more} design{'s' if more != 1 else ''} — Fabric Designer"


class CompareWindow(QMainWindow):
    """Designs side by side. `synchronous=True` compares inside each change (tests, screenshots).

    `opener(design, path, modified)` opens a design in a designer window; without it the
    Open in Designer action is hidden.
    """

    def __init__(self, catalog: Catalog | None = None, dialogs=None, synchronous: bool = False,
                 opener=None, parent=None):
        super().__init__(parent)
        self.setObjectName("compareWindow")
        self.catalog = catalog or default_catalog()
        self.dialogs = dialogs or CompareDialogs(self)
        self.opener = opener
        self.theme = Theme(QApplication.palette())
        self.service = CompareService(self.catalog, synchronous=synchronous, parent=self)
        self.service.resultReady.connect(self._on_outcome)
        self.service.busyChanged.connect(self._on_busy)
        self.entries: list[Entry] = []          # what was asked for
        self.settings = CompareSettings()
        self.shown: list[Entry] = []            # what the views show (the last good comparison)
        self.shown_settings = CompareSettings()
        self.outcome: CompareOutcome | None = None
        self._sized = False  # the splitters get their first sizes when the window is first shown

        self.table_model = CompareTableModel(self.theme, self)
        self.table = CompareTable(self.table_model)
        self.table.designMenuRequested.connect(self._design_menu)
        # The metric names stay put while the designs scroll sideways (five designs at 1280 px).
        self.frozen = FrozenFirstColumn(self.table)

        # Who wins, by how many dollars against the baseline, and whether it is a close call.
        self.headline = QLabel("")
        self.headline.setObjectName("compareHeadline")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.winner: int | None = None
        self.panel = RecommendationPanel()
        self.panel.assumptions.settingsChanged.connect(self.set_settings)
        # The flip lines read in full on a laptop: about eight lines before the box scrolls.
        self.panel.reasons.setMinimumHeight(self.panel.reasons.fontMetrics().lineSpacing() * 8)
        self.charts = CompareCharts()
        # Each chart keeps a readable height; a low window scrolls them rather than squashing the
        # bars to nothing (at 1280x800 the bar charts had no plot left).
        self.charts.setMinimumHeight(CHARTS_HEIGHT)
        self.charts_scroll = QScrollArea()
        self.charts_scroll.setObjectName("compareChartsScroll")
        self.charts_scroll.setWidgetResizable(True)
        self.charts_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.charts_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.charts_scroll.setWidget(self.charts)
        self.charts_scroll.setMinimumHeight(120)   # the charts scroll; the verdict and assumptions do not

        self.legend = DesignLegend()
        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.addWidget(self.panel)
        self.right.addWidget(self.charts_scroll)
        self.right.setStretchFactor(0, 5)
        self.right.setStretchFactor(1, 6)
        self.right.setChildrenCollapsible(False)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.network_costs = NetworkCostsTable()
        left = self._titled([self.legend, self.table], "Comparison", "compareTableBox")
        left_box = left.layout()
        assert left_box is not None   # _titled gives its host a box layout
        left_box.addWidget(self.network_costs)
        self.split.addWidget(left)
        self.split.addWidget(self.right)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 1)
        self.split.setChildrenCollapsible(False)
        host = QWidget()
        box = QVBoxLayout(host)
        box.setContentsMargins(6, 4, 6, 6)
        box.addWidget(self.headline)
        box.addWidget(self.split, 1)
        self.setCentralWidget(host)

        self._make_actions()
        self._make_toolbar()
        self.status = QLabel("")
        self.statusBar().addPermanentWidget(self.status)
        self.table.selectionModel().currentChanged.connect(self._update_actions)
        self.table_model.modelReset.connect(self._update_actions)
        # Never larger than the screen: at 1280x800 a 1500-pixel window ran off its right edge.
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        self.resize(min(1500, screen.width()) if screen else 1500, min(950, screen.height()) if screen else 950)
        self._apply_theme()
        self._show()

    # --- construction --------------------------------------------------------------------------

    def _titled(self, widgets: list[QWidget], title: str, name: str) -> QWidget:
        host = QWidget()
        host.setObjectName(name)
        box = QVBoxLayout(host)
        box.setContentsMargins(0, 6, 0, 0)
        box.setSpacing(4)
        label = QLabel(title.upper())
        label.setObjectName("panelTitle")
        self.table_title = label
        box.addWidget(label)
        for widget in widgets:
            box.addWidget(widget, 1 if widget is widgets[-1] else 0)
        return host

    def _action(self, text: str, slot, tip: str, icon: QStyle.StandardPixmap | None = None, shortcut=None) -> QAction:
        action = QAction(text, self)
        action.setToolTip(tip)
        action.setStatusTip(tip)
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _=False: slot())
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        SP = QStyle.StandardPixmap
        self.add_design_action = self._action("Add Design…", self.add_designs_from_dialog,
                                              f"Add project files to the comparison (up to {MAX_DESIGNS} designs)",
                                              SP.SP_DialogOpenButton, QKeySequence.StandardKey.Open)
        self.counterpart_menu = QMenu("Add Counterpart", self)
        self.counterpart_menu.setToolTip("The baseline's cluster rebuilt on another fabric technology")
        self.counterpart_menu.aboutToShow.connect(lambda: self._fill_counterpart_menu(self.counterpart_menu, 0))
        self.remove_action = self._action("Remove", self.remove_selected,
                                          "Remove the selected design from the comparison (click its column first)",
                                          SP.SP_TrashIcon,
                                          QKeySequence.StandardKey.Delete)
        self.baseline_action = self._action("Make Baseline", self.make_selected_baseline,
                                            "Compare the others against the selected design (click its column first)",
                                            SP.SP_ArrowLeft)
        self.save_design_action = self._action("Save Design As…", self.save_selected_design,
                                               "Save the selected design (a counterpart, say) as a project file"
                                               " (click its column first)",
                                               SP.SP_DialogSaveButton)
        self.open_action = self._action("Open in Designer", self.open_selected_in_designer,
                                        "Open the selected design in a designer window of its own (click its"
                                        " column first)", SP.SP_FileDialogDetailedView)
        self.open_action.setVisible(self.opener is not None)
        self.export_action = self._action("Export CSV…", self.export_csv_from_dialog,
                                          "Write the table, recommendation and assumptions as CSV",
                                          SP.SP_DialogSaveButton, "Ctrl+E")
        self.close_action = self._action("Close", self.close, "Close the Compare window", None,
                                         QKeySequence.StandardKey.Close)

    def _make_toolbar(self) -> None:
        bar = QToolBar("Compare toolbar", self)
        bar.setObjectName("compareToolbar")
        bar.setIconSize(QSize(18, 18))
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.addAction(self.add_design_action)
        button = QToolButton()
        button.setText("Add Counterpart")
        button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_FileDialogNewFolder))
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setMenu(self.counterpart_menu)
        button.setToolTip(self.counterpart_menu.toolTip())
        self.counterpart_button = button
        bar.addWidget(button)
        bar.addSeparator()
        for action in (self.remove_action, self.baseline_action, None, self.save_design_action, self.open_action,
                       None, self.export_action):
            if action is None:
                bar.addSeparator()
            else:
                bar.addAction(action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.toolbar = bar

    def _fill_counterpart_menu(self, menu: QMenu, design: int) -> None:
        menu.clear()
        source = self.entries[design].design if design < len(self.entries) else None
        for tech_id in COUNTERPART_TECHNOLOGIES:
            tech = self.catalog.technologies.get(tech_id)
            if tech is None:
                continue
            action = menu.addAction(tech.name)
            action.setObjectName(f"counterpart-{tech_id}")
            same = source is not None and source.fabric.technology == tech_id
            action.setEnabled(source is not None and not same and len(self.entries) < MAX_DESIGNS)
            action.triggered.connect(lambda _=False, t=tech_id, d=design: self.add_counterpart(t, d))
        menu.addSeparator()
        every = menu.addAction("Every Ethernet fabric (Spectrum-X, standard RoCE, enhanced ECMP)")
        every.setObjectName("counterpart-ethernet")
        present = {e.design.fabric.technology for e in self.entries}
        missing = [t for t in ETHERNET_CHOICES if t not in present]
        every.setEnabled(source is not None and bool(missing) and len(self.entries) + len(missing) <= MAX_DESIGNS)
        every.triggered.connect(lambda _=False, d=design: self.add_ethernet_counterparts(d))

    # --- changing the designs ---------------------------------------------------------------------

    def _refuse(self, title: str, text: str, detail: str = "") -> bool:
        self.dialogs.show_error(title, text, detail)
        return False

    def _check(self, entries: list[Entry]) -> str | None:
        """Why `entries` cannot be compared (too many, a design that cannot be sized), or None."""
        if len(entries) > MAX_DESIGNS:
            return f"A comparison holds at most {MAX_DESIGNS} designs; this would make {len(entries)}."
        for entry in entries:
            try:
                derive(entry.design, self.catalog)
            except (SizingError, UnknownPartError, ValueError) as exc:
                return f"“{entry.name}” cannot be sized: {exc}"
        return None

    def set_entries(self, entries: list[Entry]) -> bool:
        """Compare exactly `entries` (the first is the baseline); refused with a message if they cannot be."""
        problem = self._check(entries)
        if problem:
            return self._refuse("Cannot compare", problem)
        self.entries = list(entries)
        self._request()
        return True

    def set_designs(self, designs: list[FabricDesign]) -> bool:
        return self.set_entries([Entry(d) for d in designs])

    def add_entries(self, entries: list[Entry]) -> bool:
        if len(self.entries) + len(entries) > MAX_DESIGNS:
            return self._refuse("Too many designs", f"A comparison holds at most {MAX_DESIGNS} designs.",
                                f"It has {len(self.entries)}; remove one before adding "
                                + ("another." if len(entries) == 1 else f"these {len(entries)}."))
        return self.set_entries(self.entries + list(entries))

    def add_design_files(self, paths: Sequence[str | Path]) -> bool:
        """Read every file first; one bad file refuses them all and nothing changes."""
        entries = []
        for path in paths:
            path = Path(path)
            try:
                entries.append(Entry(load_design(path), path))
            except ProjectFileError as exc:
                return self._refuse("Cannot add design", f"“{path.name}” could not be opened.", str(exc))
        return self.add_entries(entries) if entries else False

    def add_designs_from_dialog(self) -> bool:
        start = next((str(e.path.parent) for e in self.entries if e.path is not None), "")
        paths = self.dialogs.open_designs(start)
        return self.add_design_files(paths) if paths else False

    def add_counterpart(self, tech_id: str, of: int = 0) -> bool:
        """Add the design `of` (default: the baseline) rebuilt on `tech_id`."""
        if not 0 <= of < len(self.entries):
            return False
        source = self.entries[of]
        try:
            counterpart = built_counterpart(source.design, tech_id, self.catalog)
        except (SizingError, UnknownPartError, ValueError) as exc:
            tech = self.catalog.technologies.get(tech_id)
            return self._refuse("Cannot build counterpart",
                                f"“{source.name}” cannot be rebuilt on {tech.name if tech else tech_id}.", str(exc))
        return self.add_entries([Entry(counterpart.design, None, counterpart.notes, source.name, unsaved=True)])

    def add_ethernet_counterparts(self, of: int = 0) -> bool:
        """Add the design `of` rebuilt on each Ethernet fabric buyers choose between that the
        comparison lacks, in one step."""
        if not 0 <= of < len(self.entries):
            return False
        source = self.entries[of]
        present = {e.design.fabric.technology for e in self.entries}
        entries = []
        for tech_id in ETHERNET_CHOICES:
            if tech_id in present:
                continue
            try:
                made = built_counterpart(source.design, tech_id, self.catalog)
            except (SizingError, UnknownPartError, ValueError) as exc:
                tech = self.catalog.technologies.get(tech_id)
                return self._refuse("Cannot build counterpart",
                                    f"“{source.name}” cannot be rebuilt on {tech.name if tech else tech_id}.", str(exc))
            entries.append(Entry(made.design, None, made.notes, source.name, unsaved=True))
        return self.add_entries(entries)

    def remove_design(self, index: int) -> bool:
        if not 0 <= index < len(self.entries) or len(self.entries) <= 2:
            return False
        return self.set_entries([e for i, e in enumerate(self.entries) if i != index])

    def make_baseline(self, index: int) -> bool:
        if not 0 < index < len(self.entries):
            return False
        entries = list(self.entries)
        entries.insert(0, entries.pop(index))
        return self.set_entries(entries)

    def set_settings(self, settings: CompareSettings) -> None:
        """New assumptions: recompare (the assumptions box calls this on every edit)."""
        if settings == self.settings:
            return
        self.settings = settings
        self.panel.assumptions.set_settings(settings)
        self._request()

    def _request(self) -> None:
        if len(self.entries) >= 2:
            self.service.request([e.design for e in self.entries], self.settings)
        else:
            self.shown, self.shown_settings, self.outcome = list(self.entries), self.settings, None
            self._show()

    # --- results ------------------------------------------------------------------------------------

    def _on_outcome(self, outcome: CompareOutcome) -> None:
        if outcome.error is not None:
            # Back to what the views show, so what is asked for and what is shown agree again.
            self.entries, self.settings = list(self.shown), self.shown_settings
            self.panel.assumptions.set_settings(self.settings)
            self._refuse("Cannot compare", "The designs could not be compared.", outcome.error)
            self._show()
            return
        by_design = {id(e.design): e for e in self.entries}
        self.shown = [by_design.get(id(d)) or Entry(d) for d in outcome.job.designs]
        self.shown_settings = outcome.job.settings
        self.outcome = outcome
        self._show()

    def _on_busy(self, busy: bool) -> None:
        if self.outcome is None:
            self._show()  # the placeholder says whether a first comparison is on its way
        if busy:
            self.status.setText("Comparing…")
        self._update_actions()

    def _show(self) -> None:
        outcome = self.outcome
        comparison = outcome.comparison if outcome is not None else None
        if outcome is None or comparison is None:
            self.table_model.set_comparison(None, [])
            self.network_costs.show_arrangements([], [])
            self.legend.show_designs([])
            self.panel.show_placeholder("Comparing the designs…" if self.service.busy else
                                        "Add a second design or a counterpart to compare.")
            self.charts_scroll.setVisible(False)
            self.status.setText("")
            self.headline.setText("")
            self.headline.hide()
            self.winner = None
            self.setWindowTitle("Compare — Fabric Designer")
            self._update_actions()
            return
        styles = design_styles(comparison, self.theme, self.catalog)
        columns = self.table_model.columnCount()
        self.table_model.set_comparison(comparison, styles)
        notes = {e.name: e.notes for e in self.shown if e.notes}
        self.panel.show_comparison(comparison, notes)
        if self.table_model.columnCount() != columns:
            self._fit_split()   # after the verdict is in: the panel's height follows its text
        self.network_costs.show_arrangements(comparison.names, outcome.networks)
        self.charts_scroll.setVisible(True)
        self.charts.show_comparison(comparison, outcome.curves, styles, outcome.curve_gpus)
        self.legend.show_designs(self._legend_lines(comparison, styles))
        self.table_title.setText("COMPARISON  ·  changes against the baseline [1]")
        self.status.setText(f"{len(comparison.names)} designs compared in {outcome.elapsed_ms:,.0f} ms · "
                            "costs use illustrative prices unless a price book is loaded")
        self.setWindowTitle(compare_title(comparison.names))
        top = headline(comparison)
        self.winner = top.winner
        self.headline.setText(top.text)
        self.headline.show()
        self._winner_beside_baseline()
        self.frozen.refresh()
        self._update_actions()

    def _winner_beside_baseline(self) -> None:
        """The recommended design's columns right after the baseline's, so it is in view without
        scrolling; the others keep their order (the model's order is untouched)."""
        header = self.table.horizontalHeader()
        model = self.table_model
        for logical in range(model.columnCount()):   # start from the model's order
            header.moveSection(header.visualIndex(logical), logical)
        win = self.winner
        if not win or model.comparison is None:
            return
        value = model.value_column(win)
        target = model.value_column(0) + 1
        header.moveSection(header.visualIndex(value), target)
        header.moveSection(header.visualIndex(value + 1), target + 1)   # its change against [1]

    def _fit_split(self) -> None:
        """Give the table the width its columns need, the rest to the recommendation and charts."""
        need = self.table.minimum_width() + 2
        # At most 640 px as a minimum: with the recommendation's ~600 px the window fits 1280.
        self.table.setMinimumWidth(min(need, 640))
        total = max(self.split.width(), self.width() - 12)
        left = min(max(need, 640), total - 600)
        self.split.setSizes([left, total - left])
        height = max(self.right.height(), self.height() - 90)
        # The recommendation with its flip lines gets the room it reads in; the charts scroll.
        need = self.panel.needed_height(self.panel.width() or self.right.width())
        panel = min(max(round(height * 0.6), 420, need), height - 160)
        self.right.setSizes([panel, height - panel])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self._sized and self.comparison is not None:
            self._fit_split()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            self._fit_screen()
            self._fit_split()
            # The window manager adds its frame after the first show: fit again once it has.
            QTimer.singleShot(100, self, self._fit_screen)

    def _fit_screen(self, room: QRect | None = None) -> None:
        """The whole window on the screen (`room`: its available part), frame and status bar
        included (at 1280x800 the window manager's frame pushed the status bar below the edge)."""
        screen = self.screen()
        if room is None:
            if screen is None:
                return
            room = screen.availableGeometry()
        frame = self.frameGeometry()
        extra_w, extra_h = frame.width() - self.width(), frame.height() - self.height()
        width = min(self.width(), room.width() - extra_w)
        height = min(self.height(), room.height() - extra_h)
        self.resize(width, height)
        frame = self.frameGeometry()
        x = max(min(frame.left(), room.right() - frame.width() + 1), room.left())
        y = max(min(frame.top(), room.bottom() - frame.height() + 1), room.top())
        self.move(x, y)

    def _legend_lines(self, comparison, styles) -> list:
        """(colour, name, detail) per design: technology, GPUs and where the design came from."""
        lines = []
        for i, (name, style) in enumerate(zip(comparison.names, styles, strict=True)):
            entry = self.shown[i] if i < len(self.shown) else None
            tags = ["baseline"] if i == 0 else []
            if entry is not None and entry.counterpart_of:
                tags.append(f"counterpart of [{comparison.names.index(entry.counterpart_of) + 1}]"
                            if entry.counterpart_of in comparison.names else "counterpart")
            if entry is not None and entry.unsaved:
                tags.append("not saved")
            elif entry is not None and entry.path is not None:
                tags.append(entry.path.name)
            tags += [f"{int(comparison.row('gpus').values[i]):,} GPUs", style.tech_name]
            lines.append((style.colour, name, " · ".join(tags)))
        return lines

    @property
    def comparison(self):
        return self.outcome.comparison if self.outcome is not None else None

    # --- the selected design --------------------------------------------------------------------------

    def selected_design(self) -> int | None:
        index = self.table.selected_design()
        return index if index is not None and index < len(self.shown) else None

    def select_design(self, index: int) -> None:
        if self.comparison is not None:
            self.table._header_clicked(self.table_model.value_column(index))

    def _update_actions(self, *_) -> None:
        selected = self.selected_design()
        idle = not self.service.busy
        count = len(self.shown)
        self.remove_action.setEnabled(idle and selected is not None and count > 2)
        self.remove_action.setToolTip("Remove the selected design (click its column first)" if count > 2 else
                                      "A comparison needs two designs: add one before removing another")
        self.baseline_action.setEnabled(idle and selected is not None and selected > 0)
        self.save_design_action.setEnabled(selected is not None)
        self.open_action.setEnabled(selected is not None)
        self.export_action.setEnabled(self.comparison is not None)
        self.add_design_action.setEnabled(idle and count < MAX_DESIGNS)
        self.counterpart_button.setEnabled(idle and 0 < count < MAX_DESIGNS)

    def _design_menu(self, design: int, global_pos) -> None:
        if design >= len(self.shown):
            return
        entry = self.shown[design]
        menu = QMenu(self)
        title = menu.addAction(f"[{design + 1}] {entry.name}")
        title.setEnabled(False)
        menu.addSeparator()
        menu.addAction(self.save_design_action)
        if self.opener is not None:
            menu.addAction(self.open_action)
        menu.addSeparator()
        sub = menu.addMenu("Add Counterpart of This Design")
        self._fill_counterpart_menu(sub, design)
        menu.addAction(self.baseline_action)
        menu.addAction(self.remove_action)
        menu.exec(global_pos)

    def remove_selected(self) -> bool:
        index = self.selected_design()
        return index is not None and self.remove_design(index)

    def make_selected_baseline(self) -> bool:
        index = self.selected_design()
        return index is not None and self.make_baseline(index)

    def save_selected_design(self) -> bool:
        index = self.selected_design()
        return index is not None and self.save_design_as(index)

    def open_selected_in_designer(self) -> bool:
        index = self.selected_design()
        if index is None or self.opener is None:
            return False
        entry = self.shown[index]
        self.opener(entry.design, None if entry.unsaved else entry.path, entry.unsaved)
        return True

    # --- files ----------------------------------------------------------------------------------------

    def save_design_as(self, index: int, path: str | Path | None = None) -> bool:
        """Save design `index` as a project file (asking where unless `path` is given)."""
        if not 0 <= index < len(self.shown):
            return False
        entry = self.shown[index]
        if path is None:
            path = self.dialogs.save_design_path(str(entry.path) if entry.path else f"{entry.name}.json")
            if path is None:
                return False
        path = Path(path)
        try:
            save_design(entry.design, path)
        except OSError as exc:
            return self._refuse("Cannot save design", f"“{path.name}” could not be written.",
                                exc.strerror or str(exc))
        saved = dataclasses.replace(entry, path=path, unsaved=False)
        self.shown = [saved if e is entry else e for e in self.shown]
        self.entries = [saved if e is entry else e for e in self.entries]
        self.statusBar().showMessage(f"Saved “{entry.name}” to {path}", 6000)
        return True

    def export_csv(self, path: str | Path) -> bool:
        if self.comparison is None:
            return False
        path = Path(path)
        try:
            write_compare_csv(self.comparison, path)
        except OSError as exc:
            return self._refuse("Cannot export", f"“{path.name}” could not be written.", exc.strerror or str(exc))
        self.statusBar().showMessage(f"Comparison written to {path}", 6000)
        return True

    def export_csv_from_dialog(self) -> bool:
        if self.comparison is None:
            return False
        first = next((e.path for e in self.shown if e.path is not None), None)
        suggestion = str(first.with_name("comparison.csv")) if first else "comparison.csv"
        path = self.dialogs.save_csv_path(suggestion)
        return self.export_csv(path) if path else False

    # --- light and dark, closing -----------------------------------------------------------------------

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_theme()
        super().changeEvent(event)

    def _apply_theme(self) -> None:
        if not hasattr(self, "charts"):
            return
        self.theme = Theme(QApplication.palette())
        t = self.theme
        border = t.grid.darker(125) if not t.dark else t.grid.lighter(170)
        central = self.centralWidget()
        assert central is not None   # set in __init__
        central.setStyleSheet(f"""
            QLabel#panelTitle {{ color: {t.muted.name()}; font-size: 8pt; font-weight: 600; }}
            QTableView#compareTable {{ background: {t.background.name()}; border: 1px solid {border.name()};
                                      border-radius: 3px; }}
            QTableView#compareTable::item {{ padding: 0px 8px; }}
            QTableView#frozenMetricColumn {{ background: {t.background.name()};
                                            border-right: 1px solid {border.name()}; }}
            QTableView#frozenMetricColumn::item {{ padding: 0px 8px; }}
            QLabel#compareHeadline {{ font-size: 10.5pt; font-weight: 600; padding: 2px 2px 4px 2px; }}
            QLabel#legendNumber, QLabel#legendName {{ font-weight: 600; }}
            QLabel#legendDetail {{ color: {t.muted.name()}; }}
        """)
        self.table_model.set_theme(t)
        self.panel.apply_theme(t)
        self.charts.apply_theme(t)
        if self.outcome is not None:
            self._show()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop the compare worker (a later change starts it again). Idempotent."""
        self.service.shutdown()
        self.statusBar().clearMessage()  # its timeout timer
