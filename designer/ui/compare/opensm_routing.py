"""Compare > Add Counterpart > InfiniBand, Static Routing from OpenSM…: the static-routing
counterpart priced on the tables OpenSM programs, as `compare --counterpart ib-static
--static-routes opensm` prices it (designer/twin/static_routing.py, the same function).

The run is made as Tools > Run on the InfiniBand Stack… makes it (services/cancellable_run.py):
on a worker thread over a snapshot of the design, a progress dialog naming the step under way,
and a Cancel that stops the simulator and OpenSM and removes the run's folder. Where ibsim or
OpenSM is missing, one message names the Debian packages to install.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from designer.catalog import Catalog
from designer.model.decisions.counterpart import Counterpart
from designer.model.intent.design import FabricDesign
from designer.ui.services.cancellable_run import CancellableRun


class OpenSMStaticRouting(QObject):
    """One run at a time; `finished` says how it ended, `on_built` receives the counterpart."""

    finished = Signal(str, str)       # (outcome: "done", "cancelled" or "error", message)

    def __init__(self, parent: QObject, dialogs, synchronous: bool = False) -> None:
        super().__init__(parent)
        self.dialogs = dialogs
        self.synchronous = synchronous
        self.run = CancellableRun(self, "Static Routing from OpenSM", "opensmStaticProgress")
        self.progressed = self.run.progressed

    @property
    def running(self) -> bool:
        return self.run.running

    @property
    def progress(self):
        return self.run.progress

    def cancel(self) -> None:
        self.run.cancel()

    def start(self, design: FabricDesign, catalog: Catalog, on_built: Callable[[Counterpart], object],
              owner: QWidget | None = None) -> bool:
        """Run the design on the InfiniBand stack and hand its static-routing counterpart to
        `on_built` (on the UI thread). False when nothing was started."""
        from designer.twin.infiniband import missing_stack

        if self.running:
            return False
        missing = missing_stack(capture=False)
        if missing:
            self.dialogs.show_error("InfiniBand stack not installed",
                                    "Static routing from OpenSM runs the design on ibsim and OpenSM, which are "
                                    "not installed here.", missing)
            return False

        def work(cancel, progress) -> tuple[str, Counterpart | None, str]:
            from designer.twin.processes import TwinCancelled, TwinError
            from designer.twin.static_routing import opensm_static_routing

            try:
                return "done", opensm_static_routing(design, catalog, cancel=cancel, progress=progress), ""
            except TwinCancelled:
                return "cancelled", None, ""
            except (TwinError, ValueError, OSError) as exc:
                return "error", None, str(exc)

        def done(outcome: tuple[str, Counterpart | None, str], cancelled: bool) -> None:
            kind, built, message = outcome
            if cancelled or kind == "cancelled":
                self.finished.emit("cancelled", "")
            elif kind == "error" or built is None:
                self.dialogs.show_error("Static routing from OpenSM",
                                        f"“{design.meta.name}” could not be routed by OpenSM.", message)
                self.finished.emit("error", message)
            else:
                on_built(built)
                self.finished.emit("done", "")

        return self.run.start(work, done, owner, self.synchronous)
