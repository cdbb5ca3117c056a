"""Property tests: whatever the request, a built fabric is wired consistently."""

from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.topology import closed_form, graph_metrics
from designer.model.topology.derive import derive
from designer.model.topology.metrics import _port_use_from_graph
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples

CAT = default_catalog()

requests = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized", "rail-only"]),
    "nodes": st.integers(1, 160),
    "server": st.sampled_from(["dgx-h100", "dgx-a100", "gb200-nvl72-tray", "dgx-b300-eth"]),
    "radix": st.sampled_from([8, 12, 16, 32, 64]),
    "oversubscription": st.sampled_from([1.0, 1.5, 2.0, 3.0]),
    "spine_oversubscription": st.sampled_from([1.0, 2.0]),
    "tiers": st.sampled_from([None, 2, 3]),
    "nodes_per_su": st.integers(2, 32),
})


def _build(req):
    server = CAT.server(req["server"])
    try:
        design = new_design(CAT, req["template"], nodes=req["nodes"], server=req["server"],
                            radix=req["radix"], speed=server.port_gbps,
                            oversubscription=req["oversubscription"],
                            spine_oversubscription=req["spine_oversubscription"],
                            tiers=req["tiers"], nodes_per_su=req["nodes_per_su"])
        return derive(design, CAT)
    except SizingError:
        return None


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_built_fabric_is_consistent(req):
    d = _build(req)
    if d is None:
        return
    g, m, r, plan = d.graph, d.metrics, d.resolved, d.plan
    # Every endpoint has exactly one link, to a leaf of its own plane.
    nics = [n for n, data in g.nodes(data=True) if data["role"] == "nic"]
    assert len(nics) == req["nodes"] * r.ports_per_server == m.endpoints
    for n in nics:
        (leaf,) = g[n]
        assert g.nodes[leaf]["role"] == "leaf"
        assert g.nodes[leaf]["plane"] == g.nodes[n]["plane"]
    # Link counts per tier from the graph equal the closed form, and add up.
    by_tier = Counter(t for *_, t in g.edges(data="tier"))
    assert dict(by_tier) == m.links_by_tier
    assert sum(by_tier.values()) == m.links_total == g.number_of_edges()
    # No switch uses more ports than it has; templates never raise port findings.
    assert not [f for f in m.findings if f.code == "ports-beyond-radix"]
    for tier, rows in _port_use_from_graph(g).items():
        sw = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}[tier]
        n_down = sw.ports_at(r.link_gbps if tier == "leaf" else r.uplink_gbps)
        n_up = sw.ports_at(r.uplink_gbps)
        for _, dn, up, *_ in rows:
            assert dn / n_down + up / n_up <= 1 + 1e-9
    # Port numbers are unique on every device.
    for node in g.nodes:
        ports = [d["pa"] if d["a"] == node else d["pb"] for *_, d in g.edges(node, data=True)]
        assert len(ports) == len(set(ports))
    # The switch counts reported are the switches in the graph.
    roles = Counter(data["role"] for _, data in g.nodes(data=True))
    assert {t: roles.get(t, 0) for t in ("leaf", "spine", "core")} == m.switches_by_tier
    # The closed forms agree with the graph methods.
    assert m.tiers == plan.tiers
    if g.number_of_nodes() < 6000:
        assert graph_metrics.bisection_maxflow(g) == pytest.approx(m.bisection_gbps)
        assert graph_metrics.max_hops_graph(g) == (m.max_hops, m.max_hops_same_rail)
    assert 0 < m.bisection_ratio <= 1 + 1e-9
    assert m.bisection_gbps <= closed_form.full_bisection_gbps(plan, r) + 1e-6


@pytest.mark.parametrize("sus", [6, 8, 12])
def test_closed_form_bisection_equals_maxflow_on_hundreds_of_switches(sus):
    design = new_design(CAT, "rail-optimized", nodes=32 * sus, server="dgx-h100", switch="qm9700", tiers=3)
    d = derive(design, CAT)
    assert d.metrics.switches_total >= 100
    assert graph_metrics.bisection_maxflow(d.graph) == pytest.approx(d.metrics.bisection_gbps)


def test_maxflow_agrees_on_a_five_hundred_switch_oversubscribed_fat_tree():
    # Radix 24 at 3:1: 18 down + 6 up per leaf, 12 leaves per pod, 24 pods.
    design = new_design(CAT, "fat-tree", gpus=24 * 12 * 18, gpus_per_node=1, radix=24, speed=400,
                        oversubscription=3.0)
    d = derive(design, CAT)
    assert d.metrics.switches_by_tier == {"leaf": 288, "spine": 144, "core": 72}
    assert graph_metrics.bisection_maxflow(d.graph) == pytest.approx(d.metrics.bisection_gbps)
    assert d.metrics.bisection_ratio == pytest.approx(1 / 3)


