"""Typed catalog entries. Figures come from resources/catalog/*.toml, each with its source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PortMode:
    count: int
    gbps: int


@dataclass(frozen=True)
class _Entry:
    id: str
    name: str
    source: str
    vendor: str = ""
    part_number: str = ""
    notes: str = ""
    estimates: tuple[str, ...] = ()
    estimate_basis: str = ""
    # Catalog currency: the quarter the part ships or shipped ("2026-Q1") and whether it is
    # shipping, announced, preliminary or end-of-life (no longer sold: a part real captures show),
    # as its `source` says ("" : not stated).
    available: str = ""
    status: str = ""
    currency_source: str = ""   # where `available`/`status` come from, when not from `source`
    # A generic stand-in (a Tomahawk class box, an IEEE module any vendor makes, a generic fiber):
    # no product one can order, so no quarter or status; the catalog test holds every other part
    # to state its currency.
    stand_in: bool = False

    def currency_label(self) -> str:
        """'shipping since 2025-Q3', 'announced for 2026-Q3', 'preliminary, 2026-Q3'; "" if unstated."""
        when = self.available
        if self.status == "shipping":
            return f"shipping since {when}" if when else "shipping"
        if self.status == "announced":
            return f"announced for {when}" if when else "announced"
        if self.status == "preliminary":
            return f"preliminary, {when}" if when else "preliminary"
        if self.status == "end-of-life":
            return f"end of life (shipped from {when})" if when else "end of life"
        return when

    def name_with_currency(self) -> str:
        """'Quantum-X Photonics Q3450-LD (shipping since 2026-Q1)'; the bare name if unstated."""
        label = self.currency_label()
        return f"{self.name} ({label})" if label else self.name

    def short_currency(self) -> str:
        """'2023-Q1' for a shipping part, '2026-Q3 (preliminary)' otherwise, 'generic stand-in' for
        no product: one short line beside a label (the sources go in a tooltip)."""
        if self.stand_in:
            return "generic stand-in"
        if not self.available:
            return self.status or "not stated"
        return self.available if self.status in ("", "shipping") else f"{self.available} ({self.status})"

    def name_with_status(self) -> str:
        """The name, with the status where the part is not shipping yet: 'Vera Rubin NVL72 compute
        tray (preliminary)'. Short enough for a choice list; the quarter is in currency_label()."""
        return self.name if self.status in ("", "shipping") else f"{self.name} ({self.status})"

    def currency_note(self) -> str:
        """The entry's currency and where it comes from, for a tooltip or a report."""
        label = self.currency_label()
        if self.stand_in:
            return f"{self.name}: a generic stand-in, not one orderable product, so it has no availability."
        if not label:
            return f"{self.name}: the catalog states no availability."
        estimated = " (the quarter is an estimate)" if self.is_estimate("available") else ""
        return f"{self.name}: {label}{estimated}. Source: {self.currency_source or self.source}"

    def is_estimate(self, field_name: str) -> bool:
        """True when the figure is a labelled estimate or heuristic, not a sourced fact."""
        return field_name in self.estimates


@dataclass(frozen=True)
class Switch(_Entry):
    family: str = "infiniband"
    generation: str = ""
    cages: int = 0
    cage_type: str = ""
    port_modes: tuple[PortMode, ...] = ()
    in_network_reduction: bool = False
    rack_units: int = 1
    power_w: float = 0.0
    latency_ns: float = 0.0
    # Co-packaged optics: the switch's ports take a fiber directly (no switch-side transceiver).
    # `cpo_optic` is the optic the ports speak (sr, dr, fr), `cpo_fiber` the fiber cable each
    # port takes, `cpo_reach_m` the reach; `power_w` then includes the optics.
    co_packaged_optics: bool = False
    cpo_optic: str = ""
    cpo_fiber: str = ""
    cpo_reach_m: float = 0.0
    cpo_lane_gbps: int = 0       # optical lane rate of the CPO ports: the far end's module must match
    # The same switch with pluggable ports (a CPO switch's pluggable twin), "" when none.
    pluggable_twin: str = ""
    liquid_cooled: bool = False
    # Path choices the switch offers multi-path traffic (LOAD_BALANCING in the loader): "adaptive"
    # (per-packet adaptive routing), "spray" (cell spraying of a scheduled fabric), "ecmp" (static
    # 5-tuple hashing), "ecmp-qp" (hashing that also takes the RoCE queue pair). Empty: not stated,
    # and the technology's choice stands.
    load_balancing: tuple[str, ...] = ()
    # The switch this one's uplinks go to when it is not itself: a scheduled fabric's leaf box
    # (Jericho3-AI class) names its fabric element (Ramon3 class), which sizing then takes for
    # the spine and core tiers unless the design names their switches. "" means the same switch.
    fabric_switch: str = ""
    # A cell switch of a scheduled fabric (Ramon3 class): it connects leaf boxes only, never servers.
    fabric_element: bool = False

    def ports_at(self, gbps: float) -> int:
        """Logical ports this switch offers at `gbps`; 0 when it has no such mode."""
        for mode in self.port_modes:
            if mode.gbps == gbps:
                return mode.count
        return 0

    @property
    def max_gbps(self) -> int:
        return max(m.gbps for m in self.port_modes)

    @property
    def capacity_gbps(self) -> int:
        return max(m.count * m.gbps for m in self.port_modes)

    @property
    def speeds(self) -> tuple[int, ...]:
        return tuple(sorted(m.gbps for m in self.port_modes))

    def radix_label(self) -> str:
        return " / ".join(f"{m.count}x{_speed(m.gbps)}" for m in self.port_modes)


