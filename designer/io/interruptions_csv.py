"""Expected interruptions as a CSV sheet: the expected failures of each kind, then whether one
failure stops a job on this design and on its counterpart with the other plane count.

Every figure is the model's (designer.model.decisions.interruptions): counts are computed, the
expectations are estimates from the rate table, and a kind with no published rate says so.
"""

from __future__ import annotations

import os

from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv
from designer.model.decisions.interruptions import DAYS_PER_MONTH, Interruptions

DAYS_PER_YEAR = 365.0
NOT_PUBLISHED = "no published rate"
EXPECTED_HEADER = ["Kind", "Counted", "Count", "Rate per unit per day", "Expected per day",
                   "Expected per month", "Expected per year", "Published", "Measured", "Extrapolated", "Source"]


def _number(value: float | None) -> str:
    return NOT_PUBLISHED if value is None else f"{value:.6g}"


def per_year(per_day: float | None) -> float | None:
    return None if per_day is None else per_day * DAYS_PER_YEAR


def interruptions_rows(report: Interruptions, design_name: str = "") -> list[list[str]]:
    rows = [["Expected interruptions" + (f": {design_name}" if design_name else ""),
             "estimated: computed counts x published rates, extrapolated"
             f" (a month is {DAYS_PER_MONTH:g} days, a year {DAYS_PER_YEAR:g})"],
            EXPECTED_HEADER]
    for e in report.expected:
        r = e.rate
        rows.append([r.label, r.applies_to, str(e.units), _number(r.per_unit_day), _number(e.per_day),
                     _number(e.per_month), _number(per_year(e.per_day)),
                     "yes" if r.per_unit_day is not None else "no", r.measured, r.extrapolated, r.source])
    rows.append([])
    shares = [s for s in (report.design_share, report.other_share) if s is not None]
    rows.append(["Does one failure stop a job? (computed)"] + [f"{s.label} ({s.planes} plane(s))" for s in shares])
    kinds = list(dict.fromkeys(k for s in shares for k in s.stops_by_kind))
    for kind in kinds:
        rows.append([kind] + [("stops" if s.stops_by_kind[kind] else "continues") if kind in s.stops_by_kind
                              else "-" for s in shares])
    rows.append(["share of link and NIC failures that stop a job (estimated)"]
                + ["-" if s.share is None else f"{s.share:.4f}" for s in shares])
    rows.append([])
    rows.append(["Counts (computed)"])
    rows += [[name, str(n)] for name, n in report.counts.items()]
    if report.notes:
        rows.append([])
        rows += [["Note", note] for note in report.notes]
    return rows


def write_interruptions_csv(report: Interruptions, path: str | os.PathLike[str], design_name: str = "") -> None:
    write_atomic(path, rows_to_csv(interruptions_rows(report, design_name)), encoding=ENCODING)
