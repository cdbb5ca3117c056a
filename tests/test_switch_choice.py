"""Sizing picks the cheapest fabric among the technology's switches that meets the request."""

import math
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.model.physical.prices import PriceBook, load_prices
from designer.model.topology.derive import derive
from designer.model.topology.edits import with_technology
from designer.model.topology.presets import new_design, new_design_choice
from designer.model.topology.sizing import SizingError
from tests.helpers import superpod

CAT = default_catalog()
PRICES = load_prices(user_file=False)

requests = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
    "nodes": st.integers(1, 160),
    "server": st.sampled_from(["dgx-h100", "dgx-b200", "gb200-nvl72-tray"]),
    "oversubscription": st.sampled_from([1.0, 1.5, 2.0, 3.0]),
})


def _metrics(design):
    m = derive(design, CAT).metrics
    return None if m.errors else m


def _cost(m, book):
    return sum(book.get(model).unit_price * n for model, n in m.switches_by_model.items())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_no_switch_of_the_technology_builds_the_request_for_less(req):
    kw = dict(nodes=req["nodes"], server=req["server"], technology="roce-400g",
              oversubscription=req["oversubscription"])
    try:
        choice = new_design_choice(CAT, req["template"], prices=PRICES, **kw)
    except (SizingError, UnknownPartError):
        return
    chosen = _metrics(choice.design)
    if chosen is None:
        return
    asked = req["oversubscription"]
    assert chosen.oversubscription("leaf") <= asked + 1e-9
    best = _cost(chosen, PRICES)
    # Brute force: every switch of the technology, named explicitly and sized on its own.
    for sid in CAT.technology("roce-400g").switch_options:
        try:
            other = _metrics(new_design(CAT, req["template"], switch=sid, **kw))
        except (SizingError, UnknownPartError):
            continue
        if other is None or other.oversubscription("leaf") > asked + 1e-9:
            continue
        cost = _cost(other, PRICES)
        assert best <= cost, (sid, best, cost)
        if best == cost:
            assert chosen.switches_total <= other.switches_total


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_the_chosen_fabric_has_no_spine_to_spare(req):
    try:
        design = new_design(CAT, req["template"], nodes=req["nodes"], server=req["server"],
                            technology="roce-400g", oversubscription=req["oversubscription"],
                            prices=PRICES, tiers=2)
        d = derive(design, CAT)
    except (SizingError, UnknownPartError):
        return
    if d.metrics.errors:
        return
    plan, r, ratio = d.plan, d.resolved, req["oversubscription"]
    n_down, n_up = r.leaf_switch.ports_at(r.link_gbps), r.leaf_switch.ports_at(r.uplink_gbps)
    n_spine = r.spine_switch.ports_at(r.uplink_gbps)
    u_min = math.ceil(plan.leaf_down * r.link_gbps / (ratio * r.uplink_gbps) - 1e-9)
    # Fewer spines, with any uplink count the leaf holds that keeps the ratio, cannot carry the leaves.
    for u in range(u_min, n_up + 1):
        if plan.leaf_down * n_up + u * n_down > n_down * n_up:
            break
        for s in range(1, plan.spines):
            assert not (u % s == 0 and plan.leaves * u <= s * n_spine), (u, s, plan)


def test_named_switch_wins_over_a_cheaper_one():
    design = new_design(CAT, "rail-optimized", gpus=256, technology="roce-400g", switch="SN5600", prices=PRICES)
    assert design.fabric.switch == "sn5600"


def test_unpriced_switch_is_not_free():
    # Only the SN5600 is priced: it is chosen over an SN5400 fabric that has no price, and the
    # notes say the SN5400 could not be compared.
    only = PriceBook("USD", {"sn5600": PRICES.get("sn5600")})
    choice = new_design_choice(CAT, "rail-optimized", gpus=256, technology="roce-400g", prices=only)
    assert choice.design.fabric.switch == "sn5600"
    assert any("SN5400 has no price" in n for n in choice.notes)
    none = PriceBook("USD", {})
    fewest = new_design_choice(CAT, "rail-optimized", gpus=256, technology="roce-400g", prices=none)
    assert fewest.design.fabric.switch == "sn5600"  # 10 switches against 12
    assert any("no candidate has a price" in n for n in fewest.notes)


def test_roce_800g_keeps_800g_leaf_spine_links():
    # The SN5400 has no 800G ports, so it is no candidate for 800G switch-to-switch links.
    choice = new_design_choice(CAT, "rail-optimized", nodes=64, nodes_per_su=64, server="dgx-b300-eth",
                               technology="roce-800g", prices=PRICES)
    assert choice.design.fabric.switch == "sn5600" and choice.design.fabric.uplink_gbps == 800


def test_inspector_technology_change_chooses_like_new():
    ib = superpod(1)
    moved = with_technology(ib, CAT, "roce-400g", PRICES)
    assert moved.fabric.switch == "sn5400"
    kept = with_technology(new_design(CAT, "rail-optimized", nodes=32, switch="sn5600", speed=400,
                                      technology="roce-400g"), CAT, "roce-400g", PRICES)
    assert kept.fabric.switch == "sn5600"  # a switch set in the design stays


def test_new_prints_the_choice_and_the_achieved_ratio(tmp_path):
    out = tmp_path / "roce.json"
    run = subprocess.run([sys.executable, "-m", "designer.cli.main", "new", "--template", "rail-optimized",
                          "--nodes", "128", "--technology", "roce-400g", "--oversubscription", "3:1",
                          "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "the cheapest fabric of 2 candidates at 3:1" in run.stdout
    assert "leaf oversubscription 2.67:1 (asked 3:1)" in run.stdout
