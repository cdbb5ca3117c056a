"""Ceilings on the fabric a design asks for, checked by arithmetic before anything is built.

The sizing plan is a handful of integers; the device graph, the metrics per switch, the BOM and
the cabling plan grow with the counts it holds. Each is checked here first, so that a hostile or
mistyped design ("1e9 spines", "a 10^9-port switch") is refused in microseconds instead of
allocating gigabytes.

Each path has the ceiling of what it holds in memory:
- sizing and the closed forms (new, metrics, bom, collectives, compare, report, the Slurm
  exports, the window's metrics) hold arrays per server or per link class, never one object per
  link: 1,048,576 GPUs on four planes (4.2 million endpoints, 12.6 million links) measure in
  about 90 MB. Their ceilings (MAX_*) stand well above a million-GPU cluster;
- the device graph and the per-link exports (GraphML, DOT, draw.io, containerlab, NetBox,
  ibnetdiscover, NDT) hold or write an object per link: the graph takes about 1.1 KB per link
  (measured on the shipped 65,536-GPU k=64 fat tree: 196,608 links, ~210 MB), so GRAPH_MAX_LINKS,
  500,000 links, keeps it near half a gigabyte. Above it they are refused in one line that names
  the closed-form commands that still work (`check_per_link`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol, TypeVar

from designer.catalog import Switch
from designer.limits import MAX_RADIX, InputError
from designer.model.intent.design import FabricDesign


# What the ceilings read of sizing's Resolved and Plan. Sizing imports this module, so naming
# its classes here would make the two import each other.
class Resolved(Protocol):
    @property
    def leaf_switch(self) -> Switch: ...
    @property
    def spine_switch(self) -> Switch: ...
    @property
    def core_switch(self) -> Switch: ...
    @property
    def rails(self) -> int: ...
    @property
    def planes(self) -> int: ...


class Plan(Protocol):
    @property
    def leaves(self) -> int: ...
    @property
    def spines(self) -> int: ...
    @property
    def cores(self) -> int: ...
    @property
    def endpoints(self) -> int: ...
    @property
    def leaf_up(self) -> int: ...
    @property
    def spine_up(self) -> int: ...
    @property
    def tiers(self) -> int: ...

MAX_LINKS = 64_000_000       # physical links, all planes, manual edits included (closed forms)
MAX_SWITCHES = 250_000       # switches, all planes: each is listed, and drawn at the window's level of detail
MAX_ENDPOINTS = 16_777_216   # NIC ports attached to the fabric, all planes: 2^20 servers of 16 ports
MAX_PORTS = 128_000_000      # switch ports (radix x switches), all planes
GRAPH_MAX_LINKS = 500_000    # the device graph and the per-link exports
CLOSED_FORM_COMMANDS = ("new, metrics, bom, collectives, compare, report and the Slurm exports "
                        "(export --format slurm-tree, slurm-block or slurm-yaml)")


class FabricTooLargeError(InputError):
    """The design asks for more devices, links or ports than the stated ceilings."""


R = TypeVar("R", bound=Resolved)
P = TypeVar("P", bound=Plan)


def _refuse(what: str, count: int, ceiling: int, why: str) -> None:
    if count > ceiling:
        raise FabricTooLargeError(
            f"the design needs {count:,} {what}, above the ceiling of {ceiling:,} {what} ({why}); "
            "reduce the cluster, use fewer planes or larger switches", "", what)


def _radix(switch: Switch) -> int:
    return max((m.count for m in switch.port_modes), default=0)


def check_request(design: FabricDesign, r: Resolved) -> None:
    """Before sizing: the inputs whose loops or products the sizing would run over."""
    for tier, switch in (("leaf", r.leaf_switch), ("spine", r.spine_switch), ("core", r.core_switch)):
        if _radix(switch) > MAX_RADIX:
            raise FabricTooLargeError(f"{tier} switch {switch.name[:60]} has {_radix(switch):,} ports; "
                                      f"at most {MAX_RADIX:,} are supported", "", f"fabric.{tier}.switch")
    check_endpoints(design.cluster.servers * r.rails * r.planes)


def check_endpoints(endpoints: int) -> None:
    """The NIC ports a request attaches, against the closed forms' ceiling (also asked before
    anything is sized, from the request alone)."""
    _refuse("endpoints", endpoints, MAX_ENDPOINTS, "NIC ports attached to the fabric")


def plan_totals(design: FabricDesign, r: Resolved, plan: Plan) -> dict[str, int]:
    """Switches, links, endpoints and switch ports of the whole fabric, from the plan alone."""
    planes = r.planes
    switches = (plan.leaves + plan.spines + plan.cores) * planes
    per_plane_links = plan.endpoints + plan.leaves * plan.leaf_up
    if plan.tiers == 3:
        per_plane_links += plan.spines * plan.spine_up
    manual = sum(e.count for e in design.edits if e.op == "add-links")
    ports = (plan.leaves * _radix(r.leaf_switch) + plan.spines * _radix(r.spine_switch)
             + plan.cores * _radix(r.core_switch)) * planes
    return {"switches": switches, "links": per_plane_links * planes + manual,
            "endpoints": plan.endpoints * planes, "switch ports": ports}


def check_plan(design: FabricDesign, r: Resolved, plan: Plan) -> None:
    """After sizing, before anything is built or measured per device."""
    totals = plan_totals(design, r, plan)
    _refuse("switches", totals["switches"], MAX_SWITCHES, "each is drawn, measured and listed")
    _refuse("links", totals["links"], MAX_LINKS, "the closed forms hold arrays of links by class")
    _refuse("endpoints", totals["endpoints"], MAX_ENDPOINTS, "NIC ports attached to the fabric")
    _refuse("switch ports", totals["switch ports"], MAX_PORTS, "each port is planned and cabled")


def bounded(plan_fabric: Callable[[FabricDesign, R], P]) -> Callable[[FabricDesign, R], P]:
    """Wrap the sizing entry point: inputs checked before it runs, totals before it returns."""

    @functools.wraps(plan_fabric)
    def checked(design: FabricDesign, r: R) -> P:
        check_request(design, r)
        plan = plan_fabric(design, r)
        check_plan(design, r, plan)
        return plan

    return checked


def check_per_link(what: str, links: int) -> None:
    """Refuse `what` (the device graph, a per-link export) for a fabric above what it holds."""
    if links > GRAPH_MAX_LINKS:
        raise FabricTooLargeError(
            f"{what} holds at most {GRAPH_MAX_LINKS:,} links (about 1.1 KB each in memory) and this design has "
            f"{links:,}; these work on it in closed form: {CLOSED_FORM_COMMANDS}", "", "links")
