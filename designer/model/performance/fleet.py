"""The fleet a job runs in: rank placement, the cluster's occupancy and other jobs' uplink load.

The defaults come from resources/perf/fleet.toml, each with what it rests on. A design's own
performance settings (placement, occupancy, background_load) override them; the comparison
states which were assumed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache

from designer.catalog.loader import RESOURCES
from designer.limits import read_text
from designer.model.intent.perf_settings import PerformanceSettings

FLEET_FILE = RESOURCES / "perf" / "fleet.toml"
PLACEMENTS = ("packed", "scattered", "spread")
PLACEMENT_NAMES = {"packed": "packed (topology-aware scheduler: SUs filled in order)",
                   "scattered": "scattered (servers drawn where free, ranked in that order)",
                   "spread": "spread (round-robin over SUs)"}


@dataclass(frozen=True)
class FleetDefaults:
    placement: str
    placement_basis: str
    occupancy: float
    occupancy_basis: str
    background_load: float
    background_basis: str
    other_placement_share: float = 0.5   # the confidence draws' share with ranks placed the other way
    background_spread: float = 0.15      # ... and the spread of other jobs' load around the assumed one
    draws_basis: str = ""


@lru_cache(maxsize=1)
def fleet_defaults() -> FleetDefaults:
    """The defaults, read once from resources/perf/fleet.toml."""
    data = tomllib.loads(read_text(FLEET_FILE, "fleet defaults file"))
    p, o, b, dr = data["placement"], data["occupancy"], data["background"], data["draws"]
    placement = str(p["default"])
    if placement not in PLACEMENTS:
        raise ValueError(f"{FLEET_FILE}: placement default '{placement}' is not one of {', '.join(PLACEMENTS)}")
    return FleetDefaults(placement, str(p["basis"]), float(o["default"]), str(o["basis"]),
                         float(b["default"]), str(b["basis"]), float(dr["other_placement_share"]),
                         float(dr["background_spread"]), str(dr["basis"]))


def other_placement(placement: str) -> str:
    """The placement the confidence draws try beside the assumed one: packed for scattered or
    spread ranks (a topology-aware scheduler), scattered for packed ones."""
    return "scattered" if placement == "packed" else "packed"


def background_range(background: float) -> tuple[float, float]:
    """Other jobs' load the confidence draws cover around the assumed figure."""
    spread = fleet_defaults().background_spread
    return max(0.0, background - spread), min(0.9, background + spread)


def occupancy(settings: PerformanceSettings) -> float:
    return settings.occupancy if settings.occupancy is not None else fleet_defaults().occupancy


def background_load(settings: PerformanceSettings) -> float:
    """Other jobs' share of each uplink: the design's figure, else none (a design estimated on its
    own); a comparison sets the fleet default explicitly (fleet_settings)."""
    return settings.background_load if settings.background_load is not None else 0.0


@dataclass(frozen=True)
class FleetAssumptions:
    """What a comparison assumed, and on what basis, for its text, JSON and window."""

    placement: str
    occupancy: float
    seed: int
    background_load: float
    bases: tuple[str, ...]

    def text(self) -> str:
        where = PLACEMENT_NAMES.get(self.placement, self.placement)
        occ = f" from a cluster {self.occupancy:.0%} busy, seed {self.seed}" if self.placement == "scattered" else ""
        return (f"ranks {where}{occ}; other jobs' traffic {self.background_load:.0%} of every uplink's capacity")

    def to_json(self) -> dict[str, object]:
        return {"placement": self.placement, "occupancy": self.occupancy, "placement_seed": self.seed,
                "background_load": self.background_load, "bases": list(self.bases), "text": self.text()}


def assumptions(settings: PerformanceSettings, placement: str | None = None,
                occupancy_: float | None = None, background: float | None = None,
                seed: int | None = None) -> FleetAssumptions:
    """The fleet assumptions of a comparison: what is given, else the design's, else the defaults."""
    d = fleet_defaults()
    bases = []
    pl = placement or d.placement
    if placement is None:
        bases.append(f"placement: {d.placement_basis}")
    occ = occupancy_ if occupancy_ is not None else settings.occupancy
    if occ is None:
        occ = d.occupancy
        if pl == "scattered":
            bases.append(f"occupancy: {d.occupancy_basis}")
    bg = background if background is not None else settings.background_load
    if bg is None:
        bg = d.background_load
        bases.append(f"background load: {d.background_basis}")
    return FleetAssumptions(pl, float(occ), int(seed if seed is not None else settings.placement_seed), float(bg),
                            tuple(bases))
