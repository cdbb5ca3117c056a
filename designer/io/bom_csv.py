"""The bill of materials as CSV: what an architect sends to procurement.

UTF-8 with a byte-order mark (so Excel detects the encoding; LibreOffice and Python's csv module
with encoding="utf-8-sig" read it too), CRLF line ends, a header row, one line item per row, then
summary rows (total, cost and power per GPU, design name, price basis, warnings). Any text cell
that a spreadsheet could take for a formula is neutralised with a leading apostrophe.
"""

from __future__ import annotations

import os

from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv, safe_cell
from designer.model.physical.bom import ILLUSTRATIVE, Bom

HEADER = ("Category", "Part number", "Description", "Quantity", "Unit price", "Extended price",
          "Unit power (W)", "Total power (W)", "Notes")
SUMMARY_LABELS = ("Total", "Cost per GPU", "Power per GPU (W)", "Design", "Prices", "Warning")


def money(value: float) -> str:
    return f"{value:.2f}"


def watts(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"


def bom_rows(bom: Bom) -> list[list[str]]:
    """Every row of the BOM sheet, header first, as the text written to each cell."""
    cur = bom.currency
    rows = [[h if "price" not in h else f"{h} ({cur})" for h in HEADER]]
    for item in bom.items:
        rows.append([safe_cell(item.category), safe_cell(item.part_number), safe_cell(item.description),
                     str(item.quantity), money(item.unit_price), money(item.extended_price),
                     watts(item.unit_power_w), watts(item.total_power_w), safe_cell(item.notes)])
    note = f"prices: {ILLUSTRATIVE}" if bom.illustrative_prices else "prices from the price book"
    # Unpriced parts count as 0 in the totals: every cost total says so, and names them.
    incomplete = bom.incomplete_note()
    total_note = f"{incomplete}; {note}" if incomplete else note
    rows.append(["Total", "", f"{len(bom.items)} line items", "", "", money(bom.total_cost), "",
                 watts(bom.total_power_w), safe_cell(total_note)])
    rows.append(["Cost per GPU", "", f"{bom.gpus} GPUs", "", "", money(bom.cost_per_gpu), "", "",
                 safe_cell(incomplete)])
    rows.append(["Power per GPU (W)", "", f"{bom.gpus} GPUs", "", "", "", "", watts(bom.power_per_gpu_w), ""])
    rows.append(["Design", "", safe_cell(bom.name), "", "", "", "", "", ""])
    rows.append(["Prices", "", safe_cell(note + (f" ({', '.join(bom.price_sources)})" if bom.price_sources else "")),
                 "", "", "", "", "", ""])
    for finding in bom.findings:
        if finding.severity in ("error", "warning"):
            rows.append(["Warning", "", safe_cell(finding.message), "", "", "", "", "", ""])
    return rows


def bom_to_csv(bom: Bom) -> str:
    return rows_to_csv(bom_rows(bom))


def write_bom_csv(bom: Bom, path: str | os.PathLike[str]) -> None:
    """Write the BOM sheet atomically (the old file stays whole until the new one is complete)."""
    write_atomic(path, bom_to_csv(bom), encoding=ENCODING)
