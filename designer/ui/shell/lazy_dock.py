"""A dock whose panel is made the first time it is shown or asked for.

Most sessions never open the Phases or Expected Interruptions panels: the window opens without
building them (their widgets, their connections, their following of every edit), and the dock,
its title, its place among the tabs and its toggle in View > Panels are there from the start.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDockWidget, QWidget


class LazyDock(QDockWidget):
    def __init__(self, title: str, parent: QWidget, build: Callable[[], QWidget]):
        super().__init__(title, parent)
        self._build: Callable[[], QWidget] | None = build
        # Connected first: whatever else follows the dock's visibility finds the panel made.
        self.visibilityChanged.connect(self._on_visibility)

    @property
    def built(self) -> bool:
        return self._build is None

    def content(self) -> QWidget:
        """The panel, made now if it was not yet."""
        if self._build is not None:
            build, self._build = self._build, None
            self.setWidget(build())
        widget = self.widget()
        assert widget is not None
        return widget

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        # A layout restored with the dock open shows it with its window, without a
        # visibilityChanged: never an empty dock on screen.
        self.content()
        super().showEvent(event)

    def _on_visibility(self, shown: bool) -> None:
        if shown:
            self.content()
