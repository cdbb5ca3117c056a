"""The What If menu: fail the selection, fail any one switch (N-1), expected interruptions.

Failing never edits the design: the analysis runs off the UI thread on a snapshot of the
design, the canvas greys what is lost and the metric cards show before -> after. Esc, Undo
(while a failure is shown) or any edit restores the normal view.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from designer.model.common.units import duration_label, ratio_label
from designer.model.decisions.whatif import WhatIfError, n_minus_one, parse_failure, performance_impact, what_if
from designer.model.topology.derive import derive
from designer.ui.canvas.failure_overlay import FailureOverlay
from designer.ui.canvas.layout import parse_device_id
from designer.ui.services.background import Latest

FAIL_KEY = "X"


def _ratio(v) -> str:
    return ratio_label(v, "no uplinks")


def _ms(us) -> str:
    return "—" if us is None else duration_label(us)


def gpus_detail(w) -> str:
    """What the failure leaves the GPUs, in words: no '0 cut off · 0 at 100%' that reads as a loss."""
    parts = []
    if w.gpus_cut:
        parts.append(f"{w.gpus_cut:,} cut off")
    if w.gpus_degraded:
        parts.append(f"{w.gpus_degraded:,} keep {w.nic_share:.0%} of their NIC bandwidth")
    if not parts:
        return "none cut off, all at full NIC bandwidth"
    if not w.gpus_degraded and w.gpus_cut < w.gpus:
        parts.append("the rest at full NIC bandwidth")
    return " · ".join(parts)


def tokens_for(elements, design, layout) -> list[str]:
    """Failure tokens for selected canvas elements (switches, tiers, blocks, manual links)."""
    planes = layout.planes if layout is not None else design.fabric.planes
    out: list[str] = []
    for element in sorted(elements):
        if element.startswith("tier:"):
            tier = element[5:]
            if tier != "servers":
                out.append(f"{tier}-*" if planes == 1 else f"p*.{tier}-*")
        elif element.startswith("block:") and layout is not None:
            _, tier, k = element.split(":")
            row = layout.rows.get(tier)
            if tier != "servers" and row is not None and int(k) < len(row.blocks):
                block = row.blocks[int(k)]
                for plane in range(planes):
                    pre = f"p{plane + 1}." if planes > 1 else ""
                    out += [f"{pre}{tier}-{i + 1}" for i in range(block.first, block.first + block.count)]
        elif element.startswith("edit:"):
            i = int(element[5:])
            if i < len(design.edits) and design.edits[i].op == "add-links":
                out.append(f"{design.edits[i].a}--{design.edits[i].b}")
        else:
            parsed = parse_device_id(element)
            if parsed is not None and parsed[0] != "servers":
                out.append(element)
    return out


class FailMode(QObject):
    """One interaction mode: a failure shown over the design until it is restored."""

    shown = Signal(object)             # the WhatIf (or NMinusOne) now shown; None when restored

    @classmethod
    def install(cls, window, menu_bar) -> FailMode:
        mode = cls(window)
        menu = menu_bar.addMenu("&What If")
        for action in (mode.fail_action, mode.n1_action, mode.restore_action, None, mode.interruptions_action):
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        mode.menu = menu
        return mode

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.overlay = FailureOverlay(window.scene)
        self.result = None
        self.menu: QMenu | None = None   # set by install()
        self._n1 = None            # (NMinusOne, impact per tier) of the last N-1 run
        self._n1_panel = None
        self._work = Latest(self, "whatif", window.compute.synchronous)
        self._undo_shortcut = QKeySequence()
        self.fail_action = self._action("&Fail Selection", self.fail_selection, FAIL_KEY,
                                        "Fail the selected switches, tiers, blocks or links and show what is lost")
        self.n1_action = self._action("Fail Any &One Switch (N-1)", self.fail_worst, None,
                                      "Fail every switch in turn and show the worst single failure")
        self.restore_action = self._action("&Restore", self.restore, None, "Leave the failure view")
        self.restore_action.setShortcuts([QKeySequence(Qt.Key.Key_Escape)])
        self.restore_action.setEnabled(False)
        self.interruptions_action = self._action("Expected &Interruptions", self.show_interruptions, None,
                                                 "Expected link failures and interruptions from sourced rates")
        window.document.designChanged.connect(self._on_design_changed)

    def _action(self, text, slot, shortcut, tip) -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    def add_to_context_menu(self, menu) -> None:
        menu.addAction(self.fail_action)
        if self.overlay.active:
            menu.addAction(self.restore_action)

    # --- running the analysis off the UI thread -----------------------------------------------

    def _run(self, kind: str, job) -> None:
        self.window.statusBar().showMessage("Computing the failure…")

        def work():
            try:
                return kind, job()
            except (WhatIfError, ValueError) as exc:
                return "error", str(exc)
        self._work.run(work, self._on_finished)

    def fail_selection(self) -> None:
        design = self.window.document.design
        if design is None:
            return
        tokens = tokens_for(self.window.controller.selection.elements, design, self.window.scene.layout)
        if not tokens:
            self.window.statusBar().showMessage(
                "Select switches, a tier, a block or a manual link, then choose What If > Fail Selection", 6000)
            return

        def job():
            d = derive(design, self.window.catalog)
            result = what_if(d, parse_failure(d, tokens))
            return result, performance_impact(d, result)
        self._run("fail", job)

    def fail_worst(self) -> None:
        design = self.window.document.design
        if design is None:
            return

        def job():
            d = derive(design, self.window.catalog)
            report = n_minus_one(d)
            worst = max(report.worst.values(), key=lambda w: (w.gpus_cut, -w.bisection_after_gbps))
            impacts = {tier: performance_impact(d, w) for tier, w in report.worst.items()}
            return worst, impacts[next(t for t, w in report.worst.items() if w is worst)], report, impacts
        self._run("n1", job)

    def n1_panel(self):
        """The N-1 table's panel, in a dock beside the metric cards (made on first use)."""
        if self._n1_panel is None:
            from designer.ui.panels.n1_panel import NMinusOnePanel

            window = self.window
            self._n1_panel = NMinusOnePanel()
            dock = window._dock("N-1", self._n1_panel, Qt.DockWidgetArea.BottomDockWidgetArea)
            dock.setWindowTitle("N-1")
            window.tabifyDockWidget(window.docks["metrics"], dock)
            window.docks["n1"] = dock
            window.panels_menu.addAction(dock.toggleViewAction())
            self._n1_panel.tierPicked.connect(self._show_tier)
        return self._n1_panel

    def _show_tier(self, tier: str) -> None:
        """Show the worst failure of `tier` from the N-1 run on screen (no new computation)."""
        if self._n1 is None or tier not in self._n1[0].worst:
            return
        report, impacts = self._n1
        self._show(report.worst[tier], impacts[tier], "n1")

    def show_interruptions(self) -> None:
        """The Expected Interruptions dock, estimated for the open design."""
        if self.window.document.design is None:
            return
        dock = self.window.docks["interruptions"]
        if dock.isVisible():
            self.window.interruptions.compute()
        else:
            dock.show()       # showing it estimates for the open design
        dock.raise_()

    def _on_finished(self, payload) -> None:
        kind, data = payload   # only the newest request's: a restore or a newer request drops older ones
        status = self.window.statusBar()
        if kind == "error":
            status.showMessage(f"Cannot fail that: {data}", 8000)
            return
        result, impact = data[0], data[1]
        if kind == "n1":
            report, impacts = data[2], data[3]
            self._n1 = (report, impacts)
            panel = self.n1_panel()
            panel.show_report(report, next(t for t, w in report.worst.items() if w is result))
            # The table in front, on a tab beside the metric cards (they show the picked failure).
            self.window.docks["n1"].show()
            self.window.docks["n1"].raise_()
        self._show(result, impact, kind)

    def _show(self, result, impact, kind: str) -> None:
        status = self.window.statusBar()
        self.result = result
        self.overlay.show_failure(result.failure.devices, result.cut_servers, cables=result.failure.links)
        self._show_cards(result, impact)
        self._enter()
        prefix = "Worst single failure (N-1): " if kind == "n1" else "Failed: "
        verdict = "the job continues" if result.job_continues else "a job on every GPU stops"
        status.showMessage(f"{prefix}{result.failure.label} — {verdict}; Esc restores")
        self.shown.emit(result)

    def _show_cards(self, w, impact) -> None:
        cards = self.window.metrics.cards
        tone = None if w.job_continues else "error"
        cards["gpus"].show_value(f"{w.gpus - w.gpus_cut:,}", f"of {w.gpus:,} reachable · {gpus_detail(w)} (computed)",
                                 tone)
        cards["bisection"].show_value(f"{w.ratio_after:.1%}", f"before {w.ratio_before:.0%} of full · "
                                      f"{w.method} (computed)", "warning" if w.ratio_after < w.ratio_before else None)
        cards["oversub"].show_value(_ratio(w.leaf_oversub_after), f"leaf, before {_ratio(w.leaf_oversub_before)} · "
                                    f"{len(w.leaf_oversub)} leaves changed")
        hurt = []
        if w.sus_cut:
            hurt.append("SU " + ", ".join(map(str, w.sus_cut)))
        if w.rails_cut:
            hurt.append("rail " + ", ".join(map(str, w.rails_cut)))
        cards["switches"].show_value(f"{len(w.failure.devices):,} failed",
                                     "hurt: " + ("; ".join(hurt) if hurt else "no GPU cut off"), tone)
        if "before_us" in impact:
            cards["allreduce"].show_value(f"{_ms(impact['before_us'])} → {_ms(impact.get('after_us'))}",
                                          "estimated · " + (impact.get("note") or "same job after the failure"))

    # --- entering and leaving the failure view ------------------------------------------------

    def _enter(self) -> None:
        if self.restore_action.isEnabled():
            return
        undo = self.window.actions_["undo"]
        self._undo_shortcut = undo.shortcut()
        undo.setShortcut(QKeySequence())   # while a failure shows, Undo restores the view
        self.restore_action.setShortcuts([QKeySequence(Qt.Key.Key_Escape), self._undo_shortcut])
        self.restore_action.setEnabled(True)

    def restore(self) -> None:
        self._work.drop()       # a result still on its way is not shown
        was_shown = self.overlay.active
        self.overlay.clear()
        self.result = None
        if self.restore_action.isEnabled():
            self.window.actions_["undo"].setShortcut(self._undo_shortcut)
            self.restore_action.setEnabled(False)
        latest = self.window.compute.latest
        if was_shown and latest is not None:
            self.window.metrics.show_result(latest)
        if was_shown:
            self.window.statusBar().showMessage("Failure view closed", 3000)
            self.shown.emit(None)

    def _on_design_changed(self, _design) -> None:
        if self.overlay.active or self.restore_action.isEnabled():
            self.restore()
        if self._n1 is not None:
            # The table described the design before this change: never left on screen as if current.
            self._n1 = None
            self.n1_panel().show_report(None)
            self.n1_panel().heading.setText("The design changed: What If > Fail Any One Switch (N-1) "
                                            "fails every switch of it in turn.")


