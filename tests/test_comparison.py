"""InfiniBand vs Ethernet side by side: arithmetic, thresholds, CSV."""

import csv
import dataclasses
import json

import pytest

from designer.catalog import default_catalog
from designer.io.compare_csv import compare_to_csv, write_compare_csv
from designer.io.project import load_design, save_design
from designer.model.decisions.comparison import HOURS_PER_YEAR, CompareSettings, compare, energy_cost_usd
from designer.model.decisions.counterpart import make_counterpart
from designer.model.physical.bom import build_bom
from designer.model.topology.derive import derive
from tests.helpers import cli_run, superpod

CAT = default_catalog()


@pytest.fixture(scope="module")
def pair():
    ib = superpod(1)
    eth = make_counterpart(ib, "roce-400g", CAT).design
    return ib, eth


def _with_thresholds(design, **advice):
    perf = dataclasses.replace(design.performance, **advice)
    return dataclasses.replace(design, performance=perf)


def test_tco_arithmetic(pair):
    s = CompareSettings(years=4, energy_usd_per_kwh=0.2, pue=1.5)
    c = compare(list(pair), s)
    for i, design in enumerate(pair):
        bom = build_bom(derive(design, CAT), CAT)
        energy = bom.total_power_w / 1000 * 1.5 * HOURS_PER_YEAR * 4 * 0.2
        assert c.row("opex_usd").values[i] == pytest.approx(energy)
        assert c.row("tco_usd").values[i] == pytest.approx(bom.total_cost + energy)
        assert c.row("tco_per_gpu_usd").values[i] == pytest.approx((bom.total_cost + energy) / 256)
        assert c.row("capex_usd").values[i] == pytest.approx(bom.total_cost)
    assert energy_cost_usd(1000, CompareSettings(years=1, energy_usd_per_kwh=1, pue=1)) == HOURS_PER_YEAR


def test_deltas_are_against_the_baseline(pair):
    c = compare(list(pair))
    row = c.row("switches")
    assert row.values == (12.0, 6.0)   # two rails per SN5600 leaf: 4 leaves and 2 spines
    assert row.deltas[0] == 0 and row.deltas[1] == pytest.approx(-100 * 6 / 12)
    assert c.families == ("infiniband", "ethernet")


@pytest.fixture(scope="module")
def cheap_ethernet_pair():
    """512-GPU RoCE leaf-spine and its NDR counterpart: here Ethernet has the lower TCO."""
    eth = load_design("examples/roce-512-leaf-spine-sn5600.json")
    return eth, make_counterpart(eth, "ib-ndr", CAT).design


def test_small_cluster_goes_to_ethernet_when_it_is_cheaper_and_says_why(cheap_ethernet_pair):
    c = compare(list(cheap_ethernet_pair))
    tco = c.row("tco_usd").values
    assert tco[0] < tco[1]  # the premise of this test
    rec = c.recommendation
    assert rec.family == "ethernet" and rec.heuristic
    text = " ".join(rec.reasons)
    assert "512 GPUs" in text and "up-to-512 band" in text
    assert "TCO over 5 years" in text and "%" in text


def test_one_su_roce_counterpart_fills_its_leaves_and_goes_to_ethernet(pair):
    # Two rails of the SU share each radix-128 SN5600 leaf, so no leaf sits half empty and the
    # RoCE counterpart costs less than the NDR SU it mirrors: Ethernet's usual band holds.
    ib, eth = pair
    assert eth.fabric.rails_per_leaf == 2
    c = compare(list(pair))
    tco = c.row("tco_usd").values
    assert tco[1] < tco[0]
    rec = c.recommendation
    assert rec.family == "ethernet"
    assert any("usual default" in r for r in rec.reasons)


