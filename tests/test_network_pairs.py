"""Which racks each leaf pair of a leaf-pair network serves (NetworkSize.pair_racks), and the
diagram's per-pair bundles read from it."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.intent.design import ClusterSpec, FabricDesign
from designer.model.intent.networks import NetworkSpec
from designer.model.networks.diagram import network_diagram
from designer.model.networks.sizing import servers_per_rack, size_network
from tests.helpers import examples

CAT = default_catalog()


def _converged(servers: int, server: str, ports: int | None = None) -> tuple[FabricDesign, NetworkSpec]:
    net = NetworkSpec(role="converged", name="Converged", ports_per_server=ports)
    return FabricDesign(cluster=ClusterSpec(server=server, servers=servers), networks=(net,)), net


@settings(max_examples=examples(60), deadline=None)
@given(servers=st.integers(1, 2000), server=st.sampled_from(["dgx-h100", "gb300-nvl72-tray", "hgx-h100"]),
       ports=st.sampled_from([None, 2, 4, 8, 16]))
def test_every_server_sits_on_one_pair_and_the_pairs_fill_racks_in_order(servers, server, ports):
    design, net = _converged(servers, server, ports)
    size = size_network(design, net, CAT)
    if size.errors:
        return
    leaves = next(g.count for g in size.switches if g.tier == "leaf")
    assert len(size.pair_racks) == leaves // 2
    group = int(size.extra["servers_per_pair"])
    rack = servers_per_rack(design, CAT.server(server))
    on_pair = [sum(n for _, n in served) for served in size.pair_racks]
    assert sum(on_pair) == servers
    assert all(n == group for n in on_pair[:-1]) and 0 < on_pair[-1] <= group
    # Walking the pairs in order visits each rack's servers in order, each rack whole once.
    per_rack: dict[int, int] = {}
    seen = [r for served in size.pair_racks for r, _ in served]
    assert seen == sorted(seen) and set(seen) == set(range(math.ceil(servers / rack)))
    for served in size.pair_racks:
        for r, n in served:
            per_rack[r] = per_rack.get(r, 0) + n
    assert [per_rack[r] for r in range(len(per_rack))] == [min(rack, servers - r * rack) for r in range(len(per_rack))]
    # Where a pair serves whole racks, no rack is shared by two pairs.
    if group % rack == 0:
        assert len(seen) == len(set(seen))
    # The diagram's server-leaf bundle carries the same assignment in links.
    ports_each = next(g.count for g in size.links if g.kind == "server-leaf") // servers
    _, bundles = network_diagram(size, servers)
    bundle = next(b for b in bundles if b.by_pair)
    assert bundle.by_pair == tuple(tuple((r, n * ports_each) for r, n in served) for served in size.pair_racks)


def test_the_gb300_converged_pairs_serve_three_racks_each():
    from pathlib import Path

    from designer.io.project import load_design

    design = load_design(Path(__file__).resolve().parent.parent / "examples" / "gb300-nvl72-8rack.json")
    net = design.network("converged")
    size = size_network(design, net, CAT)
    assert [[r for r, _ in served] for served in size.pair_racks] == [[0, 1, 2], [3, 4, 5], [6, 7]]
    _, bundles = network_diagram(size, design.cluster.servers)
    bundle = next(b for b in bundles if b.by_pair)
    assert [bundle.pair_racks_label(p) for p in range(3)] == ["racks 1-3", "racks 4-6", "racks 7-8"]
    assert bundle.pair_summary() == "2-3 racks per leaf pair"


def test_a_rack_larger_than_a_leaf_is_split_over_pairs_and_says_so():
    design, net = _converged(40, "gb300-nvl72-tray", ports=16)   # 8 ports on each leaf: 7 trays of 18
    size = size_network(design, net, CAT)
    assert not size.errors
    assert any("pairs split racks" in n for n in size.notes)
    _, bundles = network_diagram(size, design.cluster.servers)
    bundle = next(b for b in bundles if b.by_pair)
    assert len(bundle.by_pair) > 1 and all(len(served) == 1 for served in bundle.by_pair[:2])
    assert [bundle.pair_racks_label(p) for p in range(3)] == ["part of rack 1", "part of rack 1",
                                                              "parts of racks 1-2"]
