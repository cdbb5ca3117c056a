"""The template fabric's devices and links straight from the sizing plan, without a graph.

The exports that write one line per device or link (GraphML, DOT, NetBox) read a template
design from here instead of the networkx device graph: the same ids, attributes and port
numbers as `designer.model.topology.builders.build_graph` gives (a test holds them equal), as
tuples produced one at a time, so a 131,072-GPU fabric is written without holding a Python
object per link. Designs with edits, views of one SU or plane, and designs with other networks
go through the graph as before (`streamable`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import NamedTuple

from designer.model.topology.builders import _spread, leaf_assignment, nic_id, nodes_pod, plane_prefix
from designer.model.topology.derive import Derived


class Node(NamedTuple):
    id: str
    role: str
    level: int
    plane: int
    pod: int
    rail: int
    idx: int            # the builder's index of the switch in its tier
    model: str          # switch model id ("" for a NIC port)
    server: int         # NIC ports: server index from 0 (-1 for switches)
    port: int           # NIC ports: NIC port index from 0 (-1 for switches)


class Edge(NamedTuple):
    lower: str
    upper: str
    tier: str
    gbps: int
    pa: int
    pb: int


# Made from one tuple by tuple.__new__ itself, without the named tuple's Python-level __new__:
# a 131,072-GPU fabric has 262,144 switch links.
_edge = partial(tuple.__new__, Edge)


def streamable(derived: Derived, view_is_fabric: bool, other_networks: bool = False) -> bool:
    """Whether the design is its template (no edits) seen whole, so the plan describes it.

    `other_networks`: the writer adds the cluster's other networks itself (or leaves them out),
    so a design that has them streams its compute fabric all the same."""
    design = derived.design
    return view_is_fabric and not design.edits and (other_networks or not design.networks)


def switch_nodes(derived: Derived) -> Iterator[Node]:
    r, plan = derived.resolved, derived.plan
    e, planes = r.rails, r.planes
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    for plane in range(planes):
        pre = plane_prefix(plane, planes)
        for i in range(plan.leaves):
            pod = plan.leaf_su(i, e) if plan.rail_su_size else (i // leaves_per_pod if plan.tiers == 3 else 0)
            rail = plan.leaf_rail(i, e) if plan.rail_su_size else -1
            yield Node(f"{pre}leaf-{i + 1}", "leaf", 1, plane, pod, rail, i, r.leaf_switch.id, -1, -1)
        for i in range(plan.spines):
            pod = i // plan.spines_per_pod if plan.tiers == 3 else 0
            yield Node(f"{pre}spine-{i + 1}", "spine", 2, plane, pod, -1, i, r.spine_switch.id, -1, -1)
        for i in range(plan.cores):
            yield Node(f"{pre}core-{i + 1}", "core", 3, plane, -1, -1, i, r.core_switch.id, -1, -1)


def nic_links(derived: Derived) -> Iterator[tuple[Node, Edge]]:
    """Every NIC port with its link to its leaf, plane by plane in (server, rail) order."""
    r, plan = derived.resolved, derived.plan
    e, planes = r.rails, r.planes
    assignment = leaf_assignment(plan, e)
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    gbps = r.link_gbps
    for plane in range(planes):
        pre = plane_prefix(plane, planes)
        for idx, (leaf, port) in enumerate(assignment):
            server, rail = divmod(idx, e)
            global_port = plane * e + rail
            nic = nic_id(server, global_port)
            pod = server // plan.rail_su_size if plan.rail_su_size else nodes_pod(leaf, plan, leaves_per_pod)
            yield (Node(nic, "nic", 0, plane, pod, rail, idx, "", server, global_port),
                   Edge(nic, f"{pre}leaf-{leaf + 1}", "node-leaf", gbps, 1, port))


def nic_rows(derived: Derived) -> Iterator[tuple[int, int, int, int, int, int, str, int]]:
    """The same NIC ports as plain tuples, for writers of a million lines: (server, NIC port,
    plane, pod, rail, index, leaf id, leaf port), all from 0 but the leaf port."""
    r, plan = derived.resolved, derived.plan
    e, planes = r.rails, r.planes
    assignment = leaf_assignment(plan, e)
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    su = plan.rail_su_size
    pods = [nodes_pod(leaf, plan, leaves_per_pod) for leaf in range(plan.leaves)]
    for plane in range(planes):
        pre = plane_prefix(plane, planes)
        leaf_ids = [f"{pre}leaf-{i + 1}" for i in range(plan.leaves)]
        base = plane * e
        for idx, (leaf, port) in enumerate(assignment):
            server, rail = divmod(idx, e)
            yield (server, base + rail, plane, server // su if su else pods[leaf], rail, idx, leaf_ids[leaf], port)


def switch_links(derived: Derived) -> Iterator[Edge]:
    """Every leaf-spine and spine-core link, with the builder's port numbers."""
    r, plan = derived.resolved, derived.plan
    planes = r.planes
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    gbps = r.uplink_gbps
    for plane in range(planes):
        pre = plane_prefix(plane, planes)
        spine_used = [0] * plan.spines
        for i in range(plan.leaves):
            pod = i // leaves_per_pod if plan.tiers == 3 else 0
            first = pod * plan.spines_per_pod
            local = i - pod * leaves_per_pod
            up_port = plan.leaf_down
            leaf = f"{pre}leaf-{i + 1}"
            for t, links in enumerate(_spread(plan.leaf_up, plan.spines_per_pod, local * plan.leaf_up)):
                s = first + t
                spine = f"{pre}spine-{s + 1}"
                for _ in range(links):
                    up_port += 1
                    spine_used[s] = used = spine_used[s] + 1
                    yield _edge((leaf, spine, "leaf-spine", gbps, up_port, used))
        if plan.tiers == 3:
            core_used = [0] * plan.cores
            group = plan.core_groups_size
            for s in range(plan.spines):
                local = s % plan.spines_per_pod
                pod = s // plan.spines_per_pod
                up_port = plan.spine_down
                spine = f"{pre}spine-{s + 1}"
                for t, links in enumerate(_spread(plan.spine_up, group, pod * plan.spine_up)):
                    c = (local * group + t) % plan.cores
                    core = f"{pre}core-{c + 1}"
                    for _ in range(links):
                        up_port += 1
                        core_used[c] = used = core_used[c] + 1
                        yield _edge((spine, core, "spine-core", gbps, up_port, used))
