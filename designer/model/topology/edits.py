"""Whole-design edits that the designer window offers: tier sizes, tier count, hardware, links.

Every function returns a new design (designs are immutable) and leaves the input alone.
Counts are per plane, as in the sizing plan. The functions do not check that the result can be
sized; callers that need a guarantee run `plan_only` on the result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from designer.catalog import Catalog, Switch, Technology
from designer.model.intent.design import Edit, FabricDesign, TierSpec, replace_path
from designer.model.topology.sizing import Plan, Resolved, SizingError, plan_fabric, resolve
from designer.model.topology.switch_choice import FabricCost, choose_switch

# Rows of the drawn fabric, top-down. "servers" is the server row below the leaves.
ROWS = ("core", "spine", "leaf", "servers")


def tier_count(design: FabricDesign, plan: Plan, tier: str) -> int:
    """Devices in one row of one plane (servers are shared by all planes)."""
    if tier == "servers":
        return design.cluster.servers
    return {"leaf": plan.leaves, "spine": plan.spines, "core": plan.cores}[tier]


def count_step(design: FabricDesign, plan: Plan, resolved: Resolved, tier: str) -> int:
    """The smallest change of a row's count that the sizing keeps as given.

    Rail-optimized leaves come in whole scalable units (one leaf per rail); in three tiers
    every pod has the same spines and every spine index the same core group.
    """
    if tier == "leaf" and design.fabric.template == "rail-optimized":
        return resolved.rails
    if tier == "spine" and plan.tiers == 3:
        return plan.pods
    if tier == "core" and plan.tiers == 3:
        return max(1, plan.spines_per_pod)
    return 1


def with_tier_count(design: FabricDesign, plan: Plan, resolved: Resolved, tier: str,
                    count: int | None) -> FabricDesign:
    """`design` with `count` devices per plane in row `tier`; None returns a switch tier to auto sizing.

    Rail-optimized leaves are one per rail of each scalable unit, so their count sets the
    number of units and with it the server count.
    """
    if tier == "servers":
        if count is None:
            raise ValueError("the server count has no automatic value")
        return replace_path(design, "cluster.servers", max(1, count))
    if tier not in ("leaf", "spine", "core"):
        raise ValueError(f"unknown tier '{tier}'")
    if count is not None and count <= 0:
        raise ValueError(f"a {tier} tier needs at least one switch")
    if tier == "leaf" and design.fabric.template == "rail-optimized":
        if count is None:
            return replace_path(design, "fabric.leaf.count", None)
        units = max(1, round(count / resolved.rails))
        return replace_path(design, "cluster.servers", units * design.fabric.nodes_per_su)
    return replace_path(design, f"fabric.{tier}.count", count)


def with_tiers(design: FabricDesign, tiers: int | None) -> FabricDesign:
    """`design` with a fixed tier count (2 or 3), or the smallest that fits (None)."""
    fabric = design.fabric
    if tiers == 2:
        # A core count override means nothing without a core tier.
        fabric = dataclasses.replace(fabric, core=dataclasses.replace(fabric.core, count=None))
    return dataclasses.replace(design, fabric=dataclasses.replace(fabric, tiers=tiers))


def _switch_fits(catalog: Catalog, switch_id: str, tech: Technology, speeds: tuple[int, ...]) -> bool:
    """The switch runs the technology's family and speeds, and finds paths its way: a switch that
    states its load-balancing modes must offer the technology's (a Tomahawk box does not spray
    cells, a Jericho3-AI leaf does nothing else), and spraying needs a switch that states it."""
    switch = catalog.switch(switch_id)
    paths = tech.placement in switch.load_balancing if switch.load_balancing else tech.placement != "spray"
    return switch.family in (tech.family, "any") and all(switch.ports_at(s) for s in speeds) and paths


def with_technology(design: FabricDesign, catalog: Catalog, technology: str,
                    cost: FabricCost | None = None) -> FabricDesign:
    """`design` on another fabric technology, with the link speeds and switches that go with it.

    A switch that cannot run the new family or speeds, or does not find paths the technology's
    way (see `_switch_fits`), gives way to the technology's switch of least `cost` (as `new` and
    `counterpart` choose); the servers and their NICs stay as chosen,
    so a NIC that cannot keep up shows as a finding rather than being swapped silently.
    """
    tech = catalog.technology(technology)
    server = catalog.server(design.cluster.server)
    port_gbps = design.cluster.port_gbps or server.port_gbps
    link = tech.link_gbps
    uplink = tech.uplink_gbps
    speeds = tuple(sorted({link, uplink}))
    f = design.fabric
    keep = _switch_fits(catalog, f.switch, tech, speeds)

    def tier(spec: TierSpec) -> TierSpec:
        if spec.switch and not _switch_fits(catalog, spec.switch, tech, speeds):
            return dataclasses.replace(spec, switch=None)
        return spec

    def build(switch: Switch) -> FabricDesign:
        fabric = dataclasses.replace(
            f, technology=tech.id, switch=switch.id,
            link_gbps=None if link == port_gbps else link,
            uplink_gbps=None if uplink == link else uplink,
            leaf=tier(f.leaf), spine=tier(f.spine), core=tier(f.core))
        made = dataclasses.replace(design, fabric=fabric)
        if fabric.rails_per_leaf:
            # Rails grouped on one leaf of the old switch may not fit the new one (two rails of a
            # 32-node SU on a 36-port scheduled-fabric leaf): one rail per leaf, as published.
            try:
                plan_fabric(made, resolve(made, catalog))
            except SizingError:
                made = dataclasses.replace(made, fabric=dataclasses.replace(fabric, rails_per_leaf=None))
        return made

    if keep:
        return build(catalog.switch(f.switch))
    return choose_switch(catalog, tech, build, cost).design


def with_server(design: FabricDesign, catalog: Catalog, server_id: str) -> FabricDesign:
    """`design` with another server model; per-server settings go back to the model's values,
    including its plane count (a two-plane server such as an Ethernet DGX B300 gets two)."""
    server = catalog.server(server_id)
    cluster = dataclasses.replace(design.cluster, server=server.id, gpus_per_server=None,
                                  ports_per_server=None, port_gbps=None, nic=None)
    fabric = dataclasses.replace(design.fabric, planes=server.planes_hint)
    return dataclasses.replace(design, cluster=cluster, fabric=fabric)


def add_links(design: FabricDesign, a: str, b: str, count: int = 1) -> FabricDesign:
    """`design` with `count` extra links between devices `a` and `b` (a manual edit)."""
    if a == b:
        raise ValueError("a link needs two different devices")
    return dataclasses.replace(design, edits=design.edits + (Edit("add-links", a, b, count),))


def remove_device(design: FabricDesign, device: str) -> FabricDesign:
    """`design` with one device (and its links) taken out of the fabric."""
    return dataclasses.replace(design, edits=design.edits + (Edit("remove-device", device),))


def without_edits(design: FabricDesign, indexes: Iterable[int]) -> FabricDesign:
    """`design` without the manual edits at the given positions of `design.edits`."""
    drop = set(indexes)
    return dataclasses.replace(design, edits=tuple(e for i, e in enumerate(design.edits) if i not in drop))
