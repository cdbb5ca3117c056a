"""The device graph in Graphviz DOT, with the same nodes, edges and attributes as GraphML.

Nodes of one tier share a rank, so `dot -Tsvg` draws the tiers as rows with the cores on
top. Large fabrics make large drawings; `--view su:N` exports one SU or pod.
"""

from __future__ import annotations

from collections import defaultdict

from designer import __version__
from designer.io.export_source import ExportSource
from designer.io.graphml import node_attributes
from designer.io.markup import dot_str, one_line

COLOURS = {"nic": "#d9d9d9", "leaf": "#9ecae1", "spine": "#a1d99b", "core": "#fdae6b"}


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return dot_str(value)


def dot(src: ExportSource) -> str:
    attrs = node_attributes(src)
    lines = [f"// Device graph of \"{one_line(src.name, 120)}\" ({src.view_label}), written by Fabric Designer "
             f"{__version__}",
             "graph fabric {",
             f"  graph [label={dot_str(src.name)}, labelloc=t, rankdir=BT, technology={dot_str(src.technology.id)}];",
             "  node [shape=box, style=filled];"]
    by_tier: dict[int, list[str]] = defaultdict(list)
    for node, a in attrs.items():
        label = a["host"] + f"/nic-{a['port']}" if a["role"] == "nic" else node
        extra = ", ".join(f"{k}={_value(v)}" for k, v in a.items())
        lines.append(f"  {dot_str(node)} [label={dot_str(label)}, fillcolor=\"{COLOURS[a['role']]}\", {extra}];")
        by_tier[a["tier"]].append(node)
    for tier in sorted(by_tier):
        lines.append("  { rank=same; " + " ".join(dot_str(n) for n in by_tier[tier]) + " }")
    for lower, upper, d in src.edges():
        lines.append(f"  {dot_str(lower)} -- {dot_str(upper)} [tier={dot_str(d['tier'])}, gbps={d['gbps']}, "
                     f"pa={d['pa']}, pb={d['pb']}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
