"""Two tiers at 131,072 endpoints per plane on a 102.4T switch in 512 x 200G mode, and a
million GPUs through the closed-form commands; the device graph and per-link exports refused."""

import json

import pytest

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import load_design
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import default_prices
from designer.model.topology.bounds import GRAPH_MAX_LINKS, FabricTooLargeError
from designer.model.topology.derive import derive
from designer.model.topology.presets import SizingError, new_design_choice

CAT = default_catalog()
COST = fabric_cost(CAT, default_prices())
FOUR_PLANE = ["--template", "fat-tree", "--server", "hgx-b300-eth-4plane", "--switch", "tomahawk6-102t",
              "--networks", "compute"]


def test_tomahawk6_offers_its_512_x_200g_mode():
    sw = CAT.switch("tomahawk6-102t")
    assert {(m.count, m.gbps) for m in sw.port_modes} >= {(64, 1600), (128, 800), (512, 200)}
    assert all(m.count * m.gbps == 102_400 for m in sw.port_modes)


def test_131072_gpus_in_two_tiers_of_102t_switches_by_hand_count(tmp_path, capsys):
    out = tmp_path / "two.json"
    assert main(["new", "--gpus", "131072", *FOUR_PLANE, "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "2 tiers, 3,072 switches" in said
    assert "port mode: Tomahawk 6 class 102.4T switch in 512 x 200G mode" in said and "broken out to 8 ports" in said
    choice = new_design_choice(CAT, "fat-tree", gpus=131072, server="hgx-b300-eth-4plane", switch="tomahawk6-102t")
    assert choice.chosen.mode == "Tomahawk 6 class 102.4T switch in 512 x 200G mode"
    # Above 500,000 links (1,048,576 here) every mode is priced as below: the cheapest is taken.
    assert "512 x 200G is the cheapest fabric (3,072 switches, USD" in said
    priced = new_design_choice(CAT, "fat-tree", gpus=131072, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                               cost=COST)
    assert len(priced.options) == 3 and all(o.cost is not None for o in priced.options)
    assert priced.chosen is min(priced.options, key=lambda o: o.cost)
    assert priced.chosen.modes_text == "512 x 200G" and priced.design == choice.design
    assert main(["metrics", str(out), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    # 16,384 servers x 8 ConnectX-8 = 131,072 endpoints per plane, 4 planes. A leaf: 256 down,
    # 256 up at 200G; 512 leaves per plane; 256 spines of 512 down take their 131,072 uplinks.
    assert (m["tiers"], m["planes"], m["endpoints"]) == (2, 4, 4 * 131_072)
    assert m["switches"]["by_tier"] == {"leaf": 4 * 512, "spine": 4 * 256, "core": 0}
    assert m["links"]["by_tier"] == {"node-leaf": 4 * 131_072, "leaf-spine": 4 * 131_072}
    assert main(["bom", str(out), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)["counts"]
    # Every one of the 64 cages of every switch holds one 1.6T module broken out 8 x 200G; every
    # ConnectX-8 cage one 800G DR4 module broken out 4 x 200G, one lane per plane.
    assert counts["transceivers"] == {"switch_side": 3_072 * 64, "server_side": 16_384 * 8,
                                      "total": 3_072 * 64 + 16_384 * 8}
    assert counts["media_by_tier"] == {"node-leaf": {"smf": 524_288}, "leaf-spine": {"smf": 524_288}}


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    out = tmp_path_factory.mktemp("m") / "million.json"
    assert main(["new", "--gpus", "1048576", *FOUR_PLANE, "-o", str(out)]) == 0
    return out


def test_a_million_gpus_run_the_closed_form_metrics(million, capsys):
    capsys.readouterr()
    assert main(["metrics", str(million), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    # The mode `new` prices cheapest: 200G to the servers, 800G between switches in the same
    # cages. Per plane: 1,048,576 endpoints on 4,096 leaves (256 x 200G down, 64 x 800G up), 4,096
    # spines in 64 pods of 64 (64 x 800G down, 64 up), 2,048 cores of 128 x 800G.
    assert load_design(million).fabric.uplink_gbps == 800
    assert m["gpus"] == 1_048_576 and m["tiers"] == 3
    assert m["switches"]["by_tier"] == {"leaf": 4 * 4096, "spine": 4 * 4096, "core": 4 * 2048}
    assert m["links"]["by_tier"] == {"node-leaf": 4 * 1_048_576, "leaf-spine": 4 * 262_144,
                                     "spine-core": 4 * 262_144}


def test_the_device_graph_and_per_link_exports_are_refused_in_one_line_naming_what_works(million, tmp_path,
                                                                                           capsys):
    derived = derive(load_design(million), CAT)
    with pytest.raises(FabricTooLargeError) as refused:
        _ = derived.graph
    text = str(refused.value)
    assert f"{GRAPH_MAX_LINKS:,}" in text and "6,291,456" in text
    for command in ("metrics", "bom", "collectives", "compare", "report", "slurm-tree"):
        assert command in text
    capsys.readouterr()
    target = tmp_path / "x.graphml"
    assert main(["export", str(million), "--format", "graphml", "-o", str(target)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "closed form" in err[0] and not target.exists()


def test_the_window_shows_a_million_gpus_metrics_before_their_bill(million):
    # The window's compute job: metrics (and the collective estimate) first, the BOM of 6.3
    # million links as a second job, so the metrics cards fill without waiting for it.
    from designer.ui.services.compute_job import compute

    first = compute(load_design(million), CAT)
    assert first.metrics is not None and first.metrics.gpus == 1_048_576 and first.metrics.switches_total == 40_960
    assert first.bom is None and first.bom_pending and first.allreduce is not None


def test_sweep_takes_uplink_speed_and_rail_only_as_dimensions():
    from designer.model.decisions.design_space import SweepSpec, run_sweep

    spec = SweepSpec(gpus=16384, server="hgx-b300-eth-4plane", templates=("fat-tree",), technologies=("roce-400g",),
                     switches=("tomahawk6-102t",), uplink_speeds=(None, 800))
    assert spec.count == 2 and [c["uplink_speed"] for c in spec.choices()] == [None, 800]
    flat, fast = run_sweep(spec, workers=1).points
    assert flat.ok and fast.ok and "800G uplinks" in fast.name
    assert fast.bisection_tbps == flat.bisection_tbps and fast.switches == flat.switches
    rail = SweepSpec(gpus=512, templates=("rail-optimized", "rail-only"), technologies=("ib-ndr",))
    optimized, rail_only = run_sweep(rail, workers=1).points
    assert (optimized.switches, rail_only.switches) == (24, 8)
    assert rail_only.capex_usd < optimized.capex_usd


@pytest.mark.parametrize("server", sorted(s.id for s in CAT.servers.values() if s.fabric_families))
def test_without_a_switch_a_server_is_cabled_to_a_switch_of_its_own_family(server):
    # A 200G multi-plane Ethernet server once fell through to the only 200G technology,
    # InfiniBand HDR, and was refused for a QM8700 it never asked for.
    srv = CAT.server(server)
    others = [sw.name for sw in CAT.switches.values() if sw.family not in srv.fabric_families]
    try:
        design = new_design_choice(CAT, "fat-tree", nodes=4, server=server).design
    except SizingError as exc:   # a refusal may happen, but never over another family's switch
        assert not [name for name in others if name in str(exc)], str(exc)
        return
    tech = CAT.technology(design.fabric.technology)
    assert tech.family in srv.fabric_families
    assert CAT.switch(design.fabric.switch).family == tech.family


def test_a_four_plane_200g_ethernet_server_builds_without_naming_a_switch():
    design = new_design_choice(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane").design
    assert CAT.technology(design.fabric.technology).family == "ethernet"
    assert derive(design, CAT).metrics.gpus == 4096
