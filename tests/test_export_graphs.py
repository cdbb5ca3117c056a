"""GraphML reads back into networkx with the same metrics; DOT and draw.io are well formed; no user
string can break their syntax."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest

from designer.catalog import default_catalog
from designer.io.dot import MAX_SWITCHES, dot, dot_bundled
from designer.io.drawio import MAX_SHAPES, drawio
from designer.io.export_source import ExportOptions, ExportSource
from designer.io.graphml import graphml
from designer.io.project import load_design
from designer.model.intent.design import Edit, Meta
from designer.model.topology import graph_metrics

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HOSTILE = 'a<b>&"c\' \x01\x1b]0;x\x07 \\ \n\r\u2028 \ud800 =1+2'


def _source(name: str, **options) -> ExportSource:
    return ExportSource(load_design(EXAMPLES / f"{name}.json"), default_catalog(), ExportOptions(**options))


def _read_graphml(text: str, tmp_path) -> nx.MultiGraph:
    path = tmp_path / "g.graphml"
    path.write_text(text, encoding="utf-8")
    return nx.read_graphml(path, force_multigraph=True)


def _model_view(g: nx.MultiGraph) -> nx.MultiGraph:
    """The read-back device graph in the model's names: without the server nodes and their edges,
    the level called 'tier', planes from 0 and the ports at each end of a link 'a', 'pa', 'pb'."""
    g.remove_nodes_from([n for n, d in g.nodes(data=True) if d["role"] == "server"])
    for _, d in g.nodes(data=True):
        d["level"] = d["tier"]
        d["plane"] -= 1
    for *_, d in g.edges(data=True):
        d["a"], d["pa"], d["pb"] = d["lower"], d["lower_port"], d["upper_port"]
    return g


@pytest.mark.parametrize("name", ["dgx-h100-superpod-1su", "roce-512-leaf-spine-sn5600", "b300-roce-two-plane"])
def test_graphml_reads_back_with_the_same_metrics(name, tmp_path):
    src = _source(name)
    m = src.derived.metrics
    g = _model_view(_read_graphml(graphml(src), tmp_path))
    roles = Counter(d["role"] for _, d in g.nodes(data=True))
    assert {t: roles[t] for t in m.switches_by_tier} == m.switches_by_tier
    assert roles["nic"] == m.endpoints
    assert dict(Counter(d["tier"] for *_, d in g.edges(data=True))) == m.links_by_tier
    assert graph_metrics.bisection_maxflow(g) == pytest.approx(m.bisection_gbps)
    assert graph_metrics.max_hops_graph(g) == (m.max_hops, m.max_hops_same_rail)
    assert g.graph["gpus"] == m.gpus and g.graph["name"] == src.name
    leaf = next(d for _, d in g.nodes(data=True) if d["role"] == "leaf")
    assert isinstance(leaf["tier"], int) and isinstance(leaf["ports"], int) and leaf["ports"] > 0
    nic = next(d for _, d in g.nodes(data=True) if d["role"] == "nic")
    assert nic["host"].startswith("gpu-node-") and nic["speed_gbps"] == m.link_gbps


@pytest.mark.parametrize("name", ["dgx-h100-superpod-1su", "b300-roce-two-plane", pytest.param(
    "ndr-8k-fat-tree", marks=pytest.mark.slow(reason="the 1-SU and two-plane cases check the same graph, "
                                                       "written by the same code"))])
def test_graphml_opens_as_one_connected_graph_with_server_nodes(name, tmp_path):
    """Every NIC port hangs off its server, so the planes that serve the same servers are one graph."""
    src = _source(name)
    m = src.derived.metrics
    g = _read_graphml(graphml(src), tmp_path)
    assert nx.number_connected_components(g) == 1
    servers = [n for n, d in g.nodes(data=True) if d["role"] == "server"]
    assert len(servers) == m.servers and servers[0] == "gpu-node-0001"
    assert g.degree("gpu-node-0001") == m.endpoints // m.servers
    assert all(g.nodes[n]["role"] == "nic" and g.nodes[n]["host"] == "gpu-node-0001" for n in g["gpu-node-0001"])
    assert Counter(d["tier"] for *_, d in g.edges(data=True))["server-nic"] == m.endpoints
    # Labels for Gephi and yEd, readable edge attributes, planes from 1.
    assert all(d["label"] for _, d in g.nodes(data=True))
    assert {d["plane"] for _, d in g.nodes(data=True) if d["role"] != "server"} == set(range(1, m.planes + 1))
    edge = next(d for *_, d in g.edges(data=True) if d["tier"] == "leaf-spine")
    assert set(edge) >= {"label", "gbps", "lower", "lower_port", "upper_port"} and not {"a", "pa", "pb"} & set(edge)
    assert edge["label"] == f"{edge['gbps']}G"
    assert 'yfiles.type="nodegraphics"' in graphml(src)


def test_graphml_of_an_edited_design_matches_the_max_flow_metrics(tmp_path):
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    design = dataclasses.replace(design, edits=(Edit("remove-links", "leaf-1", "spine-1", 2),))
    src = ExportSource(design, default_catalog())
    m = src.derived.metrics
    assert m.bisection_method == "max-flow"
    g = _model_view(_read_graphml(graphml(src), tmp_path))
    assert g.number_of_edges() == m.links_total
    assert graph_metrics.bisection_maxflow(g) == pytest.approx(m.bisection_gbps)


def test_graphml_and_drawio_escape_user_strings(tmp_path):
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    src = ExportSource(dataclasses.replace(design, meta=Meta(name=HOSTILE)), default_catalog())
    for text in (graphml(src), drawio(src)):
        raw = text.encode("utf-8")
        assert not re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", raw)
        ET.fromstring(raw)  # well formed
    g = _read_graphml(graphml(src), tmp_path)
    assert g.graph["name"].startswith('a<b>&"c\'') and "\x01" not in g.graph["name"]


def test_dot_has_every_node_and_link_and_survives_quotes():
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    src = ExportSource(dataclasses.replace(design, meta=Meta(name=HOSTILE)), default_catalog())
    text = dot(src)
    m = src.derived.metrics
    lines = text.splitlines()
    assert lines[1] == "graph fabric {" and lines[-1] == "}"
    edges = [link for link in lines if re.match(r'^  "[^"]+" -- "[^"]+" \[', link)]
    assert len(edges) == m.links_total
    nodes = [link for link in lines if re.match(r'^  "[^"]+" \[label=', link)]
    assert len(nodes) == m.endpoints + m.switches_total
    body = "\n".join(lines[1:])
    unescaped = re.sub(r'\\"', "", body)
    assert unescaped.count('"') % 2 == 0  # every string closes
    assert not re.search(r'\\(?!")', body)  # the only backslashes escape quotes: none swallows a closing one
    assert len([link for link in lines if link.startswith("  graph [")]) == 1
    assert {int(x) for x in re.findall(r"gbps=(\d+)", body)} == {400}


def _drawio_cells(text: str):
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "mxfile" and root.get("compressed") == "false"
    diagram = root.find("diagram")
    model = diagram.find("mxGraphModel")
    assert model is not None and not (diagram.text or "").strip(), "the diagram must not be compressed"
    vertices, edges = {}, []
    for obj in model.find("root"):
        cell = obj if obj.tag == "mxCell" else obj.find("mxCell")
        ident = obj.get("id")
        if cell.get("vertex") == "1":
            vertices[ident] = obj
        elif cell.get("edge") == "1":
            edges.append((obj, cell))
    return vertices, edges


def test_drawio_small_fabric_has_a_shape_per_device_and_an_edge_per_bundle():
    src = _source("dgx-h100-superpod-1su")
    m = src.derived.metrics
    vertices, edges = _drawio_cells(drawio(src))
    devices = [v for v in vertices.values() if v.tag == "object"]
    assert len(devices) == m.switches_total + m.servers
    assert Counter(v.get("role") for v in devices) == {"server": 32, "leaf": 8, "spine": 4}
    for _, cell in edges:
        assert cell.get("source") in vertices and cell.get("target") in vertices
    assert sum(int(obj.get("links")) for obj, _ in edges) == m.links_total
    pairs = [(c.get("source"), c.get("target")) for _, c in edges]
    assert len(pairs) == len(set(pairs)), "parallel links are one bundle"
    rows = {v.get("role"): float(v.find("mxCell/mxGeometry").get("y")) for v in devices}
    assert rows["spine"] < rows["leaf"] < rows["server"]


def test_drawio_large_fabric_is_drawn_by_group():
    src = _source("ndr-8k-fat-tree")
    m = src.derived.metrics
    assert m.switches_total + m.servers > MAX_SHAPES
    vertices, edges = _drawio_cells(drawio(src))
    groups = [v for v in vertices.values() if v.tag == "object"]
    assert len(groups) < MAX_SHAPES
    by_role = Counter()
    for v in groups:
        by_role[v.get("role")] += int(v.get("count"))
    assert by_role == {"server": m.servers, **m.switches_by_tier}
    assert sum(int(obj.get("links")) for obj, _ in edges) == m.links_total


@pytest.mark.parametrize("name", ["dgx-h100-superpod-1su", "dgx-h100-superpod-4su", "b300-roce-two-plane",
                                  "ndr-8k-fat-tree"])
def test_bundled_dot_counts_every_link_once_in_few_edges(name):
    """Parallel links are one edge with their count; servers are one node per SU or pod; switches
    are one node each in a small view, one per tier of each pod (and plane) in a large one."""
    src = _source(name)
    m = src.derived.metrics
    text = dot_bundled(src)
    lines = text.splitlines()
    assert lines[1] == "graph fabric {" and lines[-1] == "}"
    edges = [re.match(r'^  "([^"]+)" -- "([^"]+)" \[label="(\d+) x (\d+)G", links=(\d+)', x) for x in lines
             if " -- " in x]
    assert all(edges) and sum(int(e.group(5)) for e in edges) == m.links_total
    assert all(e.group(3) == e.group(5) for e in edges)
    assert len({(e.group(1), e.group(2), e.group(4)) for e in edges}) == len(edges)   # one edge per bundle
    nodes = dict(re.findall(r'^  "([^"]+)" \[label="[^"]*", fillcolor="[^"]+", role="(\w+)"', text, re.M))
    counts = dict(re.findall(r'^  "([^"]+)" \[.*count=(\d+)\]', text, re.M))
    servers = [n for n, role in nodes.items() if role == "server"]
    assert sum(int(counts[n]) for n in servers) == m.servers
    assert len(servers) == (src.columns if src.rail_optimized or src.columns > 1 else 1)
    switches = [n for n, role in nodes.items() if role != "server"]
    assert sum(int(counts[n]) for n in switches) == m.switches_total
    if m.switches_total <= MAX_SWITCHES:
        assert len(switches) == m.switches_total
    else:
        assert len(switches) < m.switches_total
    ranks = [x for x in lines if x.startswith("  { rank=same;")]
    assert len(ranks) == 1 + sum(1 for n in m.switches_by_tier.values() if n)


def _graph_signature(text: str, tmp_path):
    g = _read_graphml(text, tmp_path)
    nodes = {n: tuple(sorted(d.items())) for n, d in g.nodes(data=True)}
    edges = Counter((*sorted((u, v)), tuple(sorted(d.items()))) for u, v, d in g.edges(data=True))
    return nodes, edges, g.graph


# The 8K-GPU fat-tree runs with `make test-slow`; the others are the same writer on smaller fabrics.
@pytest.mark.parametrize("name", ["dgx-h100-superpod-1su", "b300-roce-two-plane",
                                  pytest.param("ndr-8k-fat-tree", marks=pytest.mark.slow),
                                  "b300-xdr-4su-rail", "roce-512-leaf-spine-sn5600"])
def test_graphml_streamed_from_the_plan_equals_the_graphml_of_the_device_graph(name, tmp_path, monkeypatch):
    """A template design seen whole is written from the sizing plan, without the device graph:
    the same nodes, attributes and links as the graph gives."""
    import designer.io.graphml as graphml_module

    design = load_design(EXAMPLES / f"{name}.json")
    fresh = dataclasses.replace(design, meta=Meta(name=f"{design.meta.name} (streamed)"))   # not a cached one
    src = ExportSource(fresh, default_catalog())
    streamed = graphml(src)
    assert src.derived._build is None   # the device graph was never built
    monkeypatch.setattr(graphml_module, "streamable", lambda *args, **kwargs: False)
    from_graph = graphml(ExportSource(fresh, default_catalog()))
    assert _graph_signature(streamed, tmp_path) == _graph_signature(from_graph, tmp_path)


@pytest.mark.parametrize("name", ["dgx-h100-superpod-1su", "b300-roce-two-plane", "ndr-8k-fat-tree"])
def test_dot_streamed_from_the_plan_has_the_graphs_lines(name, monkeypatch):
    import designer.io.dot as dot_module

    design = load_design(EXAMPLES / f"{name}.json")
    fresh = dataclasses.replace(design, meta=Meta(name=f"{design.meta.name} (dot)"))
    src = ExportSource(fresh, default_catalog())
    streamed = dot(src)
    assert src.derived._build is None   # the device graph was never built
    monkeypatch.setattr(dot_module, "streamable", lambda *args, **kwargs: False)
    from_graph = dot(ExportSource(fresh, default_catalog()))

    def shape(text):
        lines = text.splitlines()
        ranks = {frozenset(x[len("  { rank=same; "):-2].split()) for x in lines if x.startswith("  { rank=same;")}
        return Counter(x for x in lines if not x.startswith("  { rank=same;")), ranks

    assert shape(streamed) == shape(from_graph)


@pytest.mark.parametrize("name", ["dgx-h100-superpod-1su", "dgx-h100-superpod-4su", "b300-roce-two-plane",
                                  "ndr-8k-fat-tree", "roce-512-leaf-spine-sn5600"])
def test_bundled_dot_from_the_plan_equals_the_graphs(name, monkeypatch):
    import designer.io.dot as dot_module

    design = load_design(EXAMPLES / f"{name}.json")
    fresh = dataclasses.replace(design, meta=Meta(name=f"{design.meta.name} (bundled)"))
    src = ExportSource(fresh, default_catalog())
    streamed = dot_bundled(src)
    assert src.derived._build is None   # the device graph was never built
    monkeypatch.setattr(dot_module, "streamable", lambda *args, **kwargs: False)
    from_graph = dot_bundled(ExportSource(fresh, default_catalog()))

    def shape(text):
        lines = text.splitlines()
        ranks = {frozenset(x[len("  { rank=same; "):-2].split()) for x in lines if x.startswith("  { rank=same;")}
        return Counter(x for x in lines if not x.startswith("  { rank=same;")), ranks

    assert shape(streamed) == shape(from_graph)


@pytest.mark.parametrize("server, gpus", [("dgx-h100", 512), ("gb300-nvl72-tray", 1152)])
def test_graphml_of_a_design_with_its_other_networks_streams_as_the_graph_wrote_it(server, gpus, tmp_path,
                                                                                    monkeypatch):
    """`new` adds the reference architecture's networks by default: such a design streams its
    compute fabric from the plan too (it fell back to the device graph: 41x `metrics` and 1.5 GB
    at 131K GPUs), the other networks' devices and links following, as the graph path writes them."""
    import designer.io.graphml as graphml_module
    from designer.model.networks.defaults import ra_networks
    from designer.model.topology.presets import new_design

    catalog = default_catalog()
    design = new_design(catalog, "rail-optimized", gpus=gpus, server=server)
    design = dataclasses.replace(design, networks=ra_networks(catalog.server(design.cluster.server)))
    assert design.networks
    src = ExportSource(design, catalog)
    streamed = graphml(src)
    assert src.derived._build is None   # the device graph was never built
    assert 'attr.name="network"' in streamed
    monkeypatch.setattr(graphml_module, "streamable", lambda *args, **kwargs: False)
    fresh = dataclasses.replace(design, meta=Meta(name=design.meta.name))
    from_graph = graphml(ExportSource(fresh, catalog))
    assert _graph_signature(streamed, tmp_path) == _graph_signature(from_graph, tmp_path)
