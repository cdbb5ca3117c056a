"""The exporters as they were written on the device graph, kept as the reference the streaming
writers (designer/io/*, walking model/topology/wiring.py) are held byte for byte equal to.

Copied from the graph-based slurm_topology, drawio, ibnetdiscover (writer), ndt, netbox_csv and
network_netbox and network_graph modules."""

from __future__ import annotations

import csv
import hashlib
import io
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from designer import __version__
from designer.catalog.device_ids import device_ids
from designer.io import hostlist, network_netbox
from designer.io import netbox_csv as netbox
from designer.io.csv_cells import rows_to_csv, safe_cell
from designer.io.export_source import ExportError, ExportSource, base_name, safe_id
from designer.io.markup import one_line, slug, xml_attr, xml_text, yaml_str
from designer.io.network_drawio import network_pages
from designer.io.network_graph import NETWORK_EDGE_KEY, NETWORK_NODE_KEY, NetworkGraph
from designer.model.physical.media import MEDIUM_LABELS
from designer.model.topology.derive import Derived

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


class _UnionFind:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def build_topology(src: ExportSource) -> SlurmTopology:
    """The tree and blocks of the design's view."""
    g = src.graph
    nodes = g.nodes
    leaves_of_server: dict[int, set[str]] = defaultdict(set)
    for lower, upper, _d in src.edges():
        if nodes[lower]["role"] == "nic" and nodes[upper]["role"] == "leaf":
            leaves_of_server[nodes[lower]["server"]].add(upper)
    if not leaves_of_server:
        raise ExportError("no server in this view is connected to a leaf; Slurm needs nodes under leaf switches")

    # Level 1: leaves tied together by shared servers.
    uf = _UnionFind()
    for leaves in leaves_of_server.values():
        first = min(leaves)
        for leaf in leaves:
            uf.union(first, leaf)
    groups: dict[str, list[str]] = defaultdict(list)
    for leaf in sorted({switch for ls in leaves_of_server.values() for switch in ls}, key=lambda v: nodes[v]["index"]):
        groups[uf.find(leaf)].append(leaf)
    servers_of: dict[str, list[int]] = defaultdict(list)
    for server in sorted(leaves_of_server):
        servers_of[uf.find(next(iter(leaves_of_server[server])))].append(server)
    level1 = sorted(groups.values(), key=lambda members: servers_of[uf.find(members[0])][0])
    all_leaves = sum(len(m) for m in level1)
    switches: list[SlurmSwitch] = []
    group_of: dict[str, str] = {}
    taken: set[str] = set()
    for k, members in enumerate(level1):
        name = _unique(_group_name(src, "leaf", members, k, len(level1), all_leaves), taken)
        servers = servers_of[uf.find(members[0])]
        switches.append(SlurmSwitch(name, 1, members, [src.host(s) for s in servers], first_server=servers[0]))
        for leaf in members:
            group_of[leaf] = name

    # Levels 2 and 3: switches above that serve the same groups merge into one.
    below_groups = {s.name: s for s in switches}
    for level, role in ((2, "spine"), (3, "core")):
        uf = _UnionFind()
        parents_of: dict[str, set[str]] = defaultdict(set)
        for lower, upper, _ in src.edges():
            if lower in group_of and nodes[upper]["role"] == role:
                parents_of[group_of[lower]].add(upper)
        if not parents_of:
            break
        for uppers in parents_of.values():
            first = min(uppers)
            for u in uppers:
                uf.union(first, u)
        up_groups: dict[str, list[str]] = defaultdict(list)
        for u in sorted({u for us in parents_of.values() for u in us}, key=lambda v: (nodes[v]["plane"],
                                                                                      nodes[v]["index"])):
            up_groups[uf.find(u)].append(u)
        children: dict[str, list[str]] = defaultdict(list)
        for child in below_groups.values():
            uppers = parents_of.get(child.name)
            if uppers:
                children[uf.find(next(iter(uppers)))].append(child.name)
        ordered = sorted(up_groups.items(), key=lambda kv: min(below_groups[c].first_server for c in children[kv[0]]))
        total = sum(len(m) for m in up_groups.values())
        new_groups = {}
        group_of = {}
        for k, (root, members) in enumerate(ordered):
            name = _unique(_group_name(src, role, members, k, len(ordered), total), taken)
            kids = children[root]
            sw = SlurmSwitch(name, level, members, children=kids,
                             first_server=min(below_groups[c].first_server for c in kids))
            switches.append(sw)
            new_groups[name] = sw
            for u in members:
                group_of[u] = name
        below_groups = new_groups

    blocks = [(s.name, s.nodes) for s in switches if s.level == 1]
    sizes = block_sizes([len(n) for _, n in blocks])
    notes = _notes(src, switches, blocks, sizes)
    loose = [src.host(s) for s in src.servers if s not in leaves_of_server]
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


