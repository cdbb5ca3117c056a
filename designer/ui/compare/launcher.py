"""The designer window's Compare menu, and the Compare window it opens.

Add Counterpart (one action) rebuilds the open design on another fabric technology and
shows both side by side, or on every Ethernet fabric buyers choose at once (as `compare
--counterpart ethernet`), built off the UI thread; InfiniBand, Static Routing from OpenSM prices
adaptive routing off on the tables OpenSM programs (opensm_routing.py); Cheapest Topology the same cluster
on the topology that costs least, as `compare --counterpart cheapest-topology`; Compare With Designs
asks for one to four project files to set beside the open design. Each designer window has at
most one Compare window, closed with it.

The launcher knows the window's document, catalog and compute mode, not the window itself:
opening a compared design in a designer window of its own is asked for with
`openDesignRequested`, which the window answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu, QWidget

from designer.catalog import UnknownPartError
from designer.io.project import ProjectFileError, load_design
from designer.model.decisions.counterpart import (
    COUNTERPART_TECHNOLOGIES,
    ETHERNET_CHOICES,
    IB_STATIC,
    static_routing_twin,
)
from designer.model.decisions.topology_counterpart import CHEAPEST_TOPOLOGY, cheapest_topology
from designer.model.topology.sizing import SizingError
from designer.ui.compare.compare_dialogs import CompareDialogs
from designer.ui.compare.compare_window import MAX_DESIGNS, CompareWindow, Entry
from designer.ui.compare.opensm_routing import OpenSMStaticRouting
from designer.ui.services.background import background
from designer.ui.services.counterparts import counterpart as built_counterpart


class CompareLauncher(QObject):
    """Owned by a designer window: builds its Compare menu and its Compare window.

    `document` is the window's open document, `catalog` its hardware catalog and
    `synchronous` whether it computes on the UI thread (tests); `parent` owns the menu.
    """

    openDesignRequested = Signal(object, object, bool)
    """(design, path or None, modified): open this design in a designer window of its own."""

    def __init__(self, parent, document, catalog, synchronous: bool = False, dialogs=None):
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.synchronous = synchronous
        self.dialogs = dialogs or CompareDialogs(parent)
        self.window: CompareWindow | None = None
        self.menu = QMenu("&Compare", parent)
        self.menu.setObjectName("compareMenu")
        self.counterpart_menu = self.menu.addMenu("Add &Counterpart")
        self.counterpart_menu.setToolTipsVisible(True)
        self.counterpart_actions = {}
        for tech_id in COUNTERPART_TECHNOLOGIES:
            tech = catalog.technologies.get(tech_id)
            if tech is None:
                continue
            action = self.counterpart_menu.addAction(tech.name)
            action.setObjectName(f"counterpart-{tech_id}")
            tip = f"Rebuild this cluster on {tech.name} and compare the two side by side"
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.triggered.connect(lambda _=False, t=tech_id: self.add_counterpart(t))
            self.counterpart_actions[tech_id] = action
        self.counterpart_menu.addSeparator()
        names = ", ".join(catalog.technologies[t].name for t in ETHERNET_CHOICES if t in catalog.technologies)
        self.ethernet_action = self.counterpart_menu.addAction("Every &Ethernet Fabric")
        self.ethernet_action.setObjectName("counterpart-ethernet")
        tip = f"Rebuild this InfiniBand cluster on each Ethernet fabric buyers choose ({names}) and compare all"
        self.ethernet_action.setToolTip(tip)
        self.ethernet_action.setStatusTip(tip)
        self.ethernet_action.triggered.connect(lambda _=False: self.add_counterparts(ETHERNET_CHOICES))
        self.static_action = self.counterpart_menu.addAction("InfiniBand, &Static Routing")
        self.static_action.setObjectName("counterpart-ib-static")
        tip = ("This InfiniBand cluster with adaptive routing off (the subnet manager's static routes): "
               "do you need adaptive routing, in dollars?")
        self.static_action.setToolTip(tip)
        self.static_action.setStatusTip(tip)
        self.static_action.triggered.connect(lambda _=False: self.add_counterparts((IB_STATIC,)))
        self.opensm_action = self.counterpart_menu.addAction("InfiniBand, Static Routing from &OpenSM…")
        self.opensm_action.setObjectName("counterpart-ib-static-opensm")
        tip = ("The same, priced on the tables OpenSM programs: the design runs on ibsim and OpenSM (as compare "
               "--static-routes opensm), with progress and Cancel")
        self.opensm_action.setToolTip(tip)
        self.opensm_action.setStatusTip(tip)
        self.opensm_action.triggered.connect(lambda _=False: self.add_static_from_opensm())
        self.counterpart_menu.addSeparator()
        self.topology_action = self.counterpart_menu.addAction("Cheapest &Topology")
        self.topology_action.setObjectName("counterpart-cheapest-topology")
        tip = ("The same cluster on the topology that costs least (as compare --counterpart cheapest-topology): "
               "every template, the design's own in its other tier counts, each switch's port modes and uplink "
               "speeds, priced from the whole bill; rail-only's all-to-all pays its NVLink hop in the verdict")
        self.topology_action.setToolTip(tip)
        self.topology_action.setStatusTip(tip)
        self.topology_action.triggered.connect(lambda _=False: self.add_counterparts((CHEAPEST_TOPOLOGY,)))
        self.opensm = OpenSMStaticRouting(self, self.dialogs, synchronous)
        self.opensm.finished.connect(self.update_actions)
        self._building = 0     # the newest counterpart request; an older one's result is dropped
        self.compare_files_action = self.menu.addAction("Compare &With Designs…")
        self.compare_files_action.setStatusTip("Set one to four project files beside this design")
        self.compare_files_action.triggered.connect(lambda _=False: self.compare_with_files())
        self.menu.addSeparator()
        self.show_action = self.menu.addAction("Show Compare &Window")
        self.show_action.setStatusTip("Bring the Compare window to the front")
        self.show_action.triggered.connect(lambda _=False: self.show_window())
        self.menu.aboutToShow.connect(self.update_actions)
        document.designChanged.connect(self.update_actions)
        self.update_actions()

    def update_actions(self, *_) -> None:
        design = self.document.design
        for tech_id, action in self.counterpart_actions.items():
            action.setEnabled(design is not None and design.fabric.technology != tech_id)
        family = self.catalog.technologies.get(design.fabric.technology) if design is not None else None
        self.ethernet_action.setEnabled(family is not None and family.family != "ethernet")
        self.static_action.setEnabled(family is not None and family.family == "infiniband")
        self.opensm_action.setEnabled(family is not None and family.family == "infiniband" and not self.opensm.running)
        self.topology_action.setEnabled(design is not None)
        self.show_action.setEnabled(self.window is not None and self.window.comparison is not None)

    # --- the commands ----------------------------------------------------------------------------

    def _current(self) -> Entry | None:
        design = self.document.design
        if design is None:
            return None
        doc = self.document
        return Entry(design, doc.path, unsaved=doc.modified or doc.path is None)

    def _compare_window(self) -> CompareWindow:
        if self.window is None:
            self.window = CompareWindow(self.catalog, self.dialogs,
                                        synchronous=self.synchronous, opener=self.open_in_designer)
        return self.window

    def add_counterpart(self, tech_id: str) -> bool:
        """Build the counterpart of the open design on `tech_id` and compare [design, counterpart]."""
        return self.add_counterparts((tech_id,))

    def add_counterparts(self, tech_ids: Sequence[str]) -> bool:
        """Build the open design's counterparts on `tech_ids` and compare them all with it.

        Sizing a counterpart prices every rail layout, seconds at 16K GPUs, so it runs off the UI
        thread (inline when the window computes synchronously); a newer request drops this one's
        result. Returns False when nothing could be started or, inline, nothing was shown."""
        current = self._current()
        if current is None:
            return False
        self._building += 1
        request, design, catalog = self._building, current.design, self.catalog

        def work() -> tuple[list, tuple[str, str] | None]:
            built = []
            for tech_id in tech_ids:
                try:
                    built.append(static_routing_twin(design, catalog) if tech_id == IB_STATIC
                                 else cheapest_topology(design, catalog) if tech_id == CHEAPEST_TOPOLOGY
                                 else built_counterpart(design, tech_id, catalog))
                except (SizingError, UnknownPartError, ValueError) as exc:
                    return built, (tech_id, str(exc))
            return built, None

        def done(outcome: tuple[list, tuple[str, str] | None]) -> bool:
            if request != self._building:
                return False            # a newer request superseded this one
            built, failed = outcome
            if failed is not None:
                tech = self.catalog.technologies.get(failed[0])
                where = ("another topology" if failed[0] == CHEAPEST_TOPOLOGY
                         else tech.name if tech else failed[0])
                self.dialogs.show_error("Cannot build counterpart",
                                        f"“{current.name}” cannot be rebuilt on {where}.", failed[1])
                return False
            entries = [Entry(c.design, None, c.notes, current.name, unsaved=True) for c in built]
            return self._open([current, *entries][:MAX_DESIGNS])

        if self.synchronous:
            return done(work())

        def deliver(outcome: tuple[list, tuple[str, str] | None]) -> None:
            done(outcome)

        background().start(self, work, deliver, name="counterparts")
        return True

    def add_static_from_opensm(self) -> bool:
        """Compare the open design with its static-routing counterpart priced on OpenSM's tables;
        the run goes off the UI thread behind a progress dialog with Cancel. False when nothing
        was started (no design, the stack missing, a run under way)."""
        current = self._current()
        if current is None:
            return False
        self._building += 1
        request = self._building

        def built(counterpart) -> None:
            if request == self._building:    # a newer counterpart request supersedes this one
                entry = Entry(counterpart.design, None, counterpart.notes, current.name, unsaved=True)
                self._open([current, entry])

        parent = self.parent()
        self.opensm.dialogs = self.dialogs
        started = self.opensm.start(current.design, self.catalog, built,
                                    parent if isinstance(parent, QWidget) else None)
        self.update_actions()
        return started

    def compare_with_files(self, paths: Sequence[str | Path] | None = None) -> bool:
        """Compare the open design (if any) with 1 to 4 project files (asked for unless given)."""
        current = self._current()
        if paths is None:
            start = str(self.document.path.parent) if self.document.path else ""
            paths = self.dialogs.open_designs(start)
            if not paths:
                return False
        room = MAX_DESIGNS - (1 if current else 0)
        if len(paths) > room:
            self.dialogs.show_error("Too many designs", f"A comparison holds at most {MAX_DESIGNS} designs.",
                                    f"Pick at most {room} file{'s' if room > 1 else ''}"
                                    + (" to set beside the open design." if current else "."))
            return False
        entries = [current] if current else []
        for path in map(Path, paths):
            try:
                entries.append(Entry(load_design(path), path))
            except ProjectFileError as exc:
                self.dialogs.show_error("Cannot add design", f"“{path.name}” could not be opened.", str(exc))
                return False
        if len(entries) < 2:
            self.dialogs.show_error("Nothing to compare", "A comparison needs two designs.",
                                    "Open a design first, or pick at least two files.")
            return False
        return self._open(entries)

    def compare_with_design(self, design, note: str = "") -> bool:
        """Add `design` (made elsewhere, unsaved) to the comparison on screen, or compare it with the open design."""
        entry = Entry(design, None, (note,) if note else (), unsaved=True)
        shown = list(self.window.entries) if self.window is not None and self.window.isVisible() else []
        if 2 <= len(shown) < MAX_DESIGNS:
            return self._open(shown + [entry])   # joins the comparison on screen
        current = self._current()
        if current is None:
            self.dialogs.show_error("Nothing to compare", "A comparison needs two designs.",
                                    "Open a design first, then add this one to Compare.")
            return False
        return self._open([current, entry])

    def _open(self, entries: list[Entry]) -> bool:
        window = self._compare_window()
        if not window.set_entries(entries):
            return False
        self.show_window()
        return True

    def show_window(self) -> None:
        if self.window is None:
            return
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()

    def open_in_designer(self, design, path, modified: bool) -> None:
        """Ask for a designer window of its own for `design` (a counterpart opens as unsaved work)."""
        self.openDesignRequested.emit(design, path, modified)

    def shutdown(self) -> None:
        """Close the Compare window and stop its worker and any OpenSM run. Idempotent."""
        self.opensm.cancel()
        if self.window is not None:
            self.window.shutdown()
            self.window.close()
