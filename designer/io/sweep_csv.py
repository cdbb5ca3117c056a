"""A design-space sweep as CSV: one row per combination, built or refused, fronts marked.

Refused combinations keep their row with the reason, so the sheet shows the whole space.
"""

from __future__ import annotations

import os

from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv, safe_cell
from designer.model.decisions.design_space import SweepResult

HEADER = ["#", "Template", "Technology", "Oversubscription asked", "Planes asked", "Switch asked", "Tiers asked",
          "Name", "Switch", "GPUs", "Tiers", "Planes", "Switches", "Oversubscription achieved (worst leaf)",
          "Capex (USD)", "Power (W)", "TCO (USD)", "Unpriced parts", "Bisection (Tb/s)", "Bisection ratio",
          "Collective time (us)", "Busbw (GB/s)", "Algorithm", "Front: cost vs time", "Front: cost vs power",
          "Refused because"]


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.10g}"


def sweep_rows(result: SweepResult) -> list[list[str]]:
    rows = [HEADER]
    for p in result.points:
        c = p.choice
        rows.append([
            str(p.index + 1), c["template"], c["technology"], f"{c['oversubscription']:g}:1",
            "" if c["planes"] is None else str(c["planes"]), safe_cell(c["switch"] or ""),
            "" if c["tiers"] is None else str(c["tiers"]),
            safe_cell(p.name), safe_cell(p.switch), _num(p.gpus or None), _num(p.tiers or None),
            _num(p.planes or None), _num(p.switches or None), _num(p.oversubscription),
            _num(p.capex_usd), _num(p.power_w), _num(p.tco_usd), safe_cell(" ".join(p.unpriced)),
            _num(p.bisection_tbps), _num(p.bisection_ratio), _num(p.time_us), _num(p.busbw_GBps),
            p.algorithm, "yes" if p.front_cost_time else "", "yes" if p.front_cost_power else "",
            safe_cell(p.error or ""),
        ])
    return rows


def write_sweep_csv(result: SweepResult, path: str | os.PathLike[str]) -> None:
    write_atomic(path, rows_to_csv(sweep_rows(result)), encoding=ENCODING)
