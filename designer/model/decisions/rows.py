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
    def deltas(self) -> tuple[float | None, ...]:
        """Change in % against the first design; None where either value is missing or zero."""
        base = self.values[0]
        return tuple(None if base in (None, 0) or v is None else (v - base) / abs(base) * 100
                     for v in self.values)


def energy_cost_usd(power_w: float, s: Any) -> float:
    """Energy bought over the comparison period: IT power x PUE x hours x tariff."""
    return float(power_w / 1000 * s.pue * HOURS_PER_YEAR * s.years * s.energy_usd_per_kwh)
