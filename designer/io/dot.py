"""The fabric in Graphviz DOT: the device graph, or a bundled view that a person can read.

- `dot` (the device graph): the same switches, NIC ports and links as GraphML. Nodes of one
  tier share a rank, so `dot -Tsvg` draws the tiers as rows with the cores on top. One SU of a
  fabric is already thousands of points wide: use it for tools, or `--view su:N`.
- `dot_bundled` (the view the canvas draws): tiers ranked as rows, the servers of each SU or pod
  one node (`32 servers, SU 1`), the parallel links between two nodes one edge labelled with
  their count and rate (`16 x 400G`, pen width growing with the count). Switches stay one node
  each up to MAX_SWITCHES in the view; above that, each tier of each pod (and plane) is one node
  labelled with its count, as the draw.io export groups them.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from designer import __version__
from designer.io.export_source import ExportSource
from designer.io.graphml import COLOURS, node_attributes
from designer.io.markup import dot_str, one_line
from designer.io.plan_stream import nic_rows, streamable, switch_links, switch_nodes

MAX_SWITCHES = 40
_RANK = {"server": 0, "nic": 0, "leaf": 1, "spine": 2, "core": 3}
_NOUNS = {"core": ("core switch", "core switches"), "spine": ("spine switch", "spine switches"),
          "leaf": ("leaf switch", "leaf switches"), "server": ("server", "servers")}


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return dot_str(value)


def _header(src: ExportSource, what: str) -> list[str]:
    return [f"// {what} of \"{one_line(src.name, 120)}\" ({src.view_label}), written by Fabric Designer "
            f"{__version__}",
            "graph fabric {",
            f"  graph [label={dot_str(src.name)}, labelloc=t, rankdir=BT, technology={dot_str(src.technology.id)}];",
            "  node [shape=box, style=filled];"]


def dot(src: ExportSource) -> str:
    return "".join(dot_chunks(src))


def dot_chunks(src: ExportSource) -> Iterator[str]:
    """The device graph in pieces: a template design seen whole streams from the sizing plan."""
    if streamable(src.derived, src.view[0] == "fabric", other_networks=True):   # DOT draws the compute fabric only
        yield from _chunks(_streamed_lines(src))
        return
    yield _from_graph(src)


def _streamed_lines(src: ExportSource) -> Iterator[str]:
    """The same lines as the graph gives, from the plan (ids are the builder's, names the node
    pattern's, models the catalog's: none needs quoting beyond the double quotes)."""
    derived, r = src.derived, src.resolved
    yield from _header(src, "Device graph")
    up, link = r.uplink_gbps, r.link_gbps
    radix: dict[str, int] = {}
    ranks: dict[int, list[str]] = defaultdict(list)
    for n in switch_nodes(derived):
        if n.model not in radix:
            sw = src.switch_model(n.model)
            radix[n.model] = sw.ports_at(up) or max(m.count for m in sw.port_modes)
        ranks[n.level].append(f'"{n.id}"')
        yield (f'  "{n.id}" [label="{n.id}", fillcolor="{COLOURS[n.role]}", role="{n.role}", tier={n.level}, '
               f'plane={n.plane + 1}, pod={n.pod}, rail={n.rail}, index={n.idx}, model={dot_str(n.model)}, '
               f'speed_gbps={up}, ports={radix[n.model]}];')
    hosts = [dot_str(src.host(s))[1:-1] for s in range(src.design.cluster.servers)]
    nic_model, fill = dot_str(r.nic.id), COLOURS["nic"]
    for server, port, plane, pod, rail, index, _, _ in nic_rows(derived):
        host = hosts[server]
        yield (f'  "srv-{server + 1}.nic-{port + 1}" [label="{host}/nic-{port + 1}", fillcolor="{fill}", role="nic", '
               f'tier=0, plane={plane + 1}, pod={pod}, rail={rail}, index={index}, model={nic_model}, '
               f'speed_gbps={link}, ports=1, server={server + 1}, port={port + 1}, host="{host}"];')
    yield "  { rank=same; " + " ".join(f'"srv-{row[0] + 1}.nic-{row[1] + 1}"' for row in nic_rows(derived)) + " }"
    for level in sorted(ranks):
        yield "  { rank=same; " + " ".join(ranks[level]) + " }"
    for server, port, _, _, _, _, leaf, leaf_port in nic_rows(derived):
        yield (f'  "srv-{server + 1}.nic-{port + 1}" -- "{leaf}" [tier="node-leaf", gbps={link}, lower_port=1, '
               f'upper_port={leaf_port}];')
    for e in switch_links(derived):
        yield f'  "{e.lower}" -- "{e.upper}" [tier="{e.tier}", gbps={e.gbps}, lower_port={e.pa}, upper_port={e.pb}];'
    yield "}"


def _chunks(lines: Iterator[str], size: int = 4096) -> Iterator[str]:
    while block := list(islice(lines, size)):
        yield "\n".join(block) + "\n"


def _from_graph(src: ExportSource) -> str:
    attrs = node_attributes(src)
    lines = _header(src, "Device graph")
    by_tier: dict[int, list[str]] = defaultdict(list)
    for node, a in attrs.items():
        extra = ", ".join(f"{k}={_value(v)}" for k, v in a.items() if k != "label")
        lines.append(f"  {dot_str(node)} [label={dot_str(a['label'])}, fillcolor=\"{COLOURS[a['role']]}\", {extra}];")
        by_tier[a["tier"]].append(node)
    for tier in sorted(by_tier):
        lines.append("  { rank=same; " + " ".join(dot_str(n) for n in by_tier[tier]) + " }")
    for lower, upper, d in src.edges():
        lines.append(f"  {dot_str(lower)} -- {dot_str(upper)} [tier={dot_str(d['tier'])}, gbps={d['gbps']}, "
                     f"lower_port={d['pa']}, upper_port={d['pb']}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _plural(role: str, n: int) -> str:
    return f"{n:,} {_NOUNS[role][n != 1]}"


NodeRecord = tuple[str | None, str, int, int, int, int]   # node id, role, plane, pod, index, server


def _graph_records(src: ExportSource) -> Iterator[NodeRecord]:
    for node, d in src.graph.nodes(data=True):
        if src.in_view(node):
            yield node, d["role"], d["plane"], d["pod"], d["index"], d.get("server", -1)


def _plan_records(src: ExportSource) -> Iterator[NodeRecord]:
    for n in switch_nodes(src.derived):
        yield n.id, n.role, n.plane, n.pod, n.idx, -1
    for server, _, plane, pod, _, index, _, _ in nic_rows(src.derived):
        yield None, "nic", plane, pod, index, server


def _groups(src: ExportSource, records: Iterable[NodeRecord], switches: int,
            columns: int) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """The bundled node of every node in the view (NIC ports given no id are left out of the
    map: their group is their pod's servers), and each bundled node's attributes."""
    grouped = switches > MAX_SWITCHES
    planes = src.resolved.planes
    noun = src.column_noun
    of_node: dict[str, str] = {}
    groups: dict[str, dict[str, Any]] = {}
    servers: dict[str, set[int]] = defaultdict(set)
    for node, role, plane, pod, index, server in records:
        if role == "nic":
            key, role = f"servers-{max(pod, 0) + 1}", "server"
            where = f"{noun} {max(pod, 0) + 1}" if columns > 1 or src.rail_optimized else ""
            servers[key].add(server)
        elif grouped:
            key = f"{role}-p{plane + 1}-{max(pod, 0) + 1}"
            where = ", ".join(([f"{noun} {pod + 1}"] if pod >= 0 and (role == "leaf" or src.plan.tiers == 3)
                                and columns > 1 else []) + ([f"plane {plane + 1}"] if planes > 1 else []))
        else:
            key, where = str(node), ""
        if node is not None:
            of_node[node] = key
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"role": role, "count": 0, "where": where, "order": (plane, pod, index)}
        if role != "server":
            group["count"] += 1
    for key, members in servers.items():
        groups[key]["count"] = len(members)
    for key, group in groups.items():
        if group["role"] != "server" and not grouped:
            group["label"] = key
        else:
            group["label"] = _plural(group["role"], group["count"]) + (f"\\n{group['where']}" if group["where"] else "")
    return of_node, groups


def dot_bundled(src: ExportSource) -> str:
    """Tiers ranked, servers grouped by SU or pod, parallel links one edge with their count.
    A template design seen whole is counted from the sizing plan, without the device graph."""
    bundles: Counter[tuple[str, str, int]] = Counter()
    if streamable(src.derived, src.view[0] == "fabric", other_networks=True):   # DOT draws the compute fabric only
        plan = src.plan
        leaf_pods = [n.pod for n in switch_nodes(src.derived) if n.role == "leaf"]
        columns = max(leaf_pods, default=0) + 1 if src.rail_optimized or plan.tiers == 3 else 1
        of_node, groups = _groups(src, _plan_records(src), src.derived.metrics.switches_total, columns)
        link = src.resolved.link_gbps
        for _, _, _, pod, _, _, leaf, _ in nic_rows(src.derived):
            bundles[(f"servers-{max(pod, 0) + 1}", of_node[leaf], link)] += 1
        for e in switch_links(src.derived):
            bundles[(of_node[e.lower], of_node[e.upper], e.gbps)] += 1
    else:
        of_node, groups = _groups(src, _graph_records(src), len(src.switches), src.columns)
        for lower, upper, d in src.edges():
            bundles[(of_node[lower], of_node[upper], d["gbps"])] += 1
    lines = _header(src, "Bundled fabric graph")
    lines.append('  edge [color="#555555"];')
    by_rank: dict[int, list[str]] = defaultdict(list)
    for key, group in sorted(groups.items(), key=lambda item: item[1]["order"]):
        role = group["role"]
        # The label holds Graphviz's own line break (\n): dot_str would double its backslash.
        label = '"' + group["label"].replace('"', "'") + '"'
        lines.append(f"  {dot_str(key)} [label={label}, fillcolor=\"{COLOURS[role]}\", "
                     f"role={dot_str(role)}, count={group['count']}];")
        by_rank[_RANK[role]].append(key)
    for rank in sorted(by_rank):
        lines.append("  { rank=same; " + " ".join(dot_str(n) for n in by_rank[rank]) + " }")
    for (a, b, gbps), count in bundles.items():
        width = 1 + math.log2(count) / 2
        lines.append(f"  {dot_str(a)} -- {dot_str(b)} [label=\"{count} x {gbps}G\", links={count}, gbps={gbps}, "
                     f"penwidth={width:.2f}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
