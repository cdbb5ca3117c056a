"""Colours of the canvas, the legend and the cards, for light and dark palettes.

Tiers have one hue each; links take the colour of their technology family. The shades are
picked from the application palette, so the window follows the system's light or dark mode.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

TIER_HUES = {"core": "#8b6fd6", "spine": "#2a9d8f", "leaf": "#e09a2c", "servers": "#6f7f91"}
FAMILY_HUES = {"infiniband": "#6fae1c", "ethernet": "#2f80ed"}
FAMILY_LABEL = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}
MANUAL_HUE = "#e8590c"
ERROR_HUE = "#d64545"
WARNING_HUE = "#c98a00"
INFO_HUE = "#3d7fd1"
# Liquid-cooled racks: a cyan distinct from the Ethernet blue and the spine teal, drawn as a droplet
# and a band, so the shape tells it apart where hues are close.
COOLANT_HUE = "#0fb5d8"
SEVERITY_HUE = {"error": ERROR_HUE, "warning": WARNING_HUE, "info": INFO_HUE}
# One hue per rail of a rail-optimized SU (rail 1 first), as reference architectures colour them;
# ten hues far enough apart to tell on paper and a projector, then they repeat.
RAIL_HUES = ("#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7",
             "#9c755f", "#8c8c8c")


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    """a blended toward b by t (0..1)."""
    return QColor(round(a.red() + (b.red() - a.red()) * t), round(a.green() + (b.green() - a.green()) * t),
                  round(a.blue() + (b.blue() - a.blue()) * t))


class Theme:
    """Colours derived from one palette; make a new Theme when the palette changes."""

    def __init__(self, palette: QPalette | None = None):
        if palette is None:
            palette = QApplication.palette()
        self.palette = palette
        self.background = palette.color(QPalette.ColorRole.Base)
        self.window = palette.color(QPalette.ColorRole.Window)
        self.text = palette.color(QPalette.ColorRole.Text)
        self.dark = self.background.lightness() < 128
        self.muted = _mix(self.text, self.background, 0.45)
        self.grid = _mix(self.background, self.text, 0.06)
        self.highlight = palette.color(QPalette.ColorRole.Highlight)
        self.manual = QColor(MANUAL_HUE)
        self.error = QColor(ERROR_HUE)
        self.warning = QColor(WARNING_HUE)
        self.coolant = QColor(COOLANT_HUE)

    def tier(self, tier: str) -> QColor:
        return QColor(TIER_HUES.get(tier, "#888888"))

    def tint(self, tier: str, strength: float) -> QColor:
        """The background with a touch (`strength`, 0..1) of the tier hue, opaque."""
        return _mix(self.background, self.tier(tier), strength)

    def tier_fill(self, tier: str) -> QColor:
        """The box fill: the tier hue softened toward the background."""
        return _mix(self.tier(tier), self.background, 0.62 if self.dark else 0.78)

    def tier_border(self, tier: str) -> QColor:
        hue = self.tier(tier)
        return hue.lighter(115) if self.dark else hue.darker(118)

    def tier_text(self, tier: str) -> QColor:
        return self.text

    def family(self, family: str) -> QColor:
        return QColor(FAMILY_HUES.get(family, "#888888"))

    def rail(self, index: int) -> QColor:
        """The colour of rail `index` (0-based)."""
        return QColor(RAIL_HUES[index % len(RAIL_HUES)])

    def rail_fill(self, index: int) -> QColor:
        return _mix(self.rail(index), self.background, 0.55 if self.dark else 0.72)

    def link(self, family: str, alpha: int = 170) -> QColor:
        color = self.family(family)
        color.setAlpha(alpha)
        return color

    def link_on_background(self, family: str, alpha: int = 170) -> QColor:
        """The link colour as if drawn at `alpha` over the canvas background, but opaque."""
        return _mix(self.background, self.family(family), alpha / 255)

    def severity(self, severity: str) -> QColor:
        return QColor(SEVERITY_HUE.get(severity, INFO_HUE))
