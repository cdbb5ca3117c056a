"""The deep-buffer scheduled fabric (Jericho3-AI class leaves, Ramon3 class fabric elements) as a
technology, and the verdict in dollars of training on the newer GPU servers.

The scheduled fabric builds, sizes and prices with its leaves sending their uplinks to the fabric
elements; the 256-GPU DGX H100 rail design's Ethernet counterparts list it, and its load balance
is computed as cell spraying on the design's uplinks.
"""

import dataclasses

import pytest

from designer.catalog import default_catalog
from designer.model.decisions.comparison import compare
from designer.model.decisions.counterpart import ETHERNET_CHOICES, make_counterpart
from designer.model.decisions.training_cost import design_placement
from designer.model.intent.design import FabricDesign
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import default_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError, resolve
from tests.helpers import cli_run

CAT = default_catalog()
SCHEDULED = "roce-sched-400g"


def _rail(server: str, technology: str, nodes: int) -> FabricDesign:
    return new_design(CAT, "rail-optimized", nodes=nodes, server=server, technology=technology)


@pytest.fixture(scope="module")
def ib256() -> FabricDesign:
    return _rail("dgx-h100", "ib-ndr", 32)


def test_the_scheduled_fabric_is_a_sourced_ethernet_technology_with_its_own_boxes():
    tech = CAT.technology(SCHEDULED)
    assert tech.family == "ethernet" and tech.placement == "spray"
    leaf = CAT.switch(tech.default_switch)
    spine = CAT.switch(leaf.fabric_switch)
    assert "Jericho3-AI" in leaf.name and "Ramon3" in spine.name
    assert leaf.load_balancing == ("spray",) and spine.load_balancing == ("spray",)
    # The figures no datasheet gives are estimates with a basis; the sourced capacity is not.
    assert "port_modes" in leaf.estimates and "port_modes" not in spine.estimates
    assert spine.capacity_gbps == 51_200
    for entry in (tech, leaf, spine):
        assert entry.source and entry.estimate_basis
    # Higher static latency than the shallow-buffer Ethernet fabrics beside it.
    assert tech.switch_latency_ns > CAT.technology("roce-ecmp-400g").switch_latency_ns
    prices = default_prices()
    assert prices.get(leaf.id) is not None and prices.get(spine.id) is not None


def test_it_builds_sizes_and_prices_with_fabric_elements_as_spines(ib256):
    made = make_counterpart(ib256, SCHEDULED, CAT).design
    r = resolve(made, CAT)
    assert r.leaf_switch.id == "jericho3-ai-leaf" and r.spine_switch.id == "ramon3-fabric"
    d = derive(made, CAT)
    assert d.metrics.gpus == 256
    plan = d.plan
    assert plan.leaves > 0 and plan.spines > 0
    bom = build_bom(d, CAT)
    names = {item.description.split(" (")[0]: item.quantity for item in bom.items if item.category == "Switches"}
    assert names == {"Jericho3-AI class scheduled-fabric leaf": plan.leaves * r.planes,
                     "Ramon3 class fabric element": plan.spines * r.planes}
    assert bom.total_cost > 0


def _with_tier(design: FabricDesign, tier: str, switch: str) -> FabricDesign:
    spec = dataclasses.replace(design.fabric.tier(tier), switch=switch)
    return dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, **{tier: spec}))


@pytest.mark.parametrize(("tier", "switch"), [("spine", "tomahawk5-51t"), ("core", "tomahawk5-51t"),
                                              ("spine", "qm9700")])
def test_a_scheduled_leaf_refuses_a_spine_or_core_other_than_its_fabric_element(ib256, tier, switch):
    made = make_counterpart(ib256, SCHEDULED, CAT).design
    with pytest.raises(SizingError) as refused:
        resolve(_with_tier(made, tier, switch), CAT)
    message = str(refused.value)
    assert "\n" not in message and CAT.switch(switch).name in message and "Ramon3 class fabric element" in message
    # Its own fabric element, named, is the same fabric as leaving the tier to the leaf.
    named = _with_tier(made, "spine", "ramon3-fabric")
    assert resolve(named, CAT).spine_switch.id == "ramon3-fabric"
    assert derive(named, CAT).metrics.switches_total == derive(made, CAT).metrics.switches_total


def test_a_fabric_element_refuses_to_sit_above_a_leaf_that_is_not_its_own(ib256):
    ecmp = make_counterpart(ib256, "roce-ecmp-400g", CAT).design
    with pytest.raises(SizingError, match="takes cells only from the leaf boxes"):
        resolve(_with_tier(ecmp, "spine", "ramon3-fabric"), CAT)


def test_loading_a_project_with_a_tomahawk_spine_on_scheduled_leaves_is_one_line(tmp_path, ib256):

    from designer.io.project import save_design

    path = tmp_path / "sched.json"
    save_design(_with_tier(make_counterpart(ib256, SCHEDULED, CAT).design, "spine", "tomahawk5-51t"), path)
    for command in (["metrics", str(path)], ["compare", str(path), "--counterpart", "ib-ndr"]):
        run = cli_run(*command)
        lines = run.stderr.strip().splitlines()
        assert run.returncode != 0 and len(lines) == 1, run.stderr
        assert "Tomahawk 5" in lines[0] and "fabric element" in lines[0] and "Traceback" not in run.stderr


