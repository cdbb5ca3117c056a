"""The questions and messages of the Compare window, in one object.

The window asks through this object only, so a test can answer with a stand-in that has
the same methods.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from designer.ui.message_box import PROJECT_FILTER, error_box

CSV_FILTER = "CSV files (*.csv);;All files (*)"


def _with_suffix(path: str, suffix: str) -> str:
    return path if "." in path.rsplit("/", 1)[-1] else path + suffix


class CompareDialogs:
    def __init__(self, parent: QWidget | None = None):
        self.parent = parent

    def open_designs(self, directory: str = "") -> list[str]:
        """Project files to add (any number; the window checks the count)."""
        paths, _ = QFileDialog.getOpenFileNames(self.parent, "Add designs to the comparison", directory,
                                                PROJECT_FILTER)
        return list(paths)

    def save_design_path(self, suggestion: str = "") -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save design as", suggestion, PROJECT_FILTER)
        return _with_suffix(path, ".json") if path else None

    def save_csv_path(self, suggestion: str = "") -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Export comparison as CSV", suggestion, CSV_FILTER)
        return _with_suffix(path, ".csv") if path else None

    def show_error(self, title: str, text: str, detail: str = "") -> None:
        error_box(self.parent, title, text, detail, QMessageBox.Icon.Warning, "compareErrorDialog")
