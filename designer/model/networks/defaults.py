"""The networks a reference architecture gives a server model, for `new` and the window.

The choice follows the ports the server entry states per role (catalog `role_ports`, sourced):
- storage and in-band ports (the DGX SuperPOD pattern, e.g. DGX H100): an InfiniBand NDR storage
  fabric (QM9700), an in-band Ethernet network (SN4600C) and out-of-band management (SN2201);
- converged ports (the Enterprise RA pattern: HGX, DGX B200/B300, NVL72): one converged Ethernet
  network (Spectrum-4 SN5600), in-band management as a segment of it where the server entry says
  its in-band rides the converged ports (`carried_by`; no switches of its own), and out-of-band
  management (SN2201).
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


def inband_segment(server: Server, carrier: str = "converged", any_inband: bool = False) -> tuple[NetworkSpec, ...]:
    """In-band management as a segment of `carrier`, where the server entry states its in-band
    ports ride the converged ports; with `any_inband`, also where the RA gives in-band ports of
    their own (an arrangement that folds in-band into the converged network). Empty otherwise."""
    stated = server.ports_for("inband")
    if stated is None or (stated.carried_by != "converged" and not any_inband):
        return ()
    return (NetworkSpec(role="inband", template="segment", technology="ethernet", switch="sn5600",
                        carried_by="" if carrier == "converged" else carrier),)


def ra_networks(server: Server) -> tuple[NetworkSpec, ...]:
    """The reference architecture's networks for this server model (empty: compute only)."""
    if server.ports_for("storage") and server.ports_for("inband"):
        return (NetworkSpec(role="storage", technology="ib-ndr", switch="qm9700"),
                NetworkSpec(role="inband", technology="ethernet", switch="sn4600c"),
                OOB)
    if server.ports_for("converged"):
        return (NetworkSpec(role="converged", technology="ethernet", switch="sn5600"),
                *inband_segment(server), OOB)
    return ()


def converged_networks(server: Server, merged: bool = False) -> tuple[NetworkSpec, ...]:
    """One converged Ethernet network (storage and in-band on it; in-band shown as its segment where
    the server entry says so) plus OOB, for any server with converged or storage ports; `merged`
    puts the converged ports on the compute fabric."""
    stated = server.ports_for("converged") or server.ports_for("storage")
    if stated is None:
        return ()
    conv = NetworkSpec(role="converged", technology="ethernet", switch="sn5600",
                       template="merged" if merged else "leaf-pair-spine",
                       ports_per_server=stated.count, port_gbps=stated.gbps)
    return (conv, *inband_segment(server, any_inband=True), OOB)
