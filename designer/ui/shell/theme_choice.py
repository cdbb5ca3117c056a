"""View > Theme: follow the system, or light, or dark, remembered between sessions.

The window's colours come from the application palette (designer/ui/theme.py); this module
only chooses that palette. "System" keeps the palette the platform gave at start-up and
follows its light/dark changes; light and dark set a palette of their own, which sends every
widget a palette change (the main window re-derives its Theme from it).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QMenu

CHOICES = (("system", "&System"), ("light", "&Light"), ("dark", "&Dark"))
SETTING = "theme"
_SYSTEM: list[QPalette] = []   # the platform's palette, taken before any choice replaces it


def _palette(dark: bool) -> QPalette:
    """A complete light or dark palette for the Fusion style (every role set, disabled text muted)."""
    r = QPalette.ColorRole
    if dark:
        colors = {r.Window: "#2b2d30", r.WindowText: "#e6e6e6", r.Base: "#1e1f22", r.AlternateBase: "#26282b",
                  r.ToolTipBase: "#3c3f41", r.ToolTipText: "#e6e6e6", r.Text: "#e6e6e6", r.Button: "#34363a",
                  r.ButtonText: "#e6e6e6", r.BrightText: "#ff6b6b", r.Highlight: "#2f6fcf",
                  r.HighlightedText: "#ffffff", r.Link: "#6ea8ff", r.PlaceholderText: "#8a8d91",
                  r.Light: "#45484d", r.Midlight: "#3a3d41", r.Mid: "#2f3134", r.Dark: "#191a1c",
                  r.Shadow: "#000000"}
        disabled = "#7c7f84"
    else:
        colors = {r.Window: "#efefef", r.WindowText: "#1d1d1d", r.Base: "#ffffff", r.AlternateBase: "#f5f5f5",
                  r.ToolTipBase: "#ffffdc", r.ToolTipText: "#1d1d1d", r.Text: "#1d1d1d", r.Button: "#efefef",
                  r.ButtonText: "#1d1d1d", r.BrightText: "#ffffff", r.Highlight: "#308cc6",
                  r.HighlightedText: "#ffffff", r.Link: "#0000ff", r.PlaceholderText: "#7f7f7f",
                  r.Light: "#ffffff", r.Midlight: "#cacaca", r.Mid: "#b8b8b8", r.Dark: "#9f9f9f",
                  r.Shadow: "#767676"}
        disabled = "#9a9a9a"
    palette = QPalette()
    for role, name in colors.items():
        palette.setColor(role, QColor(name))
    for role in (r.WindowText, r.Text, r.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return palette


class ThemeChoice(QObject):
    """The View > Theme submenu and the palette it sets; the choice is kept in the window's settings."""

    def __init__(self, parent: QObject, menu: QMenu, settings: QSettings, persist: bool = True,
                 on_change: Callable[[], None] | None = None):
        """`on_change` re-derives the window's colours at once (other windows follow the
        application's palette-change event)."""
        super().__init__(parent)
        self.on_change = on_change
        self.settings = settings
        self.persist = persist
        if not _SYSTEM:
            _SYSTEM.append(QApplication.palette())
        self.submenu = menu.addMenu("&Theme")
        self.group = QActionGroup(self)
        self.actions: dict[str, QAction] = {}
        for key, text in CHOICES:
            action = self.submenu.addAction(text)
            action.setCheckable(True)
            action.setStatusTip({"system": "Follow the system's light or dark mode",
                                 "light": "Light colours, whatever the system's mode",
                                 "dark": "Dark colours, whatever the system's mode"}[key])
            action.triggered.connect(lambda _=False, k=key: self.choose(k))
            self.group.addAction(action)
            self.actions[key] = action
        stored = str(settings.value(SETTING, "system")) if persist else "system"
        self.current = stored if stored in self.actions else "system"
        self.actions[self.current].setChecked(True)
        if self.current != "system":
            self._apply(self.current)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_changed)

    def choose(self, key: str) -> None:
        """Use `key` (system, light or dark) now and remember it."""
        if key not in self.actions:
            raise ValueError(f"unknown theme '{key}' (choose system, light or dark)")
        self.actions[key].setChecked(True)
        if key != self.current:
            self.current = key
            self._apply(key)
        if self.persist:
            self.settings.setValue(SETTING, key)

    def _apply(self, key: str) -> None:
        QApplication.setPalette(_SYSTEM[0] if key == "system" else _palette(key == "dark"))
        if self.on_change is not None:
            self.on_change()

    def _system_changed(self, _scheme: Qt.ColorScheme) -> None:
        # The platform changed mode: keep its new palette for "system", and show it if chosen.
        if self.current == "system":
            _SYSTEM[:] = [QApplication.palette()]


def install(window, view_menu: QMenu) -> ThemeChoice:
    return ThemeChoice(window, view_menu, window.settings, window.persist, window._apply_theme)
