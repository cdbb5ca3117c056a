"""Load on forwarding tables as data: paths followed hop by hop, max-min fair sharing, the
patterns on the rank order, and the model's balanced figure beside the tables'. No QApplication,
no simulator: the tables are built by hand for a two-leaf, two-spine fabric."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model.performance.static_routes import (
    RoutingTables,
    max_min_fair,
    pattern_flows,
    static_routing_load,
    static_routing_penalty,
)
from tests.helpers import examples

# Switches 0, 1: leaves; 2, 3: spines. Leaf ports 1-2 to NICs, 3 to spine 2, 4 to spine 3.
# Endpoints 0, 1 on leaf 0; 2, 3 on leaf 1; one NIC per server (rail 0), four servers, so the
# ring is 0 -> 1 -> 2 -> 3 -> 0.


def two_tier(spine_for: list[int]) -> RoutingTables:
    """Leaves route toward a remote endpoint e up to spine `spine_for[e]`."""
    lft = np.zeros((4, 4), dtype=np.int16)
    peer_switch = np.full((4, 5), -1)
    peer_endpoint = np.full((4, 5), -1)
    gbps = np.zeros((4, 5))
    for leaf in (0, 1):
        for k in (0, 1):
            e = leaf * 2 + k
            peer_endpoint[leaf, 1 + k] = e
            gbps[leaf, 1 + k] = 400
        for spine, port in ((2, 3), (3, 4)):
            peer_switch[leaf, port] = spine
            gbps[leaf, port] = 400
            peer_switch[spine, 1 + leaf] = leaf
            gbps[spine, 1 + leaf] = 400
    for e in range(4):
        home = e // 2
        for leaf in (0, 1):
            lft[leaf, e] = 1 + e % 2 if leaf == home else (3 if spine_for[e] == 2 else 4)
        for spine in (2, 3):
            lft[spine, e] = 1 + home
    return RoutingTables(lft=lft, peer_switch=peer_switch, peer_endpoint=peer_endpoint, gbps=gbps,
                         level=np.array([1, 1, 2, 2]), leaf_of=np.array([0, 0, 1, 1]),
                         server_of=np.arange(4), rail_of=np.zeros(4, dtype=np.int64), nic_gbps=400.0)


def test_balanced_tables_match_the_model():
    load = static_routing_load(two_tier([2, 3, 2, 3]))
    a2a = load.pattern("all-to-all")
    assert a2a.flows == 12 and a2a.unrouted == 0
    assert a2a.worst_load == a2a.model_worst_load
    assert a2a.throughput == a2a.model_throughput == 1.0
    assert static_routing_penalty(load) == pytest.approx(1.0)


def test_every_destination_on_one_spine_doubles_the_busiest_uplink():
    # Each leaf sends everything remote up spine 2: its uplink to spine 2 carries twice the mean.
    skewed = static_routing_load(two_tier([2, 2, 2, 2]))
    balanced = static_routing_load(two_tier([2, 3, 2, 3]))
    ring_s, ring_b = skewed.pattern("ring"), balanced.pattern("ring")
    # Ring 0->1 stays in leaf 0; 1->2 and 3->0 cross: one flow up each leaf, alone either way.
    assert ring_s.throughput == ring_b.throughput == 1.0
    # All-to-all: each NIC sends a third of its rate to each of 3 peers; 4 of a leaf's flows are
    # remote, all on one 400G uplink: 4/3 of it offered, each remote flow gets 100 of 133 Gb/s.
    a2a = skewed.pattern("all-to-all")
    assert a2a.worst_load == pytest.approx(4 / 3) and a2a.busiest_link == "leaf up"
    assert a2a.model_worst_load == balanced.pattern("all-to-all").model_worst_load == 1.0
    assert a2a.slowest == pytest.approx(0.75)
    assert a2a.throughput == pytest.approx((8 * 0.75 + 4 * 1.0) / 12)
    assert static_routing_penalty(skewed) == pytest.approx(a2a.throughput)
    routes = {t.tier: t for t in skewed.routes_per_port}
    assert routes["leaf up"].most == 4 and routes["leaf up"].least == 0
    assert {t.tier: t.most for t in balanced.routes_per_port}["leaf up"] == 2


def test_a_missing_table_entry_leaves_flows_unrouted():
    t = two_tier([2, 3, 2, 3])
    t.lft[2, 0] = 0                              # spine 2 has no route to endpoint 0
    a2a = static_routing_load(t, ("all-to-all",)).pattern("all-to-all")
    assert a2a.unrouted == 2                     # endpoints 2 and 3 -> 0 go up spine 2 and stop
    assert a2a.slowest == 0.0


def test_ring_and_tree_follow_the_rank_order():
    t = two_tier([2, 3, 2, 3])
    start, dst, weight, src = pattern_flows(t, "ring")
    assert list(zip(src.tolist(), dst.tolist(), strict=True)) == [(0, 1), (1, 2), (2, 3), (3, 0)]
    _, dst, _, src = pattern_flows(t, "tree")
    pairs = set(zip(src.tolist(), dst.tolist(), strict=True))
    assert pairs == {(1, 0), (0, 1), (2, 0), (0, 2), (3, 1), (1, 3)}


def test_max_min_fair_known_answer():
    # Link 0 (capacity 3) carries flows 0, 1; link 1 (capacity 10) carries flows 1, 2.
    rate = max_min_fair(np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1]), np.array([3.0, 10.0]),
                        np.ones(3), 3)
    assert np.allclose(rate, [1.5, 1.5, 8.5])


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_max_min_fair_is_feasible_and_every_flow_is_bottlenecked(data):
    n_links = data.draw(st.integers(1, 6))
    n_flows = data.draw(st.integers(1, 8))
    capacity = np.array(data.draw(st.lists(st.integers(1, 50), min_size=n_links, max_size=n_links)), float)
    weight = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n_flows, max_size=n_flows)), float)
    pairs = sorted({(f, data.draw(st.integers(0, n_links - 1))) for f in range(n_flows)}
                   | set(data.draw(st.lists(st.tuples(st.integers(0, n_flows - 1), st.integers(0, n_links - 1)),
                                            max_size=12))))
    flow = np.array([f for f, _ in pairs])
    link = np.array([lk for _, lk in pairs])
    rate = max_min_fair(flow, link, capacity, weight, n_flows)
    used = np.bincount(link, weights=(rate * weight)[flow], minlength=n_links)
    assert (used <= capacity * (1 + 1e-9)).all()
    # Max-min: every flow crosses a full link on which no flow gets more than it does.
    for f in range(n_flows):
        mine = link[flow == f]
        assert any(used[lk] >= capacity[lk] * (1 - 1e-9) and rate[flow[link == lk]].max() <= rate[f] * (1 + 1e-9)
                   for lk in mine)
