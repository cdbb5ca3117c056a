"""Sizing picks the cheapest fabric among the technology's switches that meets the request."""


import pytest
from helpers import assert_no_fewer_spines, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.io.project import load_design
from designer.model.common.units import ratio_label
from designer.model.physical.bom import build_bom
from designer.model.physical.cost_bound import fabric_bound
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import PriceBook, load_prices
from designer.model.topology.derive import derive
from designer.model.topology.edits import with_technology
from designer.model.topology.presets import new_design, new_design_choice
from designer.model.topology.sizing import SizingError
from designer.model.topology.switch_choice import LAYOUT_COST_TIE
from tests.helpers import cli_run, superpod

CAT = default_catalog()
PRICES = load_prices(user_file=False)
COST = fabric_cost(CAT, PRICES)
# The floor `new` passes (its choice and notes are those of pricing every layout, which
# tests/test_cost_bound.py holds): the tests of what is chosen go the way the command goes.
BOUND = fabric_bound(CAT, PRICES)

requests = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
    "nodes": st.integers(1, 160),
    "server": st.sampled_from(["dgx-h100", "dgx-b200", "gb200-nvl72-tray"]),
    "oversubscription": st.sampled_from([1.0, 1.5, 2.0, 3.0]),
})


def _derived(design):
    d = derive(design, CAT)
    return None if d.metrics.errors else d


def _cost(d):
    bom = build_bom(d, CAT, PRICES)
    assert not bom.incomplete
    return bom.total_cost


# Each example sizes and prices the request once per switch of the technology: few examples.
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_no_switch_of_the_technology_builds_the_request_for_less(req):
    kw = dict(nodes=req["nodes"], server=req["server"], technology="roce-400g",
              oversubscription=req["oversubscription"])
    try:
        choice = new_design_choice(CAT, req["template"], cost=COST, **kw)
    except (SizingError, UnknownPartError):
        return
    chosen = _derived(choice.design)
    if chosen is None:
        return
    asked = req["oversubscription"]
    assert chosen.metrics.oversubscription("leaf") <= asked + 1e-9
    best = _cost(chosen)
    # Brute force: every switch of the technology, named explicitly, sized and priced on its own.
    for sid in CAT.technology("roce-400g").switch_options:
        try:
            other = _derived(new_design(CAT, req["template"], switch=sid, **kw))
        except (SizingError, UnknownPartError):
            continue
        if other is None or other.metrics.oversubscription("leaf") > asked + 1e-9:
            continue
        cost = _cost(other)
        # Layouts of one switch within LAYOUT_COST_TIE count as equal (the published one wins).
        assert best <= cost * (1 + LAYOUT_COST_TIE), (sid, best, cost)
        if best == cost:
            assert chosen.metrics.switches_total <= other.metrics.switches_total


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_the_chosen_fabric_has_no_spine_to_spare(req):
    try:
        design = new_design(CAT, req["template"], nodes=req["nodes"], server=req["server"],
                            technology="roce-400g", oversubscription=req["oversubscription"],
                            cost=COST, bound=BOUND, tiers=2)
        d = derive(design, CAT)
    except (SizingError, UnknownPartError):
        return
    if d.metrics.errors:
        return
    plan, r, ratio = d.plan, d.resolved, req["oversubscription"]
    assert_no_fewer_spines(plan, r, ratio)


def test_named_switch_wins_over_a_cheaper_one():
    for name, sid in (("SN5600", "sn5600"), ("sn5400", "sn5400")):
        design = new_design(CAT, "rail-optimized", gpus=256, technology="roce-400g", switch=name, cost=COST,
                            bound=BOUND)
        assert design.fabric.switch == sid


def test_unpriced_switch_is_not_free():
    # Without its price, the SN5400 fabric is not compared by cost; with no prices at all the
    # fewest switches decide, and the notes say so.
    book = PriceBook(PRICES.currency, {k: v for k, v in PRICES.prices.items() if k != "sn5600"})
    choice = new_design_choice(CAT, "rail-optimized", nodes=128, technology="roce-400g",
                               cost=fabric_cost(CAT, book), bound=fabric_bound(CAT, book))
    assert choice.design.fabric.switch == "sn5400"
    assert any(n.startswith("Spectrum-4 SN5600 was not compared by cost") for n in choice.notes)
    fewest = new_design_choice(CAT, "rail-optimized", gpus=256, technology="roce-400g",
                               cost=fabric_cost(CAT, PriceBook("USD", {})),
                               bound=fabric_bound(CAT, PriceBook("USD", {})))
    assert fewest.design.fabric.switch == "sn5600"  # 10 switches against 12
    assert any("no candidate has a full price" in n for n in fewest.notes)


def test_roce_800g_keeps_800g_leaf_spine_links():
    # The SN5400 has no 800G ports, so it is no candidate for 800G switch-to-switch links.
    choice = new_design_choice(CAT, "rail-optimized", nodes=64, nodes_per_su=64, server="dgx-b300-eth",
                               technology="roce-800g", cost=COST, bound=BOUND)
    assert choice.design.fabric.switch == "sn5600" and choice.design.fabric.uplink_gbps == 800


