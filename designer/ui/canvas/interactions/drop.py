"""Dropping a palette item on the canvas (drag and drop with the palette's MIME type)."""

from __future__ import annotations

from designer.ui.blocks import BLOCK_BY_ID, MIME_TYPE


class DropInteraction:
    """Accepts palette drags, shows what the drop will do, and hands the drop to the controller."""

    def __init__(self, view):
        self.view = view
        self.block_id: str | None = None

    @staticmethod
    def block_of(event) -> str | None:
        mime = event.mimeData()
        if mime is None or not mime.hasFormat(MIME_TYPE):
            return None
        block_id = bytes(mime.data(MIME_TYPE)).decode("utf-8", "replace")
        return block_id if block_id in BLOCK_BY_ID else None

    def enter(self, event) -> bool:
        self.block_id = self.block_of(event)
        if self.block_id is None:
            return False
        event.acceptProposedAction()
        kind = BLOCK_BY_ID[self.block_id]
        verb = "create" if self.view.controller.design is None or self.block_id.startswith("template:") else "add"
        self.view.set_drop_hint(f"Drop to {verb}: {kind.title}")
        return True

    def move(self, event) -> bool:
        if self.block_id is None:
            return False
        event.acceptProposedAction()
        return True

    def leave(self) -> None:
        self.block_id = None
        self.view.set_drop_hint(None)

    def drop(self, event) -> bool:
        block_id = self.block_of(event)
        self.leave()
        if block_id is None:
            return False
        event.acceptProposedAction()
        return self.view.controller.drop_block(block_id)
