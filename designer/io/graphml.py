"""The device graph as GraphML, for networkx, Gephi, yEd and other analysis tools.

One node per NIC port and per switch, one edge per physical link (parallel links stay
parallel edges), as in the model's device graph. Attributes are strings, ints, doubles and
booleans only (what networkx reads back):
- nodes: role (nic, leaf, spine, core), tier (0 for NIC ports, 1 leaf, 2 spine, 3 core),
  plane, pod, rail, index (-1 where it does not apply), model, speed_gbps, ports (the
  switch's ports at its fabric speed; 1 for a NIC port), and for NIC ports server, port and
  host (the node name);
- edges: tier (node-leaf, leaf-spine, spine-core or manual), gbps, a (the lower device),
  pa and pb (port numbers from 1 on the lower and the upper device).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from designer import __version__
from designer.io.export_source import ExportSource
from designer.io.markup import xml_attr, xml_text
from designer.io.network_graph import network_graph

NODE_KEYS = (("role", "string"), ("tier", "int"), ("plane", "int"), ("pod", "int"), ("rail", "int"),
             ("index", "int"), ("model", "string"), ("speed_gbps", "int"), ("ports", "int"),
             ("server", "int"), ("port", "int"), ("host", "string"))
EDGE_KEYS = (("tier", "string"), ("gbps", "int"), ("a", "string"), ("pa", "int"), ("pb", "int"))
GRAPH_KEYS = (("name", "string"), ("technology", "string"), ("template", "string"), ("view", "string"),
              ("planes", "int"), ("gpus", "int"))


def node_attributes(src: ExportSource) -> dict[str, dict[str, Any]]:
    """Every node of the view with the attributes both GraphML and DOT carry."""
    g = src.graph
    r = src.resolved
    radix: dict[str, tuple[int, int]] = {}
    out: dict[str, dict[str, Any]] = {}
    for node, d in g.nodes(data=True):
        if not src.in_view(node):
            continue
        attrs = {"role": d["role"], "tier": d["level"], "plane": d["plane"], "pod": d["pod"],
                 "rail": d["rail"], "index": d["index"]}
        if d["role"] == "nic":
            attrs.update(model=r.nic.id, speed_gbps=r.link_gbps, ports=1, server=d["server"], port=d["port"] + 1,
                         host=src.host(d["server"]))
        else:
            model = d["model"]
            if model not in radix:
                sw = src.switch_model(model)
                radix[model] = (r.uplink_gbps, sw.ports_at(r.uplink_gbps) or max(m.count for m in sw.port_modes))
            speed, ports = radix[model]
            attrs.update(model=model, speed_gbps=speed, ports=ports)
        out[node] = attrs
    return out


def _keys(domain: str, prefix: str, keys: Iterable[tuple[str, str]]) -> list[str]:
    kind = {"string": "string", "int": "int", "double": "double", "boolean": "boolean"}
    return [f'  <key id="{prefix}_{name}" for="{domain}" attr.name="{name}" attr.type="{kind[t]}"/>'
            for name, t in keys]


def _data(prefix: str, name: str, value: object) -> str:
    text = ("true" if value else "false") if isinstance(value, bool) else xml_text(value)
    return f'<data key="{prefix}_{name}">{text}</data>'


def graphml(src: ExportSource) -> str:
    m = src.derived.metrics
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f"<!-- Device graph of a fabric, written by Fabric Designer {xml_text(__version__)} -->",
             '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
             'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">']
    edges = list(src.edges())
    networks = network_graph(src, len(edges))   # the cluster's other networks (none: nothing added)
    lines += _keys("graph", "g", GRAPH_KEYS) + _keys("node", "n", NODE_KEYS) + _keys("edge", "e", EDGE_KEYS)
    lines += networks.keys
    lines.append('  <graph id="fabric" edgedefault="undirected">')
    graph_values = {"name": src.name, "technology": src.technology.id, "template": src.design.fabric.template,
                    "view": src.view_label, "planes": m.planes, "gpus": m.gpus}
    lines.append("    " + "".join(_data("g", k, v) for k, v in graph_values.items()))
    for node, attrs in node_attributes(src).items():
        body = "".join(_data("n", k, v) for k, v in attrs.items())
        lines.append(f'    <node id="{xml_attr(node)}">{body}</node>')
    for i, (lower, upper, d) in enumerate(edges):
        body = "".join(_data("e", k, v) for k, v in
                       (("tier", d["tier"]), ("gbps", d["gbps"]), ("a", lower), ("pa", d["pa"]), ("pb", d["pb"])))
        lines.append(f'    <edge id="e{i}" source="{xml_attr(lower)}" target="{xml_attr(upper)}">{body}</edge>')
    lines += networks.elements
    lines += ["  </graph>", "</graphml>"]
    return "\n".join(lines) + "\n"
