"""Compare > Add Counterpart > InfiniBand, Static Routing from OpenSM…: the static-routing
counterpart priced on the tables OpenSM programs, as `compare --counterpart ib-static
--static-routes opensm` prices it (designer/twin/static_routing.py, the same function).

The run is the one Tools > Run on the InfiniBand Stack… makes: on a worker thread
(ui/services/background.py) over a snapshot of the design, a progress dialog naming the step
under way, and a Cancel that stops the simulator and OpenSM and removes the run's folder. Where
ibsim or OpenSM is missing, one message names the Debian packages to install.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from designer.catalog import Catalog
from designer.model.decisions.counterpart import Counterpart
from designer.model.intent.design import FabricDesign
from designer.ui.message_box import dismiss_progress
from designer.ui.services.background import background


class OpenSMStaticRouting(QObject):
    """One run at a time; `finished` says how it ended, `on_built` receives the counterpart."""

    progressed = Signal(str)          # emitted by the worker, delivered on the UI thread
    finished = Signal(str, str)       # (outcome: "done", "cancelled" or "error", message)

    def __init__(self, parent: QObject, dialogs, synchronous: bool = False) -> None:
        super().__init__(parent)
        self.dialogs = dialogs
        self.synchronous = synchronous
        self.cancel_event: threading.Event | None = None
        self.progress: QProgressDialog | None = None
        self.progressed.connect(self._progressed)

    @property
    def running(self) -> bool:
        return self.cancel_event is not None

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
        cancel = threading.Event()
        self.cancel_event = cancel
        emit = self.progressed.emit

        def work() -> tuple[str, Counterpart | None, str]:
            from designer.twin.processes import TwinCancelled, TwinError
            from designer.twin.static_routing import opensm_static_routing

            try:
                return "done", opensm_static_routing(design, catalog, cancel=cancel, progress=emit), ""
            except TwinCancelled:
                return "cancelled", None, ""
            except (TwinError, ValueError, OSError) as exc:
                return "error", None, str(exc)

        def done(outcome: tuple[str, Counterpart | None, str]) -> None:
            kind, built, message = outcome
            cancelled = self.cancel_event is None or self.cancel_event.is_set()
            self.cancel_event = None
            self._close_progress()
            if cancelled or kind == "cancelled":
                self.finished.emit("cancelled", "")
                return
            if kind == "error" or built is None:
                self.dialogs.show_error("Static routing from OpenSM",
                                        f"“{design.meta.name}” could not be routed by OpenSM.", message)
                self.finished.emit("error", message)
                return
            on_built(built)
            self.finished.emit("done", "")

        self._show_progress(owner)
        if self.synchronous:
            done(work())
        else:
            background().start(self, work, done, name="opensm-static-routing")
        return True

    def cancel(self) -> None:
        """Stop the run under way: its processes stop and its folder goes; nothing is added."""
        if self.cancel_event is not None:
            self.cancel_event.set()
        self._close_progress()

    def _show_progress(self, owner: QWidget | None) -> None:
        progress = QProgressDialog("Starting…", "Cancel", 0, 0, owner)
        progress.setObjectName("opensmStaticProgress")
        progress.setWindowTitle("Static Routing from OpenSM")
        progress.setWindowModality(Qt.WindowModality.NonModal)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.setMinimumDuration(0)
        progress.canceled.connect(self.cancel)
        progress.show()
        self.progress = progress

    def _progressed(self, message: str) -> None:
        if self.progress is not None:
            self.progress.setLabelText(message[:1].upper() + message[1:] + "…")

    def _close_progress(self) -> None:
        if self.progress is not None:
            progress, self.progress = self.progress, None
            dismiss_progress(progress, self.cancel)
