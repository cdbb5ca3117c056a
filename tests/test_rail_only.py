"""Rail-only fabrics: one switch (or one rail fabric) per rail, no spine; all-to-all over NVLink."""

import dataclasses

import pytest

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import load_design, save_design
from designer.model.performance.collectives import context_for, evaluate
from designer.model.performance.rail_only import alltoall_overhead, stages
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import load_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design, new_design_choice
from designer.model.topology.rail_only import nvlink_spans_server
from designer.model.topology.sizing import resolve

CAT = default_catalog()
COST = fabric_cost(CAT, load_prices(None))


def test_512_gpu_ndr_request_is_eight_qm9700_by_default_with_the_two_tier_alternative_priced(tmp_path, capsys):
    out = tmp_path / "d.json"
    assert main(["new", "--gpus", "512", "--technology", "ib-ndr", "--networks", "compute", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    design = load_design(out)
    m = derive(design, CAT).metrics
    assert design.fabric.template == "rail-only" and design.fabric.switch == "qm9700"
    assert m.switches_by_tier == {"leaf": 8, "spine": 0, "core": 0} and m.switches_total == 8
    assert m.links_total == 512       # one link per GPU NIC, nothing between switches
    # The note names the rule and prices the rail-optimized design beside it (24 QM9700 in two tiers).
    note = next(line for line in text.splitlines() if "template: rail-only" in line)
    assert "every rail's 64 ports fit one switch" in note and "NVLink" in note
    assert "24 switches" in note and "--tiers 2" in note
    optimized = new_design_choice(CAT, "rail-optimized", gpus=512, technology="ib-ndr", cost=COST)
    assert derive(optimized.design, CAT).metrics.switches_total == 24
    saved = optimized.chosen.cost - COST(design)[0]
    assert f"USD {saved:,.0f}" in note


def test_the_rule_is_the_datas_a_rail_that_outgrows_its_switch_keeps_the_spine(tmp_path, capsys):
    # 128 DGX H100 put 128 ports on each rail: more than a QM9700's 64, so NDR stays rail-optimized;
    # a 128-port SN5600 holds them, so the same cluster on RoCE 400G is rail-only.
    ndr, roce = tmp_path / "ndr.json", tmp_path / "roce.json"
    assert main(["new", "--nodes", "128", "--technology", "ib-ndr", "--networks", "compute", "-o", str(ndr)]) == 0
    assert main(["new", "--nodes", "128", "--technology", "roce-400g", "--networks", "compute",
                 "-o", str(roce)]) == 0
    capsys.readouterr()
    assert load_design(ndr).fabric.template == "rail-optimized"
    got = load_design(roce)
    assert got.fabric.template == "rail-only" and derive(got, CAT).metrics.switches_total == 8


def test_named_template_or_tier_count_keeps_rail_optimized_and_prices_rail_only(tmp_path, capsys):
    out = tmp_path / "d.json"
    assert main(["new", "--template", "rail-optimized", "--gpus", "512", "--technology", "ib-ndr",
                 "--networks", "compute", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert load_design(out).fabric.template == "rail-optimized"
    assert "rail-only alternative" in text and "8 switches" in text
    assert main(["new", "--gpus", "512", "--technology", "ib-ndr", "--tiers", "2", "--networks", "compute",
                 "-o", str(out), "--force"]) == 0
    assert load_design(out).fabric.template == "rail-optimized"


def test_nvlink_must_span_the_server_for_cross_rail_traffic():
    design = new_design(CAT, "rail-only", gpus=512, technology="ib-ndr")
    r = resolve(design, CAT)
    assert nvlink_spans_server(r)
    split = dataclasses.replace(r, server=dataclasses.replace(r.server, nvlink_domain_gpus=4))
    assert not nvlink_spans_server(split)


def test_rails_too_large_for_one_switch_become_two_tier_rail_fabrics_with_no_core():
    ro = derive(new_design(CAT, "rail-only", gpus=4096, technology="ib-ndr", switch="qm9700"), CAT).metrics
    ropt = derive(new_design(CAT, "rail-optimized", gpus=4096, technology="ib-ndr", switch="qm9700"), CAT).metrics
    # 512 servers per rail: 16 leaves of 32 down and 32 up, 8 spines, per rail; 8 rails.
    assert ro.tiers == 2 and ro.switches_by_tier == {"leaf": 128, "spine": 64, "core": 0}
    assert ropt.tiers == 3 and ro.switches_total < ropt.switches_total


def _ctx(gpus: int):
    d = derive(new_design(CAT, "rail-only", gpus=gpus, technology="ib-ndr", switch="qm9700"), CAT)
    return context_for(d)


def test_all_to_all_pays_the_nvlink_forward_and_other_collectives_do_not():
    ctx = _ctx(4096)
    assert ctx.rail_only
    spine_ctx = dataclasses.replace(ctx, rail_only=False)
    size = [1 << 30]
    for collective in ("allreduce", "allgather", "reducescatter"):
        assert evaluate(ctx, collective, size).time_us[0] == evaluate(spine_ctx, collective, size).time_us[0]
    ro, spine = evaluate(ctx, "alltoall", size).time_us[0], evaluate(spine_ctx, "alltoall", size).time_us[0]
    assert ro > spine
    # The bandwidth terms add: the overhead of a large message is the NVLink stage over the rail stage.
    best = min(stages(ctx), key=lambda s: s.latency_us + s.us_per_byte * size[0])
    assert best.us_per_byte == pytest.approx(best.nvlink_us_per_byte + best.network_us_per_byte)
    got_ro, got_spine, share = alltoall_overhead(ctx)
    assert got_ro == pytest.approx(ro) and got_spine == pytest.approx(spine)
    assert share == pytest.approx(ro / spine - 1)
    assert 0 < share < best.nvlink_us_per_byte / best.network_us_per_byte + 0.01


def test_collectives_show_the_overhead_next_to_the_fat_tree(tmp_path, capsys):
    ro, ropt = tmp_path / "ro.json", tmp_path / "ropt.json"
    assert main(["new", "--template", "rail-only", "--gpus", "4096", "--technology", "ib-ndr", "--networks",
                 "compute", "-o", str(ro)]) == 0
    assert main(["new", "--gpus", "4096", "--technology", "ib-ndr", "--networks", "compute", "-o", str(ropt)]) == 0
    capsys.readouterr()
    assert main(["collectives", str(ro), "--collective", "alltoall", "--size", "1GiB"]) == 0
    text = capsys.readouterr().out
    line = next(n for n in text.splitlines() if "Rail-only:" in n)
    _, _, share = alltoall_overhead(_ctx(4096))
    assert f"{share:+.1%}" in line and "heuristic" in line
    # Side by side with the rail-optimized fat-tree: the rail-only all-to-all is the slower one.
    assert main(["collectives", str(ro), "--collective", "alltoall", "--size", "1GiB", "--compare", str(ropt)]) == 0
    row = capsys.readouterr().out.splitlines()[-1].split()
    a_ms, b_ms = float(row[2]), float(row[7])
    assert a_ms > b_ms


def test_compare_adds_the_cheapest_topology_and_weighs_its_all_to_all(tmp_path, capsys):
    from designer.model.decisions.topology_counterpart import cheapest_topology

    base = new_design_choice(CAT, "rail-optimized", gpus=512, technology="ib-ndr", cost=COST).design
    made = cheapest_topology(base, CAT)
    assert made.design.fabric.template == "rail-only"
    assert derive(made.design, CAT).metrics.switches_total == 8
    out = tmp_path / "base.json"
    save_design(base, out)
    capsys.readouterr()
    assert main(["compare", str(out), "--counterpart", "cheapest-topology"]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("All-to-all 1 GiB time"))
    spine, rail_only = (float(x.replace(",", "")) for x in row.split()[5:7])
    assert rail_only > spine          # the rail-only counterpart pays its NVLink forward
    assert "other designs: rail-only in 1 tier (" in text


def test_speed_asymmetric_uplinks_take_a_quarter_of_the_cables_for_the_same_bisection(tmp_path, capsys):
    flat, asym = tmp_path / "flat.json", tmp_path / "asym.json"
    common = ["new", "--template", "fat-tree", "--gpus", "16384", "--server", "hgx-b300-eth-4plane", "--switch",
              "tomahawk6-102t", "--networks", "compute"]
    # 200G throughout is asked for: without --uplink-speed sizing prices the modes and takes 800G up
    assert main([*common, "--uplink-speed", "200G", "-o", str(flat)]) == 0
    assert main([*common, "--uplink-speed", "800G", "-o", str(asym)]) == 0
    note = capsys.readouterr().out
    a, b = derive(load_design(flat), CAT).metrics, derive(load_design(asym), CAT).metrics
    assert a.bisection_gbps == b.bisection_gbps
    assert b.links_by_tier["leaf-spine"] * 4 == a.links_by_tier["leaf-spine"]
    assert "64 x 800G up per leaf" in note and "16,384 leaf uplinks instead of 65,536" in note
    assert main([*common, "--uplink-speed", "400G", "-o", str(tmp_path / "x.json")]) == 1
    assert "no 400G ports for uplinks" in capsys.readouterr().err