def _group_name(src: ExportSource, role: str, members: list[str], k: int, count: int, tier_total: int) -> str:
    nodes = src.graph.nodes
    pods = {nodes[m]["pod"] for m in members}
    bases = {base_name(m) for m in members}
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


def _notes(src: ExportSource, switches, blocks, sizes) -> list[str]:
    notes = []
    if src.rail_optimized:
        notes.append("Rail-optimized: the rail leaves of each scalable unit are one switch to Slurm "
                     "(every node of an SU reaches the others in one hop on each rail).")
    if src.resolved.planes > 1:
        notes.append(f"{src.resolved.planes} planes: the leaves of every plane that serve the same "
                     "nodes are one switch, so the file describes one tree for the fabric.")
    roots = [s for s in switches if s.name not in {c for x in switches for c in x.children}]
    if len(roots) > 1:
        notes.append(f"The fabric has {len(roots)} separate parts: no job spans them.")
    small = [name for name, n in blocks if len(n) < max(len(n) for _, n in blocks)]
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
    for s in topo.switches:
        lines.append(f"      - switch: {yaml_str(s.name)}")
        if s.level == 1:
            lines.append(f"        nodes: {yaml_str(hostlist.compress(s.nodes))}")
        else:
            lines.append(f"        children: {yaml_str(hostlist.compress(s.children))}")
    lines += ["- topology: blocks", "  cluster_default: false", "  block:", "    block_sizes:"]
    lines += [f"      - {n}" for n in topo.block_sizes]
    lines.append("    blocks:")
    for name, nodes in topo.blocks:
        lines.append(f"      - block: {yaml_str(name)}")
        lines.append(f"        nodes: {yaml_str(hostlist.compress(nodes))}")
    return "\n".join(lines) + "\n"


MAX_SHAPES = 300                 # above this many devices in the view, draw one shape per group
ROW_ORDER = ("core", "spine", "leaf", "server")
ROW_TITLES = {"core": "Core", "spine": "Spine", "leaf": "Leaf", "server": "Servers"}
FILL = {"core": "#fde0c5", "spine": "#d5e8d4", "leaf": "#dae8fc", "server": "#f5f5f5"}
STROKE = {"core": "#d79b00", "spine": "#82b366", "leaf": "#6c8ebf", "server": "#666666"}
LINK = {"infiniband": "#2e7d32", "ethernet": "#1565c0"}
ROW_PITCH = 170
# (aggregated?, server?) -> (width, height, gap): servers are drawn narrower, as on the canvas
SIZE = {(False, False): (110, 44, 14), (False, True): (84, 36, 8), (True, False): (170, 60, 40),
        (True, True): (170, 60, 40)}


@dataclass
class Shape:
    key: tuple
    role: str
    label: str
    order: tuple
    props: dict = field(default_factory=dict)
    count: int = 0
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    id: str = ""


def _plural(role: str, n: int) -> str:
    words = {"core": ("core switch", "core switches"), "spine": ("spine switch", "spine switches"),
             "leaf": ("leaf switch", "leaf switches"), "server": ("server", "servers")}
    return f"{n:,} {words[role][n != 1]}"


