"""The design intent: what the architect asked for. Everything else is derived from it.

All classes are frozen: an edit makes a new design (see `replace_path`), so a design can
be shared between threads and kept on an undo stack without copying.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from designer.limits import quote
from designer.model.intent.floorplan import FloorPlan
from designer.model.intent.growth_plan import GrowthPlan
from designer.model.intent.networks import NetworkSpec, check_networks
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.intent.serde import DesignValidationError, to_data
from designer.model.intent.slides import Slide

Template = Literal["leaf-spine", "fat-tree", "rail-optimized", "rail-only"]
TIER_NAMES = ("leaf", "spine", "core")


# The range of every number a design holds. They are far above any cluster built today (the
# largest shipped example has 65,536 GPUs) and keep arithmetic on them exact and cheap; the
# ceilings on the built fabric itself are in designer/model/topology/bounds.py.
MAX_SERVERS = 2**20             # servers in one design
MAX_PER_SERVER = 1024           # GPUs or NIC ports in one server
MAX_GBPS = 102_400              # one link or port, Gb/s (100 Tb/s)
MAX_SWITCHES_PER_TIER = 2**20   # an explicit tier count (per plane)
MAX_PLANES = 64
MAX_RATIO = 1000.0              # oversubscription, down:up
MIN_RATIO = 0.001
MAX_EDITS = 10_000              # manual edits in one design
MAX_EDIT_LINKS = 1_000_000      # links one edit adds or removes
MAX_DEVICE_ID = 200             # characters of a device id in an edit


_T = TypeVar("_T")


def _positive(name: str, value: float | None, allow_none: bool = False, high: float | None = None,
              low: float | None = None) -> None:
    if value is None and allow_none:
        return
    if value is None or value <= 0 or (low is not None and value < low):
        raise DesignValidationError(name, f"must be a positive number, got {quote(value)}"
                                    + (f" (at least {low:g})" if low is not None else ""))
    if high is not None and value > high:
        raise DesignValidationError(name, f"{quote(value)} is out of range (at most {high:,})")


@dataclass(frozen=True)
class Meta:
    name: str = "Untitled fabric"
    author: str = ""
    notes: str = ""


@dataclass(frozen=True)
class ClusterSpec:
    """The servers that the fabric connects."""

    server: str = "dgx-h100"
    servers: int = 32
    gpus_per_server: int | None = None   # None: the server model's GPU count
    ports_per_server: int | None = None  # compute NIC ports; None: the server model's
    port_gbps: int | None = None         # None: the server model's port speed
    nic: str | None = None               # None: the server model's compute NIC

    def __post_init__(self) -> None:
        _positive("servers", self.servers, high=MAX_SERVERS)
        _positive("gpus_per_server", self.gpus_per_server, allow_none=True, high=MAX_PER_SERVER)
        _positive("ports_per_server", self.ports_per_server, allow_none=True, high=MAX_PER_SERVER)
        _positive("port_gbps", self.port_gbps, allow_none=True, high=MAX_GBPS)


@dataclass(frozen=True)
class TierSpec:
    """One switch tier. `count` overrides the derived switch count when set."""

    switch: str | None = None          # None: the fabric's switch
    count: int | None = None
    oversubscription: float = 1.0      # downlink : uplink bandwidth at this tier (leaf, spine)

    def __post_init__(self) -> None:
        _positive("count", self.count, allow_none=True, high=MAX_SWITCHES_PER_TIER)
        _positive("oversubscription", self.oversubscription, high=MAX_RATIO, low=MIN_RATIO)


@dataclass(frozen=True)
class FabricSpec:
    template: Template = "leaf-spine"
    technology: str = "ib-ndr"
    switch: str = "qm9700"
    link_gbps: int | None = None       # server-to-leaf speed; None: the NIC port speed
    uplink_gbps: int | None = None     # switch-to-switch speed; None: same as link_gbps
    tiers: int | None = None           # None: smallest tier count that fits
    nodes_per_su: int = 32             # servers per scalable unit (rail-optimized)
    planes: int = 1
    leaf: TierSpec = field(default_factory=TierSpec)
    spine: TierSpec = field(default_factory=TierSpec)
    core: TierSpec = field(default_factory=TierSpec)
    # Rails of one SU that share a leaf (rail-optimized): None or 1, one leaf per rail as the
    # reference architectures build it; k > 1 puts k rails of an SU on one high-radix leaf.
    # Left out of the file while unset, so older project files read and write unchanged.
    rails_per_leaf: int | None = field(default=None, metadata={"omit_empty": True})

    def __post_init__(self) -> None:
        if self.tiers is not None and self.tiers not in (1, 2, 3):
            raise DesignValidationError("tiers", f"must be 1, 2 or 3, got {self.tiers!r}")
        _positive("nodes_per_su", self.nodes_per_su, high=MAX_SERVERS)
        _positive("rails_per_leaf", self.rails_per_leaf, allow_none=True, high=MAX_PER_SERVER)
        _positive("planes", self.planes, high=MAX_PLANES)
        _positive("link_gbps", self.link_gbps, allow_none=True, high=MAX_GBPS)
        _positive("uplink_gbps", self.uplink_gbps, allow_none=True, high=MAX_GBPS)

    def tier(self, name: str) -> TierSpec:
        spec: TierSpec = getattr(self, name)
        return spec


@dataclass(frozen=True)
class Edit:
    """A manual change applied on top of the template-built graph.

    add-links / remove-links: `count` links between devices `a` and `b`;
    remove-device: take device `a` (and its links) out of the fabric.
    """

    op: Literal["add-links", "remove-links", "remove-device"]
    a: str
    b: str = ""
    count: int = 1

    def __post_init__(self) -> None:
        _positive("count", self.count, high=MAX_EDIT_LINKS)
        for name in ("a", "b"):
            value = getattr(self, name)
            if len(value) > MAX_DEVICE_ID:
                raise DesignValidationError(name, f"a device id of {len(value):,} characters is longer "
                                                  f"than {MAX_DEVICE_ID}")


@dataclass(frozen=True)
class FabricDesign:
    meta: Meta = field(default_factory=Meta)
    cluster: ClusterSpec = field(default_factory=ClusterSpec)
    fabric: FabricSpec = field(default_factory=FabricSpec)
    edits: tuple[Edit, ...] = ()
    floorplan: FloorPlan = field(default_factory=FloorPlan)
    performance: PerformanceSettings = field(default_factory=PerformanceSettings)
    slides: tuple[Slide, ...] = ()     # saved views for presenting the design
    growth: GrowthPlan = field(default_factory=GrowthPlan)   # target size and build-out phases
    # The cluster's other networks (converged/storage, in-band, OOB, customer); empty: compute
    # only. Left out of the file and the content key when empty, so older designs stay byte-equal.
    networks: tuple[NetworkSpec, ...] = field(default=(), metadata={"omit_empty": True})

    def __post_init__(self) -> None:
        if len(self.edits) > MAX_EDITS:
            raise DesignValidationError("edits", f"{len(self.edits):,} manual edits; at most {MAX_EDITS:,}")
        if len(self.slides) > MAX_EDITS:
            raise DesignValidationError("slides", f"{len(self.slides):,} slides; at most {MAX_EDITS:,}")
        check_networks(self.networks)

    def network(self, role: str) -> NetworkSpec | None:
        """The design's network of this role, or None."""
        return next((n for n in self.networks if n.role == role), None)

    def content_key(self) -> str:
        """A digest of the design's content; equal designs share derived results."""
        return content_key(self)


def content_key(obj: object) -> str:
    text = json.dumps(to_data(obj), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def get_path(obj: Any, path: str) -> Any:
    """The value at a dotted field path such as 'fabric.spine.count'."""
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def replace_path(obj: _T, path: str, value: Any) -> _T:
    """A copy of `obj` with the field at the dotted `path` set to `value`."""
    head, _, rest = path.partition(".")
    if (not dataclasses.is_dataclass(obj) or isinstance(obj, type)
            or head not in {f.name for f in dataclasses.fields(obj)}):
        raise DesignValidationError(path, "no such field")
    if rest:
        value = replace_path(getattr(obj, head), rest, value)
    return dataclasses.replace(obj, **{head: value})
