"""Rail-optimized sizing against brute force: no SU size, rail grouping or switch model is cheaper.

`new` prices a short list of layouts (designer/model/topology/rail_layout.py). Here every SU size
from 1 to a leaf's downlinks, every rails-per-leaf that divides the rails and every switch of
the technology is sized and priced the same way; the layout `new` chose must cost no more than
the cheapest of them (within the stated tie of cable-length rounding, LAYOUT_COST_TIE).
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.physical.cost_bound import fabric_bound
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import default_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import leaf_downlinks, new_design, new_design_choice
from designer.model.topology.sizing import SizingError
from designer.model.topology.switch_choice import LAYOUT_COST_TIE, candidates, size_option
from tests.helpers import examples

CAT = default_catalog()
COST = fabric_cost(CAT, default_prices())
# The floor `new` passes: the same choice and notes as pricing every layout (tests/test_cost_bound.py).
BOUND = fabric_bound(CAT, default_prices())


def brute_force(design):
    """(cost, switch, SU size, rails per leaf) of the cheapest layout over every choice."""
    tech = CAT.technology(design.fabric.technology)
    server = CAT.server(design.cluster.server)
    rails = server.compute_ports // design.fabric.planes
    link = design.fabric.link_gbps or server.port_gbps
    best = None
    for sw in candidates(CAT, tech):
        if not sw.ports_at(link):
            continue
        up = tech.uplink_gbps if tech.uplink_gbps > link and sw.ports_at(tech.uplink_gbps) else link
        d_max = leaf_downlinks(sw, link, up, design.fabric.leaf.oversubscription)
        for k in (k for k in range(1, rails + 1) if rails % k == 0):
            for su in range(1, min(design.cluster.servers, d_max // k) + 1):
                fabric = dataclasses.replace(design.fabric, switch=sw.id, nodes_per_su=su,
                                             rails_per_leaf=k if k > 1 else None,
                                             uplink_gbps=up if up != link else None)
                try:
                    option = size_option(dataclasses.replace(design, fabric=fabric), CAT, COST)
                except SizingError:
                    continue
                if option.cost is not None and (best is None or option.cost < best[0]):
                    best = (option.cost, sw.id, su, k)
    return best


requests = st.fixed_dictionaries({
    "gpus": st.integers(min_value=8, max_value=2048).map(lambda n: 8 * n),   # 64 to 16,384 GPUs
    "server": st.sampled_from(["dgx-h100", "dgx-b200"]),
    "technology": st.sampled_from(["ib-ndr", "roce-400g"]),
    "oversubscription": st.sampled_from([1.0, 2.0]),
})


# With `make test-slow`: the 256-GPU test below holds the chosen layout to the brute force on one
# design, and tests/test_cost_bound.py to pricing every layout on more.
@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_no_layout_found_by_brute_force_is_cheaper(req):
    choice = new_design_choice(CAT, "rail-optimized", cost=COST, **req)
    chosen = choice.chosen
    assert chosen is not None and chosen.cost is not None
    best = brute_force(choice.design)
    assert chosen.cost <= best[0] * (1 + LAYOUT_COST_TIE), (req, chosen.label, best)


def test_256_gpu_roce_puts_two_rails_on_each_sn5600_leaf():
    choice = new_design_choice(CAT, "rail-optimized", gpus=256, technology="roce-400g", cost=COST, bound=BOUND)
    m = derive(choice.design, CAT).metrics
    assert choice.design.fabric.rails_per_leaf == 2 and m.switches_by_tier == {"leaf": 4, "spine": 2, "core": 0}
    assert brute_force(choice.design)[0] == pytest.approx(choice.chosen.cost, rel=LAYOUT_COST_TIE)
    assert any(n.startswith("rail grouping: 2 rails") for n in choice.notes)


@pytest.mark.parametrize("template, technology, switch", [
    ("rail-optimized", None, "qm9700"), ("rail-optimized", "roce-400g", None),
    ("leaf-spine", "roce-400g", None), ("leaf-spine", None, "qm9700")])
def test_64_gpus_on_one_switch_is_one_tier_and_says_why(template, technology, switch):
    choice = new_design_choice(CAT, template, gpus=64, technology=technology, switch=switch, cost=COST)
    m = derive(choice.design, CAT).metrics
    assert m.tiers == 1 and m.switches_total == 1 and not m.errors
    assert m.links_by_tier == {"node-leaf": 64}
    assert any(n.startswith("tiers: one") and "single switch" in n for n in choice.notes)


def test_one_tier_can_be_refused_for_growth():
    d = new_design(CAT, "leaf-spine", gpus=64, technology="roce-400g", tiers=2)
    m = derive(d, CAT).metrics
    assert m.tiers == 2 and m.switches_by_tier["spine"] >= 1


def test_rail_grouped_leaf_takes_each_rail_in_its_own_block_of_ports():
    # 256 GPUs, 2 rails per SN5600 leaf: rails 0 and 1 of the SU on leaf 1, ports 1-32 and 33-64.
    d = derive(new_design_choice(CAT, "rail-optimized", gpus=256, technology="roce-400g", cost=COST,
                                   bound=BOUND).design, CAT)
    g = d.graph
    seen = {}
    for nic, data in g.nodes(data=True):
        if data["role"] != "nic":
            continue
        ((leaf, edge),) = ((leaf, e) for leaf, keys in g[nic].items() for e in keys.values())
        seen.setdefault(leaf, set()).add((data["rail"], (edge["pb"] - 1) // 32))
    assert len(seen) == 4
    assert all(ports == {(r, r % 2) for r, _ in ports} and len({r for r, _ in ports}) == 2 for ports in seen.values())


def test_reference_su_is_the_catalogs_per_technology():
    xdr = new_design_choice(CAT, "rail-optimized", nodes=72, server="dgx-b300-xdr", switch="Q3400", cost=COST,
                            bound=BOUND)
    eth = new_design_choice(CAT, "rail-optimized", nodes=64, server="dgx-b300-eth", technology="roce-800g",
                            cost=COST, bound=BOUND)
    assert xdr.design.fabric.nodes_per_su == 72 and eth.design.fabric.nodes_per_su == 64
    assert any("SU: 72 nodes, the reference SU" in n and "Table 3" in n for n in xdr.notes)
    assert derive(xdr.design, CAT).metrics.switches_by_tier == {"leaf": 8, "spine": 4, "core": 0}
    assert derive(eth.design, CAT).metrics.switches_by_tier == {"leaf": 16, "spine": 8, "core": 0}
    given_su = new_design_choice(CAT, "rail-optimized", nodes=72, server="dgx-b300-xdr", switch="Q3400",
                                 nodes_per_su=36, cost=COST, bound=BOUND)
    assert given_su.design.fabric.nodes_per_su == 36
    assert any("as given (--nodes-per-su)" in n for n in given_su.notes)
