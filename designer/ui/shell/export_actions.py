"""File > Export and Edit > Copy Diagram: the window's way to every file the command line writes.

Each export runs the same exporter as `fabric-designer bom`, `render` or `report`, so the file
has the same bytes. The work runs on a worker thread over a snapshot of the design, behind a
progress dialog with a Cancel button: the window stays usable, and a cancelled export writes
nothing. The file goes to a temporary name first and replaces the target only when complete.

More formats join the menu through `ExportActions.add_file_export(text, suffix, filter, write)`,
where `write(request, path)` writes one file; it runs off the UI thread.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QMimeData, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QImage, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QProgressDialog

from designer.catalog import Catalog
from designer.io.atomic import move_into_place, write_atomic
from designer.model.intent.design import FabricDesign
from designer.model.intent.slides import Slide
from designer.ui.message_box import dismiss_progress
from designer.ui.services.background import background

PNG_DPI = 200          # as `fabric-designer render` writes by default
CLIPBOARD_DPI = 150    # a slide-sized picture that pastes at a sensible size
SVG_MIME = "image/svg+xml"


class ExportRefused(Exception):
    """The design cannot give this file (for example, it has errors); the message says why."""


@dataclass(frozen=True)
class ExportRequest:
    """A snapshot of what an export needs; the worker thread reads only this."""

    design: FabricDesign
    catalog: Catalog
    slide: Slide | None = None            # the part of the fabric in view; None = the whole fabric
    other: FabricDesign | None = None     # the design the report compares with
    counterpart: str | None = None        # a technology: the report compares with the counterpart on it
    network: str = "compute"              # the network in view: another draws that network's canvas


# --- the exporters: one per format, the same functions the command line calls -------------------


def _derived_without_errors(request: ExportRequest):
    from designer.model.topology.derive import derive

    derived = derive(request.design, request.catalog)
    errors = derived.metrics.errors
    if errors:
        raise ExportRefused(f"The design has errors ({errors[0].message}); fix them first. "
                            "The Metrics panel lists them.")
    return derived


def write_bom(request: ExportRequest, path: Path) -> None:
    from designer.io.bom_csv import write_bom_csv
    from designer.model.physical.bom import build_bom
    from designer.model.physical.prices import load_prices

    derived = _derived_without_errors(request)
    write_bom_csv(build_bom(derived, request.catalog, load_prices(None)), path)


def write_cabling(request: ExportRequest, path: Path) -> None:
    from designer.io.cabling_csv import write_cabling_csv
    from designer.model.physical.media import physical_layer

    derived = _derived_without_errors(request)
    write_cabling_csv(physical_layer(derived, request.catalog), path, request.catalog)


def figure_of(request: ExportRequest):
    from designer.ui.export.figure import Figure, FigureSpec

    if request.network != "compute":
        from designer.ui.export.network_figure import NetworkFigure, NetworkRefused

        try:
            return NetworkFigure(request.design, request.network, request.catalog)
        except NetworkRefused as exc:
            raise ExportRefused(str(exc)) from exc
    return Figure(request.design, FigureSpec(slide=request.slide), request.catalog)


def write_svg(request: ExportRequest, path: Path) -> None:
    from designer.ui.export.svg import export_svg

    export_svg(figure_of(request), path)


def write_pdf(request: ExportRequest, path: Path) -> None:
    from designer.ui.export.pdf import export_pdf

    export_pdf(figure_of(request), path)


def write_png(request: ExportRequest, path: Path) -> None:
    from designer.ui.export.png import export_png

    export_png(figure_of(request), path, PNG_DPI)


def write_report(request: ExportRequest, path: Path) -> None:
    from designer.ui.export.report import export_report

    other = request.other
    if request.counterpart:
        from designer.ui.services.counterparts import counterpart

        try:
            other = counterpart(request.design, request.counterpart, request.catalog).design
        except ValueError as exc:   # SizingError and UnknownPartError are ValueErrors
            raise ExportRefused(f"The counterpart cannot be built: {exc}") from exc
    export_report(request.design, path, other, request.catalog, "a4")


def clipboard_data(request: ExportRequest) -> tuple[bytes, bytes]:
    """PNG and SVG of the view, for the clipboard."""
    from designer.ui.export.png import png_bytes
    from designer.ui.export.svg import svg_bytes

    figure = figure_of(request)
    return png_bytes(figure, CLIPBOARD_DPI), svg_bytes(figure_of(request))


def drawn_on_ui_thread(request: ExportRequest) -> bool:
    """Whether the request's picture must be drawn on the UI thread: another network's figure is
    a QGraphicsScene of text items (`NetworkFigure`), which Qt's widgets module makes and lays out
    on the GUI thread only; built on a worker, it can deadlock with the UI thread. It is a few
    dozen items, drawn at once; the worker then only writes the bytes."""
    return request.network != "compute"


def network_bytes(request: ExportRequest, write: Callable[[ExportRequest, Path], None]) -> bytes:
    """The bytes `write` (SVG, PDF or PNG) would write for a request of another network, drawn
    here: call it on the UI thread (`drawn_on_ui_thread`). Raises ExportRefused."""
    figure = figure_of(request)
    if write is write_svg:
        from designer.ui.export.svg import svg_bytes

        return svg_bytes(figure)
    if write is write_pdf:
        from designer.ui.export.pdf import pdf_bytes

        return pdf_bytes(figure)
    from designer.ui.export.png import png_bytes

    return png_bytes(figure, PNG_DPI)


def file_stem(design: FabricDesign, path: Path | None) -> str:
    """A file name from the project file's name, else the design's name, safe on every system."""
    text = path.stem if path is not None else (design.meta.name or "fabric")
    text = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', "-", text).strip(" .-")
    return text or "fabric"


# --- running an export off the UI thread ----------------------------------------------------------

class ExportJob:
    def __init__(self, title: str, target: Path | None, work: Callable[[], object]):
        self.title = title
        self.target = target
        self.work = work
        self.result: Any = None
        self.cancelled = False
        self.temp: Path | None = None


class ExportActions(QObject):
    """The Export submenu's actions, Copy Diagram, and the worker that runs them."""

    finished = Signal(str, str)
    """An export ended: (target path or "clipboard", "" on success or the error / "cancelled")."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.menu: QMenu | None = None
        self.actions: dict[str, QAction] = {}
        self.job: ExportJob | None = None
        self.progress: QProgressDialog | None = None
        self._tips: dict[str, str] = {}

    @classmethod
    def install(cls, window, file_menu: QMenu, edit_menu: QMenu, before: QAction | None = None) -> ExportActions:
        """Put File > Export (before `before`) and Edit > Copy Diagram into the window's menus."""
        self = cls(window)
        self.menu = QMenu("&Export", file_menu)
        self.menu.setObjectName("exportMenu")
        if before is not None:
            file_menu.insertMenu(before, self.menu)
            file_menu.insertSeparator(before)
        else:
            file_menu.addMenu(self.menu)
        add = self.add_file_export
        add("bom", "&Bill of Materials (CSV)…", ".csv", "CSV files (*.csv)", write_bom, "Ctrl+Shift+B",
            "The BOM as a spreadsheet, as `fabric-designer bom -o` writes it", "bom")
        add("cabling", "&Cabling Plan (CSV)…", ".csv", "CSV files (*.csv)", write_cabling, "Ctrl+Shift+L",
            "One row per link with racks, ports, transceivers and cables", "cabling")
        self.menu.addSeparator()
        for fmt, shortcut in (("svg", "Ctrl+E"), ("pdf", None), ("png", None)):
            writer = {"svg": write_svg, "pdf": write_pdf, "png": write_png}[fmt]
            add(f"diagram_{fmt}", f"Diagram as {fmt.upper()}…", f".{fmt}", f"{fmt.upper()} files (*.{fmt})",
                writer, shortcut, f"The whole fabric as {fmt.upper()}, as `fabric-designer render` draws it")
        view = self.menu.addMenu("Current &View as")
        for fmt, shortcut in (("svg", "Ctrl+Shift+E"), ("pdf", None), ("png", None)):
            writer = {"svg": write_svg, "pdf": write_pdf, "png": write_png}[fmt]
            add(f"view_{fmt}", f"{fmt.upper()}…", f".{fmt}", f"{fmt.upper()} files (*.{fmt})", writer, shortcut,
                f"What the canvas shows (the part of the fabric, or the network chosen) as {fmt.upper()}", "view",
                menu=view, current_view=True)
        self.menu.addSeparator()
        add("report", "&Report (PDF)…", ".pdf", "PDF files (*.pdf)", write_report, "Ctrl+Shift+R",
            "Overview, metrics, BOM and collectives; with the open comparison when there is one", "report",
            with_comparison=True)
        counterpart = self.menu.addMenu("Report with &Counterpart")
        counterpart.setToolTipsVisible(True)   # a greyed-out entry says why
        from designer.model.decisions.counterpart import COUNTERPART_TECHNOLOGIES

        for tech in COUNTERPART_TECHNOLOGIES:
            name = window.catalog.technologies[tech].name if tech in window.catalog.technologies else tech
            add(f"report_{tech}", f"{name}…", ".pdf", "PDF files (*.pdf)", write_report, None,
                f"The report with the same cluster rebuilt on {name}", "report", menu=counterpart, counterpart=tech)
        copy = QAction("Copy &Diagram", window)
        copy.setObjectName("copyDiagram")
        copy.setShortcut(QKeySequence("Ctrl+Shift+C"))
        copy.setStatusTip("Put the view on the clipboard as an image and as SVG, to paste into slides")
        copy.triggered.connect(self.copy_diagram)
        window.addAction(copy)
        edit_menu.addSeparator()
        edit_menu.addAction(copy)
        self.actions["copy_diagram"] = copy
        window.document.designChanged.connect(self._update_enabled)
        self._update_enabled()
        return self

    def add_file_export(self, key: str, text: str, suffix: str, file_filter: str,
                        write: Callable[[ExportRequest, Path], None], shortcut: str | None = None, tip: str = "",
                        folder_key: str | None = None, menu: QMenu | None = None, current_view: bool = False,
                        with_comparison: bool = False, counterpart: str | None = None) -> QAction:
        """An action that asks for a file name and runs `write(request, path)` on the worker."""
        action = QAction(text, self.window)
        action.setObjectName(f"export_{key}")
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        self._tips[key] = tip
        action.triggered.connect(lambda _=False: self.export_file(
            text.replace("&", "").rstrip("…"), suffix, file_filter, write, folder_key or key,
            current_view, with_comparison, counterpart))
        self.window.addAction(action)
        target_menu = menu or self.menu
        assert target_menu is not None   # install() makes the Export menu before any entry
        target_menu.addAction(action)
        self.actions[key] = action
        self._update_enabled()
        return action

    def _update_enabled(self, *_) -> None:
        design = self.window.document.design
        for key, action in self.actions.items():
            reason = self.counterpart_refusal(design, key.removeprefix("report_")) \
                if key.startswith("report_") and design is not None else None
            action.setEnabled(design is not None and reason is None)
            if key.startswith("report_"):
                # Greyed out with the reason `counterpart` gives, shown on hover.
                tip = reason or self._tips.get(key, "")
                action.setToolTip(tip)
                action.setStatusTip(tip)

    def counterpart_refusal(self, design: FabricDesign, technology: str) -> str | None:
        """Why the counterpart on `technology` cannot be built (the rule `counterpart` follows), or None."""
        from designer.model.decisions.counterpart import pick_server
        from designer.model.topology.sizing import resolve

        catalog = self.window.catalog
        if technology not in catalog.technologies:
            return f"the catalog has no technology '{technology}'"
        try:
            pick_server(design, resolve(design, catalog), catalog.technology(technology), catalog)
        except ValueError as exc:   # SizingError and UnknownPartError
            return f"No counterpart: {exc}"
        return None

    # --- asking ----------------------------------------------------------------------------------

    def ask_path(self, caption: str, suggestion: str, file_filter: str) -> str | None:
        """The file dialog (tests put a stand-in here)."""
        path, _ = QFileDialog.getSaveFileName(self.window, caption, suggestion, file_filter)
        return path or None

    def _settings(self) -> QSettings:
        return self.window.settings

    def folder(self, kind: str) -> str:
        """The folder last exported to for this kind of file, else the project's, else home."""
        remembered = self._settings().value(f"export/folder_{kind}", "")
        if remembered and Path(str(remembered)).is_dir():
            return str(remembered)
        path = self.window.document.path
        return str(path.parent) if path is not None else str(Path.home())

    def request(self, current_view: bool = False, with_comparison: bool = False,
                counterpart: str | None = None) -> ExportRequest | None:
        design = self.window.document.design
        if design is None:
            return None
        slide = None
        network = self.window.controller.network if current_view else "compute"
        if current_view and network != "compute":
            return ExportRequest(design, self.window.catalog, network=network)
        if current_view:
            from designer.ui.present.presentation_mode import view_slide

            slide = view_slide(self.window.view, design, len(design.slides) + 1)
            slide = None if slide.kind == "fabric" and slide.whole else slide
        other = self.compared_design(design) if with_comparison else None
        return ExportRequest(design, self.window.catalog, slide, other, counterpart)

    def compared_design(self, design: FabricDesign) -> FabricDesign | None:
        """The design the open Compare window sets beside this one (the first other one), if any."""
        launcher = getattr(self.window, "compare_launcher", None)
        compare = getattr(launcher, "window", None)
        if compare is None or not compare.isVisible():
            return None
        for entry in getattr(compare, "entries", None) or getattr(compare, "shown", None) or []:
            if entry.design is not design and entry.design != design:
                return entry.design
        return None

    # --- the commands -----------------------------------------------------------------------------

    def export_file(self, title: str, suffix: str, file_filter: str, write, folder_key: str,
                    current_view: bool = False, with_comparison: bool = False,
                    counterpart: str | None = None) -> bool:
        """Ask for a file, then write it off the UI thread. False when nothing was started."""
        if self.job is not None:
            self.window.statusBar().showMessage("An export is still running; wait for it or cancel it", 5000)
            return False
        request = self.request(current_view, with_comparison, counterpart)
        if request is None:
            return False
        if write in (write_bom, write_cabling):
            # Refused before the file name is asked: the metrics already computed say whether the
            # design has errors (the worker checks again when they are not in yet).
            errors = self.known_errors(request.design)
            if errors:
                self.window.dialogs.show_error(
                    "Cannot export", f"The {title.lower().replace(' (csv)', '')} of a design with errors "
                    "would list parts of a fabric that does not work as drawn.",
                    f"{errors[0].message}" + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
                    + ". Fix the design first; the Findings list every error.")
                return False
        stem = file_stem(request.design, self.window.document.path)
        kind = {".csv": f"-{folder_key}"}.get(suffix, "-report" if folder_key == "report" else "")
        suggestion = str(Path(self.folder(folder_key)) / f"{stem}{kind}{suffix}")
        chosen = self.ask_path(f"Export {title}", suggestion, file_filter)
        if not chosen:
            return False
        target = Path(chosen)
        if not target.suffix:
            target = target.with_suffix(suffix)
        self._settings().setValue(f"export/folder_{folder_key}", str(target.parent))
        if not target.parent.is_dir():
            self.window.dialogs.show_error("Cannot export", f"“{target.name}” could not be written.",
                                           f"The folder {target.parent} does not exist.")
            return False
        drawn: bytes | None = None      # the picture, where it is drawn here (`drawn_on_ui_thread`)
        if drawn_on_ui_thread(request) and write in (write_svg, write_pdf, write_png):
            try:
                drawn = network_bytes(request, write)
            except (ExportRefused, ValueError, RuntimeError) as exc:
                self.window.dialogs.show_error("Cannot export", f"{title} could not be written to {target.name}.",
                                               str(exc))
                self.finished.emit(str(target), str(exc))
                return False
        try:
            fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
            os.close(fd)
        except OSError as exc:
            self.window.dialogs.show_error("Cannot export", f"“{target.name}” could not be written.",
                                           exc.strerror or str(exc))
            return False
        job = ExportJob(title, target, lambda: write(request, Path(temp)) if drawn is None
                        else write_atomic(Path(temp), drawn))
        job.temp = Path(temp)
        self._start(job, f"Exporting {title} to {target.name}…")
        return True

    def known_errors(self, design: FabricDesign) -> tuple:
        """The errors of `design` from the window's newest metrics, () when they are not in yet."""
        latest = getattr(self.window.compute, "latest", None)
        if latest is None or latest.preview or latest.metrics is None or latest.design is not design:
            return ()
        return tuple(latest.metrics.errors)

    def copy_diagram(self) -> bool:
        """The view on the clipboard as PNG and SVG (made off the UI thread)."""
        if self.job is not None:
            return False
        request = self.request(current_view=True)
        if request is None:
            return False
        if drawn_on_ui_thread(request):
            try:
                drawn = clipboard_data(request)
            except (ExportRefused, ValueError, RuntimeError) as exc:
                self.window.dialogs.show_error("Cannot copy", "The diagram could not be copied.", str(exc))
                self.finished.emit("clipboard", str(exc))
                return False
            self._start(ExportJob("Diagram", None, lambda: drawn), "Copying the diagram…")
            return True
        self._start(ExportJob("Diagram", None, lambda: clipboard_data(request)), "Copying the diagram…")
        return True

    @property
    def busy(self) -> bool:
        return self.job is not None

    def _start(self, job: ExportJob, label: str) -> None:
        self.job = job
        progress = QProgressDialog(label, "Cancel", 0, 0, self.window)
        progress.setObjectName("exportProgress")
        progress.setWindowTitle("Export")
        progress.setWindowModality(Qt.WindowModality.NonModal)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.setValue(0)               # arms the timer that shows the dialog
        progress.setMinimumDuration(400)   # quick exports finish before it would show
        progress.canceled.connect(self.cancel)
        self.progress = progress
        self.window.statusBar().showMessage(label)

        def run() -> str | None:
            try:
                job.result = job.work()
            except ExportRefused as exc:
                return str(exc)
            except (OSError, ValueError, RuntimeError) as exc:
                return getattr(exc, "strerror", None) or str(exc)
            return None

        background().start(self, run, lambda error: self._on_done(job, error), name="export")

    def cancel(self) -> None:
        """Stop waiting: the window is free at once, and the file is not written."""
        job = self.job
        if job is None:
            return
        job.cancelled = True
        self._end()
        self.window.statusBar().showMessage(f"Export of {job.title} cancelled; nothing was written", 5000)
        self.finished.emit(str(job.target or "clipboard"), "cancelled")

    def _end(self) -> None:
        self.job = None
        if self.progress is not None:
            progress, self.progress = self.progress, None
            dismiss_progress(progress, self.cancel)

    def _on_done(self, job: ExportJob, error: str | None) -> None:
        if job.cancelled or error is not None:
            if job.temp is not None:
                job.temp.unlink(missing_ok=True)
            if job.cancelled:
                return
        if self.job is job:
            self._end()
        if error is not None:
            name = job.target.name if job.target else "the clipboard"
            self.window.statusBar().clearMessage()
            self.window.dialogs.show_error("Cannot export", f"{job.title} could not be written to {name}.", error)
            self.finished.emit(str(job.target or "clipboard"), error)
            return
        if job.target is None:
            png, svg = job.result
            data = QMimeData()
            # PySide6's stub types the format as bytes, but the binding refuses bytes and takes str.
            data.setImageData(QImage.fromData(png, "PNG"))  # type: ignore[arg-type]
            data.setData("image/png", QByteArray(png))
            data.setData(SVG_MIME, QByteArray(svg))
            QGuiApplication.clipboard().setMimeData(data)
            self.window.statusBar().showMessage("Diagram copied as an image and as SVG", 5000)
            self.finished.emit("clipboard", "")
            return
        assert job.temp is not None   # a file export is written to its temporary first
        try:
            move_into_place(job.temp, job.target)
        except OSError as exc:
            self.window.dialogs.show_error("Cannot export", f"“{job.target.name}” could not be written.", str(exc))
            self.finished.emit(str(job.target), str(exc))
            return
        self.window.statusBar().showMessage(f"Wrote {job.target}", 8000)
        self.finished.emit(str(job.target), "")
