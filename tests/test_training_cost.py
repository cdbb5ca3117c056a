"""The verdict in dollars of training: cost per step and per token, win shares, every output.

The 256-GPU DGX H100 rail design is compared with InfiniBand, Spectrum-X, standard RoCE,
enhanced-ECMP RoCE and a scheduled (cell-spraying) fabric; each carries capex, step time, cost
per million tokens and win share in text, JSON and CSV (the Compare window and the report are
in tests/test_ui_compare_cost.py).
"""

import csv
import io
import json

import numpy as np
import pytest

from designer.catalog import default_catalog
from designer.io.compare_csv import compare_to_csv
from designer.io.project import load_design
from designer.model.decisions.comparison import HOURS_PER_YEAR, compare, energy_cost_usd
from designer.model.decisions.counterpart import ETHERNET_CHOICES, expand_counterparts, make_counterpart
from designer.model.physical.prices import default_prices
from tests.helpers import cli_run

CAT = default_catalog()
EXAMPLE = "examples/dgx-h100-superpod-1su.json"
ROWS = ("capex_usd", "step_ms", "cost_per_mtok_usd", "win_share_pct")


@pytest.fixture(scope="module")
def four():
    ib = load_design(EXAMPLE)
    designs = [ib] + [make_counterpart(ib, t, CAT).design for t in ETHERNET_CHOICES]
    return compare(designs)


def test_ethernet_counterparts_are_spectrum_x_standard_enhanced_ecmp_and_scheduled_roce():
    every = ["roce-400g", "roce-ecmp-400g", "roce-eecmp-400g", "roce-sched-400g"]
    assert expand_counterparts(["ethernet"]) == every
    assert expand_counterparts(["roce-400g", "ethernet"]) == every


def test_the_256_gpu_comparison_lists_the_five_fabrics_with_their_costs(four):
    assert four.technologies == ("ib-ndr", "roce-400g", "roce-ecmp-400g", "roce-eecmp-400g", "roce-sched-400g")
    for key in ROWS:
        values = four.row(key).values
        assert len(values) == 5 and all(v is not None for v in values), key
    # Draws won outright and draws ending in a tie make up every draw; ties are never split.
    assert sum(four.row("win_share_pct").values) + four.confidence.tied * 100 == pytest.approx(100.0)
    assert four.row("tie_share_pct").values[2] == pytest.approx(four.confidence.tie_share[2] * 100)


def test_cost_per_step_is_cluster_cost_per_hour_times_step_time(four):
    s = four.settings
    prices = default_prices()
    hours = s.years * HOURS_PER_YEAR
    for i, cost in enumerate(four.costs):
        capex, power_kw = four.row("capex_usd").values[i], four.row("power_kw").values[i]
        server = CAT.servers[cost.server_key]
        network = (capex + energy_cost_usd(power_kw * 1000, s)) / hours
        gpus = (cost.servers * prices.get(server.id).unit_price / hours
                + cost.servers * server.power_w / 1000 * s.pue * s.energy_usd_per_kwh)
        step_s = four.row("step_ms").values[i] / 1000
        assert cost.cost_per_step == pytest.approx((network + gpus) * step_s / 3600, rel=1e-6)
        assert cost.idle_gpu_per_step == pytest.approx(gpus * cost.network_ms / 3.6e6, rel=1e-6)
        tokens = four.steps[i].workload.global_batch_tokens
        assert cost.cost_per_mtok == pytest.approx(cost.cost_per_step / tokens * 1e6)
        assert cost.train_days == pytest.approx(s.token_budget / tokens * step_s / 86400)


def test_the_winner_costs_least_per_token_and_the_share_mark_does_not_decide(four):
    units = four.row("cost_per_mtok_usd").values
    win = min(range(len(units)), key=lambda i: units[i])
    assert four.recommendation.verdict.removeprefix("Close call: ").startswith(four.names[win])
    assert four.recommendation.family == four.families[win]
    assert any(r.startswith("context (rule of thumb") for r in four.recommendation.reasons)
    assert {"gpu_price", "load_balance_efficiency"} <= {f.assumption for f in four.recommendation.flips}


