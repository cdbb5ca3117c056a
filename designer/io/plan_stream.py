"""The template fabric's devices and links straight from the sizing plan, without a graph.

The exports that write one line per device or link (GraphML, DOT, NetBox) read a template
design from here instead of the networkx device graph: the same ids, attributes and port
numbers as `designer.model.topology.builders.build_graph` gives (a test holds them equal), as
tuples produced one at a time or as columns (`nic_columns`, `switch_link_columns`, for writers
that put rows together a block at a time), so a 131,072-GPU fabric is written without holding a
Python object per link. Designs with edits, views of one SU or plane, and designs with other networks
go through the graph as before (`streamable`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from itertools import chain, repeat
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from designer.model.topology.builders import leaf_assignment, nic_id, nodes_pod, plane_prefix
from designer.model.topology.derive import Derived
from designer.model.topology.edited_fabric import SwitchPairs, assignment_columns


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


def nic_columns(derived: Derived) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The NIC ports of one plane as arrays in (server, rail) order, the same in every plane:
    (leaf index, leaf port, pod), all from 0 but the leaf port (as `nic_rows`)."""
    r, plan = derived.resolved, derived.plan
    e = r.rails
    leaf, port = assignment_columns(SwitchPairs(plan, r), leaf_assignment(plan, e))
    if plan.rail_su_size:
        pod = np.arange(len(leaf), dtype=np.int64) // e // plan.rail_su_size
    elif plan.tiers == 3:
        pod = leaf // plan.leaves_per_pod
    else:
        pod = np.zeros(len(leaf), dtype=np.int64)
    return leaf, port, pod


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
    """Every leaf-spine and spine-core link, with the builder's port numbers.

    At 131,072 GPUs that is 262,144 links, which a loop per link took a quarter of a second to
    yield: they are made from `switch_link_columns`, one tuple per link made in C."""
    gbps = derived.resolved.uplink_gbps
    # chained in C: no generator frame resumed per link
    return chain.from_iterable(
        map(_edge, zip(lower, upper, repeat(tier), repeat(gbps), up_port.tolist(), used.tolist()))
        for lower, upper, tier, up_port, used in switch_link_columns(derived))


def switch_link_columns(derived: Derived) -> Iterator[tuple[list[str], list[str], str, np.ndarray, np.ndarray]]:
    """The same links as columns, plane by plane and tier by tier: (lower ids, upper ids, tier,
    the lower switch's port, the upper switch's port), ports numbered from 1.

    One plane's links are worked out as arrays (the builder's spread of each switch's uplinks,
    its up ports in turn, the upper switch's ports in the order links reach it); every plane
    repeats them under its own prefix."""
    r, plan = derived.resolved, derived.plan
    planes = r.planes
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    li = np.arange(plan.leaves, dtype=np.int64)
    pod = li // leaves_per_pod if plan.tiers == 3 else np.zeros_like(li)
    leaf, t = _spread_links(plan.leaves, plan.leaf_up, plan.spines_per_pod, (li - pod * leaves_per_pod) * plan.leaf_up)
    spine = pod[leaf] * plan.spines_per_pod + t
    blocks = [("leaf", leaf, "spine", spine, "leaf-spine", plan.leaf_down)]
    if plan.tiers == 3:
        si = np.arange(plan.spines, dtype=np.int64)
        group = plan.core_groups_size
        upper, t = _spread_links(plan.spines, plan.spine_up, group, (si // plan.spines_per_pod) * plan.spine_up)
        core = ((upper % plan.spines_per_pod) * group + t) % plan.cores if plan.cores else t
        blocks.append(("spine", upper, "core", core, "spine-core", plan.spine_down))
    columns = [(lower_tier, lower.tolist(), upper_tier, upper.tolist(), tier,
                first_up + 1 + _rank_within(lower), 1 + _rank_within(upper))
               for lower_tier, lower, upper_tier, upper, tier, first_up in blocks]
    for plane in range(planes):
        pre = plane_prefix(plane, planes)
        names = {name: [f"{pre}{name}-{i + 1}" for i in range(count)]
                 for name, count in (("leaf", plan.leaves), ("spine", plan.spines), ("core", plan.cores))}
        for lower_tier, lower_i, upper_tier, upper_i, tier, up_port, used in columns:
            yield (list(_picked(names[lower_tier], lower_i)), list(_picked(names[upper_tier], upper_i)), tier,
                   up_port, used)


def _spread_links(owners: int, count: int, targets: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_spread(count, targets, offset)` of each owner, one entry per link: (owner, target), owner
    by owner and target by target, as the builder adds them."""
    if targets <= 0 or owners <= 0:   # no tier above (a one-tier fabric)
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    base, rem = divmod(count, targets)
    t = np.arange(targets, dtype=np.int64)
    per = base + (((t[None, :] - offsets[:, None]) % targets) < rem).astype(np.int64)
    flat = per.ravel()
    return (np.repeat(np.repeat(np.arange(owners, dtype=np.int64), targets), flat),
            np.repeat(np.tile(t, owners), flat))


def _rank_within(keys: np.ndarray) -> np.ndarray:
    """0-based count of the entries before each one with the same key."""
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    start = np.r_[0, np.flatnonzero(ranked[1:] != ranked[:-1]) + 1] if len(keys) else np.zeros(0, np.int64)
    out = np.empty(len(keys), dtype=np.int64)
    out[order] = np.arange(len(keys)) - np.repeat(start, np.diff(np.r_[start, len(keys)]))
    return out


def _picked(names: list[str], index: list[int]) -> Iterable[str]:
    """names[i] for each i, looked up in C."""
    if len(index) > 1:
        picked: tuple[str, ...] = itemgetter(*index)(names)
        return picked
    return [names[i] for i in index]