@dataclass(frozen=True)
class NicMode:
    family: str
    ports: int
    gbps: int


@dataclass(frozen=True)
class Nic(_Entry):
    families: tuple[str, ...] = ()
    modes: tuple[NicMode, ...] = ()
    form_factor: str = ""
    host_interface: str = ""
    power_w: float = 0.0

    def mode_for(self, family: str, gbps: int | None = None) -> NicMode | None:
        """The NIC's mode on `family`: the one at `gbps` per port where it has one (ConnectX-8 at
        200G is its 4 x 200GbE quad-plane mode), else the first listed for the family."""
        modes = [m for m in self.modes if m.family == family]
        return next((m for m in modes if m.gbps == gbps), modes[0] if modes else None)


@dataclass(frozen=True)
class RolePorts:
    """A server's ports on one network role (converged, storage, inband, oob), with their source.

    `carried_by` names the role whose ports carry this one where the RA runs it as a segment
    (VLAN/VRF) of another network rather than on ports of its own: the Enterprise RAs' in-band
    management rides the converged ports ("" : ports of its own)."""

    role: str
    count: int
    gbps: int
    source: str = ""
    carried_by: str = ""


@dataclass(frozen=True)
class ReferenceSU:
    """A server's scalable unit in a vendor reference architecture for one fabric family (and,
    where the RA names it, one technology id): `nodes` servers per SU, with its source."""

    family: str
    nodes: int
    source: str
    technology: str = ""


@dataclass(frozen=True)
class Server(_Entry):
    gpu: str = ""
    gpus: int = 8
    nvlink_domain_gpus: int = 8
    nvlink_GBps_per_gpu: float = 0.0
    nvlink_sharp: bool = False
    compute_nic: str = ""
    compute_ports: int = 8
    port_gbps: int = 400
    planes_hint: int = 1
    rack_units: int = 1
    power_w: float = 0.0
    # Network options of one chassis: servers with the same `chassis` are variants of each other
    # (e.g. DGX B300 with 8 x 800G XDR, or 2 x 400GbE per GPU on two planes).
    chassis: str = ""
    # Fabric families this variant's compute network is built for; empty means any its NIC runs.
    fabric_families: tuple[str, ...] = ()
    # Servers (compute trays) per scalable unit in the vendor's reference architecture, where one
    # is published (GB200 NVL72: 8 racks of 18 trays); 0: the SuperPOD default of 32.
    su_servers: int = 0
    # The reference architecture's SU per fabric family or technology (DGX B300: 72 nodes on XDR
    # InfiniBand, 64 on Spectrum-X); sizing takes it as the default SU, ahead of `su_servers`.
    reference_su: tuple[ReferenceSU, ...] = ()
    # Ports per network role beside the compute fabric, as the vendor's RA gives them (each sourced).
    role_ports: tuple[RolePorts, ...] = ()
    # Servers (trays) per rack in the RA, 0: the floor plan's figure; management switches per rack
    # as the RA gives them, 0: sized by port count; other management ports per rack (e.g. the
    # NVLink switch trays of an NVL72 rack), 0: none.
    servers_per_rack: int = 0
    mgmt_switches_per_rack: int = 0
    rack_mgmt_ports: int = 0
    # The rack needs liquid cooling (GB300 / Vera Rubin NVL72, MI355X), as its source says.
    liquid_cooled: bool = False

    def reference_su_for(self, technology: str, family: str) -> ReferenceSU | None:
        """The RA's SU for this technology id, else for its family, else None."""
        exact = next((s for s in self.reference_su if s.technology == technology), None)
        return exact or next((s for s in self.reference_su if not s.technology and s.family == family), None)

    def ports_for(self, role: str) -> RolePorts | None:
        """The server's ports on a network role, or None where the catalog states none."""
        return next((p for p in self.role_ports if p.role == role), None)


