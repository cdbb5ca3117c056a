"""A comparison's rows and the energy arithmetic every cost row shares.

Kept apart from comparison.py so that the verdict in dollars (dollar_comparison.py) builds rows
without importing the comparison that imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HOURS_PER_YEAR = 8760


@dataclass(frozen=True)
class Row:
    key: str                      # stable id, e.g. "tco_usd"
    label: str
    unit: str
    values: tuple[float | None, ...]
    better: str = ""              # "lower", "higher" or "" (neither)
    group: str = ""

    @property
    def delta_unit(self) -> str:
        """"pt" for a row of shares and ratios (unit %), whose change is a difference in percentage
        points (a share going from 33% to 66% is +33 pt, not +100%); "%" for every other row."""
        return "pt" if self.unit == "%" else "%"

    @property
    def deltas(self) -> tuple[float | None, ...]:
        """Change against the first design in `delta_unit`: percentage points for a row of shares,
        else the change in %, None where either value is missing or the baseline is zero (a
        change relative to nothing has no size)."""
        base = self.values[0]
        if self.delta_unit == "pt":
            return tuple(None if base is None or v is None else v - base for v in self.values)
        return tuple(None if base in (None, 0) or v is None else (v - base) / abs(base) * 100
                     for v in self.values)

    @property
    def delta_pct(self) -> tuple[float | None, ...]:
        """The change in % (None throughout a row of shares, whose change is in points)."""
        return self.deltas if self.delta_unit == "%" else (None,) * len(self.values)

    @property
    def delta_pt(self) -> tuple[float | None, ...]:
        """The change in percentage points (None throughout a row that is not a share)."""
        return self.deltas if self.delta_unit == "pt" else (None,) * len(self.values)

    def delta_text(self, delta: float | None, digits: int = 1) -> str:
        """A delta as read: "+12.5%" or, on a row of shares, "+32.6 pt"; "-" when there is none."""
        if delta is None:
            return "-"
        return f"{delta:+.{digits}f} pt" if self.delta_unit == "pt" else f"{delta:+.{digits}f}%"


def energy_cost_usd(power_w: float, s: Any) -> float:
    """Energy bought over the comparison period: IT power x PUE x hours x tariff."""
    return float(power_w / 1000 * s.pue * HOURS_PER_YEAR * s.years * s.energy_usd_per_kwh)
