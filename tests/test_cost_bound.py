"""The floor sizing prunes with (cost_bound.py) never exceeds the full price, and the pruned
search picks what pricing every candidate picks.

The floor is what makes skipping a candidate safe: if it ever came out above a candidate's bill,
a cheaper layout could be left unpriced. So it is held at or under `fabric_cost` on random
designs of every template, several servers, technologies (co-packaged-optics switches among
them), layouts and floor plans. The pruned counterpart search is then compared with the
exhaustive one: the same design, notes and price.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.model.decisions.counterpart import make_counterpart
from designer.model.intent.floorplan import FloorPlan
from designer.model.physical.bom import build_bom
from designer.model.physical.cost_bound import _sold, fabric_bound
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.media import sold_length
from designer.model.physical.prices import load_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design, new_design_choice
from designer.model.topology.sizing import SizingError
from designer.model.topology.switch_choice import LAYOUT_COST_TIE, candidates
from tests.helpers import examples

CAT = default_catalog()
PRICES = load_prices(user_file=False)
BOUND = fabric_bound(CAT, PRICES)
COST = fabric_cost(CAT, PRICES)

SERVERS = {"ib-ndr": ["dgx-h100", "dgx-b200", "gb200-nvl72-tray"], "ib-xdr": ["dgx-b300-xdr", "gb300-nvl72-tray"],
           "roce-400g": ["dgx-h100", "dgx-b200", "hgx-b300-eth-4plane"], "roce-800g": ["dgx-b300-eth"],
           "roce-ecmp-400g": ["dgx-h100", "mi300x-8gpu"], "roce-sched-400g": ["dgx-h100", "dgx-b200"]}

floorplans = st.builds(
    FloorPlan, servers_per_rack=st.sampled_from([1, 2, 4, 8]), racks_per_row=st.sampled_from([2, 10, 24]),
    placement=st.sampled_from(["middle-of-row", "su-racks", "network-row"]),
    switches_per_network_rack=st.sampled_from([1, 4, 16]),
    medium_node_leaf=st.sampled_from(["auto", "auto", "dac", "mmf"]),
    medium_leaf_spine=st.sampled_from(["auto", "auto", "smf"]))


@st.composite
def priced_candidates(draw):
    """A design as sizing builds its candidates: a technology's switch, an SU size, a rail grouping."""
    tech_id = draw(st.sampled_from(sorted(SERVERS)))
    tech = CAT.technology(tech_id)
    server = draw(st.sampled_from(SERVERS[tech_id]))
    template = draw(st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]))
    try:
        design = new_design(CAT, template, nodes=draw(st.integers(1, 640)), server=server, technology=tech_id,
                            oversubscription=draw(st.sampled_from([1.0, 2.0, 3.0])))
    except (SizingError, UnknownPartError):
        return None
    switch = draw(st.sampled_from(candidates(CAT, tech)))
    fabric = dataclasses.replace(design.fabric, switch=switch.id,
                                 nodes_per_su=draw(st.sampled_from([design.fabric.nodes_per_su, 4, 9, 16, 32, 64])),
                                 rails_per_leaf=draw(st.sampled_from([None, None, 2, 4])))
    return dataclasses.replace(design, fabric=fabric, floorplan=draw(floorplans))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(priced_candidates())
def test_floor_never_exceeds_the_price(design):
    if design is None:
        return
    assert BOUND is not None and COST is not None
    floor = BOUND(design)
    try:
        derived = derive(design, CAT)
    except (SizingError, UnknownPartError):
        assert floor is None
        return
    if floor is None or derived.metrics.errors:
        return
    bom = build_bom(derived, CAT, PRICES)
    # an incomplete bill leaves unpriced parts out: the floor counts them 0, so it holds there too
    assert floor <= bom.total_cost * (1 + 1e-9), (design.fabric, floor, bom.total_cost)
    assert COST(design)[0] in (None, bom.total_cost)


def test_floor_is_close_under_the_price_of_a_16k_rail_fabric():
    # the floor prunes only if it is near the bill: within 5% at 16,384 GPUs on Spectrum-X
    design = new_design(CAT, "rail-optimized", gpus=16384, server="dgx-h100", technology="roce-400g",
                        nodes_per_su=64)
    assert BOUND is not None
    floor, total = BOUND(design), build_bom(derive(design, CAT), CAT, PRICES).total_cost
    assert floor is not None and 0.95 * total < floor <= total


