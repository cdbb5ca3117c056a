"""The exports that stream from the plan's wiring write, byte for byte, what they wrote from the
device graph (tests/graph_exports.py keeps those writers): Slurm tree, block and topology.yaml,
draw.io, ibnetdiscover, NDT and NetBox (with the cluster's other networks too), on generated
designs with one or two planes and random edits, in every view, and on the examples."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io import drawio, ibnetdiscover, ndt, netbox_csv, slurm_topology
from designer.io.export_source import DEFAULT_NODE_PATTERN, ExportError, ExportOptions, ExportSource
from designer.io.exporters import FORMATS
from designer.io.project import load_design
from designer.model.intent.design import Edit
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from designer.model.topology.wiring import TIERS, Wiring
from tests import graph_exports as graph
from tests.helpers import examples

CAT = default_catalog()
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _ib(src: ExportSource) -> str:
    return "".join(ibnetdiscover.ibnetdiscover_chunks(src.derived, host_name=src.host))


WRITERS = {
    "slurm-tree": (graph.topology_conf_tree, slurm_topology.topology_conf_tree),
    "slurm-block": (graph.topology_conf_block, slurm_topology.topology_conf_block),
    "slurm-yaml": (graph.topology_yaml, slurm_topology.topology_yaml),
    "drawio": (graph.drawio, drawio.drawio),
    "ibnetdiscover": (lambda src: graph.export_ibnetdiscover(src.derived, host_name=src.host), _ib),
    "ndt": (graph.ndt_csv, ndt.ndt_csv),
    "netbox": (graph.netbox_files, netbox_csv.netbox_files),
}
INFINIBAND_ONLY = ("ibnetdiscover", "ndt")


def _text(write, design, view: str) -> str:
    """What a writer gives on a fresh source (so nothing cached by the other path is reused),
    or its one-line refusal."""
    try:
        return write(ExportSource(design, CAT, ExportOptions(view=view)))
    except (ExportError, ValueError) as exc:
        return f"refused: {exc}"


def _views(design) -> list[str]:
    derived = derive(design, CAT)
    views = ["fabric"] + [f"plane:{p + 1}" for p in range(derived.resolved.planes)]
    if derived.plan.rail_su_size or derived.plan.tiers == 3:
        views += ["su:1", "su:2"]
    return views


def _assert_same(design, formats=tuple(WRITERS), views: list[str] | None = None) -> None:
    for view in views or _views(design):
        try:
            ExportSource(design, CAT, ExportOptions(view=view))
        except ExportError:
            continue   # a view the fabric does not have is refused before any writer runs
        for name in formats:
            old, new = WRITERS[name]
            if name in INFINIBAND_ONLY and derive(design, CAT).resolved.family != "infiniband":
                continue
            assert _text(new, design, view) == _text(old, design, view), (name, view, design.edits)


@st.composite
def designs(draw):
    template = draw(st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]))
    try:
        design = new_design(CAT, template, nodes=draw(st.integers(1, 48)),
                            server=draw(st.sampled_from(["dgx-h100", "gb200-nvl72-tray"])),
                            radix=draw(st.sampled_from([8, 12, 16, 32])), speed=400,
                            oversubscription=draw(st.sampled_from([1.0, 1.5, 3.0])),
                            tiers=draw(st.sampled_from([None, 2, 3])), nodes_per_su=draw(st.integers(2, 8)),
                            planes=draw(st.sampled_from([1, 2])))
        derive(design, CAT)
    except SizingError:
        design = None
    return design


@st.composite
def edited(draw):
    design = draw(designs().filter(lambda d: d is not None))
    g = derive(design, CAT).graph
    switches = sorted(n for n, role in g.nodes(data="role") if role != "nic")
    nics = sorted(n for n, role in g.nodes(data="role") if role == "nic")[:4]
    device = st.one_of(st.sampled_from(switches), st.sampled_from(["leaf-999", "p9.spine-1", "leaf-01"]))
    # A NIC joined to a switch (never to another NIC: the graph's hop count has no answer for that).
    nic_edit = st.builds(lambda nic, sw, n, op: Edit(op, *((nic, sw) if n % 2 else (sw, nic)), n),
                         st.sampled_from(nics), st.sampled_from(switches), st.integers(1, 3),
                         st.sampled_from(["add-links", "remove-links"]))
    edit = st.one_of(
        st.builds(Edit, st.just("add-links"), device, device, st.integers(1, 3)),
        st.builds(Edit, st.just("remove-links"), device, device, st.integers(1, 3)),
        st.builds(lambda a: Edit("remove-device", a), device),
        nic_edit)
    edits = draw(st.lists(edit, min_size=1, max_size=6))
    # Links added to a wired pair and then removed: the newest (manual) links go first.
    pairs = sorted((a, b) for a, b, t in g.edges(data="tier") if t != "node-leaf")
    for u, v in draw(st.lists(st.sampled_from(pairs or [(switches[0], switches[-1])]), max_size=3)):
        if draw(st.booleans()):
            edits.append(Edit("add-links", u, v, draw(st.integers(1, 2))))
        edits.append(Edit("remove-links", v, u, draw(st.integers(1, 3))))
    return dataclasses.replace(design, edits=tuple(edits))


def _wiring_matches_graph(design) -> None:
    derived = derive(design, CAT)
    g = derived.graph
    w = Wiring(design, derived.resolved, derived.plan)
    assert [w.name(n) for n in w.order()] == list(g.nodes)
    for node in w.order():
        mine = [(w.name(nbr), [(t, s, w.name(a), pa, pb) for t, s, a, pa, pb in links])
                for nbr, links in w.adjacency(node)]
        theirs = [(nbr, [(d["tier"], d["gbps"], d["a"], d["pa"], d["pb"]) for d in keys.values()])
                  for nbr, keys in g.adj[w.name(node)].items()]
        assert mine == theirs, w.name(node)
    blocks = [(w.name(a), w.name(b), TIERS[tier], gbps)
              for lower, upper, counts, tier, gbps in w.edge_blocks()
              for a, b, c in zip(lower.tolist(), upper.tolist(), counts.tolist(), strict=True) for _ in range(c)]
    assert blocks == [(d["a"], v if d["a"] == u else u, d["tier"], d["gbps"]) for u, v, d in g.edges(data=True)]
    assert w.problems == derived.build.edit_problems


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(designs().filter(lambda d: d is not None))
def test_template_designs_stream_as_the_graph_wrote_them(design):
    _wiring_matches_graph(design)
    _assert_same(design)


# Examples kept few: each writes every format in every view twice; the examples below and the
# NetBox and GraphML properties draw edited designs too.
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(edited())
def test_edited_designs_stream_as_the_graph_wrote_them(design):
    _wiring_matches_graph(design)
    _assert_same(design)


# The 8K-GPU fat-tree runs with `make test-slow`; the template property test above and the other
# examples cover the same writers on the same kinds of fabric.
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem == "ndr-8k-fat-tree" else p
                                  for p in sorted(EXAMPLES.glob("*.json")) if p.stem != "k64-fat-tree-hosts"],
                         ids=lambda p: p.stem)
def test_examples_stream_as_the_graph_wrote_them(path):
    design = load_design(path)
    _assert_same(design, views=["fabric"])   # the generated designs above go through every view
    # and an edit of each kind on top
    g = derive(design, CAT).graph
    spines = [n for n, role in g.nodes(data="role") if role == "spine"]
    leaf = next(n for n, role in g.nodes(data="role") if role == "leaf")
    _assert_same(dataclasses.replace(design, edits=(
        Edit("remove-device", spines[0]), Edit("add-links", leaf, spines[-1], 2),
        Edit("remove-links", leaf, next(iter(g[leaf])), 1))), views=["fabric"])


HCAS = ("mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", 'mlx5,"11"')


@pytest.mark.parametrize("options", [
    ExportOptions(ndt_kind="switch-to-switch"), ExportOptions(ndt_kind="switch-to-host"),
    ExportOptions(ndt_kind="switch-to-host", hca_names=HCAS), ExportOptions(hca_names=HCAS[:3]),
    ExportOptions(view="plane:2", node_pattern="n{su}-{i:03d}")], ids=lambda o: f"{o.ndt_kind}-{o.view}")
def test_ndt_options_stream_as_the_graph_wrote_them(options):
    design = new_design(CAT, "rail-optimized", nodes=8, server="dgx-h100", switch="qm9700", planes=2)
    design = dataclasses.replace(design, edits=(Edit("remove-device", "p1.spine-1"),
                                                Edit("add-links", "p1.leaf-1", "p1.spine-2", 2)))

    def run(write):
        try:
            return write(ExportSource(design, CAT, options))
        except ExportError as exc:
            return f"refused: {exc}"

    assert run(ndt.ndt_csv) == run(graph.ndt_csv)


def test_the_export_writes_the_streamed_chunks(tmp_path):
    """`export --format ibnetdiscover` writes its chunks, and they are the rendered text."""
    from designer.io.exporters import write_export

    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    src = ExportSource(design, CAT)
    fmt = FORMATS["ibnetdiscover"]
    assert fmt.chunks is not None
    chunks = list(fmt.chunks(src))
    assert len(chunks) > 1
    write_export(fmt, src, tmp_path / "fabric.txt")
    assert (tmp_path / "fabric.txt").read_text() == "".join(chunks) == fmt.render(src)


def test_a_plane_whose_only_leaf_is_removed_streams_as_the_graph_wrote_it():
    """One server on two planes of a generic 8-port leaf-spine, plane 1's only leaf removed: the
    plane's view has switches but no link left to draw (the streaming draw.io writer once failed
    on the empty bundle arrays)."""
    from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec

    design = FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=1),
                          fabric=FabricSpec(template="leaf-spine", technology="ib-ndr", switch="generic-8x400g",
                                            nodes_per_su=2, planes=2),
                          edits=(Edit("remove-device", "p1.leaf-1"),))
    _assert_same(design)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(st.one_of(designs().filter(lambda d: d is not None), edited()))
def test_netbox_with_the_other_networks_streams_as_the_graph_wrote_it(design):
    """The networks' devices, interfaces and cables follow the compute fabric's files, their
    out-of-band switches cabled to every compute switch left after the edits."""
    from designer.model.networks.defaults import ra_networks

    design = dataclasses.replace(design, networks=ra_networks(CAT.server(design.cluster.server)))
    _assert_same(design, formats=("netbox",), views=["fabric", "plane:1"])


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(st.one_of(designs().filter(lambda d: d is not None), edited()),
       st.sampled_from([DEFAULT_NODE_PATTERN, "n{su}-{i:03d}"]))
def test_graphml_of_the_other_networks_as_they_were_escaped(design, pattern):
    """The networks' GraphML elements, each name escaped once, are those escaped where written,
    their switches cabled to every compute switch the edits left."""
    from designer.io.network_graph import network_graph
    from designer.model.networks.defaults import ra_networks

    design = dataclasses.replace(design, networks=ra_networks(CAT.server(design.cluster.server)))
    src = ExportSource(design, CAT, ExportOptions(node_pattern=pattern))
    elements = network_graph(src, 7).elements   # a server port's node shares its first edge's element
    assert elements and "\n".join(elements) == "\n".join(graph.network_graph(src, 7).elements)


def test_the_netbox_export_writes_its_streamed_files(tmp_path):
    """`export --format netbox` writes each file of the folder from its chunks (the devices,
    optics and cables files in more than one), and they are the rendered files."""
    from designer.io.exporters import write_export
    from designer.io.netbox_csv import netbox_file_chunks

    design = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")
    src = ExportSource(design, CAT)
    fmt = FORMATS["netbox"]
    assert fmt.files is not None
    chunked = [name for name, text in netbox_file_chunks(src).items() if not isinstance(text, str)]
    assert {"06-devices.csv", "07-optics.csv", "08-cables.csv"} <= set(chunked)
    written = write_export(fmt, src, tmp_path / "netbox")
    rendered = fmt.render(src)
    assert isinstance(rendered, dict)
    assert sorted(p.name for p in written) == sorted(rendered)
    for path in written:
        assert path.read_bytes().decode("utf-8") == rendered[path.name]
