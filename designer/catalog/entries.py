"""Typed catalog entries. Figures come from resources/catalog/*.toml, each with its source."""

from __future__ import annotations

from dataclasses import dataclass, field


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

    def mode_for(self, family: str) -> NicMode | None:
        for mode in self.modes:
            if mode.family == family:
                return mode
        return None


@dataclass(frozen=True)
class RolePorts:
    """A server's ports on one network role (converged, storage, inband, oob), with their source."""

    role: str
    count: int
    gbps: int
    source: str = ""


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

    entries: dict = field(default_factory=dict)
    origins: dict = field(default_factory=dict)
