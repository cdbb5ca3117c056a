"""What one build-out phase buys, as a CSV sheet (the BOM delta of `fabric-designer grow`)."""

from __future__ import annotations

import os

from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv, safe_cell
from designer.model.decisions.growth import Phase

HEADER = ["Phase", "Category", "Part number", "Description", "Quantity", "Cost (estimated)", "Currency"]


def phase_bom_rows(phase: Phase, currency: str) -> list[list[str]]:
    rows = [HEADER]
    for item in phase.bom_delta:
        rows.append([str(phase.number), safe_cell(item["category"]), safe_cell(item["part_number"]),
                     safe_cell(item["description"]), str(item["quantity"]), f"{item['cost']:.2f}", currency])
    rows.append([str(phase.number), "Total", "", "bought in this phase", "", f"{phase.cost_delta:.2f}", currency])
    return rows


def write_phase_bom_csv(phase: Phase, currency: str, path: str | os.PathLike[str]) -> None:
    write_atomic(path, rows_to_csv(phase_bom_rows(phase, currency)), encoding=ENCODING)
