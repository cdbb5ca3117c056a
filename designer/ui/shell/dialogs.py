"""Every question and message box of the window, in one object.

The window asks through this object only, so a test (or a headless run) can answer with a
stand-in that has the same methods.
"""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QFileDialog, QMessageBox, QWidget

from designer.ui.message_box import PROJECT_FILTER, error_box
from designer.ui.shell.autosave import Recovery


class Dialogs:
    def __init__(self, parent: QWidget | None = None):
        self.parent = parent

    def ask_save_changes(self, name: str) -> str:
        """'save', 'discard' or 'cancel' for a document with unsaved changes."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                          f"Save the changes to “{name}” before closing it?",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.parent)
        box.setInformativeText("Your changes are lost if you don't save them.")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(QMessageBox.StandardButton(answer), "cancel")

    def ask_recover(self, recovery: Recovery) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, "Recover unsaved work", recovery.describe(), parent=self.parent)
        box.setInformativeText("Recover them? If you discard them, they are gone for good.")
        recover = box.addButton("Recover", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(recover)
        box.exec()
        return box.clickedButton() is recover

    def ask_open_elsewhere(self, name: str) -> str:
        """'read-only', 'open-anyway' or 'cancel' for a file another window has open."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Open in another window",
                          f"“{name}” is open in another Fabric Designer window.", parent=self.parent)
        box.setInformativeText("Open it read-only (Save then asks for a new name), or open it anyway: "
                               "whichever window saves last overwrites the other's work.")
        read_only = box.addButton("Open Read-Only", QMessageBox.ButtonRole.AcceptRole)
        anyway = box.addButton("Open Anyway", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(read_only)
        box.exec()
        answers: dict[QAbstractButton | None, str] = {read_only: "read-only", anyway: "open-anyway"}
        return answers.get(box.clickedButton(), "cancel")

    def ask_overwrite_changed(self, name: str) -> str:
        """'overwrite', 'save-as' or 'cancel' when the file changed on disk since it was read."""
        box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                          f"“{name}” was changed on disk after this window opened or saved it.",
                          parent=self.parent)
        box.setInformativeText("Saving overwrites that change. Save under another name to keep both.")
        save_as = box.addButton("Save As…", QMessageBox.ButtonRole.AcceptRole)
        overwrite = box.addButton("Overwrite", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(save_as)
        box.exec()
        answers: dict[QAbstractButton | None, str] = {save_as: "save-as", overwrite: "overwrite"}
        return answers.get(box.clickedButton(), "cancel")

    def show_error(self, title: str, text: str, detail: str = "") -> None:
        error_box(self.parent, title, text, detail, QMessageBox.Icon.Critical, "errorDialog")

    def open_path(self, directory: str = "") -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, "Open design", directory, PROJECT_FILTER)
        return path or None

    def save_path(self, suggestion: str = "") -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save design as", suggestion, PROJECT_FILTER)
        if path and "." not in path.rsplit("/", 1)[-1]:
            path += ".json"
        return path or None
