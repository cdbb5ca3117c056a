"""Floor plan of the design: where racks stand and where switches sit (the user's choices).

Used to estimate cable lengths for the physical layer and the bill of materials. Every field
has a default, so a design without a floor plan still gets lengths (README, "Floor plan and
cable lengths"): 4 servers per 600 mm rack, 10 server racks per row, rows 2.4 m apart, leaves in
network racks in the middle of each row, spines and cores in a network row in the middle of the
hall, 1.5 m up to the overhead tray at each end and 1 m of slack per cable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from designer.limits import quote
from designer.model.intent.serde import DesignValidationError

Placement = Literal["su-racks", "middle-of-row", "network-row"]
Medium = Literal["auto", "dac", "acc", "aoc", "mmf", "smf"]
MEDIA = ("auto", "dac", "acc", "aoc", "mmf", "smf")
PLACEMENTS = ("su-racks", "middle-of-row", "network-row")


@dataclass(frozen=True)
class FloorPlan:
    """Racks, rows and switch placement.

    placement: where leaves sit. "su-racks": in a rack of the servers they serve (top of rack);
    "middle-of-row": in network racks in the middle of each server row; "network-row": with the
    spines in the dedicated network row. Spines and cores always sit in the network row.
    Lengths: cables inside one rack are `in_rack_m` long; others run up `vertical_run_m` at each
    end, along the rows (rack_width_m per rack) and across them (row_pitch_m per row), plus slack.
    """

    servers_per_rack: int = 4
    racks_per_row: int = 10            # server racks in one row
    rack_width_m: float = 0.6
    row_pitch_m: float = 2.4           # centre-to-centre distance between rows
    placement: Placement = "middle-of-row"
    switches_per_network_rack: int = 16
    vertical_run_m: float = 1.5        # from a device up to the overhead tray (each end)
    slack_m: float = 1.0               # service loop per cable leaving its rack
    in_rack_m: float = 2.0             # a cable between two devices of one rack, slack included
    medium_node_leaf: Medium = "auto"  # force a medium on a tier ("auto": by speed and length)
    medium_leaf_spine: Medium = "auto"
    medium_spine_core: Medium = "auto"

    def __post_init__(self) -> None:
        for name in ("servers_per_rack", "racks_per_row", "switches_per_network_rack"):
            if not 0 < getattr(self, name) <= 100_000:
                raise DesignValidationError(f"floorplan.{name}",
                                            f"must be a positive whole number up to 100,000, got"
                                            f" {quote(getattr(self, name))}")
        for name in ("rack_width_m", "row_pitch_m", "in_rack_m"):
            if not 0 < getattr(self, name) <= 100_000:
                raise DesignValidationError(f"floorplan.{name}",
                                            f"must be a positive length up to 100,000 m, got"
                                            f" {quote(getattr(self, name))}")
        for name in ("vertical_run_m", "slack_m"):
            if not 0 <= getattr(self, name) <= 100_000:
                raise DesignValidationError(f"floorplan.{name}",
                                            f"must be 0 to 100,000 m, got {quote(getattr(self, name))}")

    def forced_medium(self, tier: str) -> str:
        """The medium the user forced on a link tier ("auto" when none)."""
        return {"node-leaf": self.medium_node_leaf, "leaf-spine": self.medium_leaf_spine,
                "spine-core": self.medium_spine_core}.get(tier, "auto")
