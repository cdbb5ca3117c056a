"""Floor plan of the design: where racks stand and where switches sit.

Used to estimate cable lengths for the physical layer and the bill of materials.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FloorPlan:
    servers_per_rack: int = 4
