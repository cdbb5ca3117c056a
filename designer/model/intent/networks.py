"""The cluster's networks beside the compute fabric: converged/storage, in-band, OOB, customer.

The compute fabric stays in `FabricDesign.fabric`, exactly as before; `FabricDesign.networks`
holds the others. A design without networks is a compute-only design, as every design was before
networks existed, and it saves and loads unchanged (the field is left out of the file when empty).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from designer.limits import quote
from designer.model.intent.serde import DesignValidationError

Role = Literal["converged", "storage", "inband", "oob", "customer"]
ROLES: tuple[str, ...] = ("converged", "storage", "inband", "oob", "customer")
ROLE_LABELS = {"compute": "Compute (east-west)", "converged": "Converged / storage (north-south)",
               "storage": "Storage", "inband": "In-band management", "oob": "Out-of-band management",
               "customer": "Customer uplinks"}
# leaf-pair-spine: servers reach two leaves (MLAG-style pair) per rack group, leaves reach spines.
# per-rack: management switches in every rack (OOB). merged: the network's ports ride on the
# compute fabric's switches (the Enterprise RAs' small design points). segment: the network is a
# segment (VLAN/VRF) of another network of the design, `carried_by`, on that network's ports and
# switches, with none of its own (the RAs' in-band management on the converged network).
NetworkTemplate = Literal["leaf-pair-spine", "per-rack", "merged", "segment"]
NETWORK_TEMPLATES: tuple[str, ...] = ("leaf-pair-spine", "per-rack", "merged", "segment")
# The networks a segment may ride on: any leaf-pair role of the design, or the compute fabric.
CARRIERS: tuple[str, ...] = ("converged", "storage", "customer", "compute")
FAMILY_NAMES = ("ethernet", "infiniband")

MAX_NETWORKS = 16
MAX_NAME = 80


def _check(name: str, value: float | None, low: float, high: float, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if value is None or not low <= value <= high:
        raise DesignValidationError(name, f"must be between {low:g} and {high:,g}, got {quote(value)}")


@dataclass(frozen=True)
class NetworkSpec:
    """One network of the cluster beside the compute fabric.

    ports_per_server / port_gbps: None takes the server model's ports for this role (catalog
    `role_ports`, each with its source). storage_GBps_per_gpu: the storage bandwidth asked for,
    in GB/s per GPU (0: no storage appliance ports); it sizes the appliance ports on this network
    and the checkpoint write time. switches_per_rack: management switches per rack (per-rack
    template; None: the server model's figure from its RA, else by port count).
    """

    role: Role = "converged"
    name: str = ""
    template: NetworkTemplate = "leaf-pair-spine"
    technology: str = "ethernet"          # a catalog technology id, or "ethernet" / "infiniband"
    switch: str = "sn5600"                # leaf (or management) switch, a catalog id
    spine_switch: str | None = None       # None: the leaf switch
    ports_per_server: int | None = None
    port_gbps: int | None = None
    uplink_gbps: int | None = None        # leaf-spine speed; None: the switch's fastest port speed
    oversubscription: float = 1.0         # leaf downlink : uplink bandwidth
    switches_per_rack: int | None = None
    storage_GBps_per_gpu: float = 0.0
    storage_port_gbps: int = 400          # one storage appliance port
    uplinks_per_switch: int = 2           # per-rack template: each switch's uplinks out of the rack
    # segment template: the role of the network that carries this one ("" : converged). Left out
    # of the file while empty, so designs saved before segments existed stay equal.
    carried_by: str = field(default="", metadata={"omit_empty": True})

    def __post_init__(self) -> None:
        if len(self.name) > MAX_NAME:
            raise DesignValidationError("name", f"a name of {len(self.name):,} characters; at most {MAX_NAME}")
        _check("ports_per_server", self.ports_per_server, 1, 1024)
        _check("port_gbps", self.port_gbps, 1, 102_400)
        _check("uplink_gbps", self.uplink_gbps, 1, 102_400)
        _check("oversubscription", self.oversubscription, 0.001, 1000, allow_none=False)
        _check("switches_per_rack", self.switches_per_rack, 1, 64)
        _check("storage_GBps_per_gpu", self.storage_GBps_per_gpu, 0, 10_000, allow_none=False)
        _check("storage_port_gbps", self.storage_port_gbps, 1, 102_400, allow_none=False)
        _check("uplinks_per_switch", self.uplinks_per_switch, 0, 64, allow_none=False)
        if self.role == "oob" and self.template != "per-rack":
            raise DesignValidationError("template", "an out-of-band network is built per rack ('per-rack')")
        if self.template == "per-rack" and self.role != "oob":
            raise DesignValidationError("template", "'per-rack' is the out-of-band template")
        if self.carried_by and self.carried_by not in CARRIERS:
            raise DesignValidationError("carried_by", f"must be one of {', '.join(CARRIERS)}, "
                                        f"got {quote(self.carried_by)}")
        if self.template == "segment" and self.carrier == self.role:
            raise DesignValidationError("carried_by", f"a '{self.role}' network cannot ride on itself")

    @property
    def label(self) -> str:
        return self.name or ROLE_LABELS[self.role]

    @property
    def carrier(self) -> str:
        """The role whose network carries this segment (converged unless the design says)."""
        return self.carried_by or "converged"


def check_networks(networks: tuple[NetworkSpec, ...]) -> None:
    """A design holds at most MAX_NETWORKS networks, one per role."""
    if len(networks) > MAX_NETWORKS:
        raise DesignValidationError("networks", f"{len(networks):,} networks; at most {MAX_NETWORKS}")
    seen: set[str] = set()
    for i, net in enumerate(networks):
        if net.role in seen:
            raise DesignValidationError(f"networks[{i}].role", f"a second '{net.role}' network; one per role")
        seen.add(net.role)
