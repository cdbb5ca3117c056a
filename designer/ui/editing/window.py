"""What the main window holds, for the rooms that act on it without importing the shell.

The main window (designer.ui.shell.main_window) is built in the room above presentation mode
and the dialogs that take it over; they reach its document, canvas view, catalog and compute
service through this base class, so the shell stays above them and the types stay checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow

if TYPE_CHECKING:
    from designer.catalog import Catalog
    from designer.ui.canvas.view import FabricView
    from designer.ui.editing.document import Document
    from designer.ui.services.compute import ComputeService


class DesignerWindow(QMainWindow):
    """A main window with a design open: set by the subclass's constructor."""

    document: Document
    view: FabricView
    catalog: Catalog
    compute: ComputeService