def test_inspector_technology_change_chooses_like_new():
    for nodes in (32, 128):
        moved = with_technology(superpod(nodes // 32), CAT, "roce-400g", COST)
        fresh = new_design_choice(CAT, "rail-optimized", nodes=nodes, server="dgx-h100",
                                  technology="roce-400g", cost=COST)
        assert moved.fabric.switch == fresh.design.fabric.switch
    kept = with_technology(new_design(CAT, "rail-optimized", nodes=128, switch="sn5600", speed=400,
                                      technology="roce-400g"), CAT, "roce-400g", COST)
    assert kept.fabric.switch == "sn5600"  # a switch set in the design stays


def test_new_prints_the_choice_and_the_achieved_ratio(tmp_path):
    out = tmp_path / "roce.json"
    run = cli_run("new", "--template", "rail-optimized", "--nodes", "128", "--technology", "roce-400g",
                  "--oversubscription", "3:1", "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert "the cheapest fabric of 2 candidates at 3:1" in run.stdout
    # The achieved ratio printed is the design's own, below the one asked for.
    achieved = derive(load_design(out), CAT).metrics.oversubscription("leaf")
    assert achieved <= 3.0
    assert f"leaf oversubscription {ratio_label(achieved)} (asked 3:1)" in run.stdout


def test_metrics_json_gives_the_requested_ratio_beside_the_achieved_one(tmp_path):
    import json
    out = tmp_path / "r.json"
    made = cli_run("new", "--template", "rail-optimized", "--nodes", "128", "--switch", "QM9700",
                   "--oversubscription", "3:1", "--nodes-per-su", "32", "-o", str(out))
    assert made.returncode == 0, made.stderr
    shown = cli_run("metrics", str(out), "--json")
    m = json.loads(shown.stdout)
    assert m["oversubscription_requested"] == {"leaf": 3.0, "spine": 1.0}
    assert m["oversubscription"]["leaf"] <= 3.0 and abs(m["oversubscription"]["leaf"] - 8 / 3) < 1e-9


@pytest.mark.parametrize("gpus", [
    256,
    # The same path at eight times the size, where pricing every layout takes 15 s of CPU
    # against 2 s: the 256-GPU case covers it in `make test`.
    pytest.param(2048, marks=pytest.mark.slow),
])
def test_above_the_layout_ceiling_every_switch_and_mode_is_priced_on_the_layout_counts_choose(monkeypatch, gpus):
    # A million-GPU request is sized in hundreds of layouts; above the ceiling the counts choose
    # each switch model's layout and its modes are priced. Here the ceiling is lowered to a
    # rail-optimized request on the technology's switches (at 256 GPUs, 200 layouts to price).
    from designer.model.topology import switch_choice

    request = dict(gpus=gpus, server="hgx-b300-eth-4plane", cost=COST)
    every = new_design_choice(CAT, "rail-optimized", **request)
    monkeypatch.setattr(switch_choice, "LAYOUTS_BY_COUNT_LINKS", 1)
    counted = new_design_choice(CAT, "rail-optimized", **request)
    layouts = {switch_choice._layout_of(o) for o in counted.options}
    models = {o.switch.id for o in counted.options}
    assert len(layouts) == len(models) > 1           # one layout per switch model
    assert len({switch_choice._layout_of(o) for o in every.options}) > len(layouts)
    priced = [o for o in counted.options if o.cost is not None]   # a model without a price has none
    assert priced
    assert counted.chosen is min(priced, key=lambda o: (o.cost, o.switches, o.ports))
    for sid in models:   # the layout of the fewest switches among all that model's layouts
        fewest = min(o.switches for o in every.options if o.switch.id == sid)
        assert min(o.switches for o in counted.options if o.switch.id == sid) == fewest
    assert any(n.startswith("layouts: above 1 links") for n in counted.notes)
    assert not any(n.startswith("layouts:") for n in every.notes)


@pytest.mark.parametrize("request_kw", [
    # 512 GPUs of DGX B200 on RoCE: an SU other than the reference one, 2 s of CPU.
    dict(gpus=512, server="dgx-b200", technology="roce-400g"),
    # The same notes at 2,048 four-plane B300 GPUs take 12 s of CPU: the 512-GPU case above
    # covers them in `make test`.
    pytest.param(dict(gpus=2048, server="hgx-b300-eth-4plane"), marks=pytest.mark.slow),
], ids=["512-dgx-b200-roce", "2048-b300-4plane"])
def test_a_layout_chosen_by_counts_is_never_called_the_cheapest(monkeypatch, request_kw):
    # Above the ceiling the SU size and rail grouping are the fewest switches', a heuristic: the
    # SU note says so instead of calling the layout the cheapest, which only pricing can tell.
    from designer.model.topology import switch_choice

    request = dict(**request_kw, cost=COST)
    every = new_design_choice(CAT, "rail-optimized", **request)
    assert not every.layout_by_counts
    assert any(n.startswith("SU:") and "the cheapest layout" in n for n in every.notes)
    monkeypatch.setattr(switch_choice, "LAYOUTS_BY_COUNT_LINKS", 1)
    counted = new_design_choice(CAT, "rail-optimized", **request)
    assert counted.layout_by_counts
    su = [n for n in counted.notes if n.startswith("SU:")]
    assert su and "instead of" in su[0] and "chosen by counts, not priced" in su[0]
    assert not any("cheapest layout" in n or "cheapest grouping" in n for n in counted.notes)
