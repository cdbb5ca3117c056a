"""Undoable changes to the document. Each holds the design before and after.

Designs are immutable, so a snapshot is a reference and undo is exact: it puts back the
very object that was there. Commands act on the document only; views follow its signal.
"""

from __future__ import annotations

import time

from PySide6.QtGui import QUndoCommand

from designer.model.intent.design import FabricDesign
from designer.ui.editing.document import Document

_CURRENT = object()  # "the document's design when the command is made"

# Spin-box arrow clicks on one field within this many seconds are one undo step.
FIELD_MERGE_SECONDS = 1.0
# The clock the merge window is read from; tests replace it, so that no test depends on how
# fast a loaded machine runs the steps.
clock = time.monotonic


class DesignCommand(QUndoCommand):
    """Replace the document's design by `new`; undo puts `old` back."""

    def __init__(self, document: Document, new: FabricDesign | None, text: str,
                 old=_CURRENT):
        super().__init__(text)
        self.document = document
        self.old = document.design if old is _CURRENT else old
        self.new = new

    def redo(self) -> None:
        self.document.set_design(self.new)

    def undo(self) -> None:
        self.document.set_design(self.old)


class DropBlockCommand(DesignCommand):
    """A palette item dropped on the canvas: a new fabric, or a tier or servers added."""


class ResizeTierCommand(DesignCommand):
    """A tier grown or shrunk by dragging its handle; pushed once, when the drag ends."""

    def __init__(self, document: Document, new: FabricDesign, tier: str, count: int,
                 old=_CURRENT):
        noun = "servers" if tier == "servers" else f"{tier} tier"
        super().__init__(document, new, f"Resize {noun} to {count}", old)
        self.tier = tier
        self.count = count


class ConnectCommand(DesignCommand):
    """Extra links between two devices, as a manual edit of the design."""


class DeleteCommand(DesignCommand):
    """Selected elements taken out: a tier, devices, manual links or the whole fabric."""


class EditFieldCommand(DesignCommand):
    """One field changed in the inspector.

    Quick repeated changes of the same field (spin-box arrows) merge into one step; a merge
    that ends where it started makes the command obsolete, so no empty step is left behind.
    """

    ID = 1001

    def __init__(self, document: Document, new: FabricDesign, field: str, text: str,
                 old=_CURRENT):
        super().__init__(document, new, text, old)
        self.field = field
        self.stamp = clock()

    def id(self) -> int:
        return self.ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, EditFieldCommand) or other.field != self.field:
            return False
        if other.stamp - self.stamp > FIELD_MERGE_SECONDS or other.old is not self.new:
            return False
        self.new = other.new
        self.stamp = other.stamp
        self.setText(other.text())
        if self.new == self.old:
            self.setObsolete(True)
        return True


class AddSlideCommand(DesignCommand):
    """A view of the fabric saved with the design as a presentation slide."""
