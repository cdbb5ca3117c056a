"""The designer window: menus, toolbar, status bar and the dockable panels around the canvas.

The window wires parts together and owns their lifetimes; it holds no design state. The
document holds the design, the controller turns gestures into commands, the compute
service derives results off the UI thread, and every view follows their signals.
"""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QGuiApplication, QIcon, QKeySequence, QPainter
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMenu, QStyle, QToolBar, QWidget

from designer.catalog import Catalog, default_catalog
from designer.model.intent.design import FabricDesign, replace_path
from designer.model.topology.edits import with_tier_count
from designer.ui.blocks import BLOCKS
from designer.ui.canvas.network_view import NetworkScene
from designer.ui.canvas.scene import FabricScene
from designer.ui.canvas.view import FabricView
from designer.ui.compare.launcher import CompareLauncher
from designer.ui.editing.controller import DesignController
from designer.ui.editing.document import Document
from designer.ui.editing.window import DesignerWindow
from designer.ui.panels.inspector import Inspector
from designer.ui.panels.metrics_panel import MetricsPanel
from designer.ui.panels.palette import PaletteWidget
from designer.ui.panels.plots_panel import PlotsPanel
from designer.ui.present.presentation_mode import PresentationMode
from designer.ui.services.compute import ComputeResult, ComputeService
from designer.ui.shell import audit_actions, infiniband_twin_actions, paths, theme_choice
from designer.ui.shell.autosave import AUTOSAVE_INTERVAL_MS, AutosaveManager, find_recoverable
from designer.ui.shell.dialogs import Dialogs
from designer.ui.shell.ecosystem_export import EcosystemExport
from designer.ui.shell.explore_actions import ExploreActions
from designer.ui.shell.export_actions import ExportActions
from designer.ui.shell.file_guard import FileGuard
from designer.ui.shell.files import FileController
from designer.ui.shell.lazy_dock import LazyDock
from designer.ui.shell.network_selector import install_network_canvas
from designer.ui.shell.routing_twin_actions import RoutingTwinActions
from designer.ui.shell.whatif_actions import FailMode, install_interruptions, install_phases
from designer.ui.theme import Theme
from designer.ui.wheel_guard import install_wheel_guard

CANVAS_HELP = """<b>Canvas</b><br>
Drag a template or building block from the palette onto the canvas.<br>
Drag the round handle at the end of a tier to grow or shrink it.<br>
Drag from a switch to a switch of another tier to add a link.<br>
Click to select, Ctrl+click to add, drag on the background to select an area.<br>
Wheel: zoom · middle button or Space+drag: pan · F: fit to window · Delete: remove."""


MONOCHROME = {QStyle.StandardPixmap.SP_ArrowBack, QStyle.StandardPixmap.SP_ArrowForward,
              QStyle.StandardPixmap.SP_ArrowUp, QStyle.StandardPixmap.SP_ArrowDown,
              QStyle.StandardPixmap.SP_TitleBarMaxButton}


def _icon(widget, theme_name: str, fallback: QStyle.StandardPixmap, color: QColor | None = None) -> QIcon:
    """The desktop theme's icon, else the style's. The style's one-colour glyphs (arrows, the
    fit frame) are drawn for light backgrounds: on a dark one they take the text colour."""
    icon = QIcon.fromTheme(theme_name)
    if not icon.isNull():
        return icon
    icon = widget.style().standardIcon(fallback)
    if color is None or fallback not in MONOCHROME:
        return icon
    tinted = QIcon()
    for size in (16, 22, 24, 32):
        pixmap = icon.pixmap(size, size)
        painter = QPainter(pixmap)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
        painter.fillRect(pixmap.rect(), color)
        painter.end()
        tinted.addPixmap(pixmap)
    return tinted


_SETTLING_PX = 40