def _shapes(src: ExportSource) -> tuple[dict, dict, bool]:
    """Shapes by key, and the shape key of every graph node in the view."""
    aggregated = len(src.switches) + len(src.servers) > MAX_SHAPES
    g = src.graph
    planes = src.resolved.planes
    noun = src.column_noun
    shapes: dict[tuple, Shape] = {}
    of_node: dict[str, tuple] = {}
    servers_of: dict[tuple, set] = defaultdict(set)
    for node, d in g.nodes(data=True):
        if not src.in_view(node):
            continue
        role = "server" if d["role"] == "nic" else d["role"]
        if role == "server":
            key = ("server", d["pod"]) if aggregated else ("server", d["server"])
        elif aggregated:
            key = (role, d["plane"], d["pod"])
        else:
            key = (role, node)
        of_node[node] = key
        shape = shapes.get(key)
        if shape is None:
            if role == "server":
                order = (d["pod"],) if aggregated else (d["server"],)
                props = {"role": "server", "model": src.server_model.id}
            else:
                order = (d["pod"], d["plane"], d["index"])
                props = {"role": role, "model": d["model"], "plane": d["plane"] + 1}
            if role in ("leaf", "server") or (role == "spine" and src.plan.tiers == 3):
                props["pod"] = d["pod"] + 1  # two-tier spines serve every pod
            shape = shapes[key] = Shape(key, role, "", order, props)
        if role == "server":
            servers_of[key].add(d["server"])
        else:
            shape.count += 1
    for key, members in servers_of.items():
        shapes[key].count = len(members)
    for key, shape in shapes.items():
        shape.props["count"] = shape.count if aggregated else 1
        if not aggregated:
            shape.label = (src.host(key[1]) if shape.role == "server"
                           else f"{key[1]}\n{src.switch_model(shape.props['model']).name}")
            continue
        where = []
        if "pod" in shape.props and (src.columns > 1 or src.rail_optimized):
            where.append(f"{noun} {shape.props['pod']}")
        if shape.role != "server" and planes > 1:
            where.append(f"plane {shape.props['plane']}")
        shape.label = _plural(shape.role, shape.count) + (f"\n{', '.join(where)}" if where else "")
    return shapes, of_node, aggregated


def _place(shapes: dict, aggregated: bool) -> list[tuple[str, float, float, float]]:
    """Give every shape its place and size; returns the rows' (title, x, y, height) for their labels."""
    rows = {role: sorted((s for s in shapes.values() if s.role == role), key=lambda s: s.order)
            for role in ROW_ORDER}
    rows = {role: items for role, items in rows.items() if items}
    if not rows:
        return []

    def pitch(role: str) -> float:
        w, _, gap = SIZE[(aggregated, role == "server")]
        return w + gap

    widest = max(len(items) * pitch(role) for role, items in rows.items())
    titles = []
    for r, (role, items) in enumerate(rows.items()):
        w, h, _ = SIZE[(aggregated, role == "server")]
        y = 80 + r * ROW_PITCH
        x0 = 140 + (widest - len(items) * pitch(role)) / 2
        titles.append((ROW_TITLES[role], 10.0, y, h))
        for i, shape in enumerate(items):
            shape.x, shape.y, shape.w, shape.h = x0 + i * pitch(role), y, w, h
    return titles


