"""Tools > Run on the InfiniBand Stack…: the open design on ibsim, routed by OpenSM, in the window.

The run happens on a worker thread (ui/services/cancellable_run.py) with a snapshot of the design;
the window stays live, a progress dialog says which step runs and its Cancel stops the run: the
twin's process helper then stops the simulator and OpenSM and removes the run's folder. The
result is shown as the command line prints it (`fabric-designer twin`). Closing the window
cancels a run under way.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout

from designer.ui.services.cancellable_run import CancellableRun


class TwinActions(QObject):
    """The Tools menu's twin action, its progress dialog and its result."""

    finished = Signal(str, str)       # (outcome: "done", "cancelled" or "error", text)

    def __init__(self, window, menu) -> None:
        super().__init__(window)
        self.window = window
        self.action = menu.addAction("Run on the &InfiniBand Stack…")
        self.action.setObjectName("twinAction")
        self.action.setStatusTip("Simulate the fabric with ibsim, route it with OpenSM (ftree, the opensm export's "
                                 "files) and load ring, tree and all-to-all on the tables it programmed")
        self.action.triggered.connect(lambda _=False: self.run())
        self.runner = CancellableRun(self, "Run on the InfiniBand Stack", "twinProgress")
        self.progressed = self.runner.progressed
        self.result_dialog: QDialog | None = None

    @property
    def running(self) -> bool:
        return self.runner.running

    @property
    def progress(self):
        return self.runner.progress

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

        def work(cancel, progress):
            from designer.twin.infiniband import run_infiniband_twin
            from designer.twin.processes import TwinCancelled, TwinError
            from designer.twin.report import twin_text

            try:
                return "done", twin_text(run_infiniband_twin(design, catalog, cancel=cancel, progress=progress))
            except TwinCancelled:
                return "cancelled", ""
            except (TwinError, ValueError, OSError) as exc:
                return "error", str(exc)

        self.runner.start(work, self._done, self.window, self.window.compute.synchronous)

    def cancel(self) -> None:
        """Stop the run under way: its processes stop and its folder goes; nothing is shown."""
        self.runner.cancel()

    def shutdown(self) -> None:
        self.cancel()
        if self.result_dialog is not None:
            self.result_dialog.close()

    # --- UI thread ----------------------------------------------------------------------------

    def _done(self, outcome: tuple[str, str], cancelled: bool) -> None:
        kind, text = outcome
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
