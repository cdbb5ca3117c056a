"""The table of port modes: every (switch, mode) of a design's technology sized on the design and
priced from its whole bill, with the one sizing takes marked by the rule `new` applies."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.decisions.port_modes import in_mode, mode_table
from designer.model.physical.bom import build_bom
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import load_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design, new_design_choice

CAT = default_catalog()
PRICES = load_prices(user_file=False)
COST = fabric_cost(CAT, PRICES)


def _th6_4k(uplink_speed=800):
    return new_design(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                      uplink_speed=uplink_speed)


def test_each_mode_row_holds_the_bill_of_that_mode():
    table = mode_table(_th6_4k(), CAT, PRICES)
    th6 = [r for r in table.rows if r.switch.id == "tomahawk6-102t"]
    assert [r.uplink_gbps for r in th6] == [200, 800, 1600]
    for row in th6:
        bom = build_bom(derive(row.design, CAT), CAT, PRICES)
        assert row.cost == bom.total_cost
        assert row.power_w == bom.total_power_w
        assert row.transceivers == bom.optics_count
        assert row.switches == derive(row.design, CAT).metrics.switches_total
        breakouts = sum(i.quantity for i in bom.items if i.key in CAT.cables and CAT.cables[i.key].legs > 1)
        assert row.breakouts == breakouts
    # 200G between switches takes a 1:4 breakout fiber per 4 links; 800G links one straight fiber
    # per twin-port half: the all-200G mode has twice the breakouts of the 800G-uplink one here.
    by_up = {r.uplink_gbps: r for r in th6}
    assert by_up[200].breakouts > by_up[800].breakouts


def test_the_current_mode_is_marked_and_the_why_names_the_difference():
    design = _th6_4k()
    table = mode_table(design, CAT, PRICES)
    assert table.current is not None
    assert (table.current.switch.id, table.current.uplink_gbps) == ("tomahawk6-102t", 800)
    chosen = table.chosen
    priced = [r for r in table.rows if r.cost is not None]
    assert chosen.cost == min(r.cost for r in priced)
    if chosen is not table.current:
        assert "This design runs Tomahawk 6" in table.why
        assert f"{abs(table.current.cost - chosen.cost):,.0f} more" in table.why


def test_a_mode_that_cannot_be_cabled_is_listed_with_why_and_never_chosen():
    table = mode_table(_th6_4k(), CAT, PRICES)
    sn5400 = [r for r in table.rows if r.switch.id == "sn5400"]
    assert sn5400, "the technology's SN5400 is a candidate"
    unfit = [r for r in sn5400 if r.cost is None]
    assert unfit and all("no ethernet cable or transceiver" in r.cost_text for r in unfit)
    assert table.chosen.cost is not None


def test_a_fabric_with_links_no_cable_fits_is_never_priced_as_the_cheapest():
    # Spectrum-4 SN5400 at 200G: the catalog has no QSFP-DD 200G cable or module, so its bill
    # leaves every link out; priced, that bill would win the switch choice.
    sn5400 = new_design(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", switch="sn5400")
    total, why = COST(sn5400)
    assert total is None and why.startswith("not buildable")
    choice = new_design_choice(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", cost=COST)
    assert choice.design.fabric.switch != "sn5400"
    assert any("SN5400 was not compared by cost (not buildable" in n for n in choice.notes)
    assert not any("SN5400" in n and "add the missing prices" in n for n in choice.notes)


def test_in_mode_changes_only_the_switch_and_the_uplink_speed():
    design = _th6_4k()
    moved = in_mode(design, "tomahawk6-102t", 200, 200)
    assert moved.fabric.uplink_gbps is None and moved.fabric.switch == "tomahawk6-102t"
    assert moved.cluster == design.cluster and moved.meta == design.meta
    assert in_mode(moved, "tomahawk6-102t", 200, 800) == design


def test_a_one_tier_design_has_one_mode_per_switch():
    design = new_design(CAT, "rail-only", nodes=32, server="dgx-h100", technology="ib-ndr")
    table = mode_table(design, CAT, PRICES)
    assert table.current is not None and table.current.tiers == 1
    switches = [r.switch.id for r in table.rows if r.feasible]
    assert len(switches) == len(set(switches))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.integers(1, 40), up=st.sampled_from([None, 800, 1600]),
       template=st.sampled_from(["fat-tree", "leaf-spine", "rail-optimized"]))
def test_the_chosen_mode_costs_no_more_than_any_priced_mode(nodes, up, template):
    design = new_design(CAT, template, nodes=nodes, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                        uplink_speed=up)
    table = mode_table(design, CAT, PRICES)
    priced = [r for r in table.rows if r.cost is not None]
    if priced:
        assert table.chosen is not None and table.chosen.cost == min(r.cost for r in priced)
    for row in table.rows:
        assert row.feasible or row.why_not
        if row.feasible:
            assert COST(row.design)[0] == row.cost


def test_modes_above_the_pricing_ceiling_are_sized_not_priced_and_ranked_as_sizing_ranks_them(monkeypatch):
    from designer.model.decisions import port_modes

    design = _th6_4k()
    priced = mode_table(design, CAT, PRICES)
    monkeypatch.setattr(port_modes, "TABLE_PRICE_MAX_LINKS", 1)
    table = mode_table(design, CAT, PRICES)
    feasible = [r for r in table.rows if r.feasible]
    assert feasible and all(not r.priced and r.cost is None and "not priced here" in r.cost_text for r in feasible)
    # The same fabrics, counted: switches, tiers and links as when priced.
    counted = {(r.switch.id, r.uplink_gbps): (r.switches, r.tiers, r.links) for r in priced.rows if r.feasible}
    assert {(r.switch.id, r.uplink_gbps): (r.switches, r.tiers, r.links) for r in feasible} == counted
    # As sizing ranks the fabrics it does not price: the fewest switches, a tie to the mode sized first.
    best = min(feasible, key=lambda r: r.switches)
    assert table.chosen is best
    assert "fewest switches (a tie: the mode sized first)" in table.why


def test_another_switch_serves_every_tier_and_the_designs_own_keeps_its_tiers_choices():
    import dataclasses

    design = _th6_4k()
    spine = dataclasses.replace(design.fabric.spine, switch="tomahawk6-102t")
    own = dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, spine=spine))
    other = in_mode(own, "sn5600", 200, 400)
    assert other.fabric.switch == "sn5600"
    assert (other.fabric.leaf.switch, other.fabric.spine.switch, other.fabric.core.switch) == (None, None, None)
    assert in_mode(own, "tomahawk6-102t", 200, 200).fabric.spine.switch == "tomahawk6-102t"
