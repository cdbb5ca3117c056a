"""The window's message box and project-file filter, shared by the designer and Compare windows."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

PROJECT_FILTER = "Fabric Designer projects (*.json);;All files (*)"


def error_box(parent, title: str, text: str, detail: str, icon: QMessageBox.Icon, name: str) -> None:
    """A modal message with an OK button; tests find it by its object name."""
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    if detail:
        box.setInformativeText(detail)
    box.setObjectName(name)
    box.exec()
