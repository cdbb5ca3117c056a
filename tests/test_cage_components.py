"""The closed-form BOM's connected components of cages: the same partition as networkx's."""

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model.physical.closed_form_bom import _components
from tests.helpers import examples


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=120))))
def test_components_are_the_graphs_components(case):
    n, edges = case
    a = np.array([u for u, _ in edges], np.int64)
    b = np.array([v for _, v in edges], np.int64)
    label = _components(a, b, n)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    expected = {frozenset(c) for c in nx.connected_components(g)}
    found: dict[int, set[int]] = {}
    for node, lab in enumerate(label.tolist()):
        found.setdefault(lab, set()).add(node)
    assert {frozenset(c) for c in found.values()} == expected


def test_a_long_chain_is_one_component():
    # the worst case for hooking: each pass may join only some links of a path
    n = 5000
    order = np.random.default_rng(7).permutation(n)
    label = _components(order[:-1], order[1:], n)
    assert len(set(label.tolist())) == 1
