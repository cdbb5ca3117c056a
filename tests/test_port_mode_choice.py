"""Sizing chooses a switch's port mode as it chooses the switch: the cheapest that meets the design.

A mode is the speed the switch-to-switch links run at in cages shared with the server-facing
ports (a 102.4T switch as 512 x 200G, or 200G down and 800G up). Every mode is sized and priced
with its whole bill (optics and breakouts included), and the note says which one won.
"""

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.model.physical.bom import build_bom
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import load_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design, new_design_choice
from designer.model.topology.sizing import SizingError
from designer.model.topology.switch_choice import LAYOUT_COST_TIE, mode_variants
from tests.helpers import examples

CAT = default_catalog()
PRICES = load_prices(user_file=False)
COST = fabric_cost(CAT, PRICES)


def _requests(max_nodes: int):
    return st.fixed_dictionaries({
        "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
        "nodes": st.integers(1, max_nodes),
        "server": st.sampled_from(["hgx-b300-eth-4plane", "dgx-b300-eth", "dgx-h100"]),
        "switch": st.sampled_from([None, "tomahawk6-102t", "tomahawk5-51t", "sn5600"]),
        "oversubscription": st.sampled_from([1.0, 2.0]),
    })


# A design is priced once however often it comes back: the chosen design is also one of the brute
# force's candidates, and examples repeat requests. Designs are frozen, so equal ones share a bill.
@functools.lru_cache(maxsize=256)
def _priced(design):
    d = derive(design, CAT)
    if d.metrics.errors:
        return None
    bom = build_bom(d, CAT, PRICES)
    if any(f.severity == "error" for f in bom.findings):
        return None    # links no cable fits are left out of such a bill: it cannot be built as priced
    assert not bom.incomplete, bom.incomplete_note()
    return d, bom.total_cost


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_requests(max_nodes=32))
def test_the_chosen_switch_and_mode_cost_no_more_than_any_other_that_meets_the_design(req):
    """Up to 32 servers, where every candidate's bill is small; the same brute force over up to 96
    servers is `test_..._on_larger_fabrics` in `make test-slow`."""
    _assert_no_other_switch_or_mode_is_cheaper(req)


# Up to 96 servers, each example about nine times the CPU of one up to 32: make test runs the same
# brute force as test_the_chosen_switch_and_mode_cost_no_more_than_any_other_that_meets_the_design.
@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_requests(max_nodes=96))
def test_the_chosen_switch_and_mode_cost_no_more_than_any_other_that_meets_the_design_on_larger_fabrics(req):
    _assert_no_other_switch_or_mode_is_cheaper(req)


def _assert_no_other_switch_or_mode_is_cheaper(req):
    kw = dict(nodes=req["nodes"], server=req["server"], oversubscription=req["oversubscription"])
    try:
        choice = new_design_choice(CAT, req["template"], switch=req["switch"], cost=COST, **kw)
    except (SizingError, UnknownPartError):
        return
    chosen = _priced(choice.design)
    if chosen is None:
        return
    d, best = chosen
    asked = req["oversubscription"]
    assert d.metrics.oversubscription("leaf") <= asked + 1e-9
    tech = CAT.technology(choice.design.fabric.technology)
    pool = [req["switch"]] if req["switch"] else list(tech.switch_options)
    link = d.resolved.link_gbps
    tried = 0
    # Brute force: every (switch, mode) pair named explicitly (--switch, --uplink-speed), sized
    # and priced on its own.
    for sid in pool:
        for gbps in CAT.switch(sid).speeds:
            if gbps < link:
                continue
            try:
                other = _priced(new_design(CAT, req["template"], switch=sid, uplink_speed=gbps,
                                           technology=tech.id, cost=COST, **kw))
            except (SizingError, UnknownPartError):
                continue
            if other is None or other[0].metrics.oversubscription("leaf") > asked + 1e-9:
                continue
            tried += 1
            # Layouts of one switch within LAYOUT_COST_TIE count as equal (the published one wins).
            assert best <= other[1] * (1 + LAYOUT_COST_TIE), (sid, gbps, best, other[1])
    assert tried >= 1


def test_a_102t_switch_prices_its_modes_and_says_which_it_runs():
    choice = new_design_choice(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                               cost=COST)
    modes = {o.up_gbps: o for o in choice.options}
    # 200G ConnectX-8 planes: down at 200G always; up at 200G, 800G or 1.6T in the same cages.
    assert set(modes) == {200, 800, 1600}
    assert all(o.cost is not None and o.link_gbps == 200 for o in modes.values())
    cheapest = min(modes.values(), key=lambda o: o.cost)
    assert choice.chosen.up_gbps == cheapest.up_gbps
    note = next(n for n in choice.notes if n.startswith("port modes: "))
    assert f"{cheapest.modes_text} is the cheapest fabric" in note
    for o in modes.values():
        assert f"{o.cost:,.0f}" in note   # every mode's price is stated
    # Each mode's bill is its own: the priced total is the one `bom` gives for that design.
    for o in modes.values():
        assert _priced(o.design)[1] == o.cost


def test_a_fixed_uplink_speed_is_not_replaced_by_another_mode():
    design = new_design(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                        uplink_speed=800, cost=COST)
    assert design.fabric.uplink_gbps == 800


def test_one_tier_fabrics_and_single_mode_switches_have_no_other_mode():
    one = new_design(CAT, "leaf-spine", nodes=4, server="hgx-b300-eth-4plane", switch="tomahawk6-102t")
    assert mode_variants(one, CAT) == [one]
    ndr = new_design(CAT, "rail-optimized", nodes=64, server="dgx-h100", technology="ib-ndr")
    # QM9700 at 400G: its only faster mode would be slower than the NIC, so there is no other.
    assert mode_variants(ndr, CAT) == [ndr]


def test_an_uplink_speed_asked_for_is_built_as_asked_even_where_the_servers_speed_needs_fewer_tiers():
    # 65,536 endpoints per plane: two tiers at 200G between switches, three at 800G. Asked for
    # 800G, the fabric runs 800G (it was silently built at 200G in two tiers).
    kw = dict(gpus=65536, server="hgx-b300-eth-4plane", switch="tomahawk6-102t")
    d = derive(new_design(CAT, "fat-tree", uplink_speed=800, **kw), CAT)
    assert d.resolved.uplink_gbps == 800 and d.metrics.tiers == 3
    free = derive(new_design(CAT, "fat-tree", **kw), CAT)
    assert free.metrics.tiers == 2          # left to sizing, the fewer tiers win


def test_the_sweep_table_names_each_points_template_and_uplink_speed(capsys):
    from designer.cli.main import main

    assert main(["sweep", "--gpus", "512", "--server", "hgx-b300-eth-4plane", "--technology", "roce-400g",
                 "--template", "fat-tree,rail-only", "--switch", "tomahawk6-102t", "--uplink-speed", "200G,800G",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if line.startswith("front"))
    assert "template" in head.split() and "up" in head.split()
    rows = [line.split() for line in out.splitlines() if "Tomahawk" in line]
    assert {r[r.index("roce-400g") - 1] for r in rows} == {"fat-tree", "rail-only"}
    assert any("800G" in r for r in rows) and any("200G" in r for r in rows)
