"""The device graph as GraphML, for networkx, python-igraph, Gephi, yEd and other analysis tools.

One node per switch, per NIC port and per server, one edge per physical link (parallel links
stay parallel edges) and one edge from each NIC port to its server, so a fabric of several
planes that serve the same servers opens as one connected graph. Node ids are the names the
other exports use: switches by id (`leaf-3`, `p2.spine-1`), servers by the node pattern
(`gpu-node-0001`), NIC ports as `gpu-node-0001/nic-1`.

Attributes are strings, ints, doubles and booleans only (what networkx and igraph read back):
- nodes: label (the name to show: Gephi takes it as the node label), role (server, nic, leaf,
  spine, core), tier (0 for servers and NIC ports, 1 leaf, 2 spine, 3 core), plane (from 1),
  pod, rail, index (-1 where it does not apply), model, speed_gbps, ports (the switch's ports at
  its fabric speed, 1 for a NIC port, the server's NIC ports in the view for a server), and for
  servers and NIC ports server (the server's number from 1, as `{n}` in the node pattern), port
  (the NIC port from 1) and host (the server's name);
- edges: label (`400G`), tier (server-nic, node-leaf, leaf-spine, spine-core or manual), gbps,
  lower (the lower device), lower_port and upper_port (port numbers from 1 at each end);
- yEd reads each node's fill colour and label from its `nodegraphics` data (a ShapeNode).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from designer import __version__
from designer.io.export_source import ExportSource
from designer.io.markup import xml_attr, xml_text
from designer.io.network_graph import NETWORK_EDGE_KEY, NETWORK_NODE_KEY, network_graph
from designer.io.plan_stream import nic_columns, streamable, switch_link_columns, switch_nodes
from designer.io.row_text import number_text, numbers, picked, rows
from designer.model.topology.builders import plane_prefix

NODE_KEYS = (("label", "string"), ("role", "string"), ("tier", "int"), ("plane", "int"), ("pod", "int"),
             ("rail", "int"), ("index", "int"), ("model", "string"), ("speed_gbps", "int"), ("ports", "int"),
             ("server", "int"), ("port", "int"), ("host", "string"))
EDGE_KEYS = (("label", "string"), ("tier", "string"), ("gbps", "int"), ("lower", "string"),
             ("lower_port", "int"), ("upper_port", "int"))
GRAPH_KEYS = (("name", "string"), ("technology", "string"), ("template", "string"), ("view", "string"),
              ("planes", "int"), ("gpus", "int"))
COLOURS = {"server": "#f0f0f0", "nic": "#d9d9d9", "leaf": "#9ecae1", "spine": "#a1d99b", "core": "#fdae6b"}
SERVER_EDGE = "server-nic"
_Y_NS = "http://www.yworks.com/xml/graphml"


def node_attributes(src: ExportSource) -> dict[str, dict[str, Any]]:
    """Every switch and NIC port of the view, by graph node, with the attributes GraphML and DOT carry."""
    g = src.graph
    r = src.resolved
    radix: dict[str, tuple[int, int]] = {}
    out: dict[str, dict[str, Any]] = {}
    for node, d in g.nodes(data=True):
        if not src.in_view(node):
            continue
        attrs: dict[str, Any] = {"label": src.node_name(node), "role": d["role"], "tier": d["level"],
                                 "plane": d["plane"] + 1, "pod": d["pod"], "rail": d["rail"], "index": d["index"]}
        if d["role"] == "nic":
            attrs.update(model=r.nic.id, speed_gbps=r.link_gbps, ports=1, server=d["server"] + 1,
                         port=d["port"] + 1, host=src.host(d["server"]))
        else:
            model = d["model"]
            if model not in radix:
                sw = src.switch_model(model)
                radix[model] = (r.uplink_gbps, sw.ports_at(r.uplink_gbps) or max(m.count for m in sw.port_modes))
            speed, ports = radix[model]
            attrs.update(model=model, speed_gbps=speed, ports=ports)
        out[node] = attrs
    return out


def server_attributes(src: ExportSource, nics: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One server node per server with a NIC port in the view, by server name."""
    out: dict[str, dict[str, Any]] = {}
    model = src.server_model.id
    for attrs in nics.values():
        if attrs["role"] != "nic":
            continue
        host = attrs["host"]
        server = out.get(host)
        if server is None:
            server = out[host] = {"label": host, "role": "server", "tier": 0, "model": model, "ports": 0,
                                  "server": attrs["server"], "host": host}
        server["ports"] += 1
    return out


