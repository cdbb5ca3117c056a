"""The networks a reference architecture gives a server model, for `new` and the window.

The choice follows the ports the server entry states per role (catalog `role_ports`, sourced):
- storage and in-band ports (the DGX SuperPOD pattern, e.g. DGX H100): an InfiniBand NDR storage
  fabric (QM9700), an in-band Ethernet network (SN4600C) and out-of-band management (SN2201);
- converged ports (the Enterprise RA pattern: HGX, DGX B200/B300, NVL72): one converged Ethernet
  network (Spectrum-4 SN5600) and out-of-band management (SN2201).
A server entry with no role ports gets none: the design stays compute only.
"""

from __future__ import annotations

from typing import Literal

from designer.catalog.entries import Server
from designer.model.intent.networks import NetworkSpec

Arrangement = Literal["ra", "compute", "hybrid", "ethernet", "merged"]
ARRANGEMENTS: tuple[str, ...] = ("ra", "compute", "hybrid", "ethernet", "merged")
ARRANGEMENT_LABELS = {
    "ra": "as the reference architecture gives it",
    "compute": "compute fabric only",
    "hybrid": "separate compute fabric, Ethernet converged/storage",
    "ethernet": "all-Ethernet: Ethernet compute fabric and Ethernet converged/storage",
    "merged": "compute merged into the converged Ethernet fabric",
}

OOB = NetworkSpec(role="oob", template="per-rack", switch="sn2201")


def ra_networks(server: Server) -> tuple[NetworkSpec, ...]:
    """The reference architecture's networks for this server model (empty: compute only)."""
    if server.ports_for("storage") and server.ports_for("inband"):
        return (NetworkSpec(role="storage", technology="ib-ndr", switch="qm9700"),
                NetworkSpec(role="inband", technology="ethernet", switch="sn4600c"),
                OOB)
    if server.ports_for("converged"):
        return (NetworkSpec(role="converged", technology="ethernet", switch="sn5600"), OOB)
    return ()


def converged_networks(server: Server, merged: bool = False) -> tuple[NetworkSpec, ...]:
    """One converged Ethernet network (storage and in-band on it) plus OOB, for any server with
    converged or storage ports; `merged` puts the converged ports on the compute fabric."""
    stated = server.ports_for("converged") or server.ports_for("storage")
    if stated is None:
        return ()
    conv = NetworkSpec(role="converged", technology="ethernet", switch="sn5600",
                       template="merged" if merged else "leaf-pair-spine",
                       ports_per_server=stated.count, port_gbps=stated.gbps)
    return (conv, OOB)