def test_gpu_and_share_thresholds_are_context_lines_that_no_longer_decide(cheap_ethernet_pair):
    # The verdict is the cost per token of the same training work; the literature's GPU-count
    # bands and communication-share mark only describe where the cluster sits.
    eth, ib = cheap_ethernet_pair
    base = compare([eth, ib]).recommendation
    share = compare([eth, ib]).row("scaleout_share").values[0] / 100
    for advice in (dict(advice_ethernet_max_gpus=256, advice_comm_share=min(0.99, share + 0.05)),
                   dict(advice_ethernet_max_gpus=256, advice_comm_share=max(0.0, share - 0.05)),
                   dict(advice_ethernet_max_gpus=64, advice_infiniband_min_gpus=128)):
        rec = compare([_with_thresholds(eth, **advice), ib]).recommendation
        assert rec.family == base.family and rec.verdict == base.verdict
    above = compare([_with_thresholds(eth, advice_ethernet_max_gpus=256, advice_comm_share=share / 2),
                     ib]).recommendation
    context = [r for r in above.reasons if r.startswith("context (rule of thumb, no longer deciding)")]
    assert any("256-2,048 band" in r for r in context)
    large = compare([_with_thresholds(eth, advice_ethernet_max_gpus=64, advice_infiniband_min_gpus=128), ib])
    assert any("above about 128" in r and r.startswith("context") for r in large.recommendation.reasons)


def test_same_family_designs_get_no_family_verdict(pair):
    eth = pair[1]
    eth800 = make_counterpart(eth, "roce-800g", CAT).design
    rec = compare([eth, eth800]).recommendation
    assert rec.family == "" and "add a counterpart" in rec.verdict


def test_different_gpu_counts_warn_instead_of_failing(pair):
    c = compare([superpod(1), superpod(2)])
    assert any("different GPU counts" in w for w in c.warnings)
    assert c.row("gpus").values == (256.0, 512.0)


def test_csv_round_trip(pair, tmp_path):
    ib, eth = pair
    odd = dataclasses.replace(ib, meta=dataclasses.replace(ib.meta, name='=cmd|"calc", new\nline'))
    c = compare([odd, eth])
    path = tmp_path / "c.csv"
    write_compare_csv(c, path)
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][3] == "'" + odd.meta.name  # neutralised, and the newline and quotes survive
    for row, csv_row in zip(c.rows, rows[1:], strict=False):
        assert csv_row[1] == row.label
        assert [float(x) for x in csv_row[3:5]] == pytest.approx(list(row.values), rel=1e-9)
    assert any(r[0] == "Recommendation (heuristic)" for r in rows)
    assert compare_to_csv(c) == path.read_bytes().decode("utf-8-sig")


def test_compare_command(pair, tmp_path):
    paths = []
    for i, design in enumerate(pair):
        paths.append(tmp_path / f"d{i}.json")
        save_design(design, paths[-1])
    run = cli_run("compare", *map(str, paths), "--json",
                  "--csv", str(tmp_path / "c.csv"))
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [d["technology"] for d in data["designs"]] == ["ib-ndr", "roce-400g"]
    assert data["recommendation"]["reasons"] and (tmp_path / "c.csv").exists()
    one = cli_run("compare", str(paths[0]))
    assert one.returncode == 2 and len(one.stderr.strip().splitlines()) == 1


def test_one_command_makes_the_counterpart_and_the_comparison():
    run = cli_run("compare",
                  "examples/dgx-h100-superpod-1su.json", "--counterpart", "roce-400g", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [d["technology"] for d in data["designs"]] == ["ib-ndr", "roce-400g"]
    assert any("256 GPUs" in r for r in data["recommendation"]["reasons"])
    too_many = cli_run("compare",
                       "examples/dgx-h100-superpod-1su.json", "--counterpart", "roce-400g",
                       "--counterpart", "roce-800g", "--counterpart", "ib-xdr", "--counterpart", "ib-ndr",
                       "--counterpart", "roce-ecmp-400g")
    assert too_many.returncode == 2 and "2 to 5 designs" in too_many.stderr
