"""Slurm topology files: topology.conf for the tree or block plugin, and topology.yaml.

Formats (SchedMD/slurm doc/man/man5/topology.conf.5 and topology.yaml.5):
- tree: `SwitchName=<name> Nodes=<hostlist>` for a leaf, `SwitchName=<name> Switches=<hostlist>`
  above it;
- block: `BlockName=<name> Nodes=<hostlist>` and `BlockSizes=<base>,<2^k x base>,...`;
- topology.yaml: a list of topologies, each `topology: <name>` with one of `tree: {switches:
  [{switch, children, nodes}]}` or `block: {block_sizes, blocks: [{block, nodes}]}`. When
  topology.yaml exists, Slurm ignores topology.conf.

How the fabric becomes a tree (Slurm's topology guide: list the leaf switches with their
nodes plus the levels above, so that every node sits under exactly one leaf):
- Leaves that share a server are one switch to Slurm. In a rail-optimized SU every server has
  a port on each rail leaf, so the SU's rail leaves become one switch named after the SU (every
  node of the SU reaches every other in one hop on any rail). With several planes, the leaves
  of all planes that serve the same servers merge the same way: one tree for the fabric.
- Spines that serve the same leaf groups become one switch (a pod, or the spine tier of a
  two-tier fabric), and cores likewise above them. Names never contain a period, which Slurm
  uses to separate the levels of SLURM_TOPOLOGY_ADDR.
- Blocks (topology/block) are the leaf groups: the SUs of a rail-optimized fabric, else the
  servers of one leaf, in node order so that neighbouring blocks pair into larger ones.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from designer import __version__
from designer.io import hostlist
from designer.io.export_source import ExportError, ExportSource, safe_id
from designer.io.markup import one_line, yaml_str
from designer.model.common.arrays import sorted_distinct

TIER_PLURAL = {"leaf": "leaves", "spine": "spines", "core": "cores"}


@dataclass
class SlurmSwitch:
    name: str
    level: int                                  # 1 leaf group, 2 spine group, 3 core group
    members: list[str]                          # fabric switches it stands for
    nodes: list[str] = field(default_factory=list)      # leaf groups only
    children: list[str] = field(default_factory=list)   # names of the groups below
    first_server: int = 0


@dataclass
class SlurmTopology:
    switches: list[SlurmSwitch]                 # leaf groups first, then upwards
    blocks: list[tuple[str, list[str]]]         # (block name, node names), in node order
    block_sizes: list[int]
    notes: list[str]

    @property
    def roots(self) -> list[SlurmSwitch]:
        below = {c for s in self.switches for c in s.children}
        return [s for s in self.switches if s.name not in below]


def _leaves_of_servers(src: ExportSource) -> tuple[np.ndarray, np.ndarray]:
    """(server, leaf device) of every server-to-leaf link in the view, once per pair: the
    template's node-to-leaf map as arrays, the endpoints the edits touched from their links."""
    w = src.wiring
    kind = src.view[0]
    planes = [src.view_index] if kind == "plane" else range(w.planes)
    servers: list[np.ndarray] = []
    leaves: list[np.ndarray] = []
    held = w.edited
    server_of_idx = np.arange(w.endpoints, dtype=np.int64) // w.rails
    for p in planes:
        first = w.nic(p, 0)
        leaf = w.leaves_of_servers(p)
        keep = np.ones(w.endpoints, dtype=bool)
        touched = [node - first for node in held if first <= node < first + w.endpoints]
        keep[touched] = False
        if held:
            # A removed leaf, or one whose endpoint links the edits changed, is read link by link.
            keep &= ~np.isin(leaf, np.fromiter(held, dtype=np.int64, count=len(held)))
        if kind == "su":
            members = src.wired_members
            keep &= np.array([first + k in members and lf in members for k, lf in enumerate(leaf.tolist())],
                             dtype=bool)
        servers.append(server_of_idx[keep])
        leaves.append(leaf[keep])
    extra_s: list[int] = []
    extra_l: list[int] = []
    for node in held:
        if not w.alive(node) or not src.wired_in_view(node):
            continue
        role = w.role(node)
        if role not in ("nic", "leaf"):
            continue
        for nbr, _links in w.adjacency(node):
            nic, lower_leaf = (node, nbr) if role == "nic" else (nbr, node)
            if w.role(nic) == "nic" and w.role(lower_leaf) == "leaf" and src.wired_in_view(nbr):
                extra_s.append(w.server_port(nic)[0])
                extra_l.append(lower_leaf)
    servers.append(np.array(extra_s, dtype=np.int64))
    leaves.append(np.array(extra_l, dtype=np.int64))
    keys = sorted_distinct(np.concatenate(servers) * w.n + np.concatenate(leaves))
    return keys // w.n, keys % w.n