def drawio(src: ExportSource) -> str:
    shapes, of_node, aggregated = _shapes(src)
    titles = _place(shapes, aggregated)
    ordered = sorted(shapes.values(), key=lambda s: (ROW_ORDER.index(s.role), s.order))
    for i, shape in enumerate(ordered):
        shape.id = f"d{i + 1}"
    bundles: dict[tuple, list] = defaultdict(lambda: [0, set(), ""])
    for lower, upper, d in src.edges():
        a, b = of_node[lower], of_node[upper]
        if a == b:
            continue  # links inside one aggregated shape (none in a Clos) are not drawn
        bundle = bundles[(a, b)]
        bundle[0] += 1
        bundle[1].add(d["gbps"])
        bundle[2] = d["tier"]
    colour = LINK.get(src.family, "#555555")
    title = f"{src.name} ({src.view_label})"
    cells = ['        <mxCell id="0"/>', '        <mxCell id="1" parent="0"/>',
             f'        <mxCell id="title" value="{xml_attr(title)}" style="text;fontSize=18;fontStyle=1;'
             'align=left;verticalAlign=middle;" vertex="1" parent="1">'
             '<mxGeometry x="10" y="10" width="900" height="40" as="geometry"/></mxCell>']
    for k, (text, x, y, h) in enumerate(titles):
        cells.append(f'        <mxCell id="row{k + 1}" value="{xml_attr(text)}" style="text;fontSize=13;fontStyle=1;'
                     f'align=left;verticalAlign=middle;" vertex="1" parent="1"><mxGeometry x="{x:g}" y="{y:g}" '
                     f'width="110" height="{h}" as="geometry"/></mxCell>')
    for shape in ordered:
        props = "".join(f' {name}="{xml_attr(value)}"' for name, value in shape.props.items())
        style = (f"rounded=1;whiteSpace=wrap;fillColor={FILL[shape.role]};strokeColor={STROKE[shape.role]};"
                 f"fontSize={12 if aggregated else 10 if shape.role == 'server' else 11};")
        cells.append(f'        <object id="{shape.id}" label="{xml_attr(shape.label)}"{props}>'
                     f'<mxCell style="{style}" vertex="1" parent="1"><mxGeometry x="{shape.x:g}" y="{shape.y:g}" '
                     f'width="{shape.w:g}" height="{shape.h:g}" as="geometry"/></mxCell></object>')
    for k, ((a, b), (count, speeds, tier)) in enumerate(bundles.items()):
        speed = "/".join(f"{s}G" for s in sorted(speeds))
        label = f"{count:,} x {speed}" if count > 1 else ""
        width = min(8.0, 1.0 + math.log2(count))
        style = f"endArrow=none;startArrow=none;strokeColor={colour};strokeWidth={width:.2g};fontSize=10;"
        cells.append(f'        <object id="e{k + 1}" label="{xml_attr(label)}" tier="{xml_attr(tier)}" links="{count}">'
                     f'<mxCell style="{style}" edge="1" parent="1" source="{shapes[a].id}" target="{shapes[b].id}">'
                     '<mxGeometry relative="1" as="geometry"/></mxCell></object>')
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<mxfile host="Fabric Designer" agent="Fabric Designer {xml_attr(__version__)}" compressed="false">',
        f'  <diagram id="fabric" name="{xml_attr(src.view_label)}">',
        '    <mxGraphModel grid="1" gridSize="10" guides="1" tooltips="1" connect="1" arrows="0" fold="1" '
        'page="0" pageScale="1" math="0" shadow="0">',
        "      <root>",
        *cells,
        "      </root>",
        "    </mxGraphModel>",
        "  </diagram>",
        *network_pages(src),   # a page per network beside the compute fabric (none: nothing added)
        "</mxfile>",
    ]) + "\n"


_SPEED_NAME = {100: "EDR", 200: "HDR", 400: "NDR", 800: "XDR"}


def _devid(catalog_id: str, kind: str) -> int:
    """The PCI device id a part reports (resources/ids/infiniband.toml); 0 where none is published."""
    found = device_ids().for_part(catalog_id, kind)
    return found.devid if found else 0


def _guid(name: str) -> str:
    return hashlib.blake2b(name.encode(), digest_size=8).hexdigest()


def _rate(gbps: int) -> str:
    if gbps in _SPEED_NAME:
        return f"4x{_SPEED_NAME[gbps]}"
    if gbps * 2 in _SPEED_NAME:             # NDR200, HDR100: two lanes
        return f"2x{_SPEED_NAME[gbps * 2]}"
    raise ValueError(f"{gbps}G links have no InfiniBand speed name")


def _part(switch) -> str:
    return (switch.part_number or switch.id.upper()).split("-")[0]


