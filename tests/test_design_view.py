"""The design as the audit reads it, from the plan in closed form, equals the one read off the
device graph: the same devices and attributes, host links and switch pairs."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.model.decisions.audit import _worst_leaf, _worst_leaf_of_view
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec, TierSpec
from designer.model.topology.derive import derive
from designer.model.topology.design_view import design_view, view_from_graph, view_from_plan
from tests.helpers import examples

designs = st.builds(
    lambda template, servers, over, tiers, planes, server: FabricDesign(
        cluster=ClusterSpec(server=server, servers=servers),
        fabric=FabricSpec(template=template, tiers=tiers, planes=planes, leaf=TierSpec(oversubscription=over))),
    st.sampled_from(["rail-optimized", "leaf-spine", "fat-tree"]),
    st.integers(min_value=2, max_value=300),
    st.sampled_from([1.0, 1.5, 2.0]),
    st.sampled_from([None, 2, 3]),
    st.sampled_from([1, 2]),
    st.sampled_from(["dgx-h100", "generic-8gpu", "generic-1gpu-host"]))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs)
def test_the_plan_view_is_the_graph_view(design):
    try:
        derived = derive(design)
        graph = derived.graph
    except ValueError:
        return
    a, b = view_from_graph(graph), view_from_plan(derived)
    # The plan's devices and host links are columns, a record made when read: read one at a
    # time first (as the audit reads the few a finding names), then as a whole.
    rng = random.Random(len(a.nodes))
    for name in rng.sample(sorted(a.nodes), min(25, len(a.nodes))):
        assert name in b.nodes and b.nodes[name] == a.nodes[name] and b.nodes.get(name) == a.nodes[name]
    assert "no-such-device" not in b.nodes and b.nodes.get("no-such-device") is None
    assert len(b.nodes) == len(a.nodes) and len(b.host_links) == len(a.host_links)
    by_nic = {link[0]: link for link in a.host_links}
    for i in rng.sample(range(len(b.host_links)), min(25, len(b.host_links))):
        assert b.host_links[i] == by_nic[b.host_links[i][0]]
    assert list(b.nodes) == list(dict(b.nodes.items()))   # one order, read either way
    assert a.nodes == b.nodes
    assert sorted(a.host_links) == sorted(b.host_links)
    assert list(b.host_links) == [b.host_links[i] for i in range(len(b.host_links))]
    assert a.pairs == b.pairs
    assert _worst_leaf(derived) == _worst_leaf_of_view(b)
    # an edited design is read off its graph, edits and all
    if not a.pairs:   # a one-tier fabric: no switch pair to edit
        return
    (lo, hi), (n, _, _) = next(iter(sorted(a.pairs.items())))
    edited = dataclasses.replace(design, edits=(Edit("remove-links", lo, hi, 1),))
    got = design_view(derive(edited)).pairs.get((lo, hi), (0,))[0]
    assert got == n - 1