def test_the_256_gpu_rail_design_lists_it_among_the_ethernet_counterparts(ib256):
    assert SCHEDULED in ETHERNET_CHOICES
    made = [make_counterpart(ib256, t, CAT).design for t in ETHERNET_CHOICES]
    assert [m.fabric.technology for m in made] == list(ETHERNET_CHOICES)
    # The servers keep their GPUs (and their own NICs).
    assert all(m.cluster.server == ib256.cluster.server for m in made)


def test_its_load_balance_comes_from_spraying_on_the_design_uplinks():
    # 1,024 GPUs on two tiers: traffic crosses the fabric elements, and spraying keeps every
    # uplink at the mean where static ECMP on the same servers loses to collisions.
    ib = _rail("dgx-h100", "ib-ndr", 128)
    sched = derive(make_counterpart(ib, SCHEDULED, CAT).design, CAT)
    ecmp = derive(make_counterpart(ib, "roce-ecmp-400g", CAT).design, CAT)
    spray, hashed = design_placement(sched), design_placement(ecmp)
    assert spray is not None and hashed is not None
    assert spray.mode == "spray" and spray.expected == 1.0 and spray.p10 == 1.0
    assert "cell spraying" in spray.text() and spray.uplinks == sched.plan.leaf_up
    assert hashed.mode == "ecmp" and hashed.expected < 0.9


@pytest.mark.parametrize("server", ["gb300-nvl72-tray", "mi355x-8gpu"])
def test_compare_on_newer_servers_gives_a_verdict_in_dollars(server):
    tech = "ib-xdr" if server.startswith("gb300") else "roce-ecmp-400g"
    other = "roce-sched-400g" if tech == "ib-xdr" else "roce-400g"
    base = _rail(server, tech, 72 if server.startswith("gb300") else 32)
    twin = make_counterpart(base, other, CAT).design
    result = compare([base, twin])
    assert len(result.costs) == 2, result.recommendation.reasons
    assert all(c.cost_per_mtok is not None and c.cost_per_mtok > 0 for c in result.costs)
    assert "per million tokens" in result.recommendation.verdict
    assert result.confidence is not None and sum(result.confidence.win_share) == pytest.approx(1.0)
    assert not any(r.startswith("no verdict in dollars") for r in result.recommendation.reasons)


def test_every_gpu_server_in_the_catalog_has_a_price_with_its_basis():
    prices = default_prices()
    for server in CAT.servers.values():
        if server.id.startswith("generic-1gpu"):
            continue
        price = prices.get(server.id)
        assert price is not None, server.id
        assert price.unit_price > 0 and price.basis, server.id


def test_the_advice_sets_a_design_beside_the_compared_one_of_the_other_family(ib256, monkeypatch):
    # With both families in the comparison, the rule of thumb's context reads the compared
    # design of the other family instead of sizing a counterpart afresh (16K-GPU compares
    # spent most of their time there).
    import designer.model.decisions.advice as advice

    ecmp = make_counterpart(ib256, "roce-ecmp-400g", CAT).design

    def refuse(*_args, **_kwargs):
        raise AssertionError("the advice sized a counterpart although one was compared")

    monkeypatch.setattr(advice, "make_counterpart", refuse)
    result = compare([ib256, ecmp])
    context = [r for r in result.recommendation.reasons if r.startswith("context (rule of thumb")]
    assert any("merchant switches, static ECMP" in r for r in context)


def test_a_fabric_element_cannot_be_the_leaf_and_new_says_so_in_one_line(tmp_path):

    out = tmp_path / "x.json"
    run = cli_run("new", "--nodes", "32", "--technology",
                  SCHEDULED, "--switch", "ramon3-fabric", "-o", str(out))
    assert run.returncode != 0 and not out.exists()
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "takes no servers" in lines[0] and "Traceback" not in run.stderr


def test_switching_technology_takes_switches_that_find_paths_its_way():
    # A Tomahawk box runs the speeds but does not spray cells, and a Jericho3-AI leaf does
    # nothing else: changing the technology changes the switch (and a rail grouping the new
    # leaf cannot hold goes back to one rail per leaf).
    from designer.model.topology.edits import with_technology

    ecmp = _rail("dgx-h100", "roce-ecmp-400g", 32)
    assert ecmp.fabric.switch == "tomahawk5-51t" and ecmp.fabric.rails_per_leaf == 2
    sched = with_technology(ecmp, CAT, SCHEDULED)
    assert sched.fabric.switch == "jericho3-ai-leaf" and not sched.fabric.rails_per_leaf
    assert derive(sched, CAT).metrics.switches_by_model.get("ramon3-fabric", 0) > 0
    back = with_technology(sched, CAT, "roce-ecmp-400g")
    assert back.fabric.switch == "tomahawk5-51t"
    # Hashing technologies of one family keep a switch that offers both hashes.
    assert with_technology(ecmp, CAT, "roce-eecmp-400g").fabric.switch == "tomahawk5-51t"
