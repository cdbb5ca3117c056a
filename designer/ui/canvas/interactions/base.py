"""The shape of a canvas gesture."""

from __future__ import annotations


class Interaction:
    """One gesture on the canvas, from mouse press to release.

    `start` looks at a press and returns an instance when the gesture is its own; the view
    then routes moves and the release to that instance until the gesture ends. Escape or
    losing the mouse calls `cancel`, which must leave the document as it was.
    """

    def __init__(self, view):
        self.view = view

    @classmethod
    def start(cls, view, event) -> Interaction | None:
        return None

    def move(self, event) -> None:
        pass

    def release(self, event) -> None:
        pass

    def cancel(self) -> None:
        pass
