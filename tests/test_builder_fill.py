"""The builder fills the graph's dicts directly: the result is the graph networkx's own methods make."""

from pathlib import Path

import networkx as nx
import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.topology import builders
from designer.model.topology.derive import plan_only

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CAT = default_catalog()


@pytest.mark.parametrize("name", ["dgx-h100-superpod-4su.json", "b300-roce-two-plane.json", "ndr-8k-fat-tree.json"])
def test_direct_fill_equals_the_public_methods(name, monkeypatch):
    design = load_design(EXAMPLES / name)
    r, plan = plan_only(design, CAT)
    fast = builders.build_graph(design, r, plan).graph

    def public(g, nodes, edges):
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
    monkeypatch.setattr(builders, "_fill", public)
    slow = builders.build_graph(design, r, plan).graph
    assert list(fast.nodes(data=True)) == list(slow.nodes(data=True))
    assert list(fast.edges(keys=True, data=True)) == list(slow.edges(keys=True, data=True))
    assert nx.utils.graphs_equal(fast, slow)
    # Edits on the filled graph behave: a new link gets the next key, removal works.
    fast.add_edge("leaf-1" if "leaf-1" in fast else "p1.leaf-1", "spine-1" if "spine-1" in fast else "p1.spine-1")
    assert fast.number_of_edges() == slow.number_of_edges() + 1
