"""The verdict's break-evens: at what value of each assumption the other fabric would win."""

import dataclasses
import json

import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.comparison import HOURS_PER_YEAR, CompareSettings, compare, energy_cost_usd
from designer.model.decisions.counterpart import make_counterpart
from designer.model.decisions.flips import decide, price_flips, share_flip
from tests.helpers import cli_run, examples, superpod

CAT = default_catalog()
KEYS = {"assumption", "current", "flips_at", "unit"}


def _perf(design, **perf):
    return dataclasses.replace(design, performance=dataclasses.replace(design.performance, **perf))


def _flip(c, name):
    return next(f for f in c.recommendation.flips if f.assumption == name)


@pytest.fixture(scope="module")
def su1():
    ib = superpod(1)
    return ib, make_counterpart(ib, "roce-400g", CAT).design


@pytest.fixture(scope="module")
def roce512():
    eth = load_design("examples/roce-512-leaf-spine-sn5600.json")
    return eth, make_counterpart(eth, "ib-ndr", CAT).design


def test_decide_is_the_literature_framework():
    assert decide("ethernet", True, 0.9, 0.3) == "ethernet"
    assert decide("ethernet", False, 0.0, 0.3) == "infiniband"
    assert decide("middle", True, 0.2, 0.3) == "ethernet"
    assert decide("middle", True, 0.4, 0.3) == "infiniband"
    assert decide("infiniband", True, 0.0, 0.3) == "infiniband"


@pytest.mark.parametrize("capex_e, capex_i, energy_e, tco_i", [(1.2e6, 1.0e6, 0.1e6, 1.15e6),
                                                                (0.8e6, 1.0e6, 0.1e6, 1.15e6)])
def test_price_break_even_is_where_the_tco_is_equal(capex_e, capex_i, energy_e, tco_i):
    family = decide("ethernet", capex_e + energy_e <= tco_i, None, 0.3)
    ratio, diff = price_flips("ethernet", family, None, 0.3, capex_e, capex_i, energy_e, tco_i, 5)
    assert ratio.current == pytest.approx(capex_e / capex_i)
    assert ratio.flips_at * capex_i + energy_e == pytest.approx(tco_i)
    assert diff.flips_at == pytest.approx(ratio.flips_at * capex_i - capex_i)
    # Just past the break-even, the other fabric wins.
    past = ratio.flips_at * (0.99 if family == "infiniband" else 1.01)
    assert decide("ethernet", past * capex_i + energy_e <= tco_i, None, 0.3) != family


def test_share_flip_is_null_where_the_share_does_not_decide():
    assert share_flip("ethernet", "ethernet", True, 0.5, 0.3).flips_at is None
    flip = share_flip("middle", "ethernet", True, 0.1, 0.3)
    assert flip.flips_at == pytest.approx(30.0) and flip.current == pytest.approx(10.0)


def test_compare_json_lists_the_flips_with_price_and_share(su1, tmp_path):
    from designer.io.project import save_design
    path = tmp_path / "ib.json"
    save_design(su1[0], path)
    out = cli_run("compare", str(path), "--counterpart",
                  "roce-400g", "--json")
    assert out.returncode == 0, out.stderr
    flips = json.loads(out.stdout)["recommendation"]["flips"]
    names = [f["assumption"] for f in flips]
    assert {"price_ratio", "comm_share", "sharp", "roce_efficiency"} <= set(names)
    for f in flips:
        assert set(f) >= KEYS
    price = flips[names.index("price_ratio")]
    assert price["unit"] == "x" and price["current"] > 0


def _unit(c, i):
    cost = c.costs[i]
    return cost.cost_per_mtok if cost.cost_per_mtok is not None else cost.cost_per_step


def test_price_flip_is_where_the_costs_per_token_are_equal(su1):
    c = compare(list(su1))
    s = c.settings
    capex = c.row("capex_usd").values
    power = c.row("power_kw").values
    flip = _flip(c, "price_ratio")
    assert flip.current == pytest.approx(capex[1] / capex[0])
    assert flip.flips_at is not None
    # Ethernet's network capex at the break-even: its cost per token equals InfiniBand's.
    e = c.costs[1]
    hours = s.years * HOURS_PER_YEAR
    net_hour = (flip.flips_at * capex[0] + energy_cost_usd(power[1] * 1000, s)) / hours
    at = (net_hour + e.gpu_usd_per_hour) * e.step_ms / 3.6e6 / e.tokens_per_step * 1e6
    assert at == pytest.approx(_unit(c, 0), rel=1e-6)
    # The verdict now and beyond the break-even differ.
    assert (flip.current > flip.flips_at) == (c.recommendation.family == "infiniband")


def test_share_mark_is_a_context_line_with_no_break_even(roce512):
    eth, ib = roce512
    c = compare([_perf(eth, advice_ethernet_max_gpus=256), ib])
    flip = _flip(c, "comm_share")
    assert flip.flips_at is None and "context line" in flip.note
    share = c.row("scaleout_share").values[0] / 100
    families = {compare([_perf(eth, advice_ethernet_max_gpus=256, advice_comm_share=m), ib]).recommendation.family
                for m in (max(0.0, share - 0.02), min(1.0, share + 0.02))}
    assert families == {c.recommendation.family}