def export_ibnetdiscover(derived: Derived, aggregation_nodes: bool = True,
                         host_name: Callable[[int], str] | None = None) -> str:
    """The text that ibnetdiscover would print for the design's fabric.

    Switches are described `MF0;<device id>:<part>/U1`, NIC ports `<host> mlx5_<i>` (one CA per
    NIC port, as on DGX systems), the host named by `host_name(server index)` (the export's node
    pattern) or `srv-N`. Switches with in-network reduction get a SHARP aggregation
    node CA on the port after their last one. GUIDs are digests of the device ids, so the same
    design always gives the same text.
    """
    r = derived.resolved
    if r.family != "infiniband":
        raise ValueError(f"ibnetdiscover describes InfiniBand fabrics; this design is {r.technology.id}")
    g = derived.graph
    guid = {n: _guid(f"{g.graph.get('name', '')}/{n}") for n in g.nodes}
    lid = {n: i + 1 for i, n in enumerate(sorted(g.nodes, key=lambda n: (-g.nodes[n]["level"], n)))}
    model = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}
    vendid = device_ids().vendid
    # The design name is the user's: one line, no controls, so it cannot leave the comment.
    out = ["#", f"# Topology file: exported by Fabric Designer for \"{one_line(derived.design.meta.name, 120)}\""]
    # Say which parts have no published device id, rather than print a made-up one.
    roles = {role for _, role in g.nodes(data="role")}
    unknown = [f"{part.name} switch" for part in dict.fromkeys(m for n, m in model.items() if n in roles)
               if not _devid(part.id, "switch")]
    if aggregation_nodes and any(m.in_network_reduction and not _devid(m.id, "aggregation") for m in model.values()):
        unknown.append("SHARP aggregation nodes")
    if not _devid(r.nic.id, "hca"):
        unknown.append(f"{r.nic.name} HCAs")
    if unknown:
        out.append(f"# devid=0x0000: no published PCI device id for {', '.join(unknown)}")
    out += ["#", ""]

    def desc(n: str) -> str:
        d = g.nodes[n]
        if d["role"] == "nic":
            server, port = n.split(".nic-")
            host = host_name(int(server[4:]) - 1) if host_name else server
            return f"{host} mlx5_{int(port) - 1}"
        return f"MF0;{n}:{_part(model[d['role']])}/U1"

    def ends(n: str):
        """(own port, peer, peer port, gbps) of every link at node n, by own port."""
        rows = []
        for _, peer, d in g.edges(n, data=True):
            own, other = (d["pa"], d["pb"]) if d["a"] == n else (d["pb"], d["pa"])
            rows.append((own, peer, other, d["gbps"]))
        return sorted(rows)

    switches = sorted((n for n in g.nodes if g.nodes[n]["role"] != "nic"),
                      key=lambda n: (-g.nodes[n]["level"], g.nodes[n]["plane"], g.nodes[n]["index"]))
    aggregators = []
    for n in switches:
        sw = model[g.nodes[n]["role"]]
        ports = max(sw.ports_at(r.uplink_gbps), sw.ports_at(r.link_gbps), max((p for p, *_ in ends(n)), default=0))
        out += [f"vendid=0x{vendid:x}", f"devid=0x{_devid(sw.id, 'switch'):04x}", f"sysimgguid=0x{guid[n]}",
                f"switchguid=0x{guid[n]}({guid[n]})",
                f'Switch\t{ports + 1 if aggregation_nodes and sw.in_network_reduction else ports} "S-{guid[n]}"'
                f'\t\t# "{desc(n)}" enhanced port 0 lid {lid[n]} lmc 0']
        for own, peer, other, gbps in ends(n):
            kind = "H" if g.nodes[peer]["role"] == "nic" else "S"
            pguid = f"({guid[peer]})" if kind == "H" else ""
            out.append(f'[{own}]\t"{kind}-{guid[peer]}"[{other}]{pguid}\t\t'
                       f'# "{desc(peer)}" lid {lid[peer]} {_rate(gbps)}')
        if aggregation_nodes and sw.in_network_reduction:
            agg = _guid(f"sharp/{guid[n]}")
            aggregators.append((n, ports + 1, agg, _devid(sw.id, "aggregation")))
            out.append(f'[{ports + 1}]\t"H-{agg}"[1]({agg})\t\t# "Mellanox Technologies Aggregation Node" '
                       f'lid {len(lid) + len(aggregators)} {_rate(r.uplink_gbps)}')
        out.append("")
    hca_devid = _devid(r.nic.id, "hca")
    for n in sorted((n for n in g.nodes if g.nodes[n]["role"] == "nic"),
                    key=lambda n: (g.nodes[n]["server"], g.nodes[n]["port"])):
        out += [f"vendid=0x{vendid:x}", f"devid=0x{hca_devid:04x}", f"sysimgguid=0x{guid[n]}", f"caguid=0x{guid[n]}",
                f'Ca\t1 "H-{guid[n]}"\t\t# "{desc(n)}"']
        for own, peer, other, gbps in ends(n):
            out.append(f'[{own}]({guid[n]})\t"S-{guid[peer]}"[{other}]\t\t# lid {lid[n]} lmc 0 "{desc(peer)}" '
                       f'lid {lid[peer]} {_rate(gbps)}')
        out.append("")
    for i, (n, port, agg, agg_devid) in enumerate(aggregators):
        out += [f"vendid=0x{vendid:x}", f"devid=0x{agg_devid:04x}", f"sysimgguid=0x{agg}", f"caguid=0x{agg}",
                f'Ca\t1 "H-{agg}"\t\t# "Mellanox Technologies Aggregation Node"',
                f'[1]({agg})\t"S-{guid[n]}"[{port}]\t\t# lid {len(lid) + i + 1} lmc 0 "{desc(n)}" '
                f'lid {lid[n]} {_rate(r.uplink_gbps)}', ""]
    return "\n".join(out)




