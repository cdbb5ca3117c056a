"""The comparison as CSV: one row per metric, a value column per design, then deltas in %, then
deltas in percentage points (filled on the rows of shares and ratios, whose change in % means nothing).

After the table come the recommendation, its reasons, the assumptions and any warnings, one
per row, so the sheet stands on its own in a review.
"""

from __future__ import annotations

import os

from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv, safe_cell
from designer.model.decisions.comparison import Comparison


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.10g}"


def compare_rows(c: Comparison) -> list[list[str]]:
    names = [safe_cell(n) for n in c.names]
    header = ["Group", "Metric", "Unit", *names, *[f"Delta vs baseline (%): {n}" for n in names[1:]],
              *[f"Delta vs baseline (pt): {n}" for n in names[1:]]]
    rows = [header]
    for r in c.rows:
        rows.append([r.group, r.label, r.unit, *map(_number, r.values), *map(_number, r.delta_pct[1:]),
                     *map(_number, r.delta_pt[1:])])
    width = len(header)

    def line(label: str, text: str) -> list[str]:
        return [label, safe_cell(text)] + [""] * (width - 2)

    rows.append(line("Technology", " | ".join(c.technologies)))
    rows.append(line("Recommendation (heuristic)", c.recommendation.verdict))
    rows.extend(line("Reason", reason) for reason in c.recommendation.reasons)
    rows.extend(line("When it would flip", flip.line()) for flip in c.recommendation.flips)
    s = c.settings
    rows.append(line("Assumptions", f"{s.years} years, energy {s.energy_usd_per_kwh:g} USD/kWh, PUE {s.pue:g}, "
                                    f"{s.job_text}; token budget {s.token_budget:,.3g}; "
                                    "prices are illustrative estimates, not quotes"))
    rows.extend(line("Warning", w) for w in c.warnings)
    return rows


def compare_to_csv(c: Comparison) -> str:
    return rows_to_csv(compare_rows(c))


def write_compare_csv(c: Comparison, path: str | os.PathLike[str]) -> None:
    write_atomic(path, compare_to_csv(c), encoding=ENCODING)