def test_win_shares_are_seeded_and_follow_the_draws(four):
    again = compare([load_design(EXAMPLE)] + [make_counterpart(load_design(EXAMPLE), t, CAT).design
                                              for t in ETHERNET_CHOICES])
    assert again.confidence.win_share == four.confidence.win_share
    conf = four.confidence
    assert conf.draws == 1000 and sum(conf.win_share) + conf.tied == pytest.approx(1.0)
    for counts, (p10, p50, p90) in zip(conf.hist_counts, conf.cost_per_mtok, strict=True):
        assert sum(counts) == conf.draws and p10 <= p50 <= p90
    # Spectrum-X runs the same step as the standard RoCE design here (nothing crosses the spines
    # in one SU); each vendor's discount is drawn on its own, so which switches cost less varies.
    assert np.isclose(four.costs[1].step_ms, four.costs[2].step_ms)


def test_text_json_and_csv_carry_the_costs(tmp_path):
    out = tmp_path / "c.csv"
    run = cli_run("compare", EXAMPLE, "--counterpart", "ethernet",
                  "--json", "--csv", str(out))
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [d["technology"] for d in data["designs"]] == ["ib-ndr", *ETHERNET_CHOICES]
    keys = {r["key"]: r for r in data["rows"]}
    for key in ROWS:
        assert all(v is not None for v in keys[key]["values"]), key
    assert len(data["training_cost"]) == 5 and data["confidence"]["draws"] == 1000
    assert data["assumptions"]["token_budget"] > 0
    ecmp = data["training_cost"][2]
    assert ecmp["load_balancing"] == "ecmp" and "static ECMP" in ecmp["flow_placement"]["text"]
    sched = data["training_cost"][4]
    assert sched["load_balancing"] == "spray" and "cell spraying" in sched["flow_placement"]["text"]
    table = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    labels = {row[1] for row in table if len(row) > 1}
    assert {"Cost per million tokens", "Capex (network)", "Training step time"} <= labels
    assert any(label.startswith("Cheapest in") for label in labels)
    text = cli_run("compare", EXAMPLE, "--counterpart",
                   "ethernet")
    assert text.returncode == 0, text.stderr
    assert "Cost per million tokens" in text.stdout and "Cheapest in" in text.stdout
    assert "trains the example job for the least" in text.stdout


def test_csv_rows_hold_the_model_values(four):
    table = list(csv.reader(io.StringIO(compare_to_csv(four))))
    row = next(r for r in table if r[1] == "Cost per million tokens")
    assert [float(x) for x in row[3:8]] == pytest.approx(list(four.row("cost_per_mtok_usd").values), rel=1e-9)


def test_designs_that_cost_the_same_in_every_draw_tie_and_the_tie_is_no_win(four):
    # In one SU nothing crosses the spines, so static and enhanced ECMP on the same switches cost
    # the same in every draw: where they are cheapest they tie, and neither is said to win.
    ecmp, eecmp = four.technologies.index("roce-ecmp-400g"), four.technologies.index("roce-eecmp-400g")
    assert four.costs[ecmp].cost_per_mtok == pytest.approx(four.costs[eecmp].cost_per_mtok, rel=1e-12)
    conf = four.confidence
    assert conf.win_share[ecmp] == 0 and conf.win_share[eecmp] == 0
    assert conf.tie_share[ecmp] == pytest.approx(conf.tie_share[eecmp]) and conf.tie_share[ecmp] > 0
    assert conf.tied >= conf.tie_share[ecmp]
    assert sum(conf.win_share) + conf.tied == pytest.approx(1.0)
    assert "tied for cheapest" in four.recommendation.verdict + " ".join(four.recommendation.reasons)


def test_one_vendors_infiniband_and_ethernet_switches_are_discounted_apart():
    """Quantum and Spectrum switches are separate product lines: their discounts are drawn apart,
    so at 256 GPUs, where InfiniBand and Spectrum-X cost within a percent per token, each is
    cheapest in some draws (with one discount for both, Spectrum-X won all 1,000)."""
    ib = load_design(EXAMPLE)
    two = compare([ib, make_counterpart(ib, "roce-400g", CAT).design])
    assert all(0 < w < 1 for w in two.confidence.win_share)
    from designer.model.decisions.training_cost import _vendor_costs

    class Item:
        def __init__(self, category, key, price):
            self.category, self.key, self.extended_price = category, key, price

    class Bom:
        items = [Item("Switches", "sw", 10.0), Item("NICs", "nic", 5.0), Item("Fiber", "f", 1.0)]

    ib_keys = set(_vendor_costs(Bom(), lambda key: "V", "infiniband"))
    eth_keys = set(_vendor_costs(Bom(), lambda key: "V", "ethernet"))
    assert ib_keys & eth_keys == {"NICs:V", "cables:V"}
    assert {"switches:V:infiniband", "switches:V:ethernet"} <= ib_keys ^ eth_keys
