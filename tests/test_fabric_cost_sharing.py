"""Sizing shares physical counts between candidates alike in everything the physical layer reads.

`fabric_cost` keys a candidate's racks, media, optics and cables by its switches' physical make-up
(cages, port modes, rack units, optics), not their names, so a Tomahawk 5 box reuses the counts of
the SN5600 fabric of the same layout. Here the shared price must equal the bill of materials
computed afresh for the design itself, and switches that differ physically must not share.
"""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.physical.bom import build_bom
from designer.model.physical.edited_bom import physical_counts
from designer.model.physical.fabric_cost import fabric_cost, physical_key
from designer.model.physical.prices import load_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples

CAT = default_catalog()
PRICES = load_prices(user_file=False)

designs = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "rail-optimized"]),
    "nodes": st.integers(1, 700),
    "server": st.sampled_from(["dgx-h100", "dgx-b200"]),
    "oversubscription": st.sampled_from([1.0, 2.0, 3.0]),
    "nodes_per_su": st.sampled_from([None, 8, 16, 31, 32, 64]),
    "first": st.sampled_from(["sn5600", "tomahawk5-51t"]),
})


def _on(design, switch_id, technology):
    return dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, switch=switch_id,
                                                                  technology=technology))


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs)
def test_shared_counts_price_a_design_as_its_own_bill_does(req):
    try:
        base = new_design(CAT, req["template"], nodes=req["nodes"], server=req["server"], technology="roce-400g",
                          oversubscription=req["oversubscription"], nodes_per_su=req["nodes_per_su"])
    except SizingError:
        return
    cost = fabric_cost(CAT, PRICES)    # a fresh cost function; the shared counts outlive it
    second = "tomahawk5-51t" if req["first"] == "sn5600" else "sn5600"
    tech = {"sn5600": "roce-400g", "tomahawk5-51t": "roce-ecmp-400g"}
    first_design = _on(base, req["first"], tech[req["first"]])
    second_design = _on(base, second, tech[second])
    assert cost is not None
    for design in (first_design, second_design):   # the second reuses the first's counts
        derived = derive(design, CAT)
        shared = cost(design)
        if derived.metrics.errors:
            assert shared == (None, "not buildable")
            continue
        own = build_bom(derived, CAT, PRICES)   # counts computed for this design alone
        assert shared == ((own.total_cost, PRICES.currency) if not own.incomplete
                          else (None, own.incomplete_note()))
    a, b = derive(first_design, CAT), derive(second_design, CAT)
    assert physical_key(a, CAT) == physical_key(b, CAT)
    if not a.metrics.errors:
        assert physical_counts(a, CAT) == physical_counts(b, CAT)


def test_switches_that_differ_physically_do_not_share_counts():
    base = new_design(CAT, "rail-optimized", nodes=256, server="dgx-h100", technology="roce-400g")
    base = dataclasses.replace(base, fabric=dataclasses.replace(base.fabric, nodes_per_su=32, rails_per_leaf=None))
    keys = {sid: physical_key(derive(_on(base, sid, "roce-400g"), CAT), CAT)
            for sid in ("sn5600", "sn5400", "tomahawk5-51t")}
    assert keys["sn5600"] == keys["tomahawk5-51t"] != keys["sn5400"]
    twin = dataclasses.replace(CAT.switch("tomahawk5-51t"), rack_units=1)
    cat2 = dataclasses.replace(CAT, switches={**CAT.switches, twin.id: twin})
    assert physical_key(derive(_on(base, twin.id, "roce-400g"), cat2), cat2) != keys["sn5600"]
    other_su = dataclasses.replace(base, fabric=dataclasses.replace(base.fabric, nodes_per_su=16))
    assert physical_key(derive(_on(other_su, "tomahawk5-51t", "roce-400g"), CAT), CAT) != keys["sn5600"]


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs, st.text(max_size=20), st.sampled_from([1, 3]), st.integers(1, 6))
def test_designs_alike_but_for_what_the_physical_layer_never_reads_share_its_counts(req, name, size_kib,
                                                                                      servers_per_rack):
    """A report prices the design, the same fabric with converged networks and the counterpart
    with converged networks: they differ in their name, networks and collective settings only,
    and count their racks, optics and cables once. The shared counts are the variant's own."""
    from designer.model.networks.defaults import converged_networks, ra_networks
    from designer.model.physical.closed_form_bom import closed_form_physical

    try:
        base = new_design(CAT, req["template"], nodes=req["nodes"], server=req["server"], technology="roce-400g",
                          oversubscription=req["oversubscription"], nodes_per_su=req["nodes_per_su"])
    except SizingError:
        return
    server = CAT.server(req["server"])
    base = dataclasses.replace(base, networks=ra_networks(server))
    variant = dataclasses.replace(
        base, meta=dataclasses.replace(base.meta, name=name or "other"), networks=converged_networks(server),
        performance=dataclasses.replace(base.performance, message_size_bytes=size_kib * 1024))
    counted = physical_counts(derive(base, CAT), CAT)
    assert physical_counts(derive(variant, CAT), CAT) is counted
    assert closed_form_physical(derive(variant, CAT), CAT) == counted
    # The floor plan is read: another one is counted afresh.
    moved = dataclasses.replace(variant, floorplan=dataclasses.replace(variant.floorplan,
                                                                       servers_per_rack=servers_per_rack + 6))
    assert physical_counts(derive(moved, CAT), CAT) is not counted