def test_roce_efficiency_break_even_really_flips_the_verdict(roce512):
    eth, ib = roce512
    c = compare([eth, ib])
    flip = _flip(c, "roce_efficiency")
    assert c.recommendation.family == "ethernet"
    assert flip.flips_at is not None and flip.flips_at < flip.current
    above = compare([_perf(eth, protocol_efficiency=min(1.0, flip.flips_at + 0.01)), ib])
    below = compare([_perf(eth, protocol_efficiency=flip.flips_at - 0.01), ib])
    assert above.recommendation.family == "ethernet" and below.recommendation.family == "infiniband"


def test_gpu_price_break_even_really_flips_the_verdict(roce512):
    eth, ib = roce512
    c = compare([eth, ib])
    flip = _flip(c, "gpu_price")
    assert flip.current == 1.0 and flip.flips_at is not None
    # Scaling every GPU server price by the break-even makes the two costs per token equal.
    def unit_at(cost, m):
        hour = cost.network_usd_per_hour + cost.gpu_usd_per_hour + (m - 1) * cost.gpu_capex_usd_per_hour
        return hour * cost.step_ms / 3.6e6 / cost.tokens_per_step * 1e6
    assert unit_at(c.costs[0], flip.flips_at) == pytest.approx(unit_at(c.costs[1], flip.flips_at), rel=1e-6)
    assert (unit_at(c.costs[0], flip.flips_at * 1.05) < unit_at(c.costs[1], flip.flips_at * 1.05)) != \
        (unit_at(c.costs[0], flip.flips_at * 0.95) < unit_at(c.costs[1], flip.flips_at * 0.95))


def test_sharp_flip_reports_what_sharp_changes(su1):
    # Data-parallel all-reduce across the fabric: SHARP shortens InfiniBand's step.
    c = compare(list(su1), CompareSettings(workload=None, params=7e9, compute_ms=1000))
    flip = _flip(c, "sharp")
    assert flip.current is False
    assert "SHARP on moves InfiniBand's cost" in flip.note
    # The default workload's network traffic is reduce-scatter / all-gather: SHARP leaves it.
    assert "leaves the winner" in _flip(compare(list(su1)), "sharp").note


def test_text_output_says_when_it_would_flip(su1):
    from designer.cli.cmd_compare import render_text
    text = render_text(compare(list(su1), CompareSettings()))
    assert "When it would flip" in text and "network capex ratio" in text


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=examples(60), deadline=None)
@given(st.floats(1e4, 1e8), st.floats(1e4, 1e8), st.floats(0, 1e7), st.floats(0, 1e7),
       st.sampled_from(["ethernet", "middle", "infiniband"]), st.floats(0, 1))
def test_a_price_break_even_always_sits_where_the_verdict_changes(capex_e, capex_i, energy_e, energy_i, band, share):
    tco_i = capex_i + energy_i
    family = decide(band, capex_e + energy_e <= tco_i, share, 0.3)
    ratio, _ = price_flips(band, family, share, 0.3, capex_e, capex_i, energy_e, tco_i, 5)
    if ratio.flips_at is None:
        # No break-even: either the price does not decide, or none in range would do it.
        at_extremes = {decide(band, r * capex_i + energy_e <= tco_i, share, 0.3) for r in (1e-9, 10.0)}
        assert at_extremes == {family} or not 0 < (tco_i - energy_e) / capex_i <= 10
        return
    below = decide(band, ratio.flips_at * 0.999 * capex_i + energy_e <= tco_i, share, 0.3)
    above = decide(band, ratio.flips_at * 1.001 * capex_i + energy_e <= tco_i, share, 0.3)
    assert below != above and family in (below, above)


def test_csv_carries_the_break_evens(su1):
    from designer.io.compare_csv import compare_rows
    rows = compare_rows(compare(list(su1)))
    flips = [r for r in rows if r[0] == "When it would flip"]
    assert len(flips) == len(compare(list(su1)).recommendation.flips) and "network capex ratio" in flips[0][1]


@pytest.mark.parametrize("example", ["examples/dgx-h100-superpod-1su.json", "examples/dgx-h100-superpod-4su.json"])
def test_superpod_examples_against_roce_are_sharp_free_and_run_a_job_that_fits(example):
    ib = load_design(example)
    c = compare([ib, make_counterpart(ib, "roce-400g", CAT).design])
    assert not ib.performance.sharp
    text = " ".join(c.recommendation.reasons)
    assert "uses SHARP" not in text and "nvls+sharp" not in text
    assert all(s is not None and s.memory.fits and s.workload.id == "dense-70b" for s in c.steps)
    names = {f.assumption for f in c.recommendation.flips}
    assert {"price_ratio", "comm_share"} <= names
