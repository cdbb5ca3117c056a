"""File > Import Fabric Capture... and Tools > Audit Against...: the fabric as built in the window.

Import opens a capture (ibnetdiscover, LLDP) as a new, unsaved design: the inferred design with
the capture's differences as edits, and opens the Audit panel when the capture differs from the
inferred design's wiring rule. Tools > Inferred Design... shows each inferred figure with its
evidence and imports again on the user's corrections. Import and Audit Against call the same
function as the command line (io/fabric_capture.read_answer); both ask for the capture and, when
the user gives one, the GUID name map that names its hosts (`--names MAP`). Audit compares a
capture with the open design, off the UI thread, then marks only the faulty devices and links on
the canvas (missing links and absent devices dashed red, swapped and miswired cables red,
degraded links amber) and lists the findings in the Audit panel; choosing a finding there shows
that one on the canvas.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QDialog, QFileDialog, QGraphicsItem

from designer.io.audit_csv import write_findings_csv
from designer.io.fabric_capture import CaptureError, as_built_design, read_answer
from designer.model.decisions.audit import AuditReport
from designer.model.decisions.audit_answer import CaptureAnswer
from designer.ui.panels.audit_panel import AuditPanel
from designer.ui.services.background import Latest
from designer.ui.shell.capture_dialog import CaptureDialog
from designer.ui.shell.lazy_dock import LazyDock

RED, AMBER, GREY = QColor(200, 40, 40), QColor(230, 150, 20), QColor(140, 140, 140)


def _canvas_id(design_id: str | None) -> str | None:
    """The canvas element of a design device: NIC ports are drawn as their server."""
    if not design_id:
        return None
    return design_id.split(".nic-")[0] if ".nic-" in design_id else design_id


def marks(kind: str, e: dict) -> tuple[list[tuple[str | None, str | None, QColor, bool]], list[str]]:
    """(lines, ghosts) that one finding draws: a line (a, b, colour, dashed) per cable."""
    if kind == "missing_devices":
        return [], [e["device"]]
    if kind == "missing_links":
        return [(e["a"].get("design_id"), e["b"].get("design_id"), RED, True)], []
    if kind == "degraded_links":
        return [(e["a"].get("design_id"), e["b"].get("design_id"), AMBER, False)], []
    if kind == "swapped":
        return [(e["a"].get("design_id"), e["a_on"].get("design_id"), RED, False),
                (e["b"].get("design_id"), e["b_on"].get("design_id"), RED, False)], []
    if kind in ("miswired", "extra_links") and "a" in e:
        return [(e["a"].get("design_id"), e["b"].get("design_id"), RED, False)], []
    return [], []


class AuditOverlay(QGraphicsItem):
    """Lines and ghost boxes drawn over the fabric; it takes no clicks."""

    def __init__(self, scene):
        super().__init__()
        self._scene = scene
        self.lines: list[tuple[str | None, str | None, QColor, bool]] = []
        self.ghosts: list[str] = []
        self.focus: tuple[list, list[str]] | None = None
        self.setZValue(50)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_report(self, report: AuditReport | None) -> None:
        self.prepareGeometryChange()
        self.lines, self.ghosts, self.focus = [], [], None
        if report is not None:
            for kind, e in report.rows():
                lines, ghosts = marks(kind, e)
                self.lines += lines
                self.ghosts += ghosts
        self.update()

    def set_focus(self, kind: str | None, entry: dict | None) -> None:
        """Show one finding: its marks drawn strong, the others faint."""
        self.focus = marks(kind, entry) if kind and entry else None
        self.update()

    def _pos(self, design_id) -> QPointF | None:
        element = _canvas_id(design_id)
        return self._scene.element_position(element) if element else None

    def shape(self) -> QPainterPath:
        # Empty: the overlay is never the item under the pointer, so canvas gestures pass through.
        return QPainterPath()

    def boundingRect(self) -> QRectF:
        return self._scene.content_rect().adjusted(-40, -40, 40, 40)

    def paint(self, painter, option, widget=None) -> None:
        lines, ghosts = (self.lines, self.ghosts)
        if self.focus is not None:
            faint = [(a, b, QColor(c.red(), c.green(), c.blue(), 45), d) for a, b, c, d in self.lines]
            lines, ghosts = faint + self.focus[0], self.ghosts
        for a, b, color, dashed in lines:
            pa, pb = self._pos(a), self._pos(b)
            if pa is None or pb is None or pa == pb:
                continue
            pen = QPen(color, 3)
            pen.setCosmetic(True)
            if dashed:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawLine(pa, pb)
        # A missing device: the designed box washed out, outlined dashed, marked "missing".
        pen = QPen(RED, 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        for ghost in ghosts:
            p = self._pos(ghost)
            if p is not None:
                box = QRectF(p.x() - 32, p.y() - 22, 64, 44)
                painter.setPen(pen)
                painter.setBrush(QColor(255, 255, 255, 190))
                painter.drawRect(box)
                painter.setPen(GREY)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, "missing")


class AuditActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.report: AuditReport | None = None
        self.answer: CaptureAnswer | None = None       # the last import's answer (Inferred design)
        self.answer_path: str | None = None
        self.answer_names: str | None = None           # the GUID name map it was read with, if chosen
        self.last_capture, self.last_names = "", ""      # what the capture dialog offers next
        self.imported = False
        self.source = ""
        self.overlay = AuditOverlay(window.scene)
        window.scene.addItem(self.overlay)
        # The panel is made when an audit first shows it (or `panel` is asked for).
        self.dock = LazyDock("Audit", window, self._make_panel)
        self.dock.setObjectName("dock-audit")
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        if "metrics" in getattr(window, "docks", {}):
            window.tabifyDockWidget(window.docks["metrics"], self.dock)
        self.dock.hide()
        self._work = Latest(self, "audit", window.compute.synchronous)   # a newer audit supersedes one under way

    @property
    def panel(self) -> AuditPanel:
        panel = self.dock.content()
        assert isinstance(panel, AuditPanel)
        return panel

    def _make_panel(self) -> AuditPanel:
        panel = AuditPanel()
        panel.findingChosen.connect(self._chosen)
        panel.exportRequested.connect(lambda: self.export_csv())
        panel.correctRequested.connect(lambda: self.correct_inference())
        return panel

    # --- File > Import ---------------------------------------------------------------------

    def ask_capture(self, title: str) -> tuple[str, str | None] | None:
        """The capture dialog: (capture, names map or None), or None when cancelled (tests put a
        stand-in here)."""
        dialog = CaptureDialog(self.window, title, self.last_capture, self.last_names)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.chosen()

    def _remember(self, path: str, names: str | None) -> None:
        self.last_capture, self.last_names = path, names or ""

    def import_file(self, path: str | None = None, corrections: dict[str, str] | None = None,
                    names: str | None = None) -> bool:
        """Open a capture as a new unsaved design, read off the UI thread by the same function as
        `fabric-designer import` (read_answer), with the GUID name map `names` (`--names`; None:
        the map beside the capture, if any); the Audit panel opens when the capture does not
        match the inferred design's wiring rule. A bad file gets one message and changes nothing.
        Returns whether the import was started (run at once in synchronous mode: whether it was
        imported)."""
        if path is None:
            asked = self.ask_capture("Import Fabric Capture")
            if asked is None:
                return False
            path, names = asked
        self._remember(path, names)
        if corrections is None and not self.window.files.maybe_save():
            return False
        catalog = self.window.catalog
        chosen = path

        def work():
            try:
                return read_answer(chosen, None, corrections, catalog, names), ""
            except (CaptureError, ValueError, KeyError, OSError) as exc:
                return None, str(exc)

        self.imported = True
        self._work.run(work, lambda outcome: self._imported(chosen, outcome[0], outcome[1], names))
        if not self._work.synchronous:
            self.window.statusBar().showMessage(f"Importing {os.path.basename(path)}...", 2000)
        return self.imported

    def _imported(self, path: str, answer: CaptureAnswer | None, error: str, names: str | None = None) -> None:
        self.imported = False
        if answer is None:
            self.window.dialogs.show_error("Cannot import capture", "The capture could not be imported.", error)
            return
        inference = answer.inference
        self.source = os.path.basename(path)
        if inference.design is None:
            # No design fits (no link rates, no catalog switch): the capture is audited on its
            # own, as `fabric-designer audit` does, and that audit opens; the open design stays.
            report = answer.report
            self._show(report, "")
            reason = inference.problems[0] if inference.problems else "no design fits"
            # Without a design, no findings is not "built as designed".
            if not report.rows():
                self.panel.title.setText(f"Audit of {self.source}: no findings in the capture itself")
            self.panel.summary.insertItem(0, f"Audited on its own, without a design: {reason}")
            self.window.statusBar().showMessage(f"Not imported as a design: {reason}", 10000)
            return
        try:
            design = as_built_design(answer, path)
        except CaptureError as exc:
            self.window.dialogs.show_error("Cannot import capture", "The capture could not be imported.", str(exc))
            return
        self.imported = True
        self.answer, self.answer_path, self.answer_names = answer, path, names
        self.window.document.load(design, None, modified=True)
        self.panel.correct.setEnabled(True)
        if answer.matches_rule():
            self.report = answer.report
            self.panel.set_report(answer.report, self.source)
            self.window.statusBar().showMessage(
                f"Imported {self.source}: wired as the inferred design's rule says", 10000)
        else:
            self._show(answer.report, "")

    # --- Tools > Inferred Design... --------------------------------------------------------

    def correct_inference(self, corrections: dict[str, str] | None = None) -> bool:
        """The Inferred design dialog: each inferred figure with its evidence, the user corrects
        server model, servers, group size, rails or spines, and the capture is imported again on
        the corrected design (as `import --set`). With `corrections` given, no dialog opens."""
        if self.answer is None or self.answer_path is None:
            self.window.dialogs.show_error("Nothing inferred", "Import a fabric capture first (File > Import).")
            return False
        if corrections is None:
            from designer.ui.shell.inferred_dialog import InferredDesignDialog
            dialog = InferredDesignDialog(self.window, self.answer, self.window.catalog)
            if not dialog.exec():
                return False
            corrections = dialog.corrections()
        merged = {**self.answer.corrections, **corrections}
        if merged == self.answer.corrections:
            return False                      # nothing corrected: the import stands
        # Importing again replaces the open design: ask first when it is no longer the import.
        if self.window.document.design != self.answer.as_built() and not self.window.files.maybe_save():
            return False
        return self.import_file(self.answer_path, merged, self.answer_names)

    # --- Tools > Audit Against... ----------------------------------------------------------

    def audit_file(self, path: str | None = None, names: str | None = None) -> None:
        """Audit a capture against the open design, with the GUID name map `names` (`audit
        --names`; None: the map beside the capture, if any)."""
        design = self.window.document.design
        if design is None:
            self.window.dialogs.show_error("Nothing to audit", "Open or import a design first.")
            return
        if path is None:
            asked = self.ask_capture("Audit Against Capture")
            if asked is None:
                return
            path, names = asked
        self._remember(path, names)
        catalog = self.window.catalog
        chosen = path
        corrections = dict(self.answer.corrections) if self.answer is not None else {}

        def work():
            # The same function as `fabric-designer audit CAPTURE --against DESIGN [--names MAP]`.
            try:
                return read_answer(chosen, design, corrections, catalog, names).report, ""
            except (CaptureError, ValueError, KeyError, OSError) as exc:
                return None, str(exc)

        self.source = os.path.basename(path)
        self._work.run(work, lambda outcome: self._show(*outcome))
        self.window.statusBar().showMessage("Auditing...", 2000)

    def _show(self, report: AuditReport | None, error: str) -> None:
        if report is None:
            self.window.dialogs.show_error("Cannot audit", "The capture could not be audited.", error)
            return
        self.report = report
        self.overlay.set_report(report)
        self.panel.set_report(report, self.source)
        self._legend()
        self.dock.show()
        self.dock.raise_()
        self.window.statusBar().showMessage(f"Audit: {len(report.rows())} finding(s)", 5000)

    def _legend(self) -> None:
        """The legend names the audit's marks while they are drawn, and only those drawn."""
        drawn = {(color.name(), dashed) for *_, color, dashed in self.overlay.lines}
        rows = []
        if (RED.name(), True) in drawn or self.overlay.ghosts:
            rows.append(("faildash", ["Audit: missing link or absent device", "Missing"], RED))
        if (RED.name(), False) in drawn:
            rows.append(("line", ["Audit: swapped or miswired cable", "Miswired"], RED))
        if (AMBER.name(), False) in drawn:
            rows.append(("line", ["Audit: degraded link", "Degraded"], AMBER))
        legend = getattr(getattr(self.window, "view", None), "legend", None)
        if legend is not None:
            legend.set_audit_marks(rows)

    def _chosen(self, kind: str, entry: dict) -> None:
        self.overlay.set_focus(kind, entry)
        a = entry.get("a", entry)
        target = a.get("design_id") or entry.get("device")
        element = _canvas_id(target)
        if element:
            self.window.controller.focus(element)

    def export_csv(self, path: str | None = None) -> bool:
        """The findings as CSV (the same rows as `audit --csv`)."""
        if self.report is None:
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self.window, "Export Audit Findings", "audit.csv", "CSV (*.csv)")
            if not path:
                return False
        try:
            write_findings_csv(self.report, path)
        except (OSError, ValueError) as exc:
            self.window.dialogs.show_error("Cannot export", "The findings could not be written.", str(exc))
            return False
        self.window.statusBar().showMessage(f"Audit findings written to {path}", 5000)
        return True

    def clear(self) -> None:
        self.report = None
        self.overlay.set_report(None)
        if self.dock.built:   # a panel never made shows no report
            self.panel.set_report(None)
        self._legend()


def install(window, file_menu, tools_menu) -> AuditActions:
    actions = AuditActions(window)
    file_menu.addAction("&Import Fabric Capture...", lambda: actions.import_file())
    tools_menu.addAction("&Audit Against...", lambda: actions.audit_file())
    tools_menu.addAction("&Inferred Design...", lambda: actions.correct_inference())
    tools_menu.addAction("&Clear Audit", actions.clear)
    return actions
