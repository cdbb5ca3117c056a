"""The capture to read, and the GUID name map that names its hosts: what File > Import Fabric
Capture... and Tools > Audit Against... ask before they read.

A site's map (`H-0002c90300080e84 host1` lines) names the HCAs a capture lists with the vendor's
default description. Left empty, the map beside the capture (same name, `.map`) is read when there
is one, as the command line does without `--names`; a map chosen here is the command line's
`--names MAP`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from designer.io.guid_names import beside

CAPTURE_FILTER = "Fabric captures (*.topo *.out *.txt *.json *.csv);;All files (*)"
MAP_FILTER = "GUID name maps (*.map *.txt *.names);;All files (*)"


class CaptureDialog(QDialog):
    """A capture file and, optionally, its GUID name map; `chosen()` gives (capture, map or None)."""

    def __init__(self, parent: QWidget | None, title: str, capture: str = "", names: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("captureDialog")
        self.setWindowTitle(title)
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.capture = QLineEdit(capture)
        self.capture.setObjectName("capturePath")
        self.capture.setPlaceholderText("ibnetdiscover output or an LLDP capture")
        form.addRow("Capture", self._with_browse(self.capture, self._browse_capture))
        self.names = QLineEdit(names)
        self.names.setObjectName("namesMapPath")
        self.names.setToolTip("A GUID name map names the HCAs that carry the vendor's default description "
                              "('H-0002c90300080e84 host1' lines): the command line's --names MAP")
        form.addRow("Names map", self._with_browse(self.names, self._browse_names, clear=True))
        self.map_note = QLabel()
        self.map_note.setObjectName("namesMapNote")
        self.map_note.setWordWrap(True)
        self.map_note.setEnabled(False)
        form.addRow("", self.map_note)
        layout.addLayout(form)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.capture.textChanged.connect(self._update)
        self.names.textChanged.connect(self._update)
        self._update()

    @staticmethod
    def _with_browse(edit: QLineEdit, browse, clear: bool = False) -> QWidget:
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(edit, 1)
        button = QPushButton("Browse…")
        button.clicked.connect(browse)
        box.addWidget(button)
        if clear:
            none = QPushButton("Clear")
            none.setToolTip("Use the map beside the capture, when there is one")
            none.clicked.connect(edit.clear)
            box.addWidget(none)
        return row

    def _browse_capture(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Fabric Capture", self.capture.text(), CAPTURE_FILTER)
        if path:
            self.capture.setText(path)

    def _browse_names(self) -> None:
        start = self.names.text() or (str(Path(self.capture.text()).parent) if self.capture.text() else "")
        path, _ = QFileDialog.getOpenFileName(self, "GUID Name Map", start, MAP_FILTER)
        if path:
            self.names.setText(path)

    def chosen(self) -> tuple[str, str | None]:
        """(capture path, names map path or None for the map beside the capture, if any)."""
        names = self.names.text().strip()
        return self.capture.text().strip(), names or None

    def _update(self, *_: object) -> None:
        capture, names = self.chosen()
        problem = ""
        if not capture:
            problem = "Choose a capture file."
        elif not Path(capture).is_file():
            problem = f"No file {Path(capture).name} there."
        elif names is not None and not Path(names).is_file():
            problem = f"No names map {Path(names).name} there."
        if problem:
            self.map_note.setText(problem)
        elif names is not None:
            self.map_note.setText(f"HCAs with default descriptions are named from {Path(names).name}.")
        else:
            found = beside(capture)
            self.map_note.setText(f"Names from {found.name}, beside the capture." if found is not None else
                                  "No map beside the capture: HCAs keep their descriptions.")
        self.buttons.button(QDialogButtonBox.StandardButton.Open).setEnabled(not problem)
