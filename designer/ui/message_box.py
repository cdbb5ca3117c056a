"""The window's message box and project-file filter, shared by the designer and Compare windows."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QProgressDialog

PROJECT_FILTER = "Fabric Designer projects (*.json);;All files (*)"


def error_box(parent, title: str, text: str, detail: str, icon: QMessageBox.Icon, name: str) -> None:
    """A modal message with an OK button; tests find it by its object name."""
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    if detail:
        box.setInformativeText(detail)
    box.setObjectName(name)
    box.exec()


def dismiss_progress(progress: QProgressDialog, on_cancel: Callable[[], object]) -> None:
    """Take a finished run's progress dialog down: its Cancel no longer reaches `on_cancel`,
    and the dialog is closed and deleted (reset first, so closing it does not emit canceled)."""
    progress.canceled.disconnect(on_cancel)
    progress.reset()
    progress.close()
    progress.deleteLater()