@dataclass(frozen=True)
class Technology(_Entry):
    family: str = "infiniband"
    generation: str = ""
    link_gbps: int = 400
    uplink_gbps: int = 400
    default_switch: str = ""
    # The catalog switches sizing may choose among for this technology (the cheapest fabric wins);
    # the default switch is always one of them.
    switches: tuple[str, ...] = ()
    default_nic: str = ""
    adaptive_routing: bool = False
    in_network_reduction: bool = False
    switch_latency_ns: float = 0.0
    nic_latency_ns: float = 0.0
    protocol_efficiency: float = 1.0
    load_balance_efficiency: float = 1.0
    # How flows find their path across the spine (LOAD_BALANCING): "" follows adaptive_routing
    # ("adaptive" when true, "ecmp" when false). Placement on the design's uplinks
    # (designer/model/performance/flow_placement.py) turns it into an efficiency.
    load_balancing: str = ""
    # RoCE queue pairs per NCCL connection (NCCL_IB_QPS_PER_CONNECTION): more hash entropy for ECMP.
    qps_per_connection: int = 1

    @property
    def placement(self) -> str:
        """The load-balancing mode the technology asks for."""
        return self.load_balancing or ("adaptive" if self.adaptive_routing else "ecmp")

    @property
    def switch_options(self) -> tuple[str, ...]:
        """The default switch, then the technology's other switches, each once."""
        return tuple(dict.fromkeys((self.default_switch, *self.switches)))


@dataclass(frozen=True)
class Transceiver(_Entry):
    """A pluggable optical module. `port_modes` lists how many links one module serves at each
    speed (a twin-port OSFP serves 2 x 400G, or 4 x 200G through 1:2 splitter fibers)."""

    families: tuple[str, ...] = ()
    form_factors: tuple[str, ...] = ()
    optic: str = "sr"            # sr (multimode) | dr | fr (single-mode)
    lane_gbps: int = 100         # optical lane rate: both ends of a link must match
    port_modes: tuple[PortMode, ...] = ()
    connectors: int = 1          # fiber connectors on the module
    reach_m: float = 0.0
    power_w: float = 0.0
    fiber: str = ""              # cable id of the straight fiber it takes
    split_fiber: str = ""        # cable id of the 1:2 splitter fiber ("" when none)


@dataclass(frozen=True)
class Cable(_Entry):
    """A cable: copper (dac, acc), active optical (aoc) or plain fiber (fiber).

    Copper and AOC cables plug a whole cage at each end: `port_modes` gives the links one cable
    carries at each speed and `legs` the far-end connectors (1 straight, 2 or more a splitter).
    """

    kind: str = "fiber"          # dac | acc | aoc | fiber
    families: tuple[str, ...] = ()
    form_factors: tuple[str, ...] = ()
    port_modes: tuple[PortMode, ...] = ()
    legs: int = 1
    ends: str = "any"            # any | switch-switch | switch-host
    min_m: float = 0.0
    reach_m: float = 0.0
    lengths_m: tuple[float, ...] = ()
    power_w: float = 0.0         # at the main connector (active copper, AOC)
    leg_power_w: float = 0.0     # at each far-end connector
    fiber_type: str = ""         # OM4, OS2 ... for fiber


@dataclass(frozen=True)
class HostPorts(_Entry):
    """How a server model presents its compute NIC ports: `id` is the server id."""

    ports_per_cage: int = 0      # 0: one cage per NIC card
    cage_type: str = ""          # "" : the NIC's form factor
    nics_included: bool = False  # the NICs come with the server and are not bought separately


def _speed(gbps: float) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps:g}G"


@dataclass(frozen=True)
class CatalogSection:
    """Entries of one kind, keyed by id, remembering which file each came from."""

    entries: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