HEADER = ("#StartDevice", "StartPort", "EndDevice", "EndPort", "LinkType",
          "StartRack", "StartU", "StartCage", "EndRack", "EndU", "EndCage",
          "Speed", "Tier", "Medium", "CablePart", "EstimatedLength(m)", "CableLength(m)")


NDT_KINDS = ("all", "switch-to-switch", "switch-to-host")


def hca_name(src: ExportSource, nic_port: str) -> str:
    """The HCA device name of a server's NIC port ('nic-3' -> 'mlx5_2', or the name given)."""
    index = int(nic_port.removeprefix("nic-")) - 1
    names = src.options.hca_names
    if names:
        if index >= len(names):
            raise ExportError(f"--hca-names lists {len(names)} HCA name(s); the servers have a NIC port "
                              f"{index + 1}")
        return names[index]
    return f"mlx5_{index}"


def _port(src: ExportSource, end) -> str:
    return f"{src.device_name(end.device)} {hca_name(src, end.port)}" if end.host else f"Port {end.port}"


def ndt_csv(src: ExportSource) -> str:
    elevation = src.elevation
    rows = [list(HEADER)]
    kind = src.options.ndt_kind
    if kind not in NDT_KINDS:
        raise ExportError(f"unknown NDT kind '{kind}' (use {', '.join(NDT_KINDS)})")
    for link in src.physical_links():
        host_link = link.a.host or link.b.host
        if (kind == "switch-to-switch" and host_link) or (kind == "switch-to-host" and not host_link):
            continue
        cable = src.catalog.cables.get(link.cable)
        part = (cable.part_number or cable.name) if cable else ""
        a_rack, a_u = elevation[link.a.device]
        b_rack, b_u = elevation[link.b.device]
        rows.append([safe_cell(src.device_name(link.a.device)), safe_cell(_port(src, link.a)),
                     safe_cell(src.device_name(link.b.device)), safe_cell(_port(src, link.b)), "Data",
                     a_rack, str(a_u), link.a.cage_label, b_rack, str(b_u), link.b.cage_label,
                     f"{link.gbps}G", link.tier, MEDIUM_LABELS[link.medium], safe_cell(part),
                     f"{link.length_m:g}", f"{link.cable_length_m:g}" if link.cable_length_m else ""])
    # Plain UTF-8 with LF line ends: the NDT plugin matches the header by name (a byte-order
    # mark would hide '#StartDevice') and asks for Linux line ends.
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


NET_FILES = network_netbox.FILES


