"""The max-flow on an equitable partition's quotient, solved without networkx, equals networkx's."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model.topology.edited_fabric import _max_flow
from tests.helpers import examples


@st.composite
def networks(draw):
    nodes = draw(st.integers(2, 12))
    arcs = draw(st.lists(st.tuples(st.integers(0, nodes - 1), st.integers(0, nodes - 1),
                                   st.integers(0, 10).map(lambda k: k * 400)),
                         max_size=40))
    arcs = [(a, b, c) for a, b, c in arcs if a != b]
    source, sink = draw(st.sampled_from([(s, t) for s in range(nodes) for t in range(nodes) if s != t]))
    return nodes, arcs, source, sink


@settings(max_examples=examples(150), deadline=None)
@given(networks())
def test_equals_networkx_on_random_networks(network):
    nodes, arcs, source, sink = network
    graph: nx.DiGraph = nx.DiGraph()
    graph.add_nodes_from(range(nodes))
    for a, b, c in arcs:   # parallel arcs add up, as the quotient sums them
        if graph.has_edge(a, b):
            graph[a][b]["capacity"] += c
        else:
            graph.add_edge(a, b, capacity=c)
    assert _max_flow(nodes, arcs, source, sink) == nx.maximum_flow_value(graph, source, sink)


def test_a_bottleneck_and_two_parallel_paths():
    # source 0 -> 1 -> 3 (sink) and 0 -> 2 -> 3, with a cross arc 1 -> 2.
    arcs = [(0, 1, 800), (0, 2, 400), (1, 3, 400), (2, 3, 800), (1, 2, 400)]
    assert _max_flow(4, arcs, 0, 3) == 1200
    assert _max_flow(4, arcs, 3, 0) == 0
