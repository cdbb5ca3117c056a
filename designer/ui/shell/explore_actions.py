"""Tools > Explore Design Space: the sweep window of a designer window, and what its picks do.

A picked design opens in a designer window of its own, or joins Compare beside the open
design; the Explore window asks for both through signals answered here.
"""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from designer.ui.explore.explore_window import ExploreWindow


class ExploreActions:
    """Owns the Explore window of one designer window (made on first use, closed with it)."""

    def __init__(self, window, menu):
        self.main = window
        self.window: ExploreWindow | None = None
        self.action = menu.addAction("&Explore Design Space…")
        self.action.setObjectName("exploreAction")
        self.action.setShortcut(QKeySequence("Ctrl+Alt+E"))
        self.action.setStatusTip("Sweep technologies, oversubscription, planes and tiers for this cluster, "
                                 "and pick from the Pareto front")
        self.action.triggered.connect(lambda _=False: self.show())

    def show(self) -> ExploreWindow:
        if self.window is None:
            self.window = ExploreWindow(self.main.catalog, synchronous=self.main.compute.synchronous)
            self.window.openDesignRequested.connect(lambda d: self.main.open_in_new_window(d, None, True))
            self.window.compareRequested.connect(
                lambda d: self.main.compare_launcher.compare_with_design(d, "picked in Explore Design Space"))
            self.window.start_design(self.main.document.design)
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
        return self.window

    def shutdown(self) -> None:
        if self.window is not None:
            self.window.shutdown()
            self.window.close()
