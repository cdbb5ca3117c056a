"""File > Export entries for the tools around the fabric: Slurm, NetBox, containerlab, GraphML,
DOT, draw.io and UFM (the formats of designer.io.exporters).

The export is rendered and written off the UI thread (a 16K-GPU design takes a second or two);
the window only asks where to write, and whether to export a design with errors anyway.
Options (node-name pattern, view, containerlab profile) are kept in the settings.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QMenu,
    QMessageBox,
)

from designer.io.containerlab import PROFILES
from designer.io.export_source import (
    DEFAULT_NODE_PATTERN,
    ExportError,
    ExportOptions,
    ExportSource,
    NodeNamer,
    parse_view,
)
from designer.io.exporters import FORMATS, ExportFormat, check_exportable, default_path, write_export
from designer.ui.services.background import background


class ExportOptionsDialog(QDialog):
    """Node-name pattern, view and containerlab choices for the next exports."""

    def __init__(self, options: ExportOptions, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export options")
        self.setObjectName("exportOptionsDialog")
        form = QFormLayout(self)
        self.pattern = QLineEdit(options.node_pattern)
        self.pattern.setToolTip("{n}: server number from 1, {su}: SU from 1, {i}: place in the SU from 1")
        self.view = QLineEdit(options.view)
        self.view.setToolTip("fabric, su:N (one SU or pod with the switches above it) or plane:N")
        self.profile = QComboBox()
        for key, profile in PROFILES.items():
            self.profile.addItem(profile.label, key)
        self.profile.setCurrentIndex(max(0, self.profile.findData(options.clab_profile)))
        self.servers = QCheckBox("Add the servers as Linux nodes")
        self.servers.setChecked(options.clab_servers)
        self.ndt_kind = QComboBox()
        for key, label in (("all", "All links (upload as switch_to_host)"), ("switch-to-switch", "switch_to_switch"),
                           ("switch-to-host", "switch_to_host")):
            self.ndt_kind.addItem(label, key)
        self.ndt_kind.setCurrentIndex(max(0, self.ndt_kind.findData(options.ndt_kind)))
        self.hca_names = QLineEdit(",".join(options.hca_names))
        self.hca_names.setPlaceholderText("mlx5_0, mlx5_1, … (default)")
        self.hca_names.setToolTip("The servers' HCA device names in NIC order, as UFM sees them, "
                                  "for example mlx5_0,mlx5_1,mlx5_4,mlx5_5")
        form.addRow("Node names", self.pattern)
        form.addRow("View", self.view)
        form.addRow("containerlab switches", self.profile)
        form.addRow("", self.servers)
        form.addRow("UFM NDT links", self.ndt_kind)
        form.addRow("UFM HCA names", self.hca_names)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def options(self) -> ExportOptions:
        names = tuple(n.strip() for n in self.hca_names.text().split(",") if n.strip())
        return ExportOptions(node_pattern=self.pattern.text().strip() or DEFAULT_NODE_PATTERN,
                             view=self.view.text().strip() or "fabric",
                             clab_profile=self.profile.currentData(), clab_servers=self.servers.isChecked(),
                             ndt_kind=self.ndt_kind.currentData(), hca_names=names)


class EcosystemExport(QObject):
    """The menu entries and the export runs behind them; one per window."""

    finished = Signal(str)
    """An export was written; carries the status message."""

    def __init__(self, window, menu: QMenu):
        super().__init__(window)
        self.window = window
        self.menu = menu
        self.actions: dict[str, QAction] = {}
        self.busy = False
        self.options = self._load_options()
        menu.addSeparator()
        for fmt in FORMATS.values():
            action = menu.addAction(f"{fmt.label}…")
            action.setObjectName(f"export-{fmt.name}")
            action.setStatusTip(f"Export for {fmt.purpose}" if fmt.purpose else fmt.label)
            action.triggered.connect(lambda _=False, f=fmt: self.export(f))
            self.actions[fmt.name] = action
        menu.addSeparator()
        options = menu.addAction("Export Options…")
        options.setObjectName("export-options")
        options.setStatusTip("Node names, view and containerlab choices for these exports")
        options.triggered.connect(self.edit_options)
        window.document.designChanged.connect(self._update_enabled)
        self._update_enabled(window.document.design)

    @classmethod
    def install(cls, window, file_menu: QMenu) -> EcosystemExport:
        """Add the entries to File > Export, creating that submenu when the window has none yet."""
        menu: QMenu | None = None
        for action in file_menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu) and sub.title().replace("&", "") == "Export":
                menu = sub
        if menu is None:
            menu = file_menu.addMenu("&Export")
            menu.setObjectName("exportMenu")
        return cls(window, menu)

    # --- what the window may be asked; tests replace these ------------------------------------

    def ask_path(self, fmt: ExportFormat, suggestion: str) -> str | None:
        if fmt.folder:
            path = QFileDialog.getExistingDirectory(self.window, f"Export {fmt.label} into folder", suggestion)
        else:
            path, _ = QFileDialog.getSaveFileName(self.window, f"Export {fmt.label}", suggestion,
                                                  f"{fmt.label} (*{fmt.extension});;All files (*)")
        return path or None

    def ask_force(self, message: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Warning, "The design has errors", message,
                          QMessageBox.StandardButton.Cancel, self.window)
        export = box.addButton("Export Anyway", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is export

    def show_error(self, text: str, detail: str) -> None:
        self.window.dialogs.show_error("Cannot export", text, detail)

    # --- options ---------------------------------------------------------------------------------

    def _load_options(self) -> ExportOptions:
        s = self.window.settings
        return ExportOptions(node_pattern=str(s.value("export/node_pattern", DEFAULT_NODE_PATTERN)),
                             view=str(s.value("export/view", "fabric")),
                             clab_profile=str(s.value("export/clab_profile", "sonic")),
                             clab_servers=str(s.value("export/clab_servers", "false")).lower() == "true",
                             ndt_kind=str(s.value("export/ndt_kind", "all")),
                             hca_names=tuple(n for n in str(s.value("export/hca_names", "")).split(",") if n))

    def set_options(self, options: ExportOptions) -> None:
        parse_view(options.view)  # each raises ExportError, so a bad choice is refused at once
        NodeNamer(options.node_pattern, servers=2, su_size=1)
        self.options = options
        if self.window.persist:
            s = self.window.settings
            s.setValue("export/node_pattern", options.node_pattern)
            s.setValue("export/view", options.view)
            s.setValue("export/clab_profile", options.clab_profile)
            s.setValue("export/clab_servers", "true" if options.clab_servers else "false")
            s.setValue("export/ndt_kind", options.ndt_kind)
            s.setValue("export/hca_names", ",".join(options.hca_names))

    def edit_options(self) -> None:
        dialog = ExportOptionsDialog(self.options, self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        try:
            self.set_options(dialog.options())
        except ExportError as exc:
            self.show_error("The export options were not changed.", str(exc))

    # --- running an export ------------------------------------------------------------------------

    def _update_enabled(self, design) -> None:
        family = None
        if design is not None:
            try:
                family = self.window.catalog.technology(design.fabric.technology).family
            except KeyError:
                family = None  # an unknown technology: the export itself says so
        for name, action in self.actions.items():
            fmt = FORMATS[name]
            action.setEnabled(design is not None and (fmt.family is None or family in (None, fmt.family)))

    def export(self, fmt: ExportFormat, force: bool = False, path: str | None = None) -> None:
        design = self.window.document.design
        if design is None or self.busy:
            return
        if path is None:
            doc_path = self.window.document.path
            stem = str(doc_path.with_suffix("")) if doc_path else design.meta.name
            path = self.ask_path(fmt, str(Path(stem).parent) if fmt.folder else default_path(fmt, stem))
            if path is None:
                return
            if fmt.folder and Path(path).is_dir() and any(Path(path).iterdir()):
                # A folder that holds other files gets a folder of its own for the export.
                path = str(Path(path) / Path(default_path(fmt, stem)).name)
        self.busy = True
        self.window.statusBar().showMessage(f"Exporting {fmt.label}…")
        job = (fmt, design, self.options, path, force)
        if self.window.compute.synchronous:
            self._on_done(self._run(job))
        else:
            background().start(self, lambda: self._run(job), self._on_done, name="ecosystem-export")

    def _run(self, job) -> dict:
        """Off the UI thread: derive, check, render and write. Returns plain data only."""
        fmt, design, options, path, force = job
        outcome = {"fmt": fmt, "path": path, "force": force}
        try:
            src = ExportSource(design, self.window.catalog, options)
            check_exportable(fmt, src, force=True)  # the technology fits the format
            if src.errors and not force:
                more = f" (and {len(src.errors) - 1} more)" if len(src.errors) > 1 else ""
                outcome["needs_force"] = f"The design has errors: {src.errors[0].message}{more}."
                return outcome
            outcome["written"] = write_export(fmt, src, path, force)
            outcome["view"] = src.view_label
        except (ExportError, ValueError, OSError) as exc:
            outcome["error"] = getattr(exc, "strerror", None) or str(exc)
        except Exception as exc:  # a bug: one message, the window stays usable
            outcome["error"] = f"internal error: {type(exc).__name__}: {exc}"
        return outcome

    def _on_done(self, outcome: dict) -> None:
        self.busy = False
        fmt, path = outcome["fmt"], outcome["path"]
        self.window.statusBar().clearMessage()
        if "needs_force" in outcome:
            text = (f"{outcome['needs_force']} The {fmt.label} would describe a fabric that does not work "
                    "as drawn. Export it anyway?")
            if self.ask_force(text):
                self.export(fmt, force=True, path=path)
            return
        if "error" in outcome:
            self.show_error(f"“{Path(path).name}” was not written.", outcome["error"])
            return
        count = len(outcome["written"])
        message = (f"Exported {fmt.label} ({outcome['view']}) to {path}"
                   + (f": {count} files" if fmt.folder else ""))
        self.window.statusBar().showMessage(message, 8000)
        self.finished.emit(message)