def _components(servers: np.ndarray, leaves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Leaves tied together by shared servers: (distinct leaves, a component label for each),
    by minimum labels with pointer jumping (a few rounds of numpy, whatever the fabric's size)."""
    uniq, leaf_ix = np.unique(leaves, return_inverse=True)
    label = np.arange(len(uniq), dtype=np.int64)
    server_ix = np.unique(servers, return_inverse=True)[1]
    while True:
        smallest = np.full(int(server_ix.max()) + 1, len(uniq), dtype=np.int64)
        np.minimum.at(smallest, server_ix, label[leaf_ix])
        new = label.copy()
        np.minimum.at(new, leaf_ix, smallest[server_ix])
        np.minimum.at(new, label, new)          # hook each root to the smallest label it met
        while True:
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, label):
            return uniq, label
        label = new


def build_topology(src: ExportSource) -> SlurmTopology:
    """The tree and blocks of the design's view, from the plan's wiring (no device graph)."""
    w = src.wiring
    server_arr, leaf_arr = _leaves_of_servers(src)
    if not len(server_arr):
        raise ExportError("no server in this view is connected to a leaf; Slurm needs nodes under leaf switches")

    # Level 1: leaves tied together by shared servers.
    leaves, label = _components(server_arr, leaf_arr)
    by_label = np.argsort(label, kind="stable")            # leaves ascending within each group
    cuts = np.flatnonzero(np.diff(label[by_label])) + 1
    groups = {int(label[part[0]]): leaves[part].tolist() for part in np.split(by_label, cuts) if len(part)}
    # each group's servers, sorted and once each
    pair_label = label[np.searchsorted(leaves, leaf_arr)]
    keys = sorted_distinct(pair_label * (int(server_arr.max()) + 1) + server_arr)
    key_label, key_server = np.divmod(keys, int(server_arr.max()) + 1)
    cuts = np.flatnonzero(np.diff(key_label)) + 1
    servers_of = {int(key_label[part[0]]): key_server[part].tolist()
                  for part in np.split(np.arange(len(keys)), cuts) if len(part)}
    level1 = sorted(groups.items(), key=lambda kv: servers_of[kv[0]][0])
    all_leaves = sum(len(m) for _, m in level1)
    switches: list[SlurmSwitch] = []
    group_of: dict[int, str] = {}
    taken: set[str] = set()
    for k, (root, members) in enumerate(level1):
        name = _unique(_group_name(src, "leaf", members, k, len(level1), all_leaves), taken)
        servers = servers_of[root]
        switches.append(SlurmSwitch(name, 1, [w.name(m) for m in members], [src.host(s) for s in servers],
                                    first_server=servers[0]))
        for leaf in members:
            group_of[leaf] = name

    # Levels 2 and 3: switches above that serve the same groups merge into one.
    below_groups = {s.name: s for s in switches}
    for level, role in ((2, "spine"), (3, "core")):
        names = list(dict.fromkeys(group_of.values()))
        group_ix = {name: k for k, name in enumerate(names)}
        lowers = np.fromiter(group_of, dtype=np.int64, count=len(group_of))
        low_arr, u_arr = w.links_above(lowers)
        group_code = np.fromiter((group_ix[g] for g in group_of.values()), dtype=np.int64, count=len(group_of))
        by_device = np.argsort(lowers)
        g_arr = group_code[by_device[np.searchsorted(lowers, low_arr, sorter=by_device)]]
        keep = w.pairs.level[u_arr] == level
        kind = src.view[0]
        if kind == "plane":
            keep &= u_arr // w.pairs.per_plane == src.view_index
        elif kind == "su":
            keep &= np.isin(u_arr, np.fromiter(src.wired_members, dtype=np.int64))
        g_arr, u_arr = g_arr[keep], u_arr[keep]
        if not len(u_arr):
            break
        first_upper = dict(zip(g_arr[::-1].tolist(), u_arr[::-1].tolist(), strict=True))  # the first wins
        uppers, label = _components(g_arr, u_arr)
        root_of = dict(zip(uppers.tolist(), label.tolist(), strict=True))
        up_groups: dict[int, list[int]] = defaultdict(list)
        for u in sorted(uppers.tolist(), key=lambda v: (w.plane(v), w.local(v))):
            up_groups[root_of[u]].append(u)
        children: dict[int, list[str]] = defaultdict(list)
        for child in below_groups.values():
            k = group_ix.get(child.name, -1)
            if k in first_upper:
                children[root_of[first_upper[k]]].append(child.name)
        ordered = sorted(up_groups.items(), key=lambda kv: min(below_groups[c].first_server for c in children[kv[0]]))
        total = sum(len(m) for m in up_groups.values())
        new_groups = {}
        group_of = {}
        for k, (root, members) in enumerate(ordered):
            name = _unique(_group_name(src, role, members, k, len(ordered), total), taken)
            kids = children[root]
            sw = SlurmSwitch(name, level, [w.name(m) for m in members], children=kids,
                             first_server=min(below_groups[c].first_server for c in kids))
            switches.append(sw)
            new_groups[name] = sw
            for u in members:
                group_of[u] = name
        below_groups = new_groups

    blocks = [(s.name, s.nodes) for s in switches if s.level == 1]
    sizes = block_sizes([len(n) for _, n in blocks])
    notes = _notes(src, switches, blocks, sizes)
    linked = set(sorted_distinct(server_arr).tolist())
    loose = [src.host(s) for s in src.wired_servers if s not in linked]
    if loose:
        notes.append(f"Not under any switch (no link to a leaf in this design): {hostlist.compress(loose)}.")
    return SlurmTopology(switches, blocks, sizes, notes)


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or `name-2`, `name-3` ... when an edited fabric gives two groups the same name."""
    out, k = name, 1
    while out in taken:
        k += 1
        out = f"{name}-{k}"
    taken.add(out)
    return out


def _group_name(src: ExportSource, role: str, members: list[int], k: int, count: int, tier_total: int) -> str:
    w = src.wiring
    pods = {w.pod(m) for m in members}
    # a switch id without its plane prefix: its tier and number within the plane
    bases = {f"{w.role(m)}-{w.local(m) + 1}" for m in members}
    if role == "leaf" and src.rail_optimized and len(pods) == 1 and len(members) > 1:
        return f"su-{next(iter(pods)) + 1}"
    if len(bases) == 1:
        return safe_id(next(iter(bases)))
    if role == "spine" and len(pods) == 1 and src.plan.tiers == 3:
        return f"pod-{next(iter(pods)) + 1}"
    if count == 1 and len(members) == tier_total:
        return TIER_PLURAL[role]
    return f"{role}-group-{k + 1}"


def block_sizes(sizes: list[int]) -> list[int]:
    """The planning base (the smallest block, so that every block holds at least that many
    nodes) and each doubling of it up to the nodes of all blocks together."""
    if not sizes:
        return []
    base, total = min(sizes), sum(sizes)
    out = [base]
    while out[-1] * 2 <= total:
        out.append(out[-1] * 2)
    return out


def _notes(src: ExportSource, switches: list[SlurmSwitch], blocks: list[tuple[str, list[str]]],
           sizes: list[int]) -> list[str]:
    notes = []
    if src.rail_optimized:
        notes.append("Rail-optimized: the rail leaves of each scalable unit are one switch to Slurm "
                     "(every node of an SU reaches the others in one hop on each rail).")
    if src.resolved.planes > 1:
        notes.append(f"{src.resolved.planes} planes: the leaves of every plane that serve the same "
                     "nodes are one switch, so the file describes one tree for the fabric.")
    below = {c for x in switches for c in x.children}
    roots = [s for s in switches if s.name not in below]
    if len(roots) > 1:
        notes.append(f"The fabric has {len(roots)} separate parts: no job spans them.")
    largest = max(len(n) for _, n in blocks)
    small = [name for name, n in blocks if len(n) < largest]
    if small:
        notes.append(f"Block(s) {', '.join(small[:4])}{' ...' if len(small) > 4 else ''} hold fewer nodes "
                     f"than the others; the planning base block size is the smallest, {sizes[0]}.")
    return notes


def _header(src: ExportSource, what: str, topo: SlurmTopology) -> list[str]:
    nodes = sum(len(s.nodes) for s in topo.switches if s.level == 1)
    lines = [f"Slurm {what} for \"{one_line(src.name, 120)}\" ({src.view_label})",
             f"Written by Fabric Designer {__version__}: {nodes:,} node(s) under "
             f"{sum(1 for s in topo.switches if s.level == 1):,} leaf switch(es) as Slurm sees them.",
             f"Node names follow the pattern {one_line(src.options.node_pattern, 80)}.",
             *topo.notes]
    return [f"# {line}" for line in lines]


def topology_conf_tree(src: ExportSource) -> str:
    topo = build_topology(src)
    r = src.derived.resolved
    lines = _header(src, "topology.conf (TopologyPlugin=topology/tree)", topo)
    # LinkSpeed is the speed of the links below each switch, in Gb/s (Slurm takes any unit and
    # shows it in `scontrol show topology`; without it, it shows LinkSpeed=1).
    lines.append(f"# LinkSpeed in Gb/s: {r.link_gbps} to the nodes, {r.uplink_gbps} between switches.")
    for s in topo.switches:
        if s.level == 1:
            lines.append(f"SwitchName={s.name} Nodes={hostlist.compress(s.nodes)} LinkSpeed={r.link_gbps}")
        else:
            lines.append(f"SwitchName={s.name} Switches={hostlist.compress(s.children)} LinkSpeed={r.uplink_gbps}")
    return "\n".join(lines) + "\n"


def topology_conf_block(src: ExportSource) -> str:
    topo = build_topology(src)
    lines = _header(src, "topology.conf (TopologyPlugin=topology/block)", topo)
    for name, nodes in topo.blocks:
        lines.append(f"BlockName={name} Nodes={hostlist.compress(nodes)}")
    lines.append("BlockSizes=" + ",".join(str(n) for n in topo.block_sizes))
    return "\n".join(lines) + "\n"


def topology_yaml(src: ExportSource) -> str:
    """topology.yaml with the tree as the cluster default and the blocks as a second topology."""
    topo = build_topology(src)
    lines = _header(src, "topology.yaml (tree: cluster default; blocks: for partitions that name it)", topo)
    lines += ["- topology: fabric", "  cluster_default: true", "  tree:", "    switches:"]
    nodes_of = {name: yaml_str(hostlist.compress(nodes)) for name, nodes in topo.blocks}  # tree and blocks
    for s in topo.switches:
        lines.append(f"      - switch: {yaml_str(s.name)}")
        if s.level == 1:
            lines.append(f"        nodes: {nodes_of[s.name]}")
        else:
            lines.append(f"        children: {yaml_str(hostlist.compress(s.children))}")
    lines += ["- topology: blocks", "  cluster_default: false", "  block:", "    block_sizes:"]
    lines += [f"      - {n}" for n in topo.block_sizes]
    lines.append("    blocks:")
    for name, _nodes in topo.blocks:
        lines.append(f"      - block: {yaml_str(name)}")
        lines.append(f"        nodes: {nodes_of[name]}")
    return "\n".join(lines) + "\n"