def test_smallest_tier_count_that_fits_is_chosen():
    two = derive(new_design(CAT, "rail-optimized", nodes=256, server="dgx-h100", switch="qm9700"), CAT)
    three = derive(new_design(CAT, "rail-optimized", nodes=288, server="dgx-h100", switch="qm9700"), CAT)
    assert two.metrics.tiers == 2 and two.metrics.switches_by_tier["leaf"] == 64
    assert three.metrics.tiers == 3 and three.metrics.switches_by_tier["core"] > 0
    fixed = derive(new_design(CAT, "rail-optimized", nodes=32, server="dgx-h100", switch="qm9700", tiers=3), CAT)
    assert fixed.metrics.tiers == 3


def test_planes_replicate_the_fabric():
    one = derive(new_design(CAT, "rail-optimized", nodes=64, server="dgx-h100", switch="qm9700"), CAT).metrics
    two = derive(new_design(CAT, "rail-optimized", nodes=64, server="dgx-h100", switch="qm9700", planes=2), CAT)
    m = two.metrics
    assert m.planes == 2 and m.rails == 4 and m.endpoints == one.endpoints
    assert {n for n, d in two.graph.nodes(data=True) if d["role"] == "leaf" and d["plane"] == 1}
    assert m.bisection_gbps == pytest.approx(one.bisection_gbps)


rack_scale_requests = st.fixed_dictionaries({
    "template": st.just("rail-optimized"),
    "nodes": st.integers(1, 300),
    "server": st.just("gb200-nvl72-tray"),
    "radix": st.sampled_from([32, 48, 64]),
    "oversubscription": st.sampled_from([1.0, 2.0]),
    "spine_oversubscription": st.sampled_from([1.0, 2.0]),
    "tiers": st.sampled_from([None, 2, 3]),
    "nodes_per_su": st.sampled_from([36, 72, 144]),
})


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rack_scale_requests)
def test_rack_scale_su_spread_over_leaves_is_consistent(req):
    # SUs of whole NVL72 racks larger than one leaf: each rail spreads over one leaf per rack group.
    test_built_fabric_is_consistent.hypothesis.inner_test(req)
    d = _build(req)
    if d is not None:
        assert d.plan.rail_leaves * d.plan.rail_leaf_size == req["nodes_per_su"] or d.plan.rail_leaves == 1


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_closed_form_port_use_as_arrays_equals_the_wired_graph(req):
    # The closed forms read the leaf assignment as arrays (sizing prices many layouts of a 16K-GPU
    # fabric); they must give the builder's assignment and the graph's port use, switch by switch.
    from designer.model.topology.builders import leaf_assignment

    d = _build(req)
    assume(d is not None)
    plan, r = d.plan, d.resolved
    leaf, port = closed_form.leaf_assignment_arrays(plan, r.rails)
    assert list(zip(leaf.tolist(), port.tolist(), strict=True)) == list(leaf_assignment(plan, r.rails))
    per_plane = closed_form.ports_per_switch(plan, r)
    graph_use = _port_use_from_graph(d.graph)
    for tier in ("leaf", "spine", "core"):
        closed = {f"{f'p{plane + 1}.' if r.planes > 1 else ''}{tier}-{i + 1}": (dn, up)
                  for plane in range(r.planes) for i, (dn, up) in enumerate(per_plane.get(tier, []))}
        wired = {name: (dn, up) for name, dn, up, *_ in graph_use.get(tier, [])}
        assert closed == wired, tier


endpoints = st.integers(1, 9).flatmap(lambda leaves: st.tuples(
    st.just(leaves),
    st.lists(st.tuples(st.integers(0, leaves - 1), st.integers(0, 6)), max_size=80),
    st.integers(0, 3)))


@settings(max_examples=examples(200), deadline=None)
@given(endpoints)
def test_bisection_halves_per_leaf_equal_the_sorted_split(case):
    # The bisection's halves are counted per (leaf, port) key instead of sorting every endpoint:
    # the same counts as splitting the endpoints sorted by leaf, port and index in two.
    import numpy as np

    leaves, pairs, first_port = case
    leaf = np.array([lf for lf, _ in pairs], np.int64)
    port = np.array([p + first_port for _, p in pairs], np.int64)
    order = sorted(range(len(pairs)), key=lambda i: (pairs[i][0], pairs[i][1], i))
    half = len(order) // 2
    a, b = [0] * leaves, [0] * leaves
    for i in order[:half]:
        a[pairs[i][0]] += 1
    for i in order[half:2 * half]:
        b[pairs[i][0]] += 1
    assert closed_form._halves_per_leaf(leaf, port, leaves) == (a, b)
