"""The hall a new design's floor plan lays out: rows long enough that the runs stay within reach.

The floor plan's defaults (designer/model/intent/floorplan.py: 10 server racks per row, rows 2.4 m
apart, spines and cores in a network row across the middle) put a large cluster in one long,
narrow hall: 131,072 servers at 4 per rack make 3,277 rows, 7.9 km from end to end, and a leaf at
either end is about 4 km from the spines, twice what the longest Ethernet optic in the catalog
reaches. The model has one hall, so a new design that big gets rows long enough to make the hall
about square (362 racks per row there, 218 m by 217 m), and a note says so; the user's own floor
plan is never changed. The rule reads only the floor plan's arithmetic and the catalog's reaches.
"""

from __future__ import annotations

import dataclasses
import math

from designer.catalog import Catalog
from designer.model.intent.floorplan import FloorPlan


def longest_reach_m(catalog: Catalog, family: str) -> float:
    """The longest run any transceiver of the family reaches (0 when it has none)."""
    return max((t.reach_m for t in catalog.transceivers.values() if family in t.families), default=0.0)


def hall_m(fp: FloorPlan, servers: int) -> tuple[float, float]:
    """(length, width) of the server hall in metres: rows times their pitch, racks per row times
    their width (the network racks in the rows' middles and the network row add a little)."""
    racks = max(1, math.ceil(servers / fp.servers_per_rack))
    rows = math.ceil(racks / fp.racks_per_row)
    return rows * fp.row_pitch_m, min(racks, fp.racks_per_row) * fp.rack_width_m


def farthest_run_m(fp: FloorPlan, servers: int) -> float:
    """About the longest leaf-to-spine run: from the end of the hall to the network row across
    its middle, along a whole row, up and down at each end, plus slack."""
    length, width = hall_m(fp, servers)
    return length / 2 + width + 2 * fp.vertical_run_m + fp.slack_m


def reachable_floorplan(fp: FloorPlan, servers: int, reach_m: float) -> tuple[FloorPlan, str] | None:
    """`fp` with rows long enough to make the hall about square, and a note saying why, when its
    farthest run is beyond `reach_m` and the square hall brings it within; None otherwise (the
    floor plan is kept, and the bill of materials says which runs no medium reaches)."""
    if reach_m <= 0 or farthest_run_m(fp, servers) <= reach_m:
        return None
    racks = max(1, math.ceil(servers / fp.servers_per_rack))
    # rows of n racks: n * width along a row, racks / n * pitch across the rows; equal when
    # n = sqrt(racks * pitch / width)
    per_row = min(100_000, max(fp.racks_per_row, math.ceil(math.sqrt(racks * fp.row_pitch_m / fp.rack_width_m))))
    square = dataclasses.replace(fp, racks_per_row=per_row)
    if farthest_run_m(square, servers) > reach_m:
        return None
    old_length, _ = hall_m(fp, servers)
    length, width = hall_m(square, servers)
    note = (f"floor plan: rows of {per_row:,} racks instead of {fp.racks_per_row:,}: with {fp.racks_per_row:,} per row "
            f"the {racks:,} server racks stand in one hall {old_length / 1000:,.1f} km long, and runs from its ends to "
            f"the spines in its middle pass the {reach_m:,.0f} m the longest optic of the technology reaches; "
            f"{per_row:,} per row make the hall about square ({length:,.0f} m by {width:,.0f} m). The model lays out "
            "one hall; set floorplan.racks_per_row to choose another shape")
    return square, note
