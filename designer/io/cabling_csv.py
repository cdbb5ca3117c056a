"""The cabling plan as CSV: one row per link, what installers work from.

Each row names both ends (rack, device, port and cage position), the medium, the parts at each
end and the cable or fiber with its estimated run and the stock length to order. Same file
conventions as the BOM sheet (designer/io/bom_csv.py).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator

from designer.catalog import Catalog, default_catalog
from designer.catalog.entries import Cable, Transceiver
from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv, safe_cell
from designer.model.physical.media import MEDIUM_LABELS, LinkPlan, Physical

HEADER = ("Link", "Tier", "Speed (Gb/s)", "A rack", "A device", "A port", "A cage", "B rack", "B device",
          "B port", "B cage", "Medium", "A-end transceiver", "B-end transceiver", "Cable or fiber part",
          "Cable or fiber", "Estimated length (m)", "Cable length (m)")
OPTIC_LABELS = {"sr": "SR", "dr": "DR", "fr": "FR"}


def _part(entry: Transceiver | Cable | None) -> str:
    """An entry's ordering number, or its name when no number is confirmed."""
    if entry is None:
        return ""
    return entry.part_number or entry.name


def iter_cabling_rows(phys: Physical, catalog: Catalog | None = None) -> Iterator[list[str]]:
    """The header, then one row per link, produced as they are written (a 131K-GPU fabric has
    hundreds of thousands of links). Cells that repeat (racks, devices, parts) are made once."""
    catalog = catalog or default_catalog()
    pos = phys.layout.positions
    yield list(HEADER)
    devices: dict[str, tuple[str, str]] = {}
    parts: dict[tuple[str, str, str, str, str], tuple[str, ...]] = {}

    def device(name: str) -> tuple[str, str]:
        cells = devices.get(name)
        if cells is None:
            cells = devices[name] = (pos[name].rack, safe_cell(name))
        return cells

    def medium_parts(link: LinkPlan) -> tuple[str, ...]:
        key = (link.medium, link.optic, link.a_part, link.b_part, link.cable)
        cells = parts.get(key)
        if cells is None:
            cable = catalog.cables.get(link.cable)
            medium = MEDIUM_LABELS[link.medium]
            if link.optic:
                medium += f" ({OPTIC_LABELS[link.optic]})"
            cells = parts[key] = (
                medium, safe_cell(_part(catalog.transceivers.get(link.a_part))),
                safe_cell(_part(catalog.transceivers.get(link.b_part))),
                safe_cell(cable.part_number if cable else ""), safe_cell(cable.name if cable else ""))
        return cells

    for link in phys.links:
        a, b = link.a, link.b
        a_rack, a_dev = device(a.device)
        b_rack, b_dev = device(b.device)
        yield [f"L{link.index + 1}", link.tier, str(link.gbps),
               a_rack, a_dev, safe_cell(a.port), a.cage_label,
               b_rack, b_dev, safe_cell(b.port), b.cage_label,
               *medium_parts(link), f"{link.length_m:g}",
               f"{link.cable_length_m:g}" if link.cable_length_m else ""]


def cabling_rows(phys: Physical, catalog: Catalog | None = None) -> list[list[str]]:
    return list(iter_cabling_rows(phys, catalog))


def _field(cell: str) -> str:
    """One cell as the csv module writes it in a row of several cells (quoted only if needed)."""
    if not cell:
        return ""
    buffer = io.StringIO(newline="")
    csv.writer(buffer, dialect="excel", lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL).writerow([cell])
    return buffer.getvalue()[:-2]


def iter_cabling_csv(phys: Physical, catalog: Catalog | None = None, rows_per_chunk: int = 4096) -> Iterator[str]:
    """The cabling plan's CSV text (the bytes `rows_to_csv(cabling_rows(...))` gives) in chunks.

    Rows are formatted directly: every cell that could need quoting repeats (devices, ports,
    parts), so it is quoted once and reused; numbers never need it.
    """
    catalog = catalog or default_catalog()
    pos = phys.layout.positions
    memo: dict[str, str] = {}

    def cell(text: str) -> str:
        out = memo.get(text)
        if out is None:
            out = memo[text] = _field(safe_cell(text))
        return out

    devices: dict[str, str] = {}
    parts: dict[tuple[str, str, str, str, str], str] = {}
    lengths: dict[float, str] = {}

    def device(name: str) -> str:
        out = devices.get(name)
        if out is None:
            out = devices[name] = f"{_field(pos[name].rack)},{cell(name)}"
        return out

    def length(value: float) -> str:
        out = lengths.get(value)
        if out is None:
            out = lengths[value] = f"{value:g}"
        return out

    yield ",".join(_field(h) for h in HEADER) + "\r\n"
    chunk: list[str] = []
    for link in phys.links:
        a, b = link.a, link.b
        key = (link.medium, link.optic, link.a_part, link.b_part, link.cable)
        media = parts.get(key)
        if media is None:
            cable = catalog.cables.get(link.cable)
            medium = MEDIUM_LABELS[link.medium] + (f" ({OPTIC_LABELS[link.optic]})" if link.optic else "")
            media = parts[key] = ",".join((
                _field(medium), cell(_part(catalog.transceivers.get(link.a_part))),
                cell(_part(catalog.transceivers.get(link.b_part))), cell(cable.part_number if cable else ""),
                cell(cable.name if cable else "")))
        cable_m = length(link.cable_length_m) if link.cable_length_m else ""
        chunk.append(f"L{link.index + 1},{cell(link.tier)},{link.gbps},{device(a.device)},{cell(a.port)},"
                     f"{a.cage_label},{device(b.device)},{cell(b.port)},{b.cage_label},{media},"
                     f"{length(link.length_m)},{cable_m}\r\n")
        if len(chunk) >= rows_per_chunk:
            yield "".join(chunk)
            chunk = []
    if chunk:
        yield "".join(chunk)


def cabling_to_csv(phys: Physical, catalog: Catalog | None = None) -> str:
    return rows_to_csv(cabling_rows(phys, catalog))


def write_cabling_csv(phys: Physical, path: str | os.PathLike[str], catalog: Catalog | None = None) -> None:
    write_atomic(path, iter_cabling_csv(phys, catalog), encoding=ENCODING)
