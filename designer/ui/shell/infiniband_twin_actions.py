"""Tools > Run on the InfiniBand Stack…: the open design on ibsim, routed by OpenSM, in the window.

The run happens on a worker thread (ui/services/background.py) with a snapshot of the design;
the window stays live, a progress dialog says which step runs and its Cancel stops the run: the
twin's process helper then stops the simulator and OpenSM and removes the run's folder. The
result is shown as the command line prints it (`fabric-designer twin`). Closing the window
cancels a run under way.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QProgressDialog, QVBoxLayout

from designer.ui.message_box import dismiss_progress
from designer.ui.services.background import background


class TwinActions(QObject):
    """The Tools menu's twin action, its progress dialog and its result."""

    progressed = Signal(str)          # emitted by the worker, delivered on the UI thread
    finished = Signal(str, str)       # (outcome: "done", "cancelled" or "error", text)

    def __init__(self, window, menu) -> None:
        super().__init__(window)
        self.window = window
        self.action = menu.addAction("Run on the &InfiniBand Stack…")
        self.action.setObjectName("twinAction")
        self.action.setStatusTip("Simulate the fabric with ibsim, route it with OpenSM (ftree, the opensm export's "
                                 "files) and load ring, tree and all-to-all on the tables it programmed")
        self.action.triggered.connect(lambda _=False: self.run())
        self.cancel_event: threading.Event | None = None
        self.progress: QProgressDialog | None = None
        self.result_dialog: QDialog | None = None
        self.progressed.connect(self._progressed)

    @property
    def running(self) -> bool:
        return self.cancel_event is not None

    def run(self) -> None:
        from designer.twin.infiniband import missing_stack

        design = self.window.document.design
        if design is None:
            self.window.dialogs.show_error("Nothing to run", "Open or make a design first.")
            return
        if self.running:
            return
        missing = missing_stack(capture=False)
        if missing:
            self.window.dialogs.show_error("InfiniBand stack not installed",
                                           "The simulator and subnet manager are not installed.", missing)
            return
        catalog = self.window.catalog
        cancel = threading.Event()
        self.cancel_event = cancel
        emit = self.progressed.emit

        def work():
            from designer.twin.infiniband import run_infiniband_twin
            from designer.twin.processes import TwinCancelled, TwinError
            from designer.twin.report import twin_text

            try:
                return "done", twin_text(run_infiniband_twin(design, catalog, cancel=cancel, progress=emit))
            except TwinCancelled:
                return "cancelled", ""
            except (TwinError, ValueError, OSError) as exc:
                return "error", str(exc)

        self._show_progress()
        if self.window.compute.synchronous:
            self._done(work())
        else:
            background().start(self, work, self._done, name="twin")

    def cancel(self) -> None:
        """Stop the run under way: its processes stop and its folder goes; nothing is shown."""
        if self.cancel_event is not None:
            self.cancel_event.set()
        self._close_progress()

    def shutdown(self) -> None:
        self.cancel()
        if self.result_dialog is not None:
            self.result_dialog.close()

    # --- UI thread ----------------------------------------------------------------------------

    def _show_progress(self) -> None:
        progress = QProgressDialog("Starting…", "Cancel", 0, 0, self.window)
        progress.setObjectName("twinProgress")
        progress.setWindowTitle("Run on the InfiniBand Stack")
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

    def _done(self, outcome: tuple[str, str]) -> None:
        kind, text = outcome
        cancelled = self.cancel_event is None or self.cancel_event.is_set()
        self.cancel_event = None
        self._close_progress()
        if cancelled or kind == "cancelled":
            self.window.statusBar().showMessage("Run on the InfiniBand stack cancelled", 5000)
            self.finished.emit("cancelled", "")
            return
        if kind == "error":
            self.window.dialogs.show_error("InfiniBand stack", "The run on the InfiniBand stack failed.", text)
            self.finished.emit("error", text)
            return
        self._show_result(text)
        self.finished.emit("done", text)

    def _show_result(self, text: str) -> None:
        dialog = QDialog(self.window)
        dialog.setObjectName("twinResult")
        dialog.setWindowTitle("On the InfiniBand Stack")
        layout = QVBoxLayout(dialog)
        view = QPlainTextEdit(text, dialog)
        view.setObjectName("twinText")
        view.setReadOnly(True)
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        view.setFont(font)
        layout.addWidget(view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.close)
        layout.addWidget(buttons)
        dialog.resize(960, 460)
        dialog.show()
        self.result_dialog = dialog


def install(window, tools_menu) -> TwinActions:
    return TwinActions(window, tools_menu)