def install_phases(window, catalog, synchronous: bool):
    """The Phases dock: plans the build-out of the open design; draws and exports a phase."""
    from designer.io.phase_bom_csv import write_phase_bom_csv
    from designer.model.decisions.whatif import switch_ids
    from designer.ui.panels.phases_panel import PhasesPanel

    def build() -> PhasesPanel:
        """The panel, made when the dock is first shown (window.phases makes it too)."""
        panel = PhasesPanel(catalog, synchronous)
        window.document.designChanged.connect(panel.set_design)
        panel.set_design(window.document.design)
        panel.planEdited.connect(store_plan)
        panel.drawRequested.connect(draw)
        panel.exportRequested.connect(export)
        return panel

    dock = window._dock("Phases", build, Qt.DockWidgetArea.BottomDockWidgetArea)
    # Opening the panel plans the stored target (or a first proposal) at once: never an empty table.
    _beside_metrics(window, "phases", dock, lambda panel: panel.growth is None, lambda panel: panel.preview())

    def store_plan(plan) -> None:
        """The panel's target and phases become the design's: one undoable step per commit."""
        design = window.document.design
        if design is None or plan == design.growth:
            return
        old = design.growth
        if plan.phases == old.phases:
            field, text = "growth.target_gpus", f"Set build-out target to {plan.target_gpus:,} GPUs"
        elif plan.target_gpus == old.target_gpus:
            field = "growth.phases"
            text = f"Set build-out phases to {plan.phases_text()}" if plan.phases else "Clear build-out phases"
        else:
            field = "growth"
            text = f"Set build-out plan to {plan.target_gpus:,} GPUs" + \
                (f" in phases {plan.phases_text()}" if plan.phases else "")
        problem = window.controller.apply_edit(replace(design, growth=plan), field, text)
        if problem:
            window.statusBar().showMessage(f"Not applied: {problem}", 8000)

    def draw(path, number) -> None:
        final = path.phases[-1]
        phase = path.phases[number - 1]
        later = sorted(set(switch_ids(derive(final.design, catalog))) - set(switch_ids(derive(phase.design, catalog))))
        other = window.open_in_new_window(final.design, None, modified=False)
        other.fail_mode.overlay.show_failure(later, range(phase.servers, final.servers), ghost=True)
        other.statusBar().showMessage(f"Phase {number} of {len(path.phases)} ({path.label}): "
                                      "the pale parts come in later phases")

    def export(phase, currency) -> None:
        target = window.dialogs.save_path(f"phase-{phase.number}-bom.csv")
        if not target:
            return
        try:
            write_phase_bom_csv(phase, currency, target)
        except OSError as exc:
            window.dialogs.show_error("Export failed", f"Could not write {target}", str(exc))
            return
        window.statusBar().showMessage(f"Wrote {target}", 5000)

    show = QAction("&Phases…", window)
    show.setStatusTip("Plan a phased build-out: BOM per phase, reserved ports, recabling")
    show.triggered.connect(lambda: (dock.show(), dock.raise_()))
    window.fail_mode.menu.addAction(show)
    return dock


