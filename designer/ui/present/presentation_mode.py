"""Presentation mode: the design full screen, slide by slide, for a review meeting.

Entering saves the window's state (geometry, window state, docks and toolbars, menu and
status bars) and hides the editing chrome; leaving puts every piece back as it was. The
slides are the design's saved ones, or sensible defaults: the whole fabric, the first SUs,
the planes, and the comparison when one is open. While presenting, every key belongs to the
slide (no editing shortcut can change the design); Esc or F5 leaves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QToolBar, QWidget

from designer.catalog import UnknownPartError
from designer.model.decisions.counterpart import COUNTERPART_TECHNOLOGIES
from designer.model.intent.design import FabricDesign
from designer.model.intent.slides import Slide, default_slides
from designer.model.topology.sizing import SizingError
from designer.ui.editing.commands import AddSlideCommand
from designer.ui.editing.window import DesignerWindow
from designer.ui.export.diagram import DiagramSource
from designer.ui.export.facts import Facts, today
from designer.ui.present.slide_widget import SlideContent, SlideWidget
from designer.ui.services.counterparts import counterpart

PROBLEMS = (SizingError, UnknownPartError, ValueError, OSError)


@dataclass(frozen=True)
class SavedWindow:
    """What presentation mode changes in the window, as it was before."""

    geometry: QByteArray
    rect: QRect
    state: QByteArray
    window_state: Qt.WindowState
    menu_bar: bool
    status_bar: bool
    focus: QWidget | None


def other_family_technology(design: FabricDesign, catalog) -> str:
    """The counterpart technology on the other family closest in server and then switch link speed."""
    tech = catalog.technology(design.fabric.technology)
    family = "ethernet" if tech.family == "infiniband" else "infiniband"
    choices = [catalog.technology(t) for t in COUNTERPART_TECHNOLOGIES if catalog.technology(t).family == family]
    return min(choices, key=lambda c: (abs(c.link_gbps - tech.link_gbps), abs(c.uplink_gbps - tech.uplink_gbps))).id


def view_slide(view, design: FabricDesign, number: int) -> Slide:
    """The canvas's visible part of the fabric as a slide (fractions of the fabric's width)."""
    layout = view.scene().layout
    if layout is None:
        return Slide(f"View {number}", "fabric")
    x0 = min(layout.rows[t].x0 for t in layout.tiers)
    x1 = max(layout.rows[t].x1 for t in layout.tiers)
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    width = max(x1 - x0, 1e-9)
    left = min(max((seen.left() - x0) / width, 0.0), 1.0)
    right = min(max((seen.right() - x0) / width, 0.0), 1.0)
    if left <= 0.01 and right >= 0.99 or right - left < 0.005:
        return Slide(f"View {number}", "fabric")
    return Slide(f"View {number}", "fabric", left=round(left, 4), right=round(right, 4))


def comparison_in_window(window) -> list | None:
    """The designs of the window's Compare window while it is open (the Compare menu's), else None."""
    launcher = getattr(window, "compare_launcher", None)
    compare = getattr(launcher, "window", None)
    if compare is None or not compare.isVisible():
        return None
    designs = [entry.design for entry in getattr(compare, "entries", ())]
    return designs if len(designs) >= 2 else None


class PresentationMode(QObject):
    """Takes a MainWindow in and out of presentation mode."""

    started = Signal()
    """Presentation mode began: the window is full screen and shows the first slide."""

    finished = Signal()
    """Presentation mode ended: the window is back as it was."""

    slideChanged = Signal(int)
    """Another slide is shown; carries its index in `slides`."""

    def __init__(self, window: DesignerWindow, comparison_provider: Callable[[], list | None] | None = None):
        super().__init__(window)
        self.window = window
        # Returns the designs of the comparison open in the window (the first is this one), or None.
        self.comparison_provider = comparison_provider
        self.widget: SlideWidget | None = None
        self.actions: dict[str, QAction] = {}   # set by install()
        self.slides: tuple[Slide, ...] = ()
        self.index = 0
        self._saved: SavedWindow | None = None
        self._facts: Facts | None = None
        self._source: DiagramSource | None = None
        self._compared: dict[int, SlideContent] = {}

    @property
    def active(self) -> bool:
        return self.widget is not None

    # --- the window's actions ----------------------------------------------------------------

    @classmethod
    def install(cls, window: DesignerWindow, menu) -> PresentationMode:
        """Create the controller and put 'Present' (F5) and 'Add View as Slide' in `menu`."""
        mode = cls(window, lambda: comparison_in_window(window))
        present = QAction("&Present", window)
        present.setShortcut(QKeySequence(Qt.Key.Key_F5))
        present.setStatusTip("Full screen, slide by slide: arrow keys step, Esc leaves")
        present.triggered.connect(mode.toggle)
        add = QAction("Add View as &Slide", window)
        add.setStatusTip("Save the part of the fabric in view as a presentation slide")
        add.triggered.connect(mode.add_current_view)
        add_su = QAction("Add S&U or Pod as Slide…", window)
        add_su.setStatusTip("Save any SU or pod of the fabric as a presentation slide")
        add_su.triggered.connect(mode.ask_su_slide)
        for action in (present, add, add_su):
            window.addAction(action)
            menu.addAction(action)
        mode.actions = {"present": present, "add_slide": add, "add_su_slide": add_su}
        return mode

    def ask_su_slide(self) -> None:
        """Ask which SU (or pod) and add it as a slide; the fabric's own numbering, 1-based."""
        from PySide6.QtWidgets import QInputDialog

        design = self.window.document.design
        if design is None:
            return
        try:
            source = DiagramSource(design, self.window.catalog)
        except Exception as exc:  # noqa: BLE001 - a design that cannot be sized has no SUs to show
            self.window.statusBar().showMessage(f"No SU slide: {exc}", 8000)
            return
        if source.columns < 2:
            self.window.statusBar().showMessage("This fabric is not divided into SUs or pods: add the view "
                                                "as a slide instead", 8000)
            return
        noun = source.column_noun
        number, ok = QInputDialog.getInt(self.window, "Add Slide", f"{noun} to show (1 to {source.columns}):",
                                         1, 1, source.columns)
        if ok:
            self.add_su_slide(number, source.columns, noun)

    def add_su_slide(self, number: int, columns: int, noun: str = "SU") -> None:
        """Save SU (or pod) `number` as a slide of the design (one undoable step)."""
        document = self.window.document
        design = document.design
        if design is None or not 1 <= number <= columns:
            return
        slide = Slide(f"{noun} {number} of {columns}", "su", su=number)
        new = dataclasses.replace(design, slides=design.slides + (slide,))
        document.push(AddSlideCommand(document, new, f"Add slide '{slide.title}'"))

    def add_current_view(self) -> None:
        """Save the canvas's view as a slide of the design (one undoable step)."""
        document = self.window.document
        design = document.design
        if design is None:
            return
        slide = view_slide(self.window.view, design, len(design.slides) + 1)
        new = dataclasses.replace(design, slides=design.slides + (slide,))
        document.push(AddSlideCommand(document, new, f"Add slide '{slide.title}'"))

    # --- in and out ----------------------------------------------------------------------------

    def toggle(self) -> None:
        if self.active:
            self.stop()
        else:
            self.start()

    def start(self, index: int = 0) -> bool:
        """Enter presentation mode at slide `index`; False (and a status message) without a design."""
        if self.active:
            return True
        w = self.window
        design = w.document.design
        if design is None:
            w.statusBar().showMessage("Nothing to present: open or create a design first", 6000)
            return False
        try:
            self._prepare(design)
        except PROBLEMS as exc:
            w.statusBar().showMessage(f"Cannot present this design: {exc}", 8000)
            return False
        view = getattr(w, "view", None)
        if view is not None and hasattr(view, "cancel_gesture"):
            view.cancel_gesture()
        # A layout change still pending (a dock just hidden) would be saved half done.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        layout = w.layout()   # a QMainWindow always has one
        if layout is not None:
            layout.activate()
        self._saved = SavedWindow(w.saveGeometry(), w.geometry(), w.saveState(), w.windowState(),
                                  w.menuBar().isVisible(),
                                  w.statusBar().isVisible(), w.focusWidget())
        for dock in w.findChildren(QDockWidget):
            dock.hide()
        for bar in w.findChildren(QToolBar):
            bar.hide()
        w.menuBar().hide()
        w.statusBar().hide()
        self.widget = SlideWidget(w)
        self.widget.date = today()
        self.widget.catalog = w.catalog
        self.widget.nextRequested.connect(self.next)
        self.widget.previousRequested.connect(self.previous)
        self.widget.leaveRequested.connect(self.stop)
        w.installEventFilter(self)
        w.compute.resultReady.connect(self._on_result)
        w.showFullScreen()
        self.widget.setGeometry(w.rect())
        self.widget.show()
        self.widget.raise_()
        self.widget.setFocus(Qt.FocusReason.OtherFocusReason)
        self.go(index)
        self.started.emit()
        return True

    def stop(self) -> None:
        """Leave presentation mode and put the window back exactly as it was."""
        if self.widget is None:   # not presenting
            return
        w = self.window
        w.removeEventFilter(self)
        w.compute.resultReady.disconnect(self._on_result)
        widget, self.widget = self.widget, None
        widget.hide()
        widget.deleteLater()
        saved = self._saved
        self._saved = None
        assert saved is not None   # set by start()
        w.setWindowState(saved.window_state)
        if not saved.window_state & (Qt.WindowState.WindowFullScreen | Qt.WindowState.WindowMaximized):
            w.restoreGeometry(saved.geometry)
            if w.geometry() != saved.rect:  # restoreGeometry fits the window to the screen; it was as it was
                w.setGeometry(saved.rect)
        w.restoreState(saved.state)
        w.menuBar().setVisible(saved.menu_bar)
        w.statusBar().setVisible(saved.status_bar)
        if saved.focus is not None:
            saved.focus.setFocus(Qt.FocusReason.OtherFocusReason)
        self._compared.clear()
        self.finished.emit()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and self.widget is not None:
            if event.type() == QEvent.Type.Resize:
                self.widget.setGeometry(self.window.rect())
            elif event.type() == QEvent.Type.Close:
                self.stop()  # the window saves its geometry on close: the real one, not full screen
        return False

    # --- slides ----------------------------------------------------------------------------------

    def _prepare(self, design: FabricDesign) -> None:
        catalog = self.window.catalog
        latest = self.window.compute.latest
        same = latest is not None and latest.design == design
        bom = latest.bom if latest is not None and same and latest.bom is not None else False
        allreduce = latest.allreduce if latest is not None and same and latest.allreduce is not None else True
        self._facts = Facts.gather(design, catalog, bom=bom, allreduce=allreduce)
        self._source = DiagramSource(design, catalog, self._facts.derived)
        if design.slides:
            self.slides = design.slides
        else:
            src = self._source
            self.slides = default_slides(src.plan.template, src.plan.tiers, src.columns, src.plan.sus, src.planes,
                                         comparison=bool(self._open_comparison()))
        self._compared.clear()

    def _open_comparison(self) -> list | None:
        if self.comparison_provider is None:
            return None
        designs = self.comparison_provider()
        return designs if designs and len(designs) >= 2 else None

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def go(self, index: int) -> None:
        if self.widget is None or not self.slides:
            return
        index = max(0, min(index, len(self.slides) - 1))
        changed = index != self.index
        self.index = index
        self.widget.show_slide(self._content(index), index, len(self.slides))
        if changed:
            self.slideChanged.emit(index)

    def current(self) -> Slide | None:
        return self.slides[self.index] if self.active and self.slides else None

    def _content(self, index: int) -> SlideContent:
        slide = self.slides[index]
        if slide.kind != "comparison":
            problem = self._check(slide)
            if problem:
                return SlideContent(slide, self._facts, self._source, error=problem)
            return SlideContent(slide, self._facts, self._source)
        if index in self._compared:
            return self._compared[index]
        pending = SlideContent(slide, self._facts, self._source, pending=True)
        self._compared[index] = pending
        # Comparing builds two BOMs (seconds for a large fabric): show the slide first.
        QTimer.singleShot(0, lambda: self._compare(index))
        return pending

    def _check(self, slide: Slide) -> str:
        src = self._source
        assert src is not None   # set by _prepare before any slide is shown
        if slide.kind == "su" and slide.su and slide.su > src.columns:
            return f"{src.column_noun} {slide.su} does not exist in this fabric"
        if slide.kind == "plane" and slide.plane and slide.plane > src.planes:
            return f"plane {slide.plane} does not exist in this fabric"
        return ""

    def _other_design(self, slide: Slide) -> FabricDesign:
        assert self._facts is not None   # set by _prepare before any slide is shown
        design = self._facts.design
        catalog = self.window.catalog
        target = slide.compare_with
        if target and target in catalog.technologies:
            return counterpart(design, target, catalog).design
        if target:
            from designer.io.project import load_design

            path = Path(target)
            if not path.is_absolute() and self.window.document.path is not None:
                path = self.window.document.path.parent / path
            return load_design(path)
        opened = self._open_comparison()
        if opened:
            return next((d for d in opened if d != design), opened[1])
        return counterpart(design, other_family_technology(design, catalog), catalog).design

    def _compare(self, index: int) -> None:
        if not self.active or index >= len(self.slides):
            return
        slide = self.slides[index]
        try:
            from designer.model.decisions.comparison import compare

            other = self._other_design(slide)
            assert self._facts is not None   # set by _prepare before any slide is shown
            comparison = compare([self._facts.design, other], catalog=self.window.catalog)
            other_facts = Facts.gather(other, self.window.catalog)
            content = SlideContent(slide, self._facts, self._source, other_facts, comparison)
        except PROBLEMS as exc:
            content = SlideContent(slide, self._facts, self._source, error=f"Cannot show the comparison: {exc}")
        self._compared[index] = content
        if self.widget is not None and self.index == index:
            self.widget.show_slide(content, index, len(self.slides))

    def _on_result(self, result) -> None:
        """A BOM or estimate computed after the presentation began: show it in the key figures."""
        facts = self._facts
        if facts is None or result.design != facts.design:
            return
        if result.bom is not None and facts.bom is None:
            facts.bom = result.bom
        if result.allreduce is not None and facts.allreduce is None:
            facts.allreduce = result.allreduce
        if self.widget is not None:
            self.widget.update()
