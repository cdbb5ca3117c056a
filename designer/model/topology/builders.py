"""Builders: wire a sizing plan into the device-level graph.

The graph is a networkx MultiGraph with one edge per physical link:
- nodes: NIC ports (role "nic", level 0) and switches (role "leaf"/"spine"/"core", level 1-3),
  with plane, pod (the SU for rail-optimized fabrics), rail and index;
- edges: `tier` ("node-leaf", "leaf-spine", "spine-core" or "manual"), `gbps`, `a` (the lower
  device), `pa` and `pb` (1-based port numbers on the lower and upper device).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from designer.limits import quote
from designer.model.intent.design import FabricDesign
from designer.model.topology.sizing import Plan, Resolved

if TYPE_CHECKING:   # networkx loads only where a graph is built or walked
    import networkx as nx


LEVEL = {"nic": 0, "leaf": 1, "spine": 2, "core": 3}


@dataclass(frozen=True)
class Build:
    graph: nx.MultiGraph[str]
    edit_problems: tuple[str, ...]


def plane_prefix(plane: int, planes: int) -> str:
    return f"p{plane + 1}." if planes > 1 else ""


def nic_id(server: int, port: int) -> str:
    return f"srv-{server + 1}.nic-{port + 1}"


@lru_cache(maxsize=4)
def leaf_assignment(plan: Plan, rails: int) -> tuple[tuple[int, int], ...]:
    """(leaf index, down port) for each endpoint of a plane, in (server, rail) order.

    Cached: the builder and several closed forms read it for the same plan.
    """
    return tuple(_assign(plan, rails))


def _assign(plan: Plan, rails: int) -> list[tuple[int, int]]:
    """(leaf, down port) of each endpoint, worked out on arrays: a 32,768-GPU plane has 32,768
    endpoints, and a design-space sweep builds hundreds of plans."""
    import numpy as np

    n, e = plan.servers, rails
    if plan.rail_su_size:
        server = np.repeat(np.arange(n, dtype=np.int64), e)
        rail = np.tile(np.arange(e, dtype=np.int64), n)
        leaf, port = plan.rail_leaf(server, rail, e), plan.rail_port(server, rail)
        return list(zip(leaf.tolist(), port.tolist(), strict=True))
    per_leaf = plan.leaf_down
    if e <= per_leaf and per_leaf % e == 0 and plan.leaves * (per_leaf // e) >= n:
        # Keep each server's ports on one leaf, spreading servers evenly over the leaves: the
        # servers on a leaf are consecutive, each taking the next e ports.
        server_leaf = np.arange(n, dtype=np.int64) * plan.leaves // n
        before = np.arange(n, dtype=np.int64) - np.searchsorted(server_leaf, server_leaf, side="left")
        leaf = np.repeat(server_leaf, e)
        port = (np.repeat(before * e, e) + np.tile(np.arange(1, e + 1, dtype=np.int64), n))
        return list(zip(leaf.tolist(), port.tolist(), strict=True))
    total = n * e
    leaf = np.arange(total, dtype=np.int64) * plan.leaves // total
    port = np.arange(total, dtype=np.int64) - np.searchsorted(leaf, leaf, side="left") + 1
    return list(zip(leaf.tolist(), port.tolist(), strict=True))


def _spread(count: int, targets: int, offset: int) -> list[int]:
    """Links from one device to each of `targets` devices above it, as evenly as possible
    (none when there is no tier above: a one-tier fabric)."""
    if targets <= 0:
        return []
    base, rem = divmod(count, targets)
    return [base + (1 if (t - offset) % targets < rem else 0) for t in range(targets)]


def build_graph(design: FabricDesign, r: Resolved, plan: Plan) -> Build:
    import networkx as nx
    g: nx.MultiGraph[str] = nx.MultiGraph(name=design.meta.name)
    nodes: list[tuple[str, dict[str, Any]]] = []
    edges: list[tuple[str, str, dict[str, Any]]] = []
    e, planes = r.rails, r.planes
    assignment = leaf_assignment(plan, e)
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    s_d, s_u = r.link_gbps, r.uplink_gbps
    for plane in range(planes):
        pre = plane_prefix(plane, planes)
        leaf_ids = [f"{pre}leaf-{i + 1}" for i in range(plan.leaves)]
        spine_ids = [f"{pre}spine-{i + 1}" for i in range(plan.spines)]
        core_ids = [f"{pre}core-{i + 1}" for i in range(plan.cores)]
        for i, leaf in enumerate(leaf_ids):
            # A rail-optimized leaf's pod is its SU (the same as its spine pod unless a rack-scale
            # SU splits into one spine-leaf group per rail).
            pod = plan.leaf_su(i, e) if plan.rail_su_size else (i // leaves_per_pod if plan.tiers == 3 else 0)
            nodes.append((leaf, {"role": "leaf", "level": 1, "plane": plane, "pod": pod, "index": i,
                                 "rail": plan.leaf_rail(i, e) if plan.rail_su_size else -1,
                                 "model": r.leaf_switch.id}))
        for i, spine in enumerate(spine_ids):
            nodes.append((spine, {"role": "spine", "level": 2, "plane": plane, "index": i,
                                  "pod": i // plan.spines_per_pod if plan.tiers == 3 else 0,
                                  "rail": -1, "model": r.spine_switch.id}))
        for i, core in enumerate(core_ids):
            nodes.append((core, {"role": "core", "level": 3, "plane": plane, "pod": -1, "index": i,
                                 "rail": -1, "model": r.core_switch.id}))
        for idx, (leaf_index, port) in enumerate(assignment):
            server, rail = divmod(idx, e)
            global_port = plane * e + rail
            nic = nic_id(server, global_port)
            pod = server // plan.rail_su_size if plan.rail_su_size else nodes_pod(leaf_index, plan, leaves_per_pod)
            nodes.append((nic, {"role": "nic", "level": 0, "plane": plane, "pod": pod, "index": idx,
                                "rail": rail, "server": server, "port": global_port}))
            edges.append((nic, leaf_ids[leaf_index], {"tier": "node-leaf", "gbps": s_d, "a": nic, "pa": 1, "pb": port}))

        spine_used = [0] * plan.spines
        for i, leaf in enumerate(leaf_ids):
            pod = i // leaves_per_pod if plan.tiers == 3 else 0
            first = pod * plan.spines_per_pod
            local = i - pod * leaves_per_pod
            up_port = plan.leaf_down
            for t, links in enumerate(_spread(plan.leaf_up, plan.spines_per_pod, local * plan.leaf_up)):
                s = first + t
                for _ in range(links):
                    up_port += 1
                    spine_used[s] += 1
                    edges.append((leaf, spine_ids[s], {"tier": "leaf-spine", "gbps": s_u, "a": leaf,
                                                       "pa": up_port, "pb": spine_used[s]}))
        if plan.tiers == 3:
            core_used = [0] * plan.cores
            group = plan.core_groups_size
            for s, spine in enumerate(spine_ids):
                local = s % plan.spines_per_pod
                pod = s // plan.spines_per_pod
                up_port = plan.spine_down
                for t, links in enumerate(_spread(plan.spine_up, group, pod * plan.spine_up)):
                    c = (local * group + t) % plan.cores
                    for _ in range(links):
                        up_port += 1
                        core_used[c] += 1
                        edges.append((spine, core_ids[c], {"tier": "spine-core", "gbps": s_u, "a": spine,
                                                           "pa": up_port, "pb": core_used[c]}))
    _fill(g, nodes, edges)
    problems = apply_edits(g, design, s_u)
    return Build(g, problems)


def _fill(g: nx.MultiGraph[str], nodes: list[tuple[str, dict[str, Any]]],
          edges: list[tuple[str, str, dict[str, Any]]]) -> None:
    """Put the template's nodes and edges into the new, empty graph.

    This writes networkx's adjacency dicts directly: the same structure `add_nodes_from` and
    `add_edges_from` make (keys 0, 1, ... per pair, one attribute dict per edge, shared by both
    directions), at a third of the cost, which is most of the build time of a 65,536-GPU fabric.
    The attribute dicts are fresh for every node and edge, so nothing is shared that networkx
    would copy. A graph class with other dict factories goes through the public methods.
    """
    import networkx as nx
    internals: Any = g   # the factories and adjacency dicts below are networkx's, not in its stubs
    plain = (type(g) is nx.MultiGraph and g.number_of_nodes() == 0 and internals.node_attr_dict_factory is dict
             and internals.adjlist_inner_dict_factory is dict and internals.edge_key_dict_factory is dict
             and internals.edge_attr_dict_factory is dict)
    if not plain:
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
        return
    node_attrs, adj = internals._node, internals._adj
    for node, attrs in nodes:
        node_attrs[node] = attrs
        adj[node] = {}
    for u, v, data in edges:
        keys = adj[u].get(v)
        if keys is None:
            keys = adj[u][v] = adj[v][u] = {}
        keys[len(keys)] = data
    clear = getattr(nx, "_clear_cache", None)   # networkx 3.3+ caches views of a graph
    if clear is not None:
        clear(g)


def nodes_pod(leaf: int, plan: Plan, leaves_per_pod: int) -> int:
    return leaf // leaves_per_pod if plan.tiers == 3 else 0


def _next_port(g: nx.MultiGraph[str], node: str) -> int:
    used = [d["pa"] if d["a"] == node else d["pb"] for _, _, d in g.edges(node, data=True)]
    return max(used, default=0) + 1


def apply_edits(g: nx.MultiGraph[str], design: FabricDesign, gbps: int) -> tuple[str, ...]:
    """Apply the design's manual edits in order; returns a description of each one that failed.

    Each device's next free port number is found once (one pass over its links) and then
    counted on, so adding n links costs O(n), not O(n x links of the device).
    """
    problems = []
    next_port: dict[str, int] = {}

    def take_port(node: str) -> int:
        if node not in next_port:
            next_port[node] = _next_port(g, node)
        next_port[node] += 1
        return next_port[node] - 1

    for n, edit in enumerate(design.edits, start=1):
        names = (edit.a,) if edit.op == "remove-device" else (edit.a, edit.b)
        missing = [x for x in names if not x or x not in g]
        if missing:
            problems.append(f"edit {n} ({edit.op}) names unknown device {quote(missing[0], 60)}")
            continue
        if edit.op == "remove-device":
            g.remove_node(edit.a)
            next_port.pop(edit.a, None)
        elif edit.op == "add-links":
            if edit.a == edit.b:
                problems.append(f"edit {n} (add-links) links {quote(edit.a, 60)} to itself")
                continue
            lo, hi = sorted((edit.a, edit.b), key=lambda x: g.nodes[x]["level"])
            g.add_edges_from((lo, hi, {"tier": "manual", "gbps": gbps, "a": lo, "pa": take_port(lo),
                                       "pb": take_port(hi)}) for _ in range(edit.count))
        elif edit.op == "remove-links":
            keys = list(g[edit.a][edit.b]) if g.has_edge(edit.a, edit.b) else []
            if len(keys) < edit.count:
                problems.append(f"edit {n} removes {edit.count} links between {quote(edit.a, 60)} and "
                                f"{quote(edit.b, 60)}, which have {len(keys)}")
            for key in keys[-edit.count:]:
                g.remove_edge(edit.a, edit.b, key)
    return tuple(problems)
