"""Colours and short labels of the designs in a comparison.

Each design keeps the hue of its technology family (InfiniBand green, Ethernet blue, as on
the canvas); a second or third design of the same family gets a darker or lighter shade,
so every design has its own colour in the table, the bars and the curves.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor

from designer.catalog import Catalog
from designer.model.decisions.comparison import Comparison
from designer.ui.theme import Theme

GOOD_HUE = "#2f9e55"
GOOD_HUE_DARK = "#5cc47e"

# Shades for the 1st to 5th design of one family (QColor.darker/lighter factors): a comparison
# holds up to five, e.g. InfiniBand beside the four Ethernet options.
_SHADES = (("", 100), ("darker", 145), ("lighter", 145), ("darker", 210), ("lighter", 185))


@dataclass(frozen=True)
class DesignStyle:
    colour: QColor
    tech_name: str     # "InfiniBand NDR 400G"
    tech_short: str    # "IB NDR 400G", short enough for an axis label
    family: str


# Words that tell the Ethernet options apart once the name is cut short (longest match first).
_VARIANT_TAGS = (("enhanced ecmp", "E-ECMP"), ("static ecmp", "ECMP"), ("scheduled fabric", "scheduled"),
                 ("spectrum-x", "Spectrum-X"))


def short_technology(name: str) -> str:
    """'InfiniBand NDR 400G' -> 'IB NDR 400G'; 'RoCE 400GbE (Spectrum-X)' -> 'RoCE 400GbE Spectrum-X';
    'RoCE 400GbE, merchant switches, static ECMP' -> 'RoCE 400GbE ECMP': short enough for an axis
    label, and the Ethernet options bought beside each other keep a word that tells them apart."""
    head = name.split(" (")[0].split(",")[0].replace(" fabric", "").replace("InfiniBand", "IB").strip()
    low = name.lower()
    tag = next((short for words, short in _VARIANT_TAGS if words in low), "")
    return f"{head} {tag}" if tag else head


def design_styles(comparison: Comparison, theme: Theme, catalog: Catalog) -> list[DesignStyle]:
    seen: dict[str, int] = {}
    styles = []
    for tech_id, family in zip(comparison.technologies, comparison.families, strict=True):
        k = seen.get(family, 0)
        seen[family] = k + 1
        colour = theme.family(family)
        how, factor = _SHADES[k % len(_SHADES)]
        if how:
            colour = getattr(colour, how)(factor)
        tech = catalog.technologies.get(tech_id)
        name = tech.name if tech is not None else tech_id
        styles.append(DesignStyle(colour, name, short_technology(name), family))
    return styles


def delta_colours(theme: Theme) -> tuple[QColor, QColor, QColor]:
    """(improvement, worse, neutral) text colours for the change columns."""
    good = QColor(GOOD_HUE_DARK if theme.dark else GOOD_HUE)
    bad = theme.error.lighter(130) if theme.dark else theme.error
    return good, bad, theme.muted


def soften(colour: QColor, theme: Theme, t: float = 0.45) -> QColor:
    """`colour` blended toward the background (the energy part of a TCO bar)."""
    b = theme.background
    return QColor(round(colour.red() + (b.red() - colour.red()) * t),
                  round(colour.green() + (b.green() - colour.green()) * t),
                  round(colour.blue() + (b.blue() - colour.blue()) * t))
