"""How often will it fail: counts x sourced rates, and which failures stop a job."""

import json
from pathlib import Path

import pytest

from designer.io.project import load_design
from designer.model.decisions.interruptions import RateTableError, interruptions, load_rates
from tests.helpers import cli_run, derived

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_every_rate_has_a_source_or_says_none_was_published():
    rates = {r.id: r for r in load_rates()}
    assert {"link", "network", "nic"} <= rates.keys()
    for r in rates.values():
        assert r.measured and r.extrapolated
        assert bool(r.source) == (r.per_unit_day is not None)
    # The published figures, as the table gives them.
    assert rates["link"].per_unit_day == pytest.approx(0.00057 / 30)
    assert rates["network"].per_unit_day == pytest.approx(35 / (16384 * 54))
    assert rates["nic"].per_unit_day == pytest.approx(7 / (16384 * 54))
    assert rates["transceiver"].per_unit_day == pytest.approx(0.00057 / 2 * 12 / 365)


def test_expected_failures_scale_with_the_counts():
    d = derived(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"))
    report = interruptions(d)
    by_id = {e.rate.id: e for e in report.expected}
    assert report.counts["links"] == 2048 and report.counts["gpus"] == 1024
    assert by_id["link"].per_day == pytest.approx(2048 * 0.00057 / 30)
    assert by_id["link"].per_month == pytest.approx(2048 * 0.00057)
    # Llama 3: 35 network interruptions in 54 days on 16,384 GPUs, scaled to 1,024 GPUs.
    assert by_id["network"].per_day == pytest.approx(35 / 54 * 1024 / 16384)
    # Modules: Alibaba's NIC-ToR link rate put on one of the link's two modules, per module-year.
    assert by_id["transceiver"].per_day == pytest.approx(report.counts["transceivers"] * 0.00057 / 2 * 12 / 365)
    assert by_id["flap"].per_day is None
    assert any("flap" in n for n in report.notes)


def test_single_plane_failures_stop_a_job_where_two_planes_do_not():
    d = derived(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"))
    report = interruptions(d)
    mine, other = report.design_share, report.other_share
    assert mine.planes == 1 and mine.stops_by_kind["node-leaf"] and not mine.stops_by_kind["leaf-spine"]
    # Links of both tiers fail at one rate: half the links are NIC-leaf, plus every NIC failure.
    link, nic = 2048 * 0.00057 / 30, 1024 * 7 / (16384 * 54)
    assert mine.share == pytest.approx((1024 * 0.00057 / 30 + nic) / (link + nic))
    assert other.planes == 2 and other.share == 0.0


def test_a_bad_rate_table_is_one_clear_error(tmp_path):
    bad = tmp_path / "rates.toml"
    bad.write_text('[[rate]]\nid = "x"\napplies_to = "links"\nper = "fortnight"\nvalue = 1\n')
    with pytest.raises(RateTableError, match="unknown kind"):
        load_rates(bad)
    # In this process (tests.helpers.cli_run): tests/test_cli_startup.py starts `whatif` as a program.
    res = cli_run("whatif", str(EXAMPLES / "dgx-h100-superpod-1su.json"), "--interruptions", "--rates", str(bad))
    assert res.returncode == 1 and res.stderr.count("\n") == 1


def test_interruptions_command_json():
    res = cli_run("whatif", str(EXAMPLES / "dgx-h100-superpod-1su.json"), "--interruptions", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert all(e["estimated"] for e in data["expected"])
    assert data["stop_share"]["planes"] == 1 and data["stop_share_other_planes"]["planes"] == 2


def test_co_packaged_optics_cut_the_modules_and_the_expected_failures():
    """A 16,384-GPU XDR fabric on Q3450-LD against Q3400-RA: no switch-side modules, less
    network power, fewer expected link and optics failures a month; links stay the same."""
    from designer.catalog import default_catalog
    from designer.model.decisions.counterpart import optics_twin
    from designer.model.decisions.interruptions import optics_failures_per_month
    from designer.model.physical.bom import build_bom
    from designer.model.topology.presets import new_design

    catalog = default_catalog()
    plug = new_design(catalog, "rail-optimized", gpus=16384, server="dgx-b300-xdr", switch="q3400")
    cpo = optics_twin(plug, catalog).design
    assert cpo.fabric.switch == "q3450-ld"
    rates = load_rates()
    b_plug, b_cpo = build_bom(derived(plug)), build_bom(derived(cpo))
    assert b_plug.counts["transceivers"]["switch_side"] > 0 and b_cpo.counts["transceivers"]["switch_side"] == 0
    assert b_cpo.counts["transceivers"]["server_side"] == b_plug.counts["transceivers"]["server_side"]
    assert b_cpo.counts["links_total"] == b_plug.counts["links_total"]
    assert not [i for i in b_cpo.items if i.category == "Transceivers" and "switch side" in i.description]
    assert b_cpo.total_power_w < b_plug.total_power_w
    f_plug = optics_failures_per_month(b_plug.counts["links_total"], b_plug.optics_count, rates)
    f_cpo = optics_failures_per_month(b_cpo.counts["links_total"], b_cpo.optics_count, rates)
    removed = b_plug.optics_count - b_cpo.optics_count
    assert f_plug - f_cpo == pytest.approx(removed * 0.00057 / 2 * 12 / 365 * 30)
