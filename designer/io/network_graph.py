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
from designer.io.network_netbox import compute_switch_names, network_runs
from designer.io.row_text import numbers, rows
from designer.model.networks.devices import LinkRun

NETWORK_NODE_KEY = '  <key id="n_network" for="node" attr.name="network" attr.type="string"/>'
NETWORK_EDGE_KEY = '  <key id="e_network" for="edge" attr.name="network" attr.type="string"/>'
_SHORT_RUN = 64   # links: a shorter run is written with its neighbours, link by link


@dataclass
class NetworkGraph:
    """The `<key>` lines and the element lines to add; an edge's element carries, before it, the
    node line of a server port that edge names first (lines are joined with line breaks, and an
    element may be several lines: a run of links is one)."""
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
    devices, runs = network_runs(src)
    out = NetworkGraph([NETWORK_NODE_KEY, NETWORK_EDGE_KEY])
    compute = set(compute_switch_names(src))
    named = compute | {d.name for d in devices}   # ends that are nodes already; the rest are server ports
    attr = _Escaped()
    elements = out.elements
    bodies: dict[tuple[str, ...], str] = {}     # a node's data, per kind of node
    seen: set[str] = set()

    def node_body(role: str, model: str, network: str) -> str:
        key = (role, model, network)
        if key not in bodies:
            model_data = _data("n_model", model) if model else ""
            bodies[key] = _data("n_role", role) + model_data + _data("n_network", network)
        return bodies[key]

    for d in devices:
        if d.name in seen or d.name in compute:
            continue
        seen.add(d.name)
        elements.append(f'    <node id="{attr[d.name]}">{node_body(d.tier, d.switch, d.network)}</node>')
    k = first_edge
    edge_data: dict[tuple[str, int, str], str] = {}   # an edge's data, per kind of run
    short: list[tuple[LinkRun, str, str]] = []        # short runs in a row, written together

    def short_runs(k: int) -> None:
        """The short runs waiting, link by link in one element: the out-of-band network has a run
        of a rack's BMCs and one of its PDUs per rack (8,192 runs at 131,072 GPUs)."""
        node_lines: list[str] = []
        a_ids: list[str] = []
        b_ids: list[str] = []
        datas: list[str] = []
        for run, data, body in short:
            for a, a_port, b, b_port in zip(run.a, run.a_port, run.b, run.b_port, strict=True):
                lines = ""
                for end, port, ids in ((a, a_port, a_ids), (b, b_port, b_ids)):
                    if end in named:
                        ids.append(attr[end])
                        continue
                    escaped = f"{attr[end]}/{attr[port]}"
                    ids.append(escaped)
                    name = f"{end}/{port}"
                    if name not in seen and name not in compute:
                        seen.add(name)
                        lines += f'    <node id="{escaped}">{body}</node>\n'
                node_lines.append(lines)
            datas += [data] * len(run.a)
        short.clear()
        if a_ids:
            elements.append(rows([node_lines, '    <edge id="e', numbers(k, len(a_ids)), '" source="', a_ids,
                                  '" target="', b_ids, '">', datas, "</edge>\n"], len(a_ids))[:-1])

    for run in runs:
        data = edge_data.get((run.kind, run.gbps, run.network))
        if data is None:
            data = edge_data[(run.kind, run.gbps, run.network)] = (
                _data("e_tier", run.kind) + _data("e_gbps", run.gbps) + _data("e_network", run.network))
        body = node_body("host-port", "", run.network)
        if len(run.a) < _SHORT_RUN:
            short.append((run, data, body))
            k += len(run.a)
            continue
        if short:
            short_runs(k - sum(len(waiting.a) for waiting, _, _ in short))
        # A server port's node goes just before the first edge that names it: the a side's
        # before the b side's, link by link (a column at a time where the b side is all devices).
        if named.issuperset(run.b):
            a_ids, a_nodes = _server_ports(run.a, run.a_port, named, compute, seen, attr, body)
            b_ids = [attr[end] for end in run.b]
            # the run's lines as one element, a column at a time (designer.io.row_text)
            n = len(a_ids)
            elements.append(rows([a_nodes, '    <edge id="e', numbers(k, n), '" source="', a_ids, '" target="',
                                  b_ids, f'">{data}</edge>\n'], n)[:-1])
        else:
            for j, ends in enumerate(zip(run.a, run.a_port, run.b, run.b_port, strict=True)):
                a_ids, a_nodes = _server_ports([ends[0]], [ends[1]], named, compute, seen, attr, body)
                b_ids, b_nodes = _server_ports([ends[2]], [ends[3]], named, compute, seen, attr, body)
                elements.append(f'{a_nodes[0]}{b_nodes[0]}    <edge id="e{k + j}" source="{a_ids[0]}" '
                                f'target="{b_ids[0]}">{data}</edge>')
        k += len(run.a)
    if short:
        short_runs(k - sum(len(waiting.a) for waiting, _, _ in short))
    return out


def _server_ports(ends: list[str], ports: list[str], named: set[str], compute: set[str], seen: set[str],
                  attr: _Escaped, body: str) -> tuple[list[str], list[str]]:
    """The node ids of a run's ends on one side, and before each the node line (with its line
    break) of a server port not written yet, or "". Devices and switches are nodes already; a
    server's port of the run's role is `host/port`. A run is a column: 32,768 server ports of
    one role at 131,072 GPUs."""
    if named.issuperset(ends):
        return [attr[end] for end in ends], [""] * len(ends)
    if named.isdisjoint(ends):
        names = [f"{end}/{port}" for end, port in zip(ends, ports, strict=True)]
        fresh = set(names)
        if len(fresh) == len(names) and fresh.isdisjoint(seen) and fresh.isdisjoint(compute):
            # every end a server port met for the first time: the run's columns in one go
            seen |= fresh
            ids = [f"{attr[end]}/{attr[port]}" for end, port in zip(ends, ports, strict=True)]
            return ids, rows(['    <node id="', ids, f'">{body}</node>\n\0'], len(ids)).split("\0")[:-1]
    ids, nodes = [], []
    for end, port in zip(ends, ports, strict=True):
        if end in named:
            ids.append(attr[end])
            nodes.append("")
            continue
        escaped = f"{attr[end]}/{attr[port]}"
        ids.append(escaped)
        name = f"{end}/{port}"
        if name in seen or name in compute:
            nodes.append("")
        else:
            seen.add(name)
            nodes.append(f'    <node id="{escaped}">{body}</node>\n')
    return ids, nodes
