"""A pattern's busiest leaf and pod, summed per bin from one share and one count, against the
NIC-by-NIC bincount it replaces: the same bits."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.performance import collective_costs as cc
from designer.model.performance.bin_sums import busiest_sum, uniform_weight
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import examples

CAT = default_catalog()
# shares as the patterns make them: dyadic, thirds, (n - members) / (n - 1), tiny ones
SHARES = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 0.03125, 0.046875, 4095 / 4096 * 4096 / 4095,
                                    (131072 - 32) / 131071, 1e-9]),
                   st.floats(0.0, 1.0, allow_nan=False))


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(SHARES, st.integers(0, 300)), min_size=1, max_size=40), st.integers(0, 2**32 - 1))
def test_the_busiest_bin_is_the_bincounts_to_the_last_bit(bins, order_seed):
    weight = np.array([w for w, _ in bins])
    count = np.array([k for _, k in bins])
    # every item of a bin weighs the bin's share, in any order of the items
    items = np.random.default_rng(order_seed).permutation(np.repeat(np.arange(len(bins)), count))
    plain = np.bincount(items, weights=weight[items], minlength=len(bins))
    assert busiest_sum(weight, count) == plain.max(initial=0.0)
    assert uniform_weight(items, weight[items], len(bins)) is not None


def test_a_bin_of_two_weights_is_not_uniform():
    bins = np.array([0, 0, 1, 1])
    assert uniform_weight(bins, np.array([0.5, 0.5, 0.25, 0.25]), 2) is not None
    assert uniform_weight(bins, np.array([0.5, 0.5, 0.25, 0.5]), 2) is None


DESIGNS = [("fat-tree", dict(gpus=4096, server="hgx-b300-eth-4plane", switch="tomahawk5-51t")),
           ("fat-tree", dict(gpus=8192, switch="qm9700")),
           ("leaf-spine", dict(gpus=1024, server="dgx-h100")),
           ("fat-tree", dict(gpus=2304, server="gb300-nvl72-tray"))]


@pytest.mark.parametrize("template, kw", DESIGNS)
@pytest.mark.parametrize("placement, job_share, occupancy", [("packed", 1.0, 1.0), ("packed", 0.3, 1.0),
                                                             ("scattered", 0.5, 0.8), ("spread", 0.25, 1.0)])
def test_pattern_loads_per_server_are_those_per_nic(template, kw, placement, job_share, occupancy):
    d = derive(new_design(CAT, template, **kw), CAT)
    plan, rails = d.plan, d.resolved.rails
    server = d.resolved.server
    per_domain = max(1, server.nvlink_domain_gpus // server.gpus) if server.nvlink_domain_gpus > server.gpus else 1
    job = max(per_domain, int(plan.servers * job_share) // per_domain * per_domain)
    lay, loads = cc._pattern_loads.__wrapped__(plan, rails, per_domain, job, placement, occupancy, 1)
    # Every design here puts all of a server's NICs on one leaf, so the per-server sums apply (a
    # rail-optimized design spreads them over its rails' leaves and keeps the per-NIC count).
    assert lay.server_leaf is not None and lay.server_pod is not None
    # the server's leaf is that of every one of its NICs
    servers = np.arange(plan.servers)
    assert np.array_equal(cc._endpoint_leaves(plan, rails, servers), np.repeat(
        cc._one_leaf(plan, rails, servers)[:, None], rails, axis=1))
    nic_leaf, nic_pod = np.repeat(lay.server_leaf, rails), np.repeat(lay.server_pod, rails)
    for pattern, load in loads.items():
        if len(lay.domain_group) < 2:
            continue
        edges = cc._edges(pattern, len(lay.domain_group)) if pattern in ("ring", "tree", "binomial") else None
        g_share = cc._shares(pattern, lay.domain_group, lay.groups_used, edges)[lay.domain_group]
        demand, leaves, sending = cc._leaf_load(lay, g_share[lay.server_domain], None, nic_leaf)
        assert (load.leaf_demand, load.leaves, load.sending) == (demand, leaves, sending)
        if plan.tiers >= 3 and lay.pods_used > 1:
            p_share = cc._shares(pattern, lay.domain_pod, lay.pods_used, edges)[lay.domain_pod]
            assert load.pod_demand == cc._leaf_load(lay, p_share[lay.server_domain], None, nic_pod)[0]