counterpart_requests = st.fixed_dictionaries({
    "gpus": st.integers(min_value=1, max_value=384).map(lambda n: 8 * n),
    "server": st.sampled_from(["dgx-h100", "dgx-b200"]),
    "switch": st.sampled_from(["qm9700", "sn5600"]),
    "oversubscription": st.sampled_from([1.0, 2.0]),
    "technology": st.sampled_from(["roce-400g", "roce-ecmp-400g", "roce-sched-400g", "ib-ndr"]),
})


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counterpart_requests)
def test_pruned_search_picks_what_pricing_every_candidate_picks(req):
    try:
        design = new_design(CAT, "rail-optimized", gpus=req["gpus"], server=req["server"], switch=req["switch"],
                            oversubscription=req["oversubscription"])
        pruned = make_counterpart(design, req["technology"], CAT, PRICES)
    except (SizingError, UnknownPartError):
        return
    every = make_counterpart(design, req["technology"], CAT, PRICES, price_every_candidate=True)
    assert pruned.design == every.design
    assert pruned.notes == every.notes
    assert COST is not None
    assert COST(pruned.design) == COST(every.design)


def test_pruned_16k_counterpart_is_the_cheapest_layout_within_the_tie():
    design = new_design(CAT, "rail-optimized", gpus=16384, server="dgx-h100", switch="qm9700")
    pruned = make_counterpart(design, "roce-ecmp-400g", CAT, PRICES)
    every = make_counterpart(design, "roce-ecmp-400g", CAT, PRICES, price_every_candidate=True)
    assert (pruned.design, pruned.notes) == (every.design, every.notes)
    assert COST is not None
    chosen = COST(pruned.design)[0]
    assert chosen is not None and any(n.startswith("SU: 64 nodes") for n in pruned.notes)
    smaller = dataclasses.replace(pruned.design, fabric=dataclasses.replace(pruned.design.fabric, nodes_per_su=63))
    cost = COST(smaller)[0]
    assert cost is not None and cost > chosen * (1 + LAYOUT_COST_TIE)


new_requests = st.fixed_dictionaries({
    "gpus": st.integers(min_value=1, max_value=1024).map(lambda n: 8 * n),
    "server": st.sampled_from(["dgx-h100", "dgx-b200"]),
    "technology": st.sampled_from(["ib-ndr", "roce-400g", "roce-ecmp-400g"]),
    "oversubscription": st.sampled_from([1.0, 2.0]),
    "template": st.sampled_from(["rail-optimized", "rail-optimized", "leaf-spine"]),
})


# With `make test-slow` (21 s of CPU in `make test`, pricing up to 8,192 GPUs' every layout):
# test_a_palette_drop_chooses_as_pricing_every_layout_would holds `new`'s own choice with the
# floor to pricing every layout on each template and technology, and
# test_floor_never_exceeds_the_price the floor under the bill it prunes by.
@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(new_requests)
def test_new_with_the_floor_chooses_as_new_pricing_every_layout(req):
    req = dict(req)
    template = req.pop("template")
    try:
        every = new_design_choice(CAT, template, cost=COST, **req)
    except (SizingError, UnknownPartError):
        return
    pruned = new_design_choice(CAT, template, cost=COST, bound=BOUND, **req)
    assert (pruned.design, pruned.notes) == (every.design, every.notes)
    assert pruned.chosen is not None and every.chosen is not None
    assert pruned.chosen.cost == every.chosen.cost
    assert len(pruned.options) <= len(every.options)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=3000.0, allow_nan=False), min_size=1, max_size=50),
       st.sampled_from(sorted(CAT.cables)))
def test_sold_lengths_as_arrays_are_media_sold_length(runs, cable_id):
    cable = CAT.cables[cable_id]
    assert _sold(cable, np.array(runs)).tolist() == [sold_length(cable, x)[0] for x in runs]


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(template=st.sampled_from(["leaf-spine", "rail-optimized", "fat-tree"]),
       technology=st.sampled_from(["ib-ndr", "roce-400g", "roce-ecmp-400g"]),
       gpus=st.sampled_from([256, 1024, 4096]))
def test_a_palette_drop_chooses_as_pricing_every_layout_would(template, technology, gpus):
    # The window's drop passes the floor, as `new` does: the same design as pricing every layout.
    from designer.ui.blocks import choice_cost, template_design

    dropped = template_design(CAT, template, technology, gpus=gpus)
    full = new_design(CAT, template, gpus=gpus, technology=technology, server=dropped.cluster.server,
                      name=dropped.meta.name, cost=choice_cost(CAT))
    assert dropped == full