def install_interruptions(window, catalog, synchronous: bool):
    """The Expected Interruptions dock: the full estimate of the open design, exportable as CSV."""
    from designer.io.interruptions_csv import write_interruptions_csv
    from designer.ui.panels.interruptions_panel import InterruptionsPanel

    def build() -> InterruptionsPanel:
        """The panel, made when the dock is first shown (window.interruptions makes it too)."""
        panel = InterruptionsPanel(catalog, synchronous)
        window.document.designChanged.connect(panel.set_design)
        panel.set_design(window.document.design)
        panel.exportRequested.connect(export)
        return panel

    dock = window._dock("Interruptions", build, Qt.DockWidgetArea.BottomDockWidgetArea)
    dock.setWindowTitle("Expected Interruptions")
    _beside_metrics(window, "interruptions", dock, lambda panel: panel.report is None,
                    lambda panel: panel.compute())

    def export(report) -> None:
        design = window.document.design
        target = window.dialogs.save_path("expected-interruptions.csv")
        if not target:
            return
        try:
            write_interruptions_csv(report, target, design.meta.name if design is not None else "")
        except OSError as exc:
            window.dialogs.show_error("Export failed", f"Could not write {target}", str(exc))
            return
        window.statusBar().showMessage(f"Wrote {target}", 5000)

    return dock


def _beside_metrics(window, key: str, dock, empty, fill) -> None:
    """A wide panel's dock, tabbed beside the metric cards and hidden until asked for (What If or
    View > Panels); shown, it comes in front of the Metrics tab, and a panel still empty is filled
    at once (`fill`), so it never opens on an empty table."""
    window.tabifyDockWidget(window.docks["metrics"], dock)
    window.docks[key] = dock
    dock.hide()
    toggle = dock.toggleViewAction()
    toggle.triggered.connect(lambda checked: checked and dock.raise_())
    window.panels_menu.addAction(toggle)

    def fill_when_shown(shown: bool) -> None:
        if shown and empty(dock.content()):
            fill(dock.content())
    dock.visibilityChanged.connect(fill_when_shown)
