"""The cabling plan as CSV: one row per link, what installers work from.

Each row names both ends (rack, device, port and cage position), the medium, the parts at each
end and the cable or fiber with its estimated run and the stock length to order. Same file
conventions as the BOM sheet (designer/io/bom_csv.py).
"""

from __future__ import annotations

import os

from designer.catalog import Catalog, default_catalog
from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv, safe_cell
from designer.model.physical.media import MEDIUM_LABELS, Physical

HEADER = ("Link", "Tier", "Speed (Gb/s)", "A rack", "A device", "A port", "A cage", "B rack", "B device",
          "B port", "B cage", "Medium", "A-end transceiver", "B-end transceiver", "Cable or fiber part",
          "Cable or fiber", "Estimated length (m)", "Cable length (m)")
OPTIC_LABELS = {"sr": "SR", "dr": "DR", "fr": "FR"}


def _part(entry) -> str:
    """An entry's ordering number, or its name when no number is confirmed."""
    if entry is None:
        return ""
    return entry.part_number or entry.name


def cabling_rows(phys: Physical, catalog: Catalog | None = None) -> list[list[str]]:
    catalog = catalog or default_catalog()
    pos = phys.layout.positions
    rows = [list(HEADER)]
    for link in phys.links:
        cable = catalog.cables.get(link.cable)
        medium = MEDIUM_LABELS[link.medium]
        if link.optic:
            medium += f" ({OPTIC_LABELS[link.optic]})"
        rows.append([
            f"L{link.index + 1}", link.tier, str(link.gbps),
            pos[link.a.device].rack, safe_cell(link.a.device), safe_cell(link.a.port), link.a.cage_label,
            pos[link.b.device].rack, safe_cell(link.b.device), safe_cell(link.b.port), link.b.cage_label,
            medium, safe_cell(_part(catalog.transceivers.get(link.a_part))),
            safe_cell(_part(catalog.transceivers.get(link.b_part))), safe_cell(cable.part_number if cable else ""),
            safe_cell(cable.name if cable else ""), f"{link.length_m:g}",
            f"{link.cable_length_m:g}" if link.cable_length_m else "",
        ])
    return rows


def cabling_to_csv(phys: Physical, catalog: Catalog | None = None) -> str:
    return rows_to_csv(cabling_rows(phys, catalog))


def write_cabling_csv(phys: Physical, path: str | os.PathLike, catalog: Catalog | None = None) -> None:
    write_atomic(path, cabling_to_csv(phys, catalog), encoding=ENCODING)
