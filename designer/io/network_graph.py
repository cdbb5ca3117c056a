"""The cluster's other networks as GraphML elements, added to the compute fabric's device graph.

Only for the whole fabric (a view of one SU or plane is the compute fabric's): one node per
switch of each network and per server port or endpoint it cables (`host/role-port`, PDUs,
storage appliances), one edge per link, each with the new `network` attribute (`compute` is
not written: an element without it belongs to the compute fabric, as every element did before).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.io.export_source import ExportSource
from designer.io.markup import xml_attr, xml_text
from designer.io.network_netbox import compute_switch_names, network_inventory

NETWORK_NODE_KEY = '  <key id="n_network" for="node" attr.name="network" attr.type="string"/>'
NETWORK_EDGE_KEY = '  <key id="e_network" for="edge" attr.name="network" attr.type="string"/>'


@dataclass
class NetworkGraph:
    keys: list[str] = field(default_factory=list)
    elements: list[str] = field(default_factory=list)


def _data(key: str, value: object) -> str:
    return f'<data key="{key}">{xml_text(value)}</data>'


class _Escaped(dict[str, str]):
    """`xml_attr` of each text, made once: device names and ports repeat on every link (the
    networks of a 131,072-GPU design have 174,000 links). Escaping goes character by
    character, so a server port's node id is its server's escaped name, '/', its escaped port."""

    def __missing__(self, text: str) -> str:
        self[text] = escaped = xml_attr(text)
        return escaped


def network_graph(src: ExportSource, first_edge: int) -> NetworkGraph:
    if not src.design.networks or src.members is not None:
        return NetworkGraph()
    devices, links = network_inventory(src)
    out = NetworkGraph([NETWORK_NODE_KEY, NETWORK_EDGE_KEY])
    by_name = {d.name: d for d in devices}
    compute = set(compute_switch_names(src))
    seen: set[str] = set()
    attr = _Escaped()
    bodies: dict[tuple[str, ...], str] = {}     # a node's or an edge's data, per kind of element

    def node(name: str, escaped: str, network: str, role: str, model: str = "") -> None:
        if name in seen or name in compute:
            return
        seen.add(name)
        body = bodies.get(("node", role, model, network))
        if body is None:
            body = bodies[("node", role, model, network)] = (
                _data("n_role", role) + (_data("n_model", model) if model else "") + _data("n_network", network))
        out.elements.append(f'    <node id="{escaped}">{body}</node>')

    for d in devices:
        node(d.name, attr[d.name], d.network, d.tier, d.switch)
    for k, link in enumerate(links):
        ends = []
        for device, port in ((link.a, link.a_port), (link.b, link.b_port)):
            if device in by_name or device in compute:
                ends.append(attr[device])
            else:  # a server's port of this role
                escaped = f"{attr[device]}/{attr[port]}"
                node(f"{device}/{port}", escaped, link.network, "host-port")
                ends.append(escaped)
        key = ("edge", link.kind, str(link.gbps), link.network)
        body = bodies.get(key)
        if body is None:
            body = bodies[key] = _data("e_tier", link.kind) + _data("e_gbps", link.gbps) + _data("e_network",
                                                                                                  link.network)
        out.elements.append(f'    <edge id="e{first_edge + k}" source="{ends[0]}" target="{ends[1]}">{body}</edge>')
    return out