def netbox_files(src: ExportSource) -> dict[str, str]:
    """The NetBox folder, link by link through the physical layer and the device graph."""
    site = one_line(src.options.site or src.name, 100) or "Fabric"
    phys = src.physical
    links = src.physical_links()
    elevation = src.elevation
    heights = src.rack_heights
    g = src.graph
    catalog = src.catalog

    devices: dict[str, tuple[str, netbox.DeviceType]] = {}    # device -> (role key, device type)
    types: dict[tuple[str, str], netbox.DeviceType] = {}
    server = netbox.server_type(src, links)
    for link in links:
        for end in (link.a, link.b):
            if end.device in devices:
                continue
            if end.host:
                devices[end.device] = ("server", server)
            else:
                d = g.nodes[end.device]
                key = (d["model"], d["role"] if d["role"] == "leaf" else "")
                if key not in types:
                    types[key] = netbox.switch_type(src, d["model"], d["role"])
                devices[end.device] = (d["role"], types[key])
    order = sorted(devices, key=lambda dev: (elevation[dev][0], elevation[dev][1]))
    used_types = sorted({t.slug: t for _, t in devices.values()}.values(), key=lambda t: (t.maker, t.model))

    # Optics: one transceiver module per cage of each link end that takes one.
    optics: dict[tuple[str, int], tuple[str, str]] = {}     # (device, cage) -> (part id, interface)
    for link in links:
        for end, part in ((link.a, link.a_part), (link.b, link.b_part)):
            if part and (end.device, end.cage) not in optics:
                optics[(end.device, end.cage)] = (part, netbox._interface_name(end, end.host))
    modules = {part: catalog.transceivers.get(part) for part, _ in optics.values()}

    manufacturers = sorted({t.maker for t in used_types} | {(t.vendor or "Generic") for t in modules.values() if t})
    racks = sorted({elevation[dev][0] for dev in devices})

    out: dict[str, list[list[str]]] = {netbox.FILES[0]: [["name", "slug", "status", "description"],
                                                         [safe_cell(site), slug(site), "planned",
                                                          f"Fabric Designer {__version__}"]]}
    out[netbox.FILES[1]] = [["name", "slug"]] + [[safe_cell(m), slug(m)] for m in manufacturers]
    used_roles = sorted({role for role, _ in devices.values()}, key=list(netbox.ROLES).index)
    roles = netbox.ROLES
    out[netbox.FILES[2]] = [["name", "slug", "color"]] + [[roles[r][0], slug(roles[r][0]), roles[r][1]]
                                                          for r in used_roles]
    out[netbox.FILES[4]] = [["site", "name", "status", "u_height"]] + [
        [safe_cell(site), rack, "planned", str(heights[rack])] for rack in racks]
    rows = [["name", "role", "manufacturer", "device_type", "site", "rack", "position", "face", "status"]]
    for dev in order:
        role, kind = devices[dev]
        rack, unit = elevation[dev]
        rows.append([safe_cell(src.device_name(dev)), roles[role][0], safe_cell(kind.maker), safe_cell(kind.model),
                     safe_cell(site), rack, str(unit), "front", "planned"])
    out[netbox.FILES[5]] = rows
    items = [["device", "name", "status", "manufacturer", "part_id", "description", "component_type",
              "component_name"]]
    rank = {dev: i for i, dev in enumerate(order)}
    for (dev, cage), (part, interface) in sorted(optics.items(), key=lambda item: (rank[item[0][0]], item[0][1])):
        module = modules[part]
        items.append([safe_cell(src.device_name(dev)), f"Optic {cage + 1}", "planned",
                      safe_cell((module.vendor or "Generic") if module else "Generic"),
                      safe_cell((module.part_number or module.name) if module else part),
                      safe_cell(module.name if module else part), "dcim.interface", safe_cell(interface)])
    out[netbox.FILES[6]] = items
    cables = [["side_a_site", "side_a_device", "side_a_type", "side_a_name", "side_b_site", "side_b_device",
               "side_b_type", "side_b_name", "type", "status", "label", "length", "length_unit"]]
    for link in links:
        length = link.cable_length_m or link.length_m
        cables.append([safe_cell(site), safe_cell(src.device_name(link.a.device)), "dcim.interface",
                       safe_cell(netbox._interface_name(link.a, link.a.host)), safe_cell(site),
                       safe_cell(src.device_name(link.b.device)), "dcim.interface",
                       safe_cell(netbox._interface_name(link.b, link.b.host)),
                       netbox.cable_type(src, link), "planned", f"L{link.index + 1}", f"{length:g}", "m"])
    out[netbox.FILES[7]] = cables
    files = {name: rows_to_csv(rows) for name, rows in out.items()}
    files[netbox.FILES[3]] = netbox.device_types_yaml(used_types)
    files = {name: files[name] for name in netbox.FILES}
    files["README.txt"] = netbox.readme(src, site, phys.findings, heights)
    # The cluster's other networks, in files numbered after these (none for a compute-only design).
    files.update(network_netbox_files(src))
    return files


def _network_inventory(src: ExportSource) -> tuple[list, list]:
    """network_netbox.network_inventory with the compute switches read off the device graph."""
    from designer.model.networks.devices import expand
    from designer.model.networks.sizing import servers_per_rack

    design, catalog = src.design, src.catalog
    compute = [n for n, d in src.graph.nodes(data=True) if d.get("role") in ("leaf", "spine", "core")]
    server = catalog.server(design.cluster.server)
    rack = servers_per_rack(design, server)
    devices: list = []
    links: list = []
    for size in network_netbox.checked_sizes(src):
        others = compute + [d.name for d in devices if d.switch] if size.role == "oob" else []
        new_devices, new_links = expand(size, design.cluster.servers, rack, src.host, others)
        devices += new_devices
        links += new_links
    return devices, links