class MainWindow(DesignerWindow):
    """One document per window."""

    network_scene: NetworkScene   # set by network_selector.install

    def __init__(self, catalog: Catalog | None = None, dialogs: Dialogs | None = None,
                 synchronous: bool = False, autosave_interval_ms: int = AUTOSAVE_INTERVAL_MS,
                 settings: QSettings | None = None, persist: bool = True, compute_backend: str = "process"):
        """`persist=False` neither reads nor writes the user's settings (screenshots).
        `compute_backend="thread"` computes off the UI thread without a child process (a test
        of another worker, which needs no process of its own started)."""
        super().__init__()
        install_wheel_guard()   # every window of the app: the wheel edits only a focused field
        self.persist = persist
        self.catalog = catalog or default_catalog()
        self.dialogs = dialogs or Dialogs(self)
        self.settings = settings or QSettings(str(paths.settings_file()), QSettings.Format.IniFormat)
        self.document = Document(parent=self)
        self.compute = ComputeService(self.catalog, synchronous=synchronous, backend=compute_backend, parent=self)
        self.controller = DesignController(self.document, self.catalog, self.compute, parent=self)
        self.file_guard = FileGuard(paths.data_dir() / "open-files", parent=self)
        self.files = FileController(self.document, self.dialogs, self.settings, parent=self, guard=self.file_guard)
        self.autosave = AutosaveManager(self.document, paths.autosave_dir(), autosave_interval_ms, parent=self)
        self.theme = Theme(self.palette())
        self._closed = False
        self.spawned_windows: list = []   # designer windows opened from this one (Compare > Open)

        self.scene = FabricScene(self.controller, self.theme, parent=self)
        self.view = FabricView(self.scene)
        self.view.setObjectName("canvas")
        self.setCentralWidget(self.view)
        self.palette_panel = PaletteWidget(self.catalog)
        self.inspector = Inspector(self.controller, self.catalog, synchronous=self.compute.synchronous)
        self.metrics = MetricsPanel()
        self.plots = PlotsPanel()
        # The inspector column runs the full height; the metrics run under the canvas and the
        # (short) palette, so that their cards have room at 1280 pixels wide.
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.docks = {
            "palette": self._dock("Palette", self.palette_panel, Qt.DockWidgetArea.LeftDockWidgetArea),
            "inspector": self._dock("Inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea),
            "plots": self._dock("Plots", self.plots, Qt.DockWidgetArea.RightDockWidgetArea),
            "metrics": self._dock("Metrics", self.metrics, Qt.DockWidgetArea.BottomDockWidgetArea),
        }
        self._layout_pending = True
        # The inspector's dock shrinks by a few pixels as the window settles (a status bar line,
        # a toolbar), with no resize of the window: its own resize fits the column again.
        self.docks["inspector"].installEventFilter(self)

        self._make_actions()
        self._make_menus()
        self._make_toolbar()
        install_network_canvas(self, self.toolbar)
        self._make_status_bar()
        self._wire()
        self._apply_theme()
        self._restore_settings()
        self._update_title()
        self._on_selection()
        self.palette_panel.set_technology(self.controller.default_technology)
        self.setAcceptDrops(False)

    @property
    def phases(self):
        """The Phases panel (made now if its dock was never shown)."""
        return self._lazy_panel("phases")

    @property
    def interruptions(self):
        """The Expected Interruptions panel (made now if its dock was never shown)."""
        return self._lazy_panel("interruptions")

    def _lazy_panel(self, name: str):
        dock = self.docks[name]
        assert isinstance(dock, LazyDock)
        return dock.content()

    # --- construction --------------------------------------------------------------------------

    def _dock(self, title: str, widget, area) -> QDockWidget:
        """A dock for `widget`, or, where `widget` is a function that makes it, a dock whose
        panel is made when the dock is first shown (`LazyDock.content`)."""
        if callable(widget) and not isinstance(widget, QWidget):
            dock: QDockWidget = LazyDock(title, self, widget)
        else:
            dock = QDockWidget(title, self)
            dock.setWidget(widget)
        dock.setObjectName(f"{title.lower()}Dock")
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text: str, slot, shortcut=None, tip: str = "", icon: QIcon | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        if icon is not None:
            action.setIcon(icon)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        S = QKeySequence.StandardKey
        SP = QStyle.StandardPixmap
        a = {}
        a["new"] = self._action("&New", self.files.new, S.New, "Start a new, empty design",
                                _icon(self, "document-new", SP.SP_FileIcon))
        a["open"] = self._action("&Open…", lambda: self.files.open(), S.Open, "Open a design file",
                                 _icon(self, "document-open", SP.SP_DialogOpenButton))
        a["save"] = self._action("&Save", self.files.save, S.Save, "Save the design",
                                 _icon(self, "document-save", SP.SP_DialogSaveButton))
        a["save_as"] = self._action("Save &As…", self.files.save_as, S.SaveAs, "Save the design under a new name")
        a["quit"] = self._action("&Quit", self.close, S.Quit, "Close the window")
        stack = self.document.undo_stack
        a["undo"] = stack.createUndoAction(self, "&Undo")
        a["undo"].setShortcut(QKeySequence(S.Undo))
        self._glyphs = {"undo": ("edit-undo", SP.SP_ArrowBack), "redo": ("edit-redo", SP.SP_ArrowForward),
                        "fit": ("zoom-fit-best", SP.SP_TitleBarMaxButton), "zoom_in": ("zoom-in", SP.SP_ArrowUp),
                        "zoom_out": ("zoom-out", SP.SP_ArrowDown)}
        a["undo"].setIcon(_icon(self, "edit-undo", SP.SP_ArrowBack))
        a["redo"] = stack.createRedoAction(self, "&Redo")
        # Ctrl+Y and Ctrl+Shift+Z both redo, whatever the platform's own key is.
        redo_keys = [QKeySequence(S.Redo), QKeySequence("Ctrl+Y"), QKeySequence("Ctrl+Shift+Z")]
        a["redo"].setShortcuts([k for i, k in enumerate(redo_keys) if k not in redo_keys[:i]])
        a["redo"].setIcon(_icon(self, "edit-redo", SP.SP_ArrowForward))
        for key in ("undo", "redo"):
            self.addAction(a[key])
        a["delete"] = self._action("&Delete", self.controller.delete_selection, S.Delete,
                                   "Remove the selection: a core tier, switches, manual links or the fabric",
                                   _icon(self, "edit-delete", SP.SP_TrashIcon))
        a["select_all"] = self._action("Select &All", self.controller.select_all, S.SelectAll, "Select every tier")
        a["fit"] = self._action("&Fit to Window", self.view.fit, "F", "Show the whole fabric",
                                _icon(self, "zoom-fit-best", SP.SP_TitleBarMaxButton))
        a["zoom_in"] = self._action("Zoom &In", lambda: self.view.zoom_by(1.4), S.ZoomIn, "Zoom in",
                                    _icon(self, "zoom-in", SP.SP_ArrowUp))
        a["zoom_out"] = self._action("Zoom &Out", lambda: self.view.zoom_by(1 / 1.4), S.ZoomOut, "Zoom out",
                                     _icon(self, "zoom-out", SP.SP_ArrowDown))
        a["zoom_reset"] = self._action("&Actual Size", lambda: self.view.set_zoom(1.0), "Ctrl+0",
                                       "One scene unit per pixel: every switch drawn on its own")
        a["legend"] = self._action("&Legend", self.view.set_legend_visible, None, "Show what the colours mean")
        a["legend"].setCheckable(True)
        a["legend"].setChecked(True)
        # A view setting of this window (off in each new one), not an edit: no undo step.
        a["each_link"] = self._action("Show &Each Link", self.scene.set_each_link, None,
                                      "Draw every link as its own line instead of bundles with counts")
        a["each_link"].setCheckable(True)
        a["auto_size"] = self._action("Size Tier &Automatically", self._auto_size_selected, None,
                                      "Let the sizing choose this tier's switch count")
        a["help_canvas"] = self._action("&Canvas Controls", self._show_canvas_help, S.HelpContents,
                                        "How to work on the canvas")
        a["user_guide"] = self._action("User &Guide", self._show_user_guide, None,
                                       "The user guide shipped with this version, read offline")
        a["about"] = self._action("&About Fabric Designer", self._show_about, None,
                                  "Version, catalog edition and licences")
        self.actions_ = a

    def _make_menus(self) -> None:
        a = self.actions_
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        for key in ("new", "open"):
            file_menu.addAction(a[key])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        file_menu.addSeparator()
        file_menu.addAction(a["save"])
        file_menu.addAction(a["save_as"])
        file_menu.addSeparator()
        edit = bar.addMenu("&Edit")
        edit.addAction(a["undo"])
        edit.addAction(a["redo"])
        edit.addSeparator()
        self._add_blocks_menu(edit, "A&dd to Canvas")
        edit.addAction(a["delete"])
        edit.addAction(a["select_all"])
        edit.addAction(a["auto_size"])
        # File > Export: the mission outputs first, then the formats of the tools around the fabric.
        self.exports = ExportActions.install(self, file_menu, edit)
        self.ecosystem_export = EcosystemExport.install(self, file_menu)
        view = bar.addMenu("&View")
        for key in ("fit", "zoom_in", "zoom_out", "zoom_reset"):
            view.addAction(a[key])
        view.addSeparator()
        view.addAction(a["legend"])
        view.addAction(a["each_link"])
        self.theme_choice = theme_choice.install(self, view)
        view.addSeparator()
        self.presentation = PresentationMode.install(self, view)
        view.addSeparator()
        panels = view.addMenu("&Panels")
        self.panels_menu = panels       # docks installed later add their toggles here too
        for dock in self.docks.values():
            panels.addAction(dock.toggleViewAction())
        self.compare_launcher = CompareLauncher(self, self.document, self.catalog, self.compute.synchronous)
        self.compare_launcher.openDesignRequested.connect(self.open_in_new_window)
        bar.addMenu(self.compare_launcher.menu)
        tools = bar.addMenu("&Tools")
        self.audit = audit_actions.install(self, file_menu, tools)
        self.explore = ExploreActions(self, tools)
        tools.addSeparator()
        self.twin = infiniband_twin_actions.install(self, tools)
        self.routing_twin = RoutingTwinActions(self, tools)
        file_menu.addSeparator()
        file_menu.addAction(a["quit"])
        self.fail_mode = FailMode.install(self, bar)
        install_phases(self, self.catalog, self.compute.synchronous)          # made when first shown
        install_interruptions(self, self.catalog, self.compute.synchronous)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(a["user_guide"])
        help_menu.addAction(a["help_canvas"])
        help_menu.addAction(a["about"])
        self._fill_recent(self.files.recent())

    def _add_blocks_menu(self, parent, title: str) -> None:
        """A submenu that drops each palette building block, as the Edit and context menus offer."""
        add = parent.addMenu(title)
        for block in BLOCKS:
            action = add.addAction(block.title)
            action.setStatusTip(block.detail)
            action.triggered.connect(lambda _=False, b=block.id: self.controller.drop_block(b))

    def _make_toolbar(self) -> None:
        a = self.actions_
        bar = QToolBar("Main toolbar", self)
        bar.setObjectName("mainToolbar")
        bar.setIconSize(QSize(20, 20))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for key in ("new", "open", "save", None, "undo", "redo", None, "delete", None, "fit", "zoom_in", "zoom_out"):
            if key is None:
                bar.addSeparator()
            elif key in ("undo", "redo"):
                bar.addAction(self._short_twin(a[key], "Undo" if key == "undo" else "Redo"))
            else:
                bar.addAction(a[key])
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.toolbar = bar

    def _short_twin(self, action: QAction, label: str) -> QAction:
        """A toolbar copy of the undo/redo action with a fixed label, so the toolbar does not
        jump as the step's name changes; the name shows in its tooltip and in the Edit menu."""
        twin = QAction(action.icon(), label, self)
        twin.triggered.connect(action.trigger)
        shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)

        def follow() -> None:
            if not (shiboken6.isValid(twin) and shiboken6.isValid(action)):
                return  # the window is going away
            twin.setEnabled(action.isEnabled())
            twin.setToolTip(f"{action.text().replace('&', '')} ({shortcut})")

        action.changed.connect(follow)
        follow()
        return twin

    def _make_status_bar(self) -> None:
        status = self.statusBar()
        self.compute_label = QLabel("")
        self.compute_label.setToolTip("Metrics are computed in the background after each change")
        self.zoom_label = QLabel("")
        self.zoom_label.setToolTip("Horizontal zoom of the canvas")
        status.addPermanentWidget(self.compute_label)
        status.addPermanentWidget(self.zoom_label)

    def _wire(self) -> None:
        doc = self.document
        doc.designChanged.connect(self._on_design)
        # Bound methods only (no lambdas): Qt drops the connections when the window goes away.
        doc.pathChanged.connect(self._update_title)
        doc.modifiedChanged.connect(self._update_title)
        doc.undo_stack.indexChanged.connect(self._update_title)
        self.compute.resultReady.connect(self._on_result)
        self.compute.busyChanged.connect(self._on_busy)
        self.controller.message.connect(self._show_message)
        self.controller.selection.changed.connect(self._on_selection)
        self.view.zoomChanged.connect(self._show_zoom)
        self.view.contextMenuRequested.connect(self._context_menu)
        self.palette_panel.tree.activatedBlock.connect(self.controller.drop_block)
        self.palette_panel.technologyChosen.connect(self._set_default_technology)
        self.metrics.findingActivated.connect(self._focus_finding)
        self.metrics.messageSizeChosen.connect(self._set_message_size)
        self.controller.networkChanged.connect(self.metrics.show_network)   # the cards follow the network
        self.inspector.editRefused.connect(self._show_refusal)
        self.files.recentChanged.connect(self._fill_recent)
        self.files.readOnlyChanged.connect(self._update_title)
        self.file_guard.changedOnDisk.connect(self._changed_on_disk)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._apply_theme)

    # --- startup and shutdown -------------------------------------------------------------------

    def open_in_new_window(self, design: FabricDesign, path: str | Path | None, modified: bool) -> MainWindow:
        """A designer window of its own for `design`, sharing this window's catalog and settings."""
        window = MainWindow(catalog=self.catalog, synchronous=self.compute.synchronous,
                            settings=self.settings, persist=False)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.document.load(design, Path(path) if path is not None else None, modified=modified)
        window.resize(self.size())
        window.show()
        window.startup(None, recover=False, autosave=self.autosave.timer.isActive())
        # Kept alive here: a top-level window without an owner would be collected.
        self.spawned_windows = [w for w in self.spawned_windows if shiboken6.isValid(w)] + [window]
        return window

    def startup(self, path: str | Path | None = None, recover: bool = True, autosave: bool = True) -> None:
        """Offer crash recovery, then open `path` (a bad file shows its message), then start autosaving."""
        recovered = False
        if recover:
            for recovery in find_recoverable(paths.autosave_dir()):
                if not recovered and self.dialogs.ask_recover(recovery):
                    self.document.load(recovery.design, recovery.source, modified=True)
                    recovered = True
                    self.autosave.adopt(recovery)  # kept until this work is saved or autosaved again
                elif not recovered:
                    recovery.discard()
        if not recovered and path is not None:
            self.files.open(path, ask=False)
        if autosave:
            self.autosave.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._layout_pending:
            self._layout_pending = False
            self._initial_dock_sizes()
        else:   # the user's restored layout, unless it would cut the inspector's form
            QTimer.singleShot(0, self, self._fit_right_column)

    def _initial_dock_sizes(self) -> None:
        """Dock sizes for a first start (later starts restore the user's own)."""
        layout = self.layout()   # a QMainWindow always has one
        if layout is not None:
            layout.activate()
        self.resizeDocks([self.docks["palette"], self.docks["inspector"]], [215, 380], Qt.Orientation.Horizontal)
        self._fit_right_column(first=True)
        self.resizeDocks([self.docks["metrics"]], [270], Qt.Orientation.Vertical)

    def _inspector_need(self) -> int:
        """The height the inspector's fabric form takes with no row cut off (dock title included)."""
        dock = self.docks["inspector"]
        title = dock.height() - dock.widget().height() if dock.widget().height() else 24
        page, width = self.inspector.fabric_page, self.inspector.viewport().width()
        # Rows wrap in a narrow inspector (a long server name puts its field under its label).
        height = max(page.sizeHint().height(), page.heightForWidth(width) if page.hasHeightForWidth() else 0)
        return height + max(title, 0) + 2

    def _fit_right_column(self, first: bool = False, settle: bool = True) -> None:
        """The inspector's form whole above the plots: on a first start, and whenever the window
        becomes too low for it (the plots, side by side when low, take what is left)."""
        inspector, plots = self.docks["inspector"], self.docks["plots"]
        if not (inspector.isVisible() and plots.isVisible()) or inspector.isFloating() or plots.isFloating():
            return
        column = inspector.height() + plots.height()
        # Tight rows only where the column cannot hold the form at the style's spacing. The margin:
        # while a window settles (status bar, toolbar) the column still shrinks by a line or two
        # after this runs, with no resize event to fit it again.
        self.inspector.set_compact(False)
        need = self._inspector_need()
        if column - need < 180 + _SETTLING_PX:
            self.inspector.set_compact(True)
            need = self._inspector_need()
        plot_height = min(400, max(180, column - need))
        cut = inspector.height() < need and plots.height() > 180
        cramped = plots.height() < plot_height and inspector.height() > need
        if first or cut or cramped:
            self.resizeDocks([inspector, plots], [column - plot_height, plot_height], Qt.Orientation.Vertical)
            # Tall plots stack their two charts and will not go below both; once lower they sit
            # side by side and could: one more pass once they have, so the form gets that room.
            if settle:
                QTimer.singleShot(0, self, lambda: self._fit_right_column(settle=False))

    def eventFilter(self, watched, event) -> bool:
        # Only the settling's line or two (a status line that wraps, a toolbar), and only while no
        # mouse button is down: a user who drags the dock smaller keeps the layout chosen.
        if watched is self.docks.get("inspector") and event.type() == QEvent.Type.Resize \
                and not self._layout_pending and 0 < event.oldSize().height() - event.size().height() <= 48 \
                and QGuiApplication.mouseButtons() == Qt.MouseButton.NoButton:
            QTimer.singleShot(0, self, self._fit_right_column)
        return super().eventFilter(watched, event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self._layout_pending and event.oldSize().height() != event.size().height():
            QTimer.singleShot(0, self, self._fit_right_column)   # after the docks took their new sizes

    def close_without_asking(self) -> None:
        """Close when told to from outside (SIGTERM): no question; the autosave keeps the work."""
        self._ask_on_close = False
        self.close()

    def closeEvent(self, event) -> None:
        if self._closed:
            event.accept()
            return
        self.view.cancel_gesture()
        if getattr(self, "_ask_on_close", True) and not self.files.maybe_save():
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop everything that runs on its own: the compute thread, timers, the autosave. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.view.cancel_gesture()
        self.compute.shutdown()
        self.compare_launcher.shutdown()
        self.explore.shutdown()
        self.twin.shutdown()
        self.routing_twin.shutdown()
        self.exports.cancel()
        self.autosave.stop()
        self.file_guard.release()
        self.statusBar().clearMessage()  # its timeout timer
        if self.persist:
            self.settings.setValue("geometry", self.saveGeometry())
            self.settings.setValue("window_state", self.saveState())
            self.settings.setValue("legend", self.actions_["legend"].isChecked())
            self.settings.sync()

    def _default_size(self) -> None:
        """1500x950, or the screen's free area where that is smaller (a 1280x800 laptop), so that
        no panel starts beyond the edge of the screen."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        free = screen.availableGeometry() if screen is not None else None
        if free is None or free.width() >= 1540 and free.height() >= 1000:
            self.resize(1500, 950)
            return
        frame = 40   # the window manager's title bar and borders
        self.resize(min(1500, free.width()), min(950, free.height() - frame))
        self.move(free.topLeft())

    def _restore_settings(self) -> None:
        if not self.persist:
            self.resize(1500, 950)
            return
        geometry = self.settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self._default_size()
        state = self.settings.value("window_state")
        if state is not None and self.restoreState(state):
            self._layout_pending = False
        legend = self.settings.value("legend", True)
        visible = legend not in (False, "false", "0")
        self.actions_["legend"].setChecked(visible)
        self.view.set_legend_visible(visible)

    # --- following the document and the results -----------------------------------------------------

    def _on_design(self, design: FabricDesign | None) -> None:
        self._update_title()
        if self.isVisible():   # another design may have more rows in the inspector's form
            QTimer.singleShot(0, self, self._fit_right_column)
        if design is not None:
            self.palette_panel.set_technology(design.fabric.technology, design.cluster.server)
        self._on_selection()

    def _show_message(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(text, 8000)
        else:
            self.statusBar().clearMessage()

    def _show_refusal(self, text: str) -> None:
        # The Inspector shows the reason whole, wrapped, with what would build the request; the
        # status bar cuts a long line, so it points there unless the Inspector is hidden.
        dock = self.docks.get("inspector")
        if dock is not None and dock.isVisible():
            self.statusBar().showMessage("Not applied: the Inspector says why, and what would build it", 8000)
        else:
            self.statusBar().showMessage(f"Not applied: {text}", 8000)

    def _show_zoom(self, sx: float) -> None:
        # A fitted large fabric is drawn well under 1%: keep two significant digits, never "0%".
        pct = sx * 100
        self.zoom_label.setText(f"Zoom {pct:.0f}%" if pct >= 10 else f"Zoom {pct:.2g}%")

    def _changed_on_disk(self, path) -> None:
        self.statusBar().showMessage(f"“{path.name}” was changed on disk by someone else; Save will ask "
                                     "before overwriting it")

    def _update_title(self, *_) -> None:
        design = self.document.design
        name = self.document.display_name()
        detail = f" — {design.meta.name}" if design is not None and self.document.path else ""
        read_only = " (read-only)" if self.files.read_only else ""
        self.setWindowTitle(f"{name}[*]{read_only}{detail} — Fabric Designer")
        self.setWindowModified(self.document.modified)
        has = design is not None
        for key in ("save", "save_as", "select_all", "fit"):
            self.actions_[key].setEnabled(has)

    def _on_result(self, result: ComputeResult) -> None:
        self.metrics.show_result(result)
        self.plots.show_result(result)
        findings = result.metrics.findings if result.metrics is not None else ()
        self.scene.set_findings(findings)
        if not result.preview:
            self.inspector.set_findings(findings)
        self.view.header.update()

    def _on_busy(self, busy: bool) -> None:
        latest = self.compute.latest
        if busy:
            self.compute_label.setText("Computing…")
        elif latest is not None and latest.metrics is not None:
            self.compute_label.setText(f"Metrics up to date ({latest.elapsed_ms:.0f} ms)")
        else:
            self.compute_label.setText("")

    def _on_selection(self) -> None:
        elements = self.controller.selection.elements
        self.actions_["delete"].setEnabled(bool(elements))
        tiers = [t for t in self.controller.selection.tiers() if t != "servers"]
        self.actions_["auto_size"].setEnabled(len(tiers) == 1)

    # --- actions -----------------------------------------------------------------------------------

    def _fill_recent(self, items: list[str]) -> None:
        self.recent_menu.clear()
        for k, item in enumerate(items):
            action = self.recent_menu.addAction(f"&{k + 1} {Path(item).name}")
            action.setToolTip(item)
            action.setStatusTip(item)
            action.triggered.connect(lambda _=False, p=item: self.files.open(p))
        self.recent_menu.setEnabled(bool(items))

    def _set_default_technology(self, tech_id: str) -> None:
        self.controller.default_technology = tech_id

    def _set_message_size(self, size: int) -> None:
        design = self.document.design
        if design is None or design.performance.message_size_bytes == size:
            return
        text = self.metrics.size_box.currentText()
        self.controller.apply_edit(replace_path(design, "performance.message_size_bytes", size),
                                   "performance.message_size_bytes", f"Estimate all-reduce at {text}")

    def _focus_finding(self, element: str) -> None:
        self.controller.focus(element)
        self.view.setFocus()

    def _auto_size_selected(self) -> None:
        tiers = [t for t in self.controller.selection.tiers() if t != "servers"]
        layout = self.controller.display.layout
        design = self.document.design
        if len(tiers) != 1 or layout is None or design is None:
            return
        tier = tiers[0]
        new = with_tier_count(design, layout.plan, layout.resolved, tier, None)
        self.controller.apply_edit(new, f"fabric.{tier}.count", f"Size the {tier} tier automatically")

    def _context_menu(self, element, global_pos) -> None:
        a = self.actions_
        menu = QMenu(self)
        if element is not None:
            title = menu.addAction(self.controller.describe(element).split("\n")[0])
            title.setEnabled(False)
            menu.addSeparator()
            inspect = menu.addAction("Inspect")

            def show_inspector() -> None:
                self.docks["inspector"].show()
                self.docks["inspector"].raise_()
            inspect.triggered.connect(show_inspector)
            menu.addAction(a["delete"])
            menu.addAction(a["auto_size"])
            self.fail_mode.add_to_context_menu(menu)
            menu.addSeparator()
        self._add_blocks_menu(menu, "Add to Canvas")
        menu.addAction(a["select_all"])
        menu.addSeparator()
        for key in ("fit", "zoom_in", "zoom_out"):
            menu.addAction(a[key])
        menu.exec(global_pos)

    def _show_canvas_help(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.information(self, "Canvas controls", CANVAS_HELP)

    def _show_user_guide(self) -> None:
        from designer.ui.shell.user_guide import open_user_guide

        open_user_guide(self, self.dialogs.show_error)

    def _show_about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        from designer.ui.shell.about import about_html

        QMessageBox.about(self, "About Fabric Designer", about_html(self.catalog))

    # --- light and dark ----------------------------------------------------------------------------

    def changeEvent(self, event) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._apply_theme()
        super().changeEvent(event)

    def _apply_theme(self, *_) -> None:
        if not hasattr(self, "network_scene"):   # still being built: the end of __init__ applies it
            return
        self.theme = Theme(QApplication.palette())
        for key, (name, fallback) in getattr(self, "_glyphs", {}).items():
            if key in self.actions_:
                self.actions_[key].setIcon(_icon(self, name, fallback, self.theme.text if self.theme.dark else None))
        self.scene.set_theme(self.theme)
        self.view.set_theme(self.theme)
        self.network_scene.set_theme(self.theme)
        self.metrics.apply_theme(self.theme)
        self.plots.apply_theme(self.theme)