def _keys(domain: str, prefix: str, keys: tuple[tuple[str, str], ...]) -> list[str]:
    return [f'  <key id="{prefix}_{name}" for="{domain}" attr.name="{name}" attr.type="{kind}"/>'
            for name, kind in keys]


def _data(prefix: str, name: str, value: object) -> str:
    text = ("true" if value else "false") if isinstance(value, bool) else xml_text(value)
    return f'<data key="{prefix}_{name}">{text}</data>'


def _node(node_id: str, attrs: dict[str, Any]) -> str:
    body = "".join(_data("n", k, v) for k, v in attrs.items())
    shape = (f'<data key="n_yed"><y:ShapeNode><y:Fill color="{COLOURS[attrs["role"]]}"/>'
             f'<y:NodeLabel>{xml_text(attrs["label"])}</y:NodeLabel></y:ShapeNode></data>')
    return f'    <node id="{xml_attr(node_id)}">{body}{shape}</node>'


def _edges(src: ExportSource, nics: dict[str, dict[str, Any]]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(source id, target id, attributes) of every link in the view, then of every NIC-to-server edge."""
    name = src.node_name
    for lower, upper, d in src.edges():
        yield name(lower), name(upper), {"label": f"{d['gbps']}G", "tier": d["tier"], "gbps": d["gbps"],
                                         "lower": name(lower), "lower_port": d["pa"], "upper_port": d["pb"]}
    for attrs in nics.values():
        if attrs["role"] == "nic":
            yield attrs["host"], attrs["label"], {"label": f"nic-{attrs['port']}", "tier": SERVER_EDGE,
                                                  "gbps": attrs["speed_gbps"], "lower": attrs["host"],
                                                  "lower_port": attrs["port"], "upper_port": 1}


def _header(src: ExportSource, network_keys: list[str]) -> list[str]:
    m = src.derived.metrics
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f"<!-- Device graph of a fabric, written by Fabric Designer {xml_text(__version__)} -->",
             '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             f'xmlns:y="{_Y_NS}" '
             'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
             'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">']
    lines += _keys("graph", "g", GRAPH_KEYS) + _keys("node", "n", NODE_KEYS) + _keys("edge", "e", EDGE_KEYS)
    lines.append('  <key id="n_yed" for="node" yfiles.type="nodegraphics"/>')
    lines += network_keys
    lines.append('  <graph id="fabric" edgedefault="undirected">')
    graph_values = {"name": src.name, "technology": src.technology.id, "template": src.design.fabric.template,
                    "view": src.view_label, "planes": m.planes, "gpus": m.gpus}
    lines.append("    " + "".join(_data("g", k, v) for k, v in graph_values.items()))
    return lines


def _edge(i: int, source: str, target: str, attrs: dict[str, Any]) -> str:
    body = "".join(_data("e", k, v) for k, v in attrs.items())
    return f'    <edge id="e{i}" source="{xml_attr(source)}" target="{xml_attr(target)}">{body}</edge>'


def graphml(src: ExportSource) -> str:
    return "".join(graphml_chunks(src))


def graphml_chunks(src: ExportSource) -> Iterator[str]:
    """The file in pieces of a few thousand lines: a template design seen whole streams from
    the sizing plan (designer.io.plan_stream); other designs and views read the device graph."""
    if streamable(src.derived, src.view[0] == "fabric", other_networks=True):
        yield from _streamed_chunks(src)
        return
    nodes = node_attributes(src)
    servers = server_attributes(src, nodes)
    edges = list(_edges(src, nodes))
    networks = network_graph(src, len(edges))   # the cluster's other networks (none: nothing added)
    lines = _header(src, networks.keys)
    lines += (_node(host, attrs) for host, attrs in servers.items())
    lines += (_node(attrs["label"], attrs) for attrs in nodes.values())
    lines += (_edge(i, source, target, attrs) for i, (source, target, attrs) in enumerate(edges))
    lines += networks.elements
    lines += ["  </graph>", "</graphml>"]
    yield "\n".join(lines) + "\n"


def _streamed_chunks(src: ExportSource) -> Iterator[str]:
    """The template's lines from the plan, a block of rows at a time (designer.io.row_text):
    1,060,000 lines at 131,072 GPUs. Server names and models are escaped once each; switch ids
    are the builder's (`p2.leaf-3`: letters, digits, '.', '-') and need none."""
    derived, r = src.derived, src.resolved
    # The other networks' keys lead, their devices and links follow the compute fabric's.
    has_networks = bool(src.design.networks) and src.members is None
    yield "\n".join(_header(src, [NETWORK_NODE_KEY, NETWORK_EDGE_KEY] if has_networks else [])) + "\n"
    servers = src.design.cluster.servers
    hosts = [xml_attr(src.host(s)) for s in range(servers)]
    e, planes = r.rails, r.planes
    fill = COLOURS
    server_model = xml_text(src.server_model.id)
    for first in range(0, servers, _BLOCK):
        names = hosts[first:first + _BLOCK]
        yield rows(['    <node id="', names, '"><data key="n_label">', names,
                    f'</data><data key="n_role">server</data><data key="n_tier">0</data><data key="n_model">'
                    f'{server_model}</data><data key="n_ports">{e * planes}</data><data key="n_server">',
                    numbers(first + 1, len(names)), '</data><data key="n_host">', names,
                    f'</data><data key="n_yed"><y:ShapeNode><y:Fill color="{fill["server"]}"/><y:NodeLabel>', names,
                    "</y:NodeLabel></y:ShapeNode></data></node>\n"], len(names))
    yield "".join(_switch_node_lines(src))
    nic_model, link = xml_text(r.nic.id), r.link_gbps
    leaf, leaf_port, pod = nic_columns(derived)
    per_plane = len(leaf)
    server_of = np.arange(per_plane, dtype=np.int64) // e
    host_of = picked(hosts, server_of)
    server_text = number_text(server_of + 1)
    pod_text, index_text = number_text(pod), numbers(0, per_plane)
    rail_text = numbers(0, e) * (per_plane // e)
    leaf_port_text = number_text(leaf_port)
    k_texts, nic_names = [], []
    for plane in range(planes):
        k_texts.append(numbers(plane * e + 1, e) * (per_plane // e))
        suffixes = [f"/nic-{plane * e + rail + 1}" for rail in range(e)]
        nic_names.append([name + suffix for name in hosts[:per_plane // e] for suffix in suffixes])
    for plane in range(planes):
        nic, k_text = nic_names[plane], k_texts[plane]
        for first in range(0, per_plane, _BLOCK):
            part = slice(first, first + _BLOCK)
            ids = nic[part]
            yield rows(['    <node id="', ids, '"><data key="n_label">', ids,
                        '</data><data key="n_role">nic</data><data key="n_tier">0</data>'
                        f'<data key="n_plane">{plane + 1}</data><data key="n_pod">', pod_text[part],
                        '</data><data key="n_rail">', rail_text[part],
                        '</data><data key="n_index">', index_text[part],
                        f'</data><data key="n_model">{nic_model}</data><data key="n_speed_gbps">{link}</data>'
                        '<data key="n_ports">1</data><data key="n_server">', server_text[part],
                        '</data><data key="n_port">', k_text[part], '</data><data key="n_host">', host_of[part],
                        f'</data><data key="n_yed"><y:ShapeNode><y:Fill color="{fill["nic"]}"/><y:NodeLabel>', ids,
                        "</y:NodeLabel></y:ShapeNode></data></node>\n"], len(ids))
    i = 0
    for plane in range(planes):
        nic, k_text = nic_names[plane], k_texts[plane]
        pre = plane_prefix(plane, planes)
        leaf_ids = picked([f"{pre}leaf-{x + 1}" for x in range(derived.plan.leaves)], leaf)
        for first in range(0, per_plane, _BLOCK):
            part = slice(first, first + _BLOCK)
            ids, n = nic[part], len(nic[part])
            yield rows(['    <edge id="e', numbers(i + 2 * first, n, 2), '" source="', ids, '" target="',
                        leaf_ids[part], f'"><data key="e_label">{link}G</data><data key="e_tier">node-leaf</data>'
                        f'<data key="e_gbps">{link}</data><data key="e_lower">', ids,
                        '</data><data key="e_lower_port">1</data><data key="e_upper_port">', leaf_port_text[part],
                        '</data></edge>\n    <edge id="e', numbers(i + 2 * first + 1, n, 2), '" source="',
                        host_of[part], '" target="', ids, '"><data key="e_label">nic-', k_text[part],
                        f'</data><data key="e_tier">{SERVER_EDGE}</data><data key="e_gbps">{link}</data>'
                        '<data key="e_lower">', host_of[part], '</data><data key="e_lower_port">', k_text[part],
                        '</data><data key="e_upper_port">1</data></edge>\n'], n)
        i += 2 * per_plane
    # the NIC ports' columns are done with: freed before the other networks' elements are made
    del nic_names, k_texts, host_of, server_text, pod_text, index_text, rail_text, leaf_port_text, leaf_ids
    gbps = r.uplink_gbps
    for lower, upper, tier, lower_port, upper_port in switch_link_columns(derived):
        lower_text, upper_text = number_text(lower_port), number_text(upper_port)
        for first in range(0, len(lower), _BLOCK):
            part = slice(first, first + _BLOCK)
            n = len(lower[part])
            yield rows(['    <edge id="e', numbers(i + first, n), '" source="', lower[part], '" target="',
                        upper[part], f'"><data key="e_label">{gbps}G</data><data key="e_tier">{tier}</data>'
                        f'<data key="e_gbps">{gbps}</data><data key="e_lower">', lower[part],
                        '</data><data key="e_lower_port">', lower_text[part], '</data><data key="e_upper_port">',
                        upper_text[part], "</data></edge>\n"], n)
        i += len(lower)
    if has_networks:
        held: list[str] = []   # elements up to a quarter megabyte (a run of links is one element)
        size = 0
        for element in network_graph(src, i).elements:
            held.append(element)
            size += len(element)
            if size >= 1 << 18:
                yield "\n".join(held) + "\n"
                held, size = [], 0
        if held:
            yield "\n".join(held) + "\n"
    yield "  </graph>\n</graphml>\n"


_BLOCK = 512   # rows per chunk


def _switch_node_lines(src: ExportSource) -> Iterator[str]:
    radix: dict[str, int] = {}
    up = src.resolved.uplink_gbps
    fill = COLOURS
    for n in switch_nodes(src.derived):
        if n.model not in radix:
            sw = src.switch_model(n.model)
            radix[n.model] = sw.ports_at(up) or max(m.count for m in sw.port_modes)
        sid = n.id
        yield (f'    <node id="{sid}"><data key="n_label">{sid}</data><data key="n_role">{n.role}</data>'
               f'<data key="n_tier">{n.level}</data><data key="n_plane">{n.plane + 1}</data>'
               f'<data key="n_pod">{n.pod}</data><data key="n_rail">{n.rail}</data>'
               f'<data key="n_index">{n.idx}</data><data key="n_model">{xml_text(n.model)}</data>'
               f'<data key="n_speed_gbps">{up}</data><data key="n_ports">{radix[n.model]}</data>'
               f'<data key="n_yed"><y:ShapeNode><y:Fill color="{fill[n.role]}"/><y:NodeLabel>{sid}</y:NodeLabel>'
               f'</y:ShapeNode></data></node>\n')