def network_netbox_files(src: ExportSource) -> dict[str, str]:
    if not src.design.networks:
        return {}
    site = one_line(src.options.site or src.name, 100) or "Fabric"
    devices, links = _network_inventory(src)
    catalog = src.catalog

    def maker_model(d) -> tuple[str, str]:
        if not d.switch:
            return network_netbox.ENDPOINT_MAKER[0], f"{d.tier} ({network_netbox.ENDPOINT_MAKER[1]})"
        sw = catalog.switch(d.switch)
        return sw.vendor or "Generic", sw.name

    roles = sorted({f"{d.network} {d.tier}" for d in devices})
    makers = sorted({maker_model(d)[0] for d in devices})
    types = sorted({maker_model(d) for d in devices})
    out: dict[str, list[list[str]]] = {
        NET_FILES[0]: [["name", "slug"]] + [[safe_cell(m), slug(m)] for m in makers],
        NET_FILES[1]: [["name", "slug", "color"]] + [[safe_cell(r), slug(r), "607d8b"] for r in roles],
        NET_FILES[2]: [["manufacturer", "model", "slug", "u_height"]] + [
            [safe_cell(m), safe_cell(t), slug(f"{m}-{t}"), "1" if m != network_netbox.ENDPOINT_MAKER[0] else "0"]
            for m, t in types],
    }
    rows = [["name", "role", "manufacturer", "device_type", "site", "status"]]
    for d in devices:
        maker, model = maker_model(d)
        rows.append([safe_cell(d.name), safe_cell(f"{d.network} {d.tier}"), safe_cell(maker), safe_cell(model),
                     safe_cell(site), "planned"])
    out[NET_FILES[3]] = rows
    interfaces = [["device", "name", "type", "speed", "description"]]
    cables = [["side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name",
               "type", "status", "label"]]
    for k, link in enumerate(links):
        kind = "1000base-t" if link.medium == "copper" else "other"
        for dev, port, other in ((link.a, link.a_port, link.b), (link.b, link.b_port, link.a)):
            interfaces.append([safe_cell(dev), safe_cell(port), kind, str(link.gbps * 1_000_000),
                               safe_cell(f"{link.network} {link.kind} to {other}")])
        cables.append([safe_cell(link.a), "dcim.interface", safe_cell(link.a_port), safe_cell(link.b),
                       "dcim.interface", safe_cell(link.b_port), network_netbox.CABLE_TYPES[link.medium], "planned",
                       f"{link.network.upper()}{k + 1}"])
    out[NET_FILES[4]] = interfaces
    out[NET_FILES[5]] = cables
    return {name: rows_to_csv(rows) for name, rows in out.items()}


def _data(key: str, value: object) -> str:
    return f'<data key="{key}">{xml_text(value)}</data>'


def network_graph(src: ExportSource, first_edge: int) -> NetworkGraph:
    """The other networks' GraphML elements, each escaped where it is written."""
    if not src.design.networks or src.members is not None:
        return NetworkGraph()
    devices, links = _network_inventory(src)
    out = NetworkGraph([NETWORK_NODE_KEY, NETWORK_EDGE_KEY])
    by_name = {d.name: d for d in devices}
    compute = {n for n, d in src.graph.nodes(data=True) if d.get("role") in ("leaf", "spine", "core")}
    seen: set[str] = set()

    def node(name: str, network: str, role: str, model: str = "") -> None:
        if name in seen or name in compute:
            return
        seen.add(name)
        body = _data("n_role", role) + (_data("n_model", model) if model else "") + _data("n_network", network)
        out.elements.append(f'    <node id="{xml_attr(name)}">{body}</node>')

    for d in devices:
        node(d.name, d.network, d.tier, d.switch)
    for k, link in enumerate(links):
        ends = []
        for device, port in ((link.a, link.a_port), (link.b, link.b_port)):
            if device in by_name or device in compute:
                ends.append(device)
            else:  # a server's port of this role
                name = f"{device}/{port}"
                node(name, link.network, "host-port")
                ends.append(name)
        body = (_data("e_tier", link.kind) + _data("e_gbps", link.gbps) + _data("e_network", link.network))
        out.elements.append(f'    <edge id="e{first_edge + k}" source="{xml_attr(ends[0])}" '
                            f'target="{xml_attr(ends[1])}">{body}</edge>')
    return out
